// latency_trace's warm walk replayed on a simulated L2 that keeps near
// copies of far lines (near_copy_l2_model.h), as A100 and Hopper do: the
// chain BuildChain makes, TraceWarmupLoads' lap, then kTraceLength traced
// loads from one SM, reduced to levels by FindLatencyLevels as the
// experiment does. The L2 sizes are A100's (40 MiB) and H100's (50 MiB),
// two partitions each. A walk that fits half the L2 sees one level, so the
// default footprints must include one beyond half the L2 for the
// experiment to show near and far at all.
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/chase_common.h"
#include "experiments/latency_levels.h"
#include "experiments/near_copy_l2_model.h"
#include "experiments/workloads/inputs/pointer_chain.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kStride = 128;  // one slot a line, as the random walks
// Any device address: where the chain lies only moves which lines are
// homed where.
constexpr uint64_t kChainBase = 0x7f0000000000;
// The clock and store overhead around each traced access: any constant.
constexpr double kOverheadCycles = 30;

struct Gpu {
  const char* name;
  int64_t l2_bytes;
};
constexpr Gpu kGpus[] = {{"A100", 40 * kMiB}, {"H100", 50 * kMiB}};

NearCopyL2Options Options(const Gpu& gpu) {
  NearCopyL2Options o;
  o.sm_count = 2;
  o.partition_lines = static_cast<uint64_t>(gpu.l2_bytes) / 2 / NearCopyL2Model::kLineBytes;
  return o;
}

// The levels of one warm launch of latency_trace over `footprint` bytes.
std::vector<LatencyLevel> WarmWalkLevels(const Gpu& gpu, int64_t footprint, ChainOrder order) {
  // The model has no DRAM: keep the walk inside the L2.
  EXPECT_LE(footprint, gpu.l2_bytes);
  const absl::StatusOr<std::vector<uint32_t>> words = BuildChain(footprint, kStride, order, 7);
  EXPECT_TRUE(words.ok()) << words.status();
  const absl::StatusOr<uint64_t> warmup =
      TraceWarmupLoads(static_cast<uint64_t>(footprint / kStride), /*warm=*/true);
  EXPECT_TRUE(warmup.ok()) << warmup.status();
  if (!words.ok() || !warmup.ok()) return {};
  NearCopyL2Model model(Options(gpu));
  std::vector<uint32_t> cycles;
  uint32_t word = 0;
  for (uint64_t k = 0; k < *warmup + kTraceLength; ++k) {
    const double c = model.Load(/*sm=*/0, kChainBase + 4 * uint64_t{word});
    if (k >= *warmup) cycles.push_back(static_cast<uint32_t>(kOverheadCycles + c));
    word = (*words)[word];
  }
  return FindLatencyLevels(cycles);
}

std::string Describe(const std::vector<LatencyLevel>& levels) {
  std::ostringstream out;
  out << levels.size() << " level(s):";
  for (const LatencyLevel& l : levels) out << " " << l.cycles << " (" << l.fraction << ")";
  return out.str();
}

bool ShowsNearAndFar(const std::vector<LatencyLevel>& levels) {
  const NearCopyL2Options o;
  return levels.size() == 2 && levels[0].cycles == kOverheadCycles + o.near_cycles &&
         levels[1].cycles == kOverheadCycles + o.far_cycles && levels[0].fraction > 0.3 &&
         levels[1].fraction > 0.3;
}

TEST(LatencyTraceMethodTest, AWarmWalkThatFitsHalfTheL2SeesOnlyTheNearPartition) {
  for (const Gpu& gpu : kGpus) {
    for (const ChainOrder order : {ChainOrder::kRandom, ChainOrder::kStrided}) {
      const std::vector<LatencyLevel> levels = WarmWalkLevels(gpu, 4 * kMiB, order);
      ASSERT_EQ(levels.size(), 1u) << gpu.name << ": " << Describe(levels);
      EXPECT_EQ(levels[0].cycles, kOverheadCycles + NearCopyL2Options().near_cycles);
    }
  }
}

TEST(LatencyTraceMethodTest, FarHitsShowOnlyBeyondHalfTheL2) {
  const Gpu& h100 = kGpus[1];
  const std::vector<LatencyLevel> below = WarmWalkLevels(h100, 24 * kMiB, ChainOrder::kRandom);
  EXPECT_EQ(below.size(), 1u) << "24 MiB: " << Describe(below);
  for (const int64_t footprint : {28 * kMiB, 40 * kMiB, 48 * kMiB}) {
    const std::vector<LatencyLevel> beyond = WarmWalkLevels(h100, footprint, ChainOrder::kRandom);
    EXPECT_TRUE(ShowsNearAndFar(beyond)) << footprint / kMiB << " MiB: " << Describe(beyond);
  }
}

TEST(LatencyTraceMethodTest, TheDefaultFootprintsShowNearAndFarOnA100AndH100) {
  for (const Gpu& gpu : kGpus) {
    int shown = 0;
    for (const int64_t footprint : kTraceFootprints) {
      if (footprint > gpu.l2_bytes) continue;
      const std::vector<LatencyLevel> levels =
          WarmWalkLevels(gpu, footprint, ChainOrder::kRandom);
      std::cout << gpu.name << ", " << footprint / kMiB << " MiB: " << Describe(levels) << "\n";
      shown += ShowsNearAndFar(levels);
    }
    EXPECT_GE(shown, 1) << gpu.name << ": no default footprint shows the far partition";
  }
}

}  // namespace
}  // namespace dissect
