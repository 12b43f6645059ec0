// The rows of cluster_coop through the real runner and writer (no GPU): every
// variant at every cluster size it runs records every declared metric
// (CoopMetrics), NaN with a note where the metric does not apply. A row
// that leaves a declared metric out fails as a whole ("experiment reported
// no samples for metric ..."), which is how the layer and tiled rows failed
// on an H100 while the coop rows passed.
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "experiments/result_format/reader.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/sharing/coop/coop_host.h"
#include "gtest/gtest.h"
#include "probes/cuda_status.h"
#include "probes/duplication/line_bitmap.h"

namespace dissect::coop {
namespace {

// What a row of `variant` at `cluster_size` would have measured: two
// clusters' worth of blocks, each on an SM of its own.
CoopRowFigures Figures(const std::string& variant, int cluster_size) {
  CoopRowFigures row;
  row.variant = variant;
  row.cluster_size = cluster_size;
  row.speedup = {1.25, 0.05};
  row.max_active_clusters = variant == kVariantCoop ? 66 : 0;
  row.blocks_per_sm = variant == kVariantLayer ? 8 : 1;
  row.lines.lines_touched = 1000;
  row.lines.replication = 2;
  row.lines.duplicated_fraction = 0.5;
  if (variant == kVariantCoop) {
    for (int b = 0; b < 2 * cluster_size; ++b) row.block_sm.push_back(2 * b);
  }
  return row;
}

const result_format::Row* FindRow(const result_format::ResultFile& file, const std::string& variant,
                             int cluster_size) {
  for (const result_format::Row& row : file.rows) {
    if (row.Axis("variant") == variant && row.Axis("cluster_size") == std::to_string(cluster_size))
      return &row;
  }
  return nullptr;
}

// Runs layer, tiled and coop at cluster sizes 1 and 2 as cluster_coop's
// body reports them, once for the suite (the result context is
// process-wide).
class CoopRowTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Experiment exp("synthetic_cluster_coop");
    exp.Question("Does every cluster_coop row record every metric?")
        .AddAxis(IntAxis("cluster_size", "blocks", {1, 2}))
        .AddAxis(StringAxis("variant", VariantNames(), {}))
        .AddMetrics(CoopMetrics())
        .Run([](PointContext& ctx) -> absl::Status {
          const int cluster_size = static_cast<int>(ctx.Int("cluster_size"));
          DISSECT_RETURN_IF_ERROR(CheckVariantClusterSize(ctx.Str("variant"), cluster_size));
          ctx.RecordTimeSamples({1.0, 1.0});
          return ReportCoopRow(ctx, Figures(ctx.Str("variant"), cluster_size));
        });
    const std::string out = std::string(std::getenv("TEST_TMPDIR")) + "/coop_rows.json";
    result_format::AtomicJsonReporter writer(out);
    failures_ = RunPointsQuietly(exp, exp.axes(),
                                 FakeDeviceEnv("Synthetic GPU (test fixture)", 9), writer);
    file_ = result_format::ReadResultFile(out);
  }

  void SetUp() override { ASSERT_TRUE(file_.ok()) << file_.status(); }

  static int failures_;
  static absl::StatusOr<result_format::ResultFile> file_;
};

int CoopRowTest::failures_ = -1;
absl::StatusOr<result_format::ResultFile> CoopRowTest::file_ = absl::UnknownError("not run");

TEST_F(CoopRowTest, EveryRowThatRunsIsWrittenWithEveryMetric) {
  EXPECT_EQ(failures_, 0);
  for (const auto& [variant, size] : std::vector<std::pair<std::string, int>>{
           {kVariantLayer, 1}, {kVariantTiled, 1}, {kVariantCoop, 1}, {kVariantCoop, 2}}) {
    const result_format::Row* row = FindRow(*file_, variant, size);
    ASSERT_NE(row, nullptr) << variant << " at " << size;
    EXPECT_FALSE(row->error) << variant << " at " << size << ": " << row->error_message;
    for (const MetricSpec& m : CoopMetrics()) {
      EXPECT_TRUE(row->Counter(m.name).has_value()) << variant << " at " << size << ": " << m.name;
    }
  }
  // Layer and tiled use no clusters: skipped, with the reason, above 1.
  for (const char* variant : {kVariantLayer, kVariantTiled}) {
    const result_format::Row* row = FindRow(*file_, variant, 2);
    ASSERT_NE(row, nullptr) << variant;
    EXPECT_TRUE(absl::StrContains(row->error_message, "does not use clusters"))
        << row->error_message;
  }
}

// No cluster, or a cluster of one block, has no peer: the fraction is NaN
// and the row's label says why; clusters of 2 on SMs of their own read 0.
TEST_F(CoopRowTest, PeerSameSmFractionIsNaNWithoutAPeer) {
  for (const auto& [variant, why] : std::vector<std::pair<std::string, std::string>>{
           {kVariantLayer, "layer launches no cluster"},
           {kVariantTiled, "tiled launches no cluster"},
           {kVariantCoop, "a cluster of 1 block has no peer"}}) {
    const result_format::Row* row = FindRow(*file_, variant, 1);
    ASSERT_NE(row, nullptr) << variant;
    const std::optional<double> same_sm = row->Counter("peer_same_sm_fraction");
    ASSERT_TRUE(same_sm.has_value()) << variant << ": " << row->error_message;
    EXPECT_TRUE(std::isnan(*same_sm)) << variant << ": " << *same_sm;
    EXPECT_TRUE(absl::StrContains(row->label, "peer_same_sm_fraction NaN: " + why)) << row->label;
  }
  const result_format::Row* coop = FindRow(*file_, kVariantCoop, 2);
  ASSERT_NE(coop, nullptr);
  EXPECT_EQ(coop->Counter("peer_same_sm_fraction"), 0.0);
  EXPECT_FALSE(absl::StrContains(coop->label, "peer_same_sm_fraction")) << coop->label;
}

}  // namespace
}  // namespace dissect::coop
