#include "analysis/nightly/regression.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/nightly/junit_test_util.h"
#include "analysis/nightly/run_data.h"
#include "tools/testing/test_util.h"
#include "analysis/nightly/thresholds_embedded.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Thresholds Shipped() {
  absl::StatusOr<Thresholds> thresholds =
      ParseThresholdsJson(kEmbeddedThresholdsJson, kEmbeddedThresholdsOrigin);
  EXPECT_TRUE(thresholds.ok()) << thresholds.status();
  return thresholds.ok() ? *thresholds : Thresholds{};
}

// A metric measured as the sweep runner's files report it: `samples` draws
// around `truth` with relative standard deviation `sigma`; the value is
// their median and the spread (max - min) / median.
MetricValue Measure(std::mt19937& rng, double truth, double sigma, const std::string& unit,
                    int samples = 11) {
  std::normal_distribution<double> noise(1.0, sigma);
  std::vector<double> values;
  for (int i = 0; i < samples; ++i) values.push_back(truth * noise(rng));
  std::sort(values.begin(), values.end());
  const double median = values[values.size() / 2];
  return MetricValue{median, (values.back() - values.front()) / median, unit};
}

RunPoint Point(const std::string& experiment, const std::string& rest,
               std::map<std::string, MetricValue> metrics) {
  RunPoint point;
  point.experiment = experiment;
  point.point = experiment + "/" + rest;
  point.metrics = std::move(metrics);
  return point;
}

RunInfo Info(const std::string& run_id, const std::string& driver = "550.54",
             const std::string& commit = "aaaa000011112222333344445555666677778888") {
  RunInfo info;
  info.run_id = run_id;
  info.sweep = "nightly";
  info.started = "2026-11-2" + run_id.substr(run_id.size() - 1) + "T02:00:00Z";
  info.host = "gpu-node-07";
  info.git_commit = commit;
  info.driver_version = driver;
  info.device_name = "NVIDIA H100 80GB HBM3";
  info.device_uuid = "GPU-1111aaaa";
  info.device_serial = "1650000000001";
  info.vbios = "96.00.99.00.01";
  return info;
}

constexpr char kDramPoint[] = "memory_bandwidth/op:read/width_bits:128/footprint_bytes:1073741824";

// One synthetic night of one H100: bandwidth (0.5 % noise), latencies,
// tensor throughput, a layer kernel's time and a size that never moves.
// `bandwidth_factor` scales the DRAM bandwidth point (an injected drop).
RunData SyntheticNight(std::mt19937& rng, const RunInfo& info, double bandwidth_factor = 1.0) {
  RunData run;
  run.info = info;
  const double kFootprints[] = {4194304, 67108864, 1073741824, 4294967296};
  const double kBandwidths[] = {14000, 5200, 3000, 3010};
  for (int i = 0; i < 4; ++i) {
    const double truth = kBandwidths[i] * (i == 2 ? bandwidth_factor : 1.0);
    run.points.push_back(Point("memory_bandwidth",
                               absl::StrCat("op:read/width_bits:128/footprint_bytes:",
                                            static_cast<long long>(kFootprints[i])),
                               {{"bandwidth_gbps", Measure(rng, truth, 0.005, "GB/s")}}));
  }
  const double kLatencyFootprints[] = {16384, 8388608, 2147483648};
  const double kCycles[] = {33, 260, 820};
  for (int i = 0; i < 3; ++i) {
    run.points.push_back(Point("memory_latency",
                               absl::StrCat("path:global_cg/footprint_bytes:",
                                            static_cast<long long>(kLatencyFootprints[i]),
                                            "/stride_bytes:128/order:random/loads:4096"),
                               {{"cycles_per_load", Measure(rng, kCycles[i], 0.003, "cycles/load")},
                                {"ns_per_load", Measure(rng, kCycles[i] / 1.755, 0.005, "ns/load")},
                                {"clock_source", MetricValue{0, std::nullopt, "-"}}}));
  }
  run.points.push_back(Point("mma_sync", "form:f16_f32/mode:throughput/data:random",
                             {{"tflops", Measure(rng, 480, 0.01, "TFLOP/s")},
                              {"cycles_per_mma", Measure(rng, 16.2, 0.004, "cycles")}}));
  run.points.push_back(Point("l1_bypass",
                             "kernel:gemv/layer:alexnet.fc6/batch:8/working_set_bytes:0/"
                             "timing:cold/occupancy_pct:100/variant:default",
                             {{"kernel_us", Measure(rng, 52, 0.02, "us")}}));
  run.points.push_back(Point("latency_trace",
                             "path:global_ca/footprint_bytes:65536/stride_bytes:8/order:strided/"
                             "state:cold",
                             {{"miss_period_bytes", MetricValue{128, 0.0, "B"}}}));
  return run;
}

std::vector<const MetricComparison*> Flagged(const RegressionReport& report) {
  std::vector<const MetricComparison*> rows;
  for (const MetricComparison& row : report.comparisons) {
    if (row.verdict != Verdict::kUnchanged) rows.push_back(&row);
  }
  return rows;
}

std::string FlaggedText(const RegressionReport& report) {
  std::string text;
  for (const MetricComparison* row : Flagged(report)) {
    absl::StrAppend(&text, row->point, " ", row->metric, " ", VerdictName(row->verdict), " ",
                    row->change, " > ", row->threshold, "\n");
  }
  return text;
}

TEST(RegressionTest, NoiseAloneRaisesNoAlarmIn1000SeededTrials) {
  const Thresholds thresholds = Shipped();
  size_t compared = 0;
  for (int seed = 0; seed < 1000; ++seed) {
    std::mt19937 rng(seed);
    const RunData baseline = SyntheticNight(rng, Info("night1"));
    const RunData candidate = SyntheticNight(rng, Info("night2"));
    const RegressionReport report =
        CompareSides(SideOfRun(baseline), SideOfRun(candidate), thresholds);
    compared += report.comparisons.size();
    ASSERT_TRUE(Flagged(report).empty()) << "seed " << seed << ":\n" << FlaggedText(report);
  }
  // 4 bandwidth + 3 x 2 latency + 2 tensor + 1 kernel time + 1 size; clock_source ignored.
  EXPECT_EQ(compared, 1000u * 14);
}

TEST(RegressionTest, NoiseAloneAgainstSevenNightMedianRaisesNoAlarmIn1000SeededTrials) {
  const Thresholds thresholds = Shipped();
  for (int seed = 0; seed < 1000; ++seed) {
    std::mt19937 rng(seed);
    std::vector<RunData> nights;
    for (int night = 1; night <= 7; ++night) {
      nights.push_back(SyntheticNight(rng, Info(absl::StrCat("night", night))));
    }
    const RunData candidate = SyntheticNight(rng, Info("night8"));
    absl::StatusOr<ComparisonSide> baseline = SideOfNights(nights);
    ASSERT_TRUE(baseline.ok()) << baseline.status();
    const RegressionReport report = CompareSides(*baseline, SideOfRun(candidate), thresholds);
    ASSERT_TRUE(Flagged(report).empty()) << "seed " << seed << ":\n" << FlaggedText(report);
  }
}

TEST(RegressionTest, FivePercentBandwidthDropIsCaughtInEverySeededTrial) {
  const Thresholds thresholds = Shipped();
  for (int seed = 0; seed < 1000; ++seed) {
    std::mt19937 rng(seed);
    const RunData baseline = SyntheticNight(rng, Info("night1"));
    const RunData candidate = SyntheticNight(rng, Info("night2"), 0.95);
    const RegressionReport report =
        CompareSides(SideOfRun(baseline), SideOfRun(candidate), thresholds);
    ASSERT_TRUE(report.HasRegression()) << "seed " << seed;
    const std::vector<const MetricComparison*> flagged = Flagged(report);
    ASSERT_EQ(flagged.size(), 1u) << "seed " << seed << ":\n" << FlaggedText(report);
    EXPECT_EQ(flagged[0]->point, kDramPoint);
    EXPECT_EQ(flagged[0]->metric, "bandwidth_gbps");
    EXPECT_EQ(flagged[0]->verdict, Verdict::kRegression);
    EXPECT_NEAR(flagged[0]->change, -0.05, 0.01);
  }
}

TEST(RegressionTest, FivePercentBandwidthDropIsCaughtAgainstSevenNightMedian) {
  const Thresholds thresholds = Shipped();
  for (int seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    std::vector<RunData> nights;
    for (int night = 1; night <= 7; ++night) {
      nights.push_back(SyntheticNight(rng, Info(absl::StrCat("night", night))));
    }
    const RunData candidate = SyntheticNight(rng, Info("night8"), 0.95);
    absl::StatusOr<ComparisonSide> baseline = SideOfNights(nights);
    ASSERT_TRUE(baseline.ok());
    EXPECT_EQ(baseline->label, "median of 7 nights (2026-11-21T02:00:00Z .. 2026-11-27T02:00:00Z)");
    const RegressionReport report = CompareSides(*baseline, SideOfRun(candidate), thresholds);
    const std::vector<const MetricComparison*> flagged = Flagged(report);
    ASSERT_EQ(flagged.size(), 1u) << "seed " << seed << ":\n" << FlaggedText(report);
    EXPECT_EQ(flagged[0]->point, kDramPoint);
    EXPECT_EQ(flagged[0]->verdict, Verdict::kRegression);
  }
}

TEST(RegressionTest, DriverAndSuiteChangeAreAnnotatedOnEveryFlaggedRowOnly) {
  std::mt19937 rng(7);
  const RunData baseline = SyntheticNight(rng, Info("night1", "550.54"));
  RunData candidate = SyntheticNight(
      rng, Info("night2", "555.42", "bbbb000011112222333344445555666677778888"), 0.9);
  const RegressionReport report =
      CompareSides(SideOfRun(baseline), SideOfRun(candidate), Shipped());
  EXPECT_THAT(report.context_changes,
              ElementsAre("driver 550.54 -> 555.42", "suite aaaa00001111 -> bbbb00001111"));
  ASSERT_EQ(Flagged(report).size(), 1u) << FlaggedText(report);
  EXPECT_THAT(Flagged(report)[0]->annotations,
              ElementsAre("driver 550.54 -> 555.42", "suite aaaa00001111 -> bbbb00001111"));
  for (const MetricComparison& row : report.comparisons) {
    if (row.verdict == Verdict::kUnchanged) EXPECT_TRUE(row.annotations.empty()) << row.point;
  }
  const std::string markdown = RenderRegressionMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("## Regressions"));
  // The annotation sits on the flagged row itself.
  const size_t row_start =
      markdown.find("| memory_bandwidth | `op:read/width_bits:128/footprint_bytes:1073741824`");
  ASSERT_NE(row_start, std::string::npos) << markdown;
  const std::string row = markdown.substr(row_start, markdown.find('\n', row_start) - row_start);
  EXPECT_THAT(row, HasSubstr("driver 550.54 -> 555.42; suite aaaa00001111 -> bbbb00001111"));
  EXPECT_THAT(RenderRegressionJUnit(report), HasSubstr("driver 550.54 -&gt; 555.42"));
}

TEST(RegressionTest, NoContextChangeNoAnnotation) {
  std::mt19937 rng(8);
  const RunData baseline = SyntheticNight(rng, Info("night1"));
  const RunData candidate = SyntheticNight(rng, Info("night2"), 0.9);
  const RegressionReport report =
      CompareSides(SideOfRun(baseline), SideOfRun(candidate), Shipped());
  EXPECT_TRUE(report.context_changes.empty());
  ASSERT_EQ(Flagged(report).size(), 1u);
  EXPECT_TRUE(Flagged(report)[0]->annotations.empty());
  EXPECT_THAT(RenderRegressionMarkdown(report), HasSubstr("Changes between the runs: none"));
}

TEST(RegressionTest, DeviceAndVbiosChangesAndMixedBaselineDrivers) {
  RunInfo first = Info("night1", "550.54");
  RunInfo second = Info("night2", "550.90");
  RunInfo candidate = Info("night3", "555.42");
  candidate.vbios = "96.00.99.00.02";
  candidate.device_uuid = "GPU-2222bbbb";
  EXPECT_THAT(
      ContextChanges({first, second}, candidate),
      ElementsAre("driver 550.54, 550.90 -> 555.42", "vbios 96.00.99.00.01 -> 96.00.99.00.02",
                  "device NVIDIA H100 80GB HBM3 (GPU-1111aaaa) -> NVIDIA H100 80GB HBM3 "
                  "(GPU-2222bbbb)"));
  // Unknown on one side is no change.
  RunInfo unknown = Info("night4", "");
  unknown.git_commit = "";
  EXPECT_TRUE(ContextChanges({first}, unknown).empty());
}

TEST(RegressionTest, DirectionsDecideRegressionOrImprovement) {
  const auto run = [](const std::string& id, double bandwidth, double cycles, double period) {
    RunData data;
    data.info = Info(id);
    data.points.push_back(Point("x", "p:1",
                                {{"bandwidth_gbps", MetricValue{bandwidth, 0.005, "GB/s"}},
                                 {"cycles_per_load", MetricValue{cycles, 0.005, "cycles/load"}},
                                 {"miss_period_bytes", MetricValue{period, 0, "B"}}}));
    return data;
  };
  const Thresholds thresholds = Shipped();
  const RegressionReport better = CompareSides(SideOfRun(run("a", 1000, 100, 128)),
                                               SideOfRun(run("b", 1100, 90, 128)), thresholds);
  EXPECT_FALSE(better.HasRegression());
  EXPECT_EQ(better.Count(Verdict::kImprovement), 2);
  const RegressionReport worse = CompareSides(SideOfRun(run("a", 1000, 100, 128)),
                                              SideOfRun(run("b", 900, 110, 64)), thresholds);
  EXPECT_EQ(worse.Count(Verdict::kRegression), 3);
  // Either direction is bad for a size: 64 -> 128 too.
  const RegressionReport size_up = CompareSides(SideOfRun(run("a", 1000, 100, 64)),
                                                SideOfRun(run("b", 1000, 100, 128)), thresholds);
  EXPECT_EQ(size_up.Count(Verdict::kRegression), 1);
}

TEST(RegressionTest, ChangeMustExceedBothToleranceAndKTimesSpread) {
  const auto run = [](const std::string& id, double value, double spread) {
    RunData data;
    data.info = Info(id);
    data.points.push_back(
        Point("x", "p:1", {{"bandwidth_gbps", MetricValue{value, spread, "GB/s"}}}));
    return data;
  };
  const Thresholds thresholds = Shipped();  // bandwidth: tolerance 2 %, k 1.5
  // 4 % drop, spreads 1 %: beyond 2 % and 1.5 x 1 %.
  EXPECT_TRUE(
      CompareSides(SideOfRun(run("a", 1000, 0.01)), SideOfRun(run("b", 960, 0.01)), thresholds)
          .HasRegression());
  // 4 % drop, candidate spread 3 %: within 1.5 x 3 %.
  const RegressionReport noisy =
      CompareSides(SideOfRun(run("a", 1000, 0.01)), SideOfRun(run("b", 960, 0.03)), thresholds);
  EXPECT_FALSE(noisy.HasRegression());
  EXPECT_NEAR(noisy.comparisons[0].threshold, 0.045, 1e-12);
  // 1.5 % drop, no spread: within the 2 % tolerance.
  EXPECT_FALSE(CompareSides(SideOfRun(run("a", 1000, 0)), SideOfRun(run("b", 985, 0)), thresholds)
                   .HasRegression());
}

TEST(RegressionTest, NightsMadWidensTheThreshold) {
  std::vector<RunData> nights;
  const double kValues[] = {1000, 1060, 940, 1050, 950};
  for (int i = 0; i < 5; ++i) {
    RunData night;
    night.info = Info(absl::StrCat("night", i + 1));
    night.points.push_back(
        Point("x", "p:1", {{"bandwidth_gbps", MetricValue{kValues[i], 0.005, "GB/s"}}}));
    nights.push_back(night);
  }
  absl::StatusOr<ComparisonSide> baseline = SideOfNights(nights);
  ASSERT_TRUE(baseline.ok());
  const SideMetric& metric = baseline->points.at("x/p:1").metrics.at("bandwidth_gbps");
  EXPECT_DOUBLE_EQ(metric.value, 1000);
  EXPECT_EQ(metric.nights, 5);
  ASSERT_TRUE(metric.nights_scaled_mad.has_value());
  EXPECT_NEAR(*metric.nights_scaled_mad, 1.4826 * 50, 1e-9);
  RunData candidate;
  candidate.info = Info("night6");
  candidate.points.push_back(
      Point("x", "p:1", {{"bandwidth_gbps", MetricValue{920, 0.005, "GB/s"}}}));
  // -8 % is within 1.5 x 7.4 % of night-to-night scatter.
  const RegressionReport report = CompareSides(*baseline, SideOfRun(candidate), Shipped());
  EXPECT_FALSE(report.HasRegression()) << FlaggedText(report);
  EXPECT_NEAR(report.comparisons[0].threshold, 1.5 * 1.4826 * 50 / 1000, 1e-9);
  EXPECT_FALSE(SideOfNights({}).ok());
}

TEST(RegressionTest, ThrottledPointsAreMarkedNotCounted) {
  RunData baseline;
  baseline.info = Info("night1");
  baseline.points.push_back(Point("x", "p:1", {{"tflops", MetricValue{480, 0.01, "TFLOP/s"}}}));
  RunData candidate;
  candidate.info = Info("night2");
  candidate.points.push_back(Point("x", "p:1", {{"tflops", MetricValue{380, 0.01, "TFLOP/s"}}}));
  candidate.points.back().throttled = true;
  const RegressionReport report =
      CompareSides(SideOfRun(baseline), SideOfRun(candidate), Shipped());
  EXPECT_FALSE(report.HasRegression());
  EXPECT_EQ(report.Count(Verdict::kThrottled), 1);
  EXPECT_THAT(RenderRegressionMarkdown(report),
              HasSubstr("throttled in the candidate: not counted"));
  EXPECT_THAT(RenderRegressionJUnit(report),
              HasSubstr("<skipped message=\"throttled, not counted"));
}

TEST(RegressionTest, AttemptTwoReMeasurementIsUsed) {
  RunData baseline;
  baseline.info = Info("night1");
  baseline.points.push_back(Point("x", "p:1", {{"tflops", MetricValue{480, 0.01, "TFLOP/s"}}}));
  RunData candidate;
  candidate.info = Info("night2");
  RunPoint hot = Point("x", "p:1", {{"tflops", MetricValue{380, 0.01, "TFLOP/s"}}});
  hot.throttled = true;
  RunPoint cooled = Point("x", "p:1", {{"tflops", MetricValue{478, 0.01, "TFLOP/s"}}});
  cooled.attempt = 2;
  // Either order in the file.
  for (const auto& points :
       {std::vector<RunPoint>{hot, cooled}, std::vector<RunPoint>{cooled, hot}}) {
    candidate.points = points;
    const RegressionReport report =
        CompareSides(SideOfRun(baseline), SideOfRun(candidate), Shipped());
    ASSERT_EQ(report.comparisons.size(), 1u);
    EXPECT_EQ(report.comparisons[0].verdict, Verdict::kUnchanged);
    EXPECT_DOUBLE_EQ(report.comparisons[0].candidate, 478);
  }
}

TEST(RegressionTest, PointsInOneRunOnlyAreListedNotCompared) {
  RunData baseline;
  baseline.info = Info("night1");
  baseline.points.push_back(Point("x", "p:1", {{"tflops", MetricValue{480, 0.01, "TFLOP/s"}}}));
  baseline.points.push_back(Point("x", "p:2", {{"tflops", MetricValue{480, 0.01, "TFLOP/s"}}}));
  RunData candidate;
  candidate.info = Info("night2");
  candidate.points.push_back(Point("x", "p:1",
                                   {{"tflops", MetricValue{480, 0.01, "TFLOP/s"}},
                                    {"cycles_per_mma", MetricValue{16, 0, "cycles"}}}));
  candidate.points.push_back(Point("x", "p:3", {{"tflops", MetricValue{1, 0.01, "TFLOP/s"}}}));
  const RegressionReport report =
      CompareSides(SideOfRun(baseline), SideOfRun(candidate), Shipped());
  EXPECT_EQ(report.comparisons.size(), 1u);
  EXPECT_THAT(report.only_in_baseline, ElementsAre("x/p:2"));
  EXPECT_THAT(report.only_in_candidate, ElementsAre("x/p:3"));
  EXPECT_THAT(report.metrics_only_in_one,
              ElementsAre("x/p:1 cycles_per_mma (only in the candidate)"));
  const std::string markdown = RenderRegressionMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("## Points only in the baseline (not compared)\n\n- `x/p:2`"));
  EXPECT_THAT(markdown, HasSubstr("## Points only in the candidate (not compared)\n\n- `x/p:3`"));
}

TEST(RegressionTest, ThresholdsFileParsesAndValidates) {
  const Thresholds shipped = Shipped();
  EXPECT_EQ(shipped.For("memory_bandwidth", "bandwidth_gbps").direction,
            Direction::kHigherIsBetter);
  EXPECT_EQ(shipped.For("memory_latency", "cycles_per_load").direction, Direction::kLowerIsBetter);
  EXPECT_TRUE(shipped.For("memory_latency", "clock_source").ignore);
  EXPECT_EQ(shipped.For("x", "unknown_metric").direction, Direction::kEither);
  EXPECT_EQ(shipped.For("x", "unknown_metric").relative_tolerance, 0.03);

  absl::StatusOr<Thresholds> custom = ParseThresholdsJson(R"({
      "format": "dissect.regression_thresholds.v1",
      "default": {"k": 4},
      "metrics": {"tflops": {"direction": "higher_is_better"},
                  "mma_sync/tflops": {"direction": "higher_is_better", "relative_tolerance": 0.1}}
    })",
                                                          "custom.json");
  ASSERT_TRUE(custom.ok()) << custom.status();
  EXPECT_EQ(custom->For("wgmma", "tflops").relative_tolerance, 0.03);
  EXPECT_EQ(custom->For("wgmma", "tflops").k, 4);  // inherits the file's default
  EXPECT_EQ(custom->For("mma_sync", "tflops").relative_tolerance, 0.1);

  const std::pair<const char*, const char*> kBad[] = {
      {"{", "custom.json: not valid JSON"},
      {R"({"format": "x"})", "not a thresholds file"},
      {R"({"format": "dissect.regression_thresholds.v1", "metrics": {"a": {"direction": "up"}}})",
       "custom.json: metrics.a.direction: '\"up\"' is not higher_is_better, lower_is_better or "
       "either"},
      {R"({"format": "dissect.regression_thresholds.v1", "default": {"k": -1}})",
       "custom.json: default.k: '-1' is not a non-negative number"},
      {R"({"format": "dissect.regression_thresholds.v1", "default": {"tolerance": 1}})",
       "unknown key 'tolerance'"},
      {R"({"format": "dissect.regression_thresholds.v1", "extra": 1})", "unknown key 'extra'"},
  };
  for (const auto& [text, message] : kBad) {
    absl::StatusOr<Thresholds> parsed = ParseThresholdsJson(text, "custom.json");
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(message));
  }
}

TEST(RegressionTest, ShippedThresholdsFileIsTheBuiltInOne) {
  EXPECT_EQ(test_util::ReadText(test_util::Runfile("configs/regression/thresholds.json")),
            std::string(kEmbeddedThresholdsJson));
}

TEST(RegressionTest, XmlEscapeHandlesMarkupAndControlCharacters) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'\x01\td"), "a&lt;b&gt;&amp;&quot;c&apos;\xEF\xBF\xBD\td");
}

// A small fixed comparison with every kind of row, for the goldens.
RegressionReport GoldenReport() {
  RunData baseline;
  baseline.info = Info("night1", "550.54");
  RunData candidate;
  candidate.info = Info("night2", "555.42");
  const auto add = [](RunData& run, const std::string& rest, const std::string& metric,
                      double value, double spread, const std::string& unit,
                      bool throttled = false) {
    run.points.push_back(
        Point("memory_bandwidth", rest, {{metric, MetricValue{value, spread, unit}}}));
    run.points.back().throttled = throttled;
  };
  add(baseline, "op:read/footprint_bytes:1073741824", "bandwidth_gbps", 3000, 0.004, "GB/s");
  add(candidate, "op:read/footprint_bytes:1073741824", "bandwidth_gbps", 2850, 0.005, "GB/s");
  add(baseline, "op:write/footprint_bytes:1073741824", "bandwidth_gbps", 2900, 0.004, "GB/s");
  add(candidate, "op:write/footprint_bytes:1073741824", "bandwidth_gbps", 3050, 0.004, "GB/s");
  add(baseline, "op:copy/footprint_bytes:1073741824", "bandwidth_gbps", 2800, 0.004, "GB/s");
  add(candidate, "op:copy/footprint_bytes:1073741824", "bandwidth_gbps", 2500, 0.004, "GB/s", true);
  add(baseline, "op:read/footprint_bytes:4194304", "bandwidth_gbps", 14000, 0.01, "GB/s");
  add(candidate, "op:read/footprint_bytes:4194304", "bandwidth_gbps", 14100, 0.01, "GB/s");
  // Markup in a point name (a layer name can hold anything) must be escaped.
  add(baseline, "op:read/label:<a&b\"c'>", "bandwidth_gbps", 100, 0, "GB/s");
  add(candidate, "op:read/label:<a&b\"c'>", "bandwidth_gbps", 50, 0, "GB/s");
  add(baseline, "op:read/footprint_bytes:8192", "bandwidth_gbps", 9000, 0.01, "GB/s");
  add(candidate, "op:read/footprint_bytes:16384", "bandwidth_gbps", 9000, 0.01, "GB/s");
  return CompareSides(SideOfRun(baseline), SideOfRun(candidate), Shipped());
}

TEST(RegressionTest, JUnitIsWellFormedAndMatchesGolden) {
  const RegressionReport report = GoldenReport();
  const std::string xml = RenderRegressionJUnit(report);
  EXPECT_EQ(testing::XmlWellFormednessError(xml), "") << xml;
  EXPECT_EQ(report.Count(Verdict::kRegression), 2);
  EXPECT_EQ(testing::CountOf(xml, "<testcase "), 7);
  EXPECT_EQ(testing::CountOf(xml, "<failure "), 2);
  EXPECT_EQ(testing::CountOf(xml, "<skipped "), 3);
  EXPECT_THAT(xml, HasSubstr("tests=\"7\" failures=\"2\" errors=\"0\" skipped=\"3\""));
  EXPECT_THAT(xml, HasSubstr("label:&lt;a&amp;b&quot;c&apos;&gt;"));
  const std::string path = "analysis/testdata/regression/compare_golden.xml";
  const std::string target = "//analysis/nightly:regression_test";
  if (auto updated = test_util::UpdateGolden(xml, path, target)) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(xml, test_util::ReadText(test_util::Runfile(path))) << test_util::StaleGolden(path, target);
}

TEST(RegressionTest, MarkdownMatchesGolden) {
  const std::string markdown = RenderRegressionMarkdown(GoldenReport());
  const std::string path = "analysis/testdata/regression/compare_golden.md";
  const std::string target = "//analysis/nightly:regression_test";
  if (auto updated = test_util::UpdateGolden(markdown, path, target)) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(markdown, test_util::ReadText(test_util::Runfile(path)))
      << test_util::StaleGolden(path, target);
}

TEST(RegressionTest, WellFormednessCheckRejectsBrokenXml) {
  EXPECT_EQ(testing::XmlWellFormednessError("<a x=\"1\"><b/></a>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a><b></a></b>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a x=\"<\"/>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a>&</a>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a>&foo;</a>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a x=\"1\" x=\"2\"/>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a/><b/>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a>"), "");
  EXPECT_NE(testing::XmlWellFormednessError("<a>\x01</a>"), "");
}

}  // namespace
}  // namespace dissect::analysis
