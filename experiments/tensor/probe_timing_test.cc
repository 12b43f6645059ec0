#include "experiments/tensor/probe_timing.h"

#include <vector>

#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(CyclesPerInstructionTest, OneRecordIsItsOwnLatency) {
  const std::vector<TensorTiming> r = {{1000, 1000 + 4096 * 33, 5, 1}};
  EXPECT_DOUBLE_EQ(*CyclesPerInstruction(r, 4096), 33.0);
}

TEST(CyclesPerInstructionTest, SpansEachSmAndTakesTheMedianOverSms) {
  // SM 0: two warps overlapping over [0, 300): 200 instructions -> 1.5.
  // SM 1: [50, 250) for 100 instructions -> 2. SM 2: [0, 1000) -> 10.
  const std::vector<TensorTiming> r = {
      {0, 200, 0, 1}, {100, 300, 0, 1}, {50, 250, 1, 1}, {0, 1000, 2, 1}};
  EXPECT_DOUBLE_EQ(*CyclesPerInstruction(r, 100), 2.0);
}

TEST(CyclesPerInstructionTest, RejectsAStoppedClockAndEmptyInput) {
  const std::vector<TensorTiming> r = {{10, 10, 0, 1}};
  EXPECT_FALSE(CyclesPerInstruction(r, 1).ok());
  EXPECT_FALSE(CyclesPerInstruction({}, 1).ok());
}

TEST(MeasuredSmClockMhzTest, LongestSmSpanOverTheEventTime) {
  // Spans: SM 0 [0, 300), SM 1 [50, 250), SM 2 [0, 1000): 1000 cycles in
  // 1 µs is 1000 MHz.
  const std::vector<TensorTiming> r = {
      {0, 200, 0, 1}, {100, 300, 0, 1}, {50, 250, 1, 1}, {0, 1000, 2, 1}};
  EXPECT_DOUBLE_EQ(*MeasuredSmClockMhz(r, 1e-3), 1000.0);
  // One latency warp: 1.5e6 cycles in 1 ms.
  const std::vector<TensorTiming> one = {{7, 7 + 1500000, 3, 1}};
  EXPECT_DOUBLE_EQ(*MeasuredSmClockMhz(one, 1.0), 1500.0);
}

TEST(MeasuredSmClockMhzTest, RejectsNoTimeAStoppedClockAndEmptyInput) {
  const std::vector<TensorTiming> r = {{0, 100, 0, 1}};
  EXPECT_FALSE(MeasuredSmClockMhz(r, 0).ok());
  EXPECT_FALSE(MeasuredSmClockMhz(r, -1).ok());
  const std::vector<TensorTiming> stopped = {{10, 10, 0, 1}};
  EXPECT_FALSE(MeasuredSmClockMhz(stopped, 1).ok());
  EXPECT_FALSE(MeasuredSmClockMhz({}, 1).ok());
}

// Launch rows: checked launch, one warm-up, two samples; one record each.
TEST(AddProbeSamplesTest, OneSamplePerTimedLaunchFromItsOwnRow) {
  Point point;
  DeviceInfo device;
  TimingOptions options;
  options.warmup = 1;
  options.samples = 2;
  PointContext ctx(point, device, options, nullptr, nullptr);
  const std::vector<TensorTiming> timing = {
      {0, 1, 0, 1}, {0, 1, 0, 1}, {0, 400, 0, 1}, {0, 800, 0, 1}};
  ASSERT_TRUE(AddProbeSamples(ctx, timing, 1, 100, 4096, 1e12, {1.0, 2.0}, "cycles_per_mma").ok());
  const auto& m = ctx.metric_samples();
  EXPECT_EQ(m.at("cycles_per_mma"), (std::vector<double>{4, 8}));
  EXPECT_EQ(m.at("flops_per_clk_per_sm"), (std::vector<double>{1024, 512}));
  EXPECT_EQ(m.at("tflops"), (std::vector<double>{1000, 500}));
  // 400 and 800 cycles in 1 and 2 ms.
  EXPECT_EQ(m.at("measured_sm_clock_mhz"), (std::vector<double>{0.4, 0.4}));
  // Too few records for the samples is an error, not a read past the end.
  PointContext short_ctx(point, device, options, nullptr, nullptr);
  EXPECT_FALSE(AddProbeSamples(short_ctx, absl::MakeConstSpan(timing.data(), 3), 1, 100, 4096, 1e12,
                               {1.0, 2.0}, "cycles_per_mma")
                   .ok());
}

TEST(AllBuiltTest, AnyUnbuiltRecordCounts) {
  std::vector<TensorTiming> r = {{0, 1, 0, 1}, {0, 1, 0, 1}};
  EXPECT_TRUE(AllBuilt(r));
  r[1].built = 0;
  EXPECT_FALSE(AllBuilt(r));
}

}  // namespace
}  // namespace dissect
