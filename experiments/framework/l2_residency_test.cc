// The 2 x L2 rule behind every dram_peak_pct (l2_residency.h), on an
// H100-like device description (no GPU): the rule's boundary, what a row
// records on each side of it, and that such a row is written, not failed.
#include "experiments/framework/l2_residency.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "experiments/result_format/reader.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/framework/runner.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

constexpr int64_t kH100L2 = int64_t{50} << 20;

DeviceInfo H100Like() {
  DeviceInfo d;
  d.name = "Synthetic H100-like GPU (test fixture)";
  d.cc_major = 9;
  d.sm_count = 132;
  d.l2_bytes = kH100L2;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;  // 3352.3 GB/s
  return d;
}

Point BytesPoint(int64_t bytes) {
  Point p;
  p.Add("bytes", bytes);
  return p;
}

TEST(L2Residency, TwiceTheL2IsTheBoundary) {
  EXPECT_TRUE(BeyondTwiceL2(2.0 * kH100L2, kH100L2));
  EXPECT_FALSE(BeyondTwiceL2(2.0 * kH100L2 - 1, kH100L2));
  // Once the L2 is not enough: replacement is not strict LRU.
  EXPECT_FALSE(BeyondTwiceL2(1.5 * kH100L2, kH100L2));
  // relu_bandwidth's 16 MiB default (input + output: 32 MiB) is L2-resident
  // on an H100; its 64 MiB smoke point (128 MiB) and 1 GiB are not.
  EXPECT_FALSE(BeyondTwiceL2(2.0 * (16 << 20), kH100L2));
  EXPECT_TRUE(BeyondTwiceL2(2.0 * (64 << 20), kH100L2));
  EXPECT_TRUE(BeyondTwiceL2(2.0 * (int64_t{1} << 30), kH100L2));
  // Unknown L2: nothing is framed as DRAM.
  EXPECT_FALSE(BeyondTwiceL2(1e12, 0));
}

TEST(L2Residency, AnL2ResidentRowHasNoPercentOfTheDramPeak) {
  const Point point = BytesPoint(16 << 20);
  const DeviceInfo device = H100Like();
  PointContext ctx(point, device, TimingOptions{}, nullptr, nullptr);
  ASSERT_TRUE(AddDramPeakPct(ctx, {2000.0, 2100.0}, 32 << 20).ok());
  const auto& m = ctx.metric_samples();
  ASSERT_EQ(m.at("dram_peak_pct").size(), 2u);
  for (double pct : m.at("dram_peak_pct")) EXPECT_TRUE(std::isnan(pct));
  EXPECT_EQ(m.at("working_set_bytes"), std::vector<double>{32 << 20});
  EXPECT_EQ(m.at("beyond_2x_l2"), std::vector<double>{0});
  ASSERT_EQ(ctx.notes().size(), 1u);
  EXPECT_EQ(ctx.notes()[0],
            "L2-resident: working set 33554432 B below 2 x the 52428800 B L2, no % of the DRAM "
            "peak");
  EXPECT_FALSE(absl::StrContains(ctx.notes()[0], ";"));  // the label's separator
}

TEST(L2Residency, ARowBeyondTwiceTheL2IsAPercentOfTheDramPeak) {
  const Point point = BytesPoint(int64_t{1} << 30);
  const DeviceInfo device = H100Like();
  PointContext ctx(point, device, TimingOptions{}, nullptr, nullptr);
  ASSERT_TRUE(AddDramPeakPct(ctx, {2935.0}, 2.0 * (int64_t{1} << 30)).ok());
  const auto& m = ctx.metric_samples();
  EXPECT_NEAR(m.at("dram_peak_pct")[0], 100.0 * 2935.0 / device.DramPeakGbps(), 1e-9);
  EXPECT_NEAR(m.at("dram_peak_pct")[0], 87.55, 0.01);
  EXPECT_EQ(m.at("beyond_2x_l2"), std::vector<double>{1});
  EXPECT_TRUE(ctx.notes().empty());
}

// l1_bypass records its working set as bytes_moved (its axis
// working_set_bytes is the input size asked for).
TEST(L2Residency, TheWorkingSetUnderAnExperimentsOwnName) {
  const Point point = BytesPoint(1);
  const DeviceInfo device = H100Like();
  PointContext ctx(point, device, TimingOptions{}, nullptr, nullptr);
  ASSERT_TRUE(AddDramPeakPct(ctx, {100.0}, 3212288, "bytes_moved").ok());
  EXPECT_EQ(ctx.metric_samples().at("bytes_moved"), std::vector<double>{3212288});
  EXPECT_EQ(ctx.metric_samples().count("working_set_bytes"), 0u);
  EXPECT_EQ(ctx.metric_samples().at("beyond_2x_l2"), std::vector<double>{0});
}

// Attention prints no dram_peak_pct, but the roofline reads its gbps
// against the DRAM roof: the counters and the label alone.
TEST(L2Residency, WithoutADramPeakPctTheRowStillCarriesTheCountersAndTheLabel) {
  const DeviceInfo device = H100Like();
  // Hot decode, context 4096, batch 1, 32 heads of 128: Q, K, V, O in fp16.
  const double decode = 2.0 * 32 * 128 * (2 + 2 * 4096);
  PointContext l2(BytesPoint(1), device, TimingOptions{}, nullptr, nullptr);
  const absl::StatusOr<bool> l2_beyond = AddL2Residency(l2, decode);
  ASSERT_TRUE(l2_beyond.ok()) << l2_beyond.status();
  EXPECT_FALSE(*l2_beyond);
  EXPECT_EQ(l2.metric_samples().at("working_set_bytes"), std::vector<double>{decode});
  EXPECT_EQ(l2.metric_samples().at("beyond_2x_l2"), std::vector<double>{0});
  EXPECT_EQ(l2.metric_samples().count("dram_peak_pct"), 0u);
  ASSERT_EQ(l2.notes().size(), 1u);
  EXPECT_TRUE(absl::StartsWith(l2.notes()[0], "L2-resident: working set 67125248 B"))
      << l2.notes()[0];
  // Batch 8: 537 MB, beyond 2 x L2.
  PointContext dram(BytesPoint(1), device, TimingOptions{}, nullptr, nullptr);
  const absl::StatusOr<bool> dram_beyond = AddL2Residency(dram, 8 * decode);
  ASSERT_TRUE(dram_beyond.ok()) << dram_beyond.status();
  EXPECT_TRUE(*dram_beyond);
  EXPECT_EQ(dram.metric_samples().at("beyond_2x_l2"), std::vector<double>{1});
  EXPECT_TRUE(dram.notes().empty());
}

TEST(L2Residency, MetricDeclarations) {
  const std::vector<MetricSpec> specs = L2ResidencyMetrics("input and output once each");
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].name, "working_set_bytes");
  EXPECT_EQ(specs[0].unit, "B");
  EXPECT_EQ(specs[0].help, "input and output once each");
  EXPECT_EQ(specs[1].name, "beyond_2x_l2");
}

// Through the runner and writer: the L2-resident row is written (its
// all-NaN dram_peak_pct is not a failure) with the counters and the label.
TEST(L2Residency, RowsCarryTheCountersAndTheLabel) {
  const std::string out = std::string(std::getenv("TEST_TMPDIR")) + "/l2.json";
  Experiment exp("synthetic_l2_residency");
  exp.Question("Is an L2-resident row labelled so?")
      .AddAxis(IntAxis("bytes", "B", {16 << 20, int64_t{1} << 30}))
      .AddMetric("bandwidth_gbps", "GB/s")
      .AddMetric("dram_peak_pct", "%")
      .AddMetrics(L2ResidencyMetrics("input and output"))
      .Run([](PointContext& ctx) -> absl::Status {
        ctx.RecordTimeSamples({1.0, 1.0});
        if (auto s = ctx.AddSamples("bandwidth_gbps", {2000.0, 2000.0}); !s.ok()) return s;
        return AddDramPeakPct(ctx, {2000.0, 2000.0}, 2.0 * ctx.Int("bytes"));
      });
  RunEnv env;
  env.device = H100Like();
  env.clocks_source = "unavailable: synthetic";
  env.progress = false;
  result_format::AtomicJsonReporter file(out);
  EXPECT_EQ(RunPointsQuietly(exp, exp.axes(), env, file), 0);
  auto parsed = result_format::ReadResultFile(out);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->rows.size(), 2u);
  const result_format::Row& l2 = parsed->rows[0];
  EXPECT_FALSE(l2.error) << l2.error_message;
  EXPECT_EQ(l2.Counter("beyond_2x_l2"), 0.0);
  EXPECT_EQ(l2.Counter("working_set_bytes"), 32 << 20);
  ASSERT_TRUE(l2.Counter("dram_peak_pct").has_value());
  EXPECT_TRUE(std::isnan(*l2.Counter("dram_peak_pct")));
  EXPECT_TRUE(absl::StartsWith(l2.label, "L2-resident: working set 33554432 B")) << l2.label;
  const result_format::Row& dram = parsed->rows[1];
  EXPECT_EQ(dram.Counter("beyond_2x_l2"), 1.0);
  EXPECT_NEAR(*dram.Counter("dram_peak_pct"), 59.66, 0.01);
  EXPECT_FALSE(absl::StrContains(dram.label, "L2-resident")) << dram.label;
}

}  // namespace
}  // namespace dissect
