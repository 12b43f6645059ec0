#include "analysis/nightly/outliers.h"

#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/nightly/junit_test_util.h"
#include "analysis/nightly/regression.h"
#include "analysis/nightly/run_data.h"
#include "analysis/nightly/thresholds_embedded.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Thresholds Shipped() {
  absl::StatusOr<Thresholds> thresholds =
      ParseThresholdsJson(kEmbeddedThresholdsJson, kEmbeddedThresholdsOrigin);
  EXPECT_TRUE(thresholds.ok()) << thresholds.status();
  return thresholds.ok() ? *thresholds : Thresholds{};
}

constexpr char kH100[] = "NVIDIA H100 80GB HBM3";

struct CardSpec {
  double bandwidth_factor = 1.0;  // HBM: DRAM bandwidth points
  double clock_factor = 1.0;      // throttling: every clock-bound metric
  bool throttled = false;
};

// One card's night: card-to-card scatter of 0.5 % on every metric.
RunData Card(std::mt19937& rng, int index, const std::string& model, const CardSpec& spec) {
  std::normal_distribution<double> scatter(1.0, 0.005);
  RunData run;
  run.info.run_id = absl::StrCat("node", index / 8, "-gpu", index % 8, "-20261123T020000Z");
  run.info.host = absl::StrCat("node", index / 8);
  run.info.started = "2026-11-23T02:00:00Z";
  run.info.device_name = model;
  run.info.device_uuid = absl::StrCat("GPU-", 1000 + index);
  run.info.device_serial = absl::StrCat("16500000", 1000 + index);
  run.info.driver_version = "550.54";
  const auto add = [&](const std::string& experiment, const std::string& rest,
                       const std::string& metric, double value, const std::string& unit) {
    RunPoint point;
    point.experiment = experiment;
    point.point = experiment + "/" + rest;
    point.metrics[metric] = MetricValue{value * scatter(rng), 0.005, unit};
    point.throttled = spec.throttled;
    run.points.push_back(point);
  };
  for (int footprint_gib : {1, 2, 4}) {
    add("memory_bandwidth",
        absl::StrCat("op:read/width_bits:128/footprint_bytes:", footprint_gib * 1073741824LL),
        "bandwidth_gbps", 3000 * spec.bandwidth_factor, "GB/s");
  }
  // L2 bandwidth scales with the clock; DRAM bandwidth does not.
  add("memory_bandwidth", "op:read/width_bits:128/footprint_bytes:16777216", "bandwidth_gbps",
      9000 * spec.clock_factor, "GB/s");
  add("shared_bandwidth", "width_bits:128", "bandwidth_gbps", 33000 * spec.clock_factor, "GB/s");
  add("mma_sync", "form:f16_f32/mode:throughput/data:random", "tflops", 480 * spec.clock_factor,
      "TFLOP/s");
  add("memory_latency", "path:global_cg/footprint_bytes:2147483648/stride_bytes:128/order:random",
      "ns_per_load", 470 / spec.clock_factor, "ns/load");
  // Cycles do not move with the clock.
  add("memory_latency", "path:global_cg/footprint_bytes:8388608/stride_bytes:128/order:random",
      "cycles_per_load", 260, "cycles/load");
  return run;
}

constexpr int kBadHbm = 17;
constexpr int kThrottling = 42;

std::vector<RunData> Fleet(unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<RunData> runs;
  for (int i = 0; i < 64; ++i) {
    CardSpec spec;
    if (i == kBadHbm) spec.bandwidth_factor = 0.92;
    if (i == kThrottling) {
      spec.clock_factor = 0.8;
      spec.throttled = true;
    }
    runs.push_back(Card(rng, i, kH100, spec));
  }
  return runs;
}

TEST(OutliersTest, SixtyFourCardFleetFlagsExactlyTheTwoBadCards) {
  const Thresholds thresholds = Shipped();
  for (unsigned seed = 1; seed <= 50; ++seed) {
    const OutlierReport report = FindFleetOutliers(Fleet(seed), thresholds);
    std::set<std::string> cards;
    std::set<std::string> hbm_metrics;
    std::set<std::string> throttle_metrics;
    for (const OutlierFinding& finding : report.outliers) {
      cards.insert(finding.card);
      EXPECT_TRUE(finding.worse) << finding.card << " " << finding.point;
      if (finding.card == "165000001017") {
        hbm_metrics.insert(finding.point);
        EXPECT_NEAR(finding.deviation, -0.08, 0.02);
        EXPECT_FALSE(finding.throttled);
      } else {
        throttle_metrics.insert(absl::StrCat(finding.experiment, "/", finding.metric));
        EXPECT_TRUE(finding.throttled);
      }
    }
    ASSERT_THAT(cards, ElementsAre("165000001017", "165000001042")) << "seed " << seed;
    // The bad HBM card: its three DRAM bandwidth points, nothing else.
    EXPECT_EQ(hbm_metrics.size(), 3u) << "seed " << seed;
    // The throttling card: L2 and shared bandwidth, tensor throughput, ns per load.
    EXPECT_THAT(throttle_metrics,
                ElementsAre("memory_bandwidth/bandwidth_gbps", "memory_latency/ns_per_load",
                            "mma_sync/tflops", "shared_bandwidth/bandwidth_gbps"))
        << "seed " << seed;
    ASSERT_EQ(report.models.size(), 1u);
    EXPECT_EQ(report.models[0].cards.size(), 64u);
    EXPECT_EQ(report.models[0].checked, 8);
  }
}

TEST(OutliersTest, HealthyFleetHasNoOutliers) {
  const Thresholds thresholds = Shipped();
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    std::vector<RunData> runs;
    for (int i = 0; i < 64; ++i) runs.push_back(Card(rng, i, kH100, CardSpec{}));
    const OutlierReport report = FindFleetOutliers(runs, thresholds);
    ASSERT_TRUE(report.outliers.empty()) << "seed " << seed << ": " << report.outliers[0].card;
  }
}

TEST(OutliersTest, ModelsAreSeparateFleetsAndSmallFleetsAreNotChecked) {
  std::mt19937 rng(3);
  std::vector<RunData> runs;
  // 6 H100s and 6 A100s, the A100s 40 % slower: no outliers, two fleets.
  for (int i = 0; i < 6; ++i) runs.push_back(Card(rng, i, kH100, CardSpec{}));
  CardSpec a100;
  a100.bandwidth_factor = 0.6;
  a100.clock_factor = 0.6;
  for (int i = 6; i < 12; ++i) runs.push_back(Card(rng, i, "NVIDIA A100-SXM4-80GB", a100));
  // 4 L40S cards, one of them far off: too few to judge.
  for (int i = 12; i < 16; ++i) {
    CardSpec spec;
    if (i == 12) spec.bandwidth_factor = 0.5;
    runs.push_back(Card(rng, i, "NVIDIA L40S", spec));
  }
  const OutlierReport report = FindFleetOutliers(runs, Shipped());
  EXPECT_TRUE(report.outliers.empty());
  ASSERT_EQ(report.models.size(), 3u);
  EXPECT_EQ(report.models[0].device_name, "NVIDIA A100-SXM4-80GB");
  EXPECT_TRUE(report.models[0].enough_cards);
  EXPECT_EQ(report.models[1].device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(report.models[2].device_name, "NVIDIA L40S");
  EXPECT_FALSE(report.models[2].enough_cards);
  EXPECT_EQ(report.models[2].checked, 0);
  const std::string markdown = RenderOutliersMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("| NVIDIA L40S           |     4 |"));
  EXPECT_THAT(markdown, HasSubstr("fewer than 5 cards: not checked"));
  EXPECT_THAT(markdown, HasSubstr("**No outliers.**"));
  const std::string xml = RenderOutliersJUnit(report);
  EXPECT_EQ(testing::XmlWellFormednessError(xml), "") << xml;
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"4 card(s), fewer than 5: not checked\"/>"));
}

TEST(OutliersTest, PointsOnFewerThanFiveCardsAreNotChecked) {
  std::mt19937 rng(4);
  std::vector<RunData> runs;
  for (int i = 0; i < 8; ++i) runs.push_back(Card(rng, i, kH100, CardSpec{}));
  for (int i = 0; i < 4; ++i) {
    RunPoint extra;
    extra.experiment = "wgmma";
    extra.point = "wgmma/form:f16_f32/n:256";
    extra.metrics["tflops"] = MetricValue{i == 0 ? 100.0 : 600.0, 0.01, "TFLOP/s"};
    runs[i].points.push_back(extra);
  }
  const OutlierReport report = FindFleetOutliers(runs, Shipped());
  EXPECT_TRUE(report.outliers.empty());
  EXPECT_EQ(report.models[0].skipped_few_cards, 1);
  EXPECT_THAT(RenderOutliersMarkdown(report),
              HasSubstr("1 (point, metric) pair(s) measured on fewer than 5 cards: not checked"));
}

TEST(OutliersTest, DuplicateRunOfACardUsesTheLaterOne) {
  std::mt19937 rng(5);
  std::vector<RunData> runs;
  for (int i = 0; i < 8; ++i) runs.push_back(Card(rng, i, kH100, CardSpec{}));
  CardSpec bad;
  bad.bandwidth_factor = 0.5;
  RunData early = Card(rng, 3, kH100, bad);
  early.info.started = "2026-11-23T01:00:00Z";
  early.info.run_id = "early";
  runs.push_back(early);
  const OutlierReport report = FindFleetOutliers(runs, Shipped());
  EXPECT_TRUE(report.outliers.empty());
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_THAT(report.notes[0], HasSubstr("card 165000001003 (NVIDIA H100 80GB HBM3) was measured "
                                         "twice: run node0-gpu3-20261123T020000Z used, run early "
                                         "left out"));
  EXPECT_EQ(report.models[0].cards.size(), 8u);
}

TEST(OutliersTest, MarkdownAndJUnitNameTheFlaggedCards) {
  const OutlierReport report = FindFleetOutliers(Fleet(1), Shipped());
  const std::string markdown = RenderOutliersMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("## Flagged cards"));
  EXPECT_THAT(markdown, HasSubstr("| NVIDIA H100 80GB HBM3 | 165000001017 | node2 | "
                                  "node2-gpu1-20261123T020000Z |                3 |"));
  EXPECT_THAT(markdown, HasSubstr("| 2 card(s) |"));
  const std::string xml = RenderOutliersJUnit(report);
  EXPECT_EQ(testing::XmlWellFormednessError(xml), "") << xml;
  EXPECT_EQ(testing::CountOf(xml, "<testcase "), 64);
  EXPECT_EQ(testing::CountOf(xml, "<failure "), 2);
  EXPECT_THAT(xml, HasSubstr("tests=\"64\" failures=\"2\""));
  EXPECT_THAT(xml, HasSubstr("name=\"165000001042 on node5\""));
}

}  // namespace
}  // namespace dissect::analysis
