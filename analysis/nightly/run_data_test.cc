#include "analysis/nightly/run_data.h"

#include <string>
#include <vector>

#include "analysis/nightly/result_points.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

const std::string kRun = "analysis/testdata/history/run_h100_night1";

const RunPoint* Find(const RunData& run, const std::string& point, int attempt = 1) {
  for (const RunPoint& p : run.points) {
    if (p.point == point && p.attempt == attempt) return &p;
  }
  return nullptr;
}

TEST(ReadRunFolderTest, IdentityComesFromTheManifest) {
  absl::StatusOr<RunData> run = ReadRunFolder(test_util::Runfile(kRun));
  ASSERT_TRUE(run.ok()) << run.status();
  const RunInfo& info = run->info;
  EXPECT_EQ(info.run_id, "gpu-node-07-GPU-1111aaaa-20261123T020000Z");
  EXPECT_EQ(info.sweep, "nightly");
  EXPECT_EQ(info.started, "2026-11-23T02:00:00Z");
  EXPECT_EQ(info.host, "gpu-node-07");
  EXPECT_EQ(info.git_commit, "aaaa000011112222333344445555666677778888");
  // NVML's driver version from the manifest wins over the files' CUDA one.
  EXPECT_EQ(info.driver_version, "580.65.06");
  EXPECT_EQ(info.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info.device_uuid, "GPU-1111aaaa");
  EXPECT_EQ(info.device_serial, "1650000000001");
  EXPECT_EQ(info.vbios, "96.00.99.00.01");
  // Files written before experiments named their headline: the reader's
  // default for them.
  EXPECT_THAT(run->headline_metrics,
              ElementsAre(std::pair<const std::string, std::string>("memory_latency",
                                                                    "cycles_per_load"),
                          std::pair<const std::string, std::string>("shared_latency",
                                                                    "cycles_per_load")));
}

TEST(ReadRunFolderTest, PointsSkipFailedAndSkippedRowsAndKeepAttempts) {
  std::vector<std::string> bad;
  absl::StatusOr<RunData> run = ReadRunFolder(test_util::Runfile(kRun), &bad);
  ASSERT_TRUE(run.ok()) << run.status();
  // shared_latency: 3 measured rows (one skipped); memory_latency: 1 (one failed).
  ASSERT_THAT(run->points, SizeIs(4));
  const RunPoint* p = Find(*run, "shared_latency/footprint_bytes:4096/stride_bytes:4");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->experiment, "shared_latency");
  EXPECT_THAT(p->axes,
              ElementsAre(std::pair<const std::string, std::string>("footprint_bytes", "4096"),
                          std::pair<const std::string, std::string>("stride_bytes", "4")));
  ASSERT_EQ(p->metrics.count("cycles_per_load"), 1u);
  EXPECT_DOUBLE_EQ(p->metrics.at("cycles_per_load").value, 29.02);
  EXPECT_EQ(p->metrics.at("cycles_per_load").spread, 0.0069);
  EXPECT_EQ(p->metrics.at("cycles_per_load").unit, "cycles/load");
  EXPECT_FALSE(p->throttled);
  EXPECT_EQ(p->attempt, 1);
  // Counters that are not declared metrics (samples, .min) are not metrics.
  EXPECT_THAT(p->metrics, SizeIs(2));

  const RunPoint* first = Find(*run, "shared_latency/footprint_bytes:8192/stride_bytes:4", 1);
  const RunPoint* second = Find(*run, "shared_latency/footprint_bytes:8192/stride_bytes:4", 2);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(first->throttled);
  EXPECT_FALSE(second->throttled);
  EXPECT_DOUBLE_EQ(second->metrics.at("cycles_per_load").value, 29.1);
  EXPECT_FALSE(second->metrics.at("ns_per_load").spread.has_value());

  const RunPoint* chase =
      Find(*run,
           "memory_latency/path:global_cg/footprint_bytes:4194304/stride_bytes:128/order:random/"
           "loads:4096");
  ASSERT_NE(chase, nullptr);
  EXPECT_THAT(chase->metrics, SizeIs(3));
  EXPECT_EQ(chase->metrics.at("overhead_cycles").unit, "cycles");
  EXPECT_FALSE(chase->metrics.at("overhead_cycles").spread.has_value());
}

TEST(ReadRunFolderTest, CorruptResultFileIsNamedAndTheRestRead) {
  std::vector<std::string> bad;
  absl::StatusOr<RunData> run = ReadRunFolder(test_util::Runfile(kRun), &bad);
  ASSERT_TRUE(run.ok()) << run.status();
  // relu_bandwidth.json is truncated; mma_sync timed out before writing its
  // file and wgmma is pending: those two are not errors.
  ASSERT_THAT(bad, SizeIs(1));
  EXPECT_THAT(bad[0], HasSubstr("relu_bandwidth.json"));
  EXPECT_FALSE(run->points.empty());
}

TEST(ReadRunFolderTest, WithoutManifestIdentityComesFromTheContext) {
  absl::StatusOr<RunData> run = ReadRunFolder(test_util::Runfile("analysis/testdata/history/loose"));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.run_id, "lab-box-0-20261120T140311Z");
  EXPECT_EQ(run->info.started, "2026-11-20T14:03:11Z");
  EXPECT_EQ(run->info.host, "lab-box");
  EXPECT_EQ(run->info.device_name, "Synthetic A100-like GPU (fixture)");
  EXPECT_EQ(run->info.driver_version, "12.4");
  EXPECT_EQ(run->info.git_commit, "bbbb000011112222333344445555666677778888");
  EXPECT_THAT(run->points, SizeIs(1));
  EXPECT_EQ(run->headline_metrics.at("shared_latency"), "cycles_per_load");
}

TEST(ReadRunFolderTest, ForeignManifestIsAnError) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/foreign_manifest";
  ASSERT_EQ(
      system(("mkdir -p " + dir + " && echo '{\"format\": \"other\"}' > " + dir + "/manifest.json")
                 .c_str()),
      0);
  absl::StatusOr<RunData> run = ReadRunFolder(dir);
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(std::string(run.status().message()),
              HasSubstr("manifest.json: not a dissect manifest"));
}

TEST(ReadRunFolderTest, MissingFolderIsAnError) {
  EXPECT_FALSE(ReadRunFolder("/nonexistent/run").ok());
}

TEST(NormalizeUtcTest, ConvertsOffsetsToUtc) {
  EXPECT_EQ(NormalizeUtc("2026-11-23T03:00:14+01:00"), "2026-11-23T02:00:14Z");
  EXPECT_EQ(NormalizeUtc("2026-11-23T02:00:00Z"), "2026-11-23T02:00:00Z");
  EXPECT_EQ(NormalizeUtc("yesterday"), "yesterday");
}

TEST(ContentHashTest, IsStableFnv1a) {
  EXPECT_EQ(ContentHash(""), "cbf29ce484222325");
  EXPECT_EQ(ContentHash("a"), "af63dc4c8601ec8c");
}

}  // namespace
}  // namespace dissect::analysis
