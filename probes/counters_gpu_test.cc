// CuptiCounters on a GPU (tagged gpu): DRAM bytes of a ReLU over tensors
// much larger than L2 must match the bytes it moves, under user and kernel
// replay; a multi-pass group must run the launch once per pass.
#include <cmath>

#include "gtest/gtest.h"
#include "kernels/elementwise.h"
#include "probes/counters.h"
#include "probes/cupti_status.h"
#include "probes/device_buffer.h"
#include "probes/metric_catalog.h"

namespace dissect {
namespace {

constexpr size_t kBytes = size_t{1} << 30;  // >> L2, so DRAM sees every byte
constexpr size_t kFloats = kBytes / sizeof(float);

class CountersGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto in = DeviceBuffer<float>::Allocate(kFloats);
    auto out = DeviceBuffer<float>::Allocate(kFloats);
    ASSERT_TRUE(in.ok() && out.ok());
    in_ = *std::move(in);
    out_ = *std::move(out);
    ASSERT_EQ(LaunchFillUniform(in_.get(), kFloats, 7, -1.0f, 1.0f, nullptr),
              cudaSuccess);
    ASSERT_EQ(ReluGridBlocks(kFloats, &blocks_), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }

  std::unique_ptr<CuptiCounters> Counters(const char* spec,
                                          CounterReplay replay) {
    auto metrics = MetricCatalog::Embedded().Resolve(spec);
    EXPECT_TRUE(metrics.ok()) << metrics.status();
    auto counters = CuptiCounters::Create(0, *metrics, replay);
    EXPECT_TRUE(counters.ok())
        << "counters unavailable ("
        << CounterCauseName(CounterCauseOf(counters.status()))
        << "): " << counters.status();
    return counters.ok() ? *std::move(counters) : nullptr;
  }

  LaunchFn Relu() {
    return [this](cudaStream_t s) {
      ++launches_;
      return LaunchRelu(in_.get(), out_.get(), kFloats, blocks_, s);
    };
  }

  static void ExpectNear(const CounterValue& v, double want) {
    EXPECT_NEAR(v.value, want, 0.1 * want)
        << v.name << " (" << v.perfworks << ") in " << v.unit;
  }

  DeviceBuffer<float> in_, out_;
  int blocks_ = 0;  // ReluGridBlocks: LaunchRelu takes the grid
  int launches_ = 0;
};

TEST_F(CountersGpuTest, UserReplayDramBytes) {
  auto counters =
      Counters("dram_bytes_read,dram_bytes_write", CounterReplay::kUser);
  ASSERT_NE(counters, nullptr);
  EXPECT_EQ(MetricCatalog::Embedded().chips().count(counters->chip()), 1u)
      << counters->chip();
  auto r = counters->Collect(Relu(), nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->passes, counters->passes());
  EXPECT_EQ(launches_, r->passes);
  ASSERT_EQ(r->values.size(), 2u);
  EXPECT_EQ(r->values[0].name, "dram_bytes_read");
  EXPECT_EQ(r->values[0].unit, "B");
  ExpectNear(r->values[0], kBytes);
  ExpectNear(r->values[1], kBytes);
  // A second collection on the same object works too.
  auto again = counters->Collect(Relu(), nullptr, nullptr);
  ASSERT_TRUE(again.ok()) << again.status();
  ExpectNear(again->values[0], kBytes);
}

TEST_F(CountersGpuTest, KernelReplayRunsTheLaunchOnce) {
  auto counters = Counters("dram_bytes_read", CounterReplay::kKernel);
  ASSERT_NE(counters, nullptr);
  auto r = counters->Collect(Relu(), nullptr, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(launches_, 1);
  ExpectNear(r->values[0], kBytes);
}

TEST_F(CountersGpuTest, KernelReplayRefusesTwoKernels) {
  auto counters = Counters("dram_bytes_read", CounterReplay::kKernel);
  ASSERT_NE(counters, nullptr);
  auto r = counters->Collect(
      [this](cudaStream_t s) {
        const cudaError_t e = LaunchRelu(in_.get(), out_.get(), kFloats, blocks_, s);
        return e != cudaSuccess
                   ? e
                   : LaunchRelu(in_.get(), out_.get(), kFloats, blocks_, s);
      },
      nullptr, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("exactly one kernel"),
            absl::string_view::npos)
      << r.status();
}

TEST_F(CountersGpuTest, MultiPassStallsRunOneLaunchPerPass) {
  auto counters = Counters("all_stalls", CounterReplay::kUser);
  ASSERT_NE(counters, nullptr);
  EXPECT_GT(counters->passes(), 1);
  int flushes = 0;
  auto r = counters->Collect(Relu(), nullptr, [&](cudaStream_t) {
    ++flushes;
    return absl::OkStatus();
  });
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->passes, counters->passes());
  EXPECT_EQ(launches_, r->passes);
  EXPECT_EQ(flushes, r->passes);
  double sum = 0;
  for (const CounterValue& v : r->values) {
    EXPECT_TRUE(std::isfinite(v.value)) << v.name;
    EXPECT_GE(v.value, 0) << v.name;
    sum += v.value;
  }
  EXPECT_GT(sum, 0);
}

}  // namespace
}  // namespace dissect
