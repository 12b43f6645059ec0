#include "analysis/nightly/entry_problems.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/nightly/junit_test_util.h"
#include "analysis/nightly/regression.h"
#include "analysis/nightly/run_data.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using testing::CountOf;
using ::testing::HasSubstr;
using ::testing::Not;

RunData Read(const std::string& dir) {
  absl::StatusOr<RunData> run = ReadRunFolder(test_util::Runfile(dir));
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : RunData{};
}

// The run folders of analysis/testdata/nights (analysis/testdata/README.md).
RegressionReport CompareWith(const std::string& baseline, const std::string& candidate) {
  return CompareSides(SideOfRun(Read("analysis/testdata/nights/" + baseline)),
                      SideOfRun(Read("analysis/testdata/nights/" + candidate)), Thresholds{});
}

TEST(ProblemsSummaryTest, CountsByStatusInAFixedOrder) {
  const std::vector<EntryProblem> problems = {
      {"a", "", "skipped", "no binary"},
      {"b", "", "timeout", "limit"},
      {"c", "", "failed", "exit 3"},
      {"d", "", "failed", "exit 3"},
      {"e", "", "odd", "?"},
  };
  EXPECT_EQ(ProblemsSummary(problems),
            "5 entries not measured (2 failed, 1 timeout, 1 skipped, 1 odd)");
  EXPECT_EQ(ProblemsSummary({{"a", "", "unreadable", "cut"}}),
            "1 entry not measured (1 unreadable)");
  EXPECT_EQ(ProblemsSummary({{kDeviceCheckEntry, "", "failed", "no NVIDIA driver"}}),
            "the device check failed");
  EXPECT_EQ(
      ProblemsSummary({{kDeviceCheckEntry, "", "failed", "no driver"}, {"a", "", "failed", "x"}}),
      "the device check failed; 1 entry not measured (1 failed)");
}

TEST(ProblemsJUnitTest, SkippedIsSkippedEverythingElseAFailure) {
  const std::string xml = ProblemsJUnitCases(
      {{"s", "x", "skipped", "binary not found"}, {"p", "", "pending", "runner <stopped>"}}, 2);
  EXPECT_THAT(xml, HasSubstr("  <testcase classname=\"sweep entry\" name=\"s\">\n"
                             "    <skipped message=\"skipped: binary not found\"/>\n"));
  EXPECT_THAT(xml,
              HasSubstr("<failure type=\"pending\" message=\"pending: runner &lt;stopped&gt;"));
}

TEST(CompareProblemsTest, SmokeNightWithoutGpuFailsEveryEntry) {
  const RegressionReport report = CompareWith("selftest_crash_timeout", "smoke_no_gpu");
  EXPECT_TRUE(report.candidate_measured_nothing);
  EXPECT_TRUE(report.CandidateIncomplete());
  const std::string xml = RenderRegressionJUnit(report);
  EXPECT_EQ(testing::XmlWellFormednessError(xml), "");
  EXPECT_EQ(CountOf(xml, "<failure type=\"failed\""), 10);
  EXPECT_THAT(xml, HasSubstr("failures=\"10\""));
  EXPECT_THAT(xml, HasSubstr("no CUDA device"));
  const std::string markdown = RenderRegressionMarkdown(report);
  EXPECT_THAT(markdown, HasSubstr("## Entries not measured (10)"));
  EXPECT_THAT(markdown, HasSubstr("**Nothing was measured"));
  EXPECT_THAT(markdown, HasSubstr("No regression check: the candidate measured nothing"));
  EXPECT_THAT(markdown, Not(HasSubstr("**No regressions.**")));
}

TEST(CompareProblemsTest, CrashAndTimeoutAreFailuresBesideTheComparisons) {
  const RegressionReport report = CompareWith("selftest_crash_timeout", "selftest_crash_timeout");
  EXPECT_FALSE(report.HasRegression());
  EXPECT_TRUE(report.CandidateIncomplete());
  const std::string xml = RenderRegressionJUnit(report);
  EXPECT_EQ(testing::XmlWellFormednessError(xml), "");
  EXPECT_EQ(CountOf(xml, "<failure "), 2);
  EXPECT_THAT(xml, HasSubstr("<failure type=\"failed\" message=\"failed: killed by SIG"));
  EXPECT_THAT(xml, HasSubstr("<failure type=\"timeout\" message=\"timeout: time limit of 3 s"));
  EXPECT_THAT(RenderRegressionMarkdown(report),
              HasSubstr("No regressions among the points measured; 2 entries not measured"));
}

TEST(CompareProblemsTest, TruncatedResultFileIsAFailure) {
  const RegressionReport report = CompareWith("selftest_crash_timeout", "selftest_truncated");
  EXPECT_TRUE(report.CandidateIncomplete());
  const std::string xml = RenderRegressionJUnit(report);
  EXPECT_EQ(CountOf(xml, "<failure type=\"unreadable\""), 1);
}

TEST(CompareProblemsTest, HealthyCandidateHasNoEntryTestcase) {
  const RunData run = Read("analysis/testdata/nights/selftest_crash_timeout");
  RunData healthy = run;
  healthy.problems.clear();
  const RegressionReport report = CompareSides(SideOfRun(run), SideOfRun(healthy), Thresholds{});
  EXPECT_FALSE(report.CandidateIncomplete());
  EXPECT_THAT(RenderRegressionJUnit(report), Not(HasSubstr("sweep entry")));
  EXPECT_THAT(RenderRegressionMarkdown(report), HasSubstr("**No regressions.**"));
}

}  // namespace
}  // namespace dissect::analysis
