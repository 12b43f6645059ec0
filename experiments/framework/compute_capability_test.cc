// An experiment's declared compute capabilities (NeedsComputeCapability):
// the reason it gives on a device that lacks them, and the runner skipping
// every point there without running the body, on a fake device (no GPU).
// Its own binary: Google Benchmark's custom context is process-wide.
#include <cstdlib>
#include <string>

#include "experiments/result_format/reader.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/framework/runner.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(ComputeCapabilityTest, ReasonNamesTheNeedAndTheDevice) {
  Experiment exp("needs_clusters");
  exp.NeedsComputeCapability(90, "thread-block clusters");
  EXPECT_EQ(UnmetComputeCapability(exp, 80),
            "needs compute capability 9.0 or newer for thread-block clusters; this GPU is 8.0");
  EXPECT_EQ(UnmetComputeCapability(exp, 90), "");
  EXPECT_EQ(UnmetComputeCapability(exp, 120), "");
}

// A need of some points only (an op): the same reason, which the result
// rows' readers recognise as a compute-capability skip.
TEST(ComputeCapabilityTest, OneNeedGivesTheSameReason) {
  const ComputeCapabilityNeed need{90, 0, "thread-block clusters"};
  EXPECT_EQ(UnmetNeed(need, 80),
            "needs compute capability 9.0 or newer for thread-block clusters; this GPU is 8.0");
  EXPECT_TRUE(IsComputeCapabilitySkip(Skipped(UnmetNeed(need, 80)).message()));
  EXPECT_EQ(UnmetNeed(need, 90), "");
}

TEST(ComputeCapabilityTest, UpperBoundExcludesNewerDevices) {
  Experiment exp("needs_wgmma");
  exp.NeedsComputeCapability(90, "wgmma.mma_async", 90);
  EXPECT_EQ(UnmetComputeCapability(exp, 89),
            "needs compute capability 9.0 (only) for wgmma.mma_async; this GPU is 8.9");
  EXPECT_EQ(UnmetComputeCapability(exp, 90), "");
  EXPECT_EQ(UnmetComputeCapability(exp, 100),
            "needs compute capability 9.0 (only) for wgmma.mma_async; this GPU is 10.0");
}

TEST(ComputeCapabilityTest, FirstUnmetOfSeveralNeedsIsReported) {
  Experiment exp("needs_two");
  exp.NeedsComputeCapability(80, "mma.sync m16n8k16")
      .NeedsComputeCapability(89, "fp8 mma.sync", 120);
  EXPECT_EQ(UnmetComputeCapability(exp, 75),
            "needs compute capability 8.0 or newer for mma.sync m16n8k16; this GPU is 7.5");
  EXPECT_EQ(UnmetComputeCapability(exp, 86),
            "needs compute capability 8.9 to 12.0 for fp8 mma.sync; this GPU is 8.6");
  EXPECT_EQ(UnmetComputeCapability(exp, 89), "");
  EXPECT_EQ(UnmetComputeCapability(Experiment("needs_nothing"), 0), "");
}

TEST(ComputeCapabilityTest, SkipIsRecognizedInARowError) {
  EXPECT_TRUE(IsComputeCapabilitySkip(
      "skipped: needs compute capability 9.0 or newer for thread-block clusters; this GPU is 8.0"));
  EXPECT_FALSE(IsComputeCapabilitySkip("skipped: footprint exceeds shared memory"));
  EXPECT_FALSE(IsComputeCapabilitySkip("error: needs compute capability, said the driver"));
}

// One test: the runner's context is process-wide, so the skipping run
// (whose context the test reads) goes first.
TEST(ComputeCapabilityTest, RunnerSkipsEveryPointOnAnOlderDeviceAndRunsOnANewerOne) {
  int bodies = 0;
  Experiment exp("synthetic_clusters");
  exp.Question("Does the runner skip a device without clusters?")
      .AddAxis(IntAxis("point", "-", {1, 2}))
      .AddMetric("value", "x")
      .NeedsComputeCapability(90, "thread-block clusters")
      .Run([&bodies](PointContext& ctx) -> absl::Status {
        ++bodies;
        ctx.RecordTimeSamples({1.0});
        return ctx.AddSamples("value", {1.0});
      });
  RunEnv env = FakeDeviceEnv("Fake A100 (test fixture)", 8, 0);
  const std::string out = std::string(std::getenv("TEST_TMPDIR")) + "/skipped.json";
  {
    result_format::AtomicJsonReporter file(out);
    EXPECT_EQ(RunPointsQuietly(exp, exp.axes(), env, file), 0);
  }
  EXPECT_EQ(bodies, 0);
  absl::StatusOr<result_format::ResultFile> skipped = result_format::ReadResultFile(out);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  const std::string reason =
      "needs compute capability 9.0 or newer for thread-block clusters; this GPU is 8.0";
  EXPECT_EQ(skipped->ContextOr(kSkippedOnDeviceKey, ""), reason);
  ASSERT_EQ(skipped->rows.size(), 2u);
  for (const result_format::Row& row : skipped->rows) {
    EXPECT_TRUE(row.error);
    EXPECT_EQ(row.error_message, "skipped: " + reason);
  }

  env.device.name = "Fake H100 (test fixture)";
  env.device.cc_major = 9;
  const std::string ran_out = std::string(std::getenv("TEST_TMPDIR")) + "/ran.json";
  {
    result_format::AtomicJsonReporter file(ran_out);
    EXPECT_EQ(RunPointsQuietly(exp, exp.axes(), env, file), 0);
  }
  EXPECT_EQ(bodies, 2);
  absl::StatusOr<result_format::ResultFile> ran = result_format::ReadResultFile(ran_out);
  ASSERT_TRUE(ran.ok()) << ran.status();
  ASSERT_EQ(ran->rows.size(), 2u);
  for (const result_format::Row& row : ran->rows) EXPECT_FALSE(row.error) << row.error_message;
}

}  // namespace
}  // namespace dissect
