// The GPU sparsity counts equal the CPU reference exactly on small random
// tensors (odd shapes: partial warp vectors, 4-groups and tiles) with
// uniform, channel and run32 zeros. Needs a GPU (tagged "gpu").
#include <random>
#include <vector>

#include "experiments/sparsity/device_stats.h"
#include "experiments/workloads/inputs/masks.h"
#include "gtest/gtest.h"
#include "probes/device_buffer.h"
#include "probes/sparsity/stats.h"

namespace dissect::sparsity {
namespace {

TEST(DeviceStatsGpuTest, MatchesCpuReference) {
  DeviceSparsityCounter counter;
  std::mt19937_64 rng(5);
  std::normal_distribution<float> normal;
  const Dims shapes[] = {{1, 1, 1, 1}, {1, 3, 5, 7}, {2, 40, 3, 3}, {3, 64, 7, 7}, {2, 70, 9, 5}};
  for (const Dims& dims : shapes) {
    for (MaskStructure structure :
         {MaskStructure::kUniform, MaskStructure::kChannel, MaskStructure::kRun32}) {
      for (double target : {0.0, 0.5, 0.9, 1.0}) {
        std::vector<float> x(dims.elements());
        for (float& v : x) v = normal(rng);
        auto mask = GenerateMask(dims, target, structure, rng());
        ASSERT_TRUE(mask.ok()) << mask.status();
        ASSERT_TRUE(ApplyMask(*mask, absl::MakeSpan(x)).ok());
        auto expected = CountSparsity(dims, x);
        ASSERT_TRUE(expected.ok()) << expected.status();
        auto device = DeviceBuffer<float>::Allocate(x.size());
        ASSERT_TRUE(device.ok()) << device.status();
        ASSERT_EQ(cudaMemcpy(device->get(), x.data(), device->bytes(), cudaMemcpyHostToDevice),
                  cudaSuccess);
        auto actual = counter.Count(device->get(), dims, nullptr);
        ASSERT_TRUE(actual.ok()) << actual.status();
        EXPECT_EQ(DescribeDifference(*expected, *actual), "")
            << dims.n << "x" << dims.c << "x" << dims.h << "x" << dims.w << " "
            << MaskStructureName(structure) << " " << target;
      }
    }
  }
}

}  // namespace
}  // namespace dissect::sparsity
