#include "analysis/pages/night_status.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/pages/dashboard.h"
#include "analysis/nightly/run_data.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

// Run folders the sweep runner wrote on a machine without a GPU
// (analysis/testdata/README.md says how).
const std::string kSmoke = "analysis/testdata/nights/smoke_no_gpu";
const std::string kSelftest = "analysis/testdata/nights/selftest_crash_timeout";
const std::string kTruncated = "analysis/testdata/nights/selftest_truncated";

RunData Read(const std::string& dir) {
  absl::StatusOr<RunData> run = ReadRunFolder(test_util::Runfile(dir));
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *run : RunData{};
}

// Where a test writes a site (WriteDashboard creates the folder).
fs::path OutDir(const std::string& name) {
  return fs::path(std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp") /
         name;
}

// The night page of `runs` as WriteDashboard renders it (no findings yet).
std::string PageOf(const std::vector<RunData>& runs) {
  NightPage page;
  page.night = "2026-11-27";
  for (const RunData& run : runs) page.runs.push_back(run.info);
  page.status = NightStatusOf(runs);
  page.findings.available = true;
  return RenderNightPage(page);
}

TEST(ReadRunFolderProblemsTest, EveryFailedEntryOfASmokeNightWithoutAGpu) {
  const RunData run = Read(kSmoke);
  EXPECT_EQ(run.info.sweep, "smoke");
  EXPECT_TRUE(NothingMeasured(run));
  EXPECT_EQ(run.entries, 10);
  ASSERT_THAT(run.problems, SizeIs(10));
  EXPECT_THAT(run.problems, Each(Field(&EntryProblem::status, "failed")));
  EXPECT_THAT(run.problems, Each(Field(&EntryProblem::reason, HasSubstr("no CUDA device"))));
  EXPECT_EQ(run.problems[0].entry, "shared_latency");
  EXPECT_EQ(run.problems[0].experiment, "shared_latency");
}

TEST(ReadRunFolderProblemsTest, FailedDeviceCheckIsOneProblemNotTenPendingEntries) {
  const RunData run = Read("analysis/testdata/nights/smoke_device_check");
  EXPECT_TRUE(NothingMeasured(run));
  EXPECT_EQ(run.entries, 10);
  ASSERT_THAT(run.problems, SizeIs(1));
  EXPECT_EQ(run.problems[0].entry, kDeviceCheckEntry);
  EXPECT_EQ(run.problems[0].status, "failed");
  EXPECT_THAT(run.problems[0].reason, HasSubstr("no NVIDIA driver"));
  EXPECT_EQ(NightStatusOf({run}).Summary(), "nothing measured: the device check failed");
}

TEST(ReadRunFolderProblemsTest, CrashAndTimeoutWithTheirReasons) {
  const RunData run = Read(kSelftest);
  EXPECT_FALSE(NothingMeasured(run));
  ASSERT_THAT(run.problems, SizeIs(2));
  EXPECT_EQ(run.problems[0].entry, "crash");
  EXPECT_EQ(run.problems[0].status, "failed");
  EXPECT_THAT(run.problems[0].reason, HasSubstr("killed by SIG"));
  EXPECT_EQ(run.problems[1].entry, "hang");
  EXPECT_EQ(run.problems[1].status, "timeout");
  EXPECT_THAT(run.problems[1].reason, HasSubstr("time limit of 3 s reached"));
}

TEST(ReadRunFolderProblemsTest, TruncatedResultFileIsAnUnreadableEntry) {
  const RunData run = Read(kTruncated);
  ASSERT_THAT(run.problems, SizeIs(1));
  EXPECT_EQ(run.problems[0].entry, "ok");
  EXPECT_EQ(run.problems[0].status, "unreadable");
  EXPECT_THAT(run.problems[0].reason, HasSubstr("ok.json"));
}

TEST(ReadRunFolderProblemsTest, TimeoutPendingAndCorruptEntriesOfANightlyRun) {
  const RunData run = Read("analysis/testdata/history/run_h100_night1");
  std::vector<std::string> seen;
  for (const EntryProblem& p : run.problems) seen.push_back(p.entry + " " + p.status);
  EXPECT_THAT(seen, ::testing::ElementsAre("relu_bandwidth unreadable", "mma_sync timeout",
                                           "wgmma pending"));
  EXPECT_EQ(run.entries, 5);
}

TEST(NightStatusTest, NothingMeasuredIsSaidAndNeverGreen) {
  const NightStatus status = NightStatusOf({Read(kSmoke)});
  EXPECT_TRUE(status.NothingMeasured());
  EXPECT_EQ(status.Summary(), "nothing measured: 10 entries not measured (10 failed)");
  const std::string html = PageOf({Read(kSmoke)});
  EXPECT_THAT(html, HasSubstr("<section id=\"failures\" class=\"failed\">"));
  EXPECT_THAT(html, HasSubstr("<h2>Nothing measured (10)</h2>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"status\">failed</td>"));
  EXPECT_THAT(html, HasSubstr("no CUDA device"));
  EXPECT_THAT(html, Not(HasSubstr("class=\"ok\"")));
  EXPECT_THAT(html, HasSubstr("no regressions checked: nothing was measured"));
  EXPECT_LT(html.find("id=\"failures\""), html.find("id=\"findings\""));
}

TEST(NightStatusTest, CrashAndTimeoutAreAboveTheRegressions) {
  const std::string html = PageOf({Read(kSelftest)});
  EXPECT_THAT(html, HasSubstr("<h2>Entries not measured (2)</h2>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"status\">failed</td>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"status\">timeout</td>"));
  EXPECT_THAT(html, HasSubstr("time limit of 3 s reached"));
  EXPECT_THAT(html, HasSubstr("no regressions among the points measured; 2 entries not "
                              "measured (1 failed, 1 timeout)"));
  EXPECT_THAT(html, Not(HasSubstr("<p class=\"ok\">no regressions</p>")));
  EXPECT_LT(html.find("id=\"failures\""), html.find("id=\"findings\""));
}

TEST(NightStatusTest, HealthyNightHasNoFailureSection) {
  RunData run;
  run.info.run_id = "r";
  run.entries = 1;
  run.points.push_back(RunPoint{});
  const NightStatus status = NightStatusOf({run});
  EXPECT_FALSE(status.Broken());
  EXPECT_EQ(NightStatusHtml(status), "");
  EXPECT_EQ(NightStatusCell(status), "<td>all measured</td>");
  EXPECT_THAT(PageOf({run}), HasSubstr("<p class=\"ok\">no regressions</p>"));
  EXPECT_EQ(BrokenNightsHtml({{"2026-11-27", status}}), "");
}

// The dashboard over run folders: a broken night is listed (the binary's
// exit status 1 when it is the newest), on its page and on the index, above
// the table.
DashboardSummary WriteSite(const std::string& history, const fs::path& out) {
  absl::StatusOr<DashboardInput> input = ReadDashboardInput(test_util::Runfile(history));
  EXPECT_TRUE(input.ok()) << input.status();
  if (!input.ok()) return {};
  DashboardOptions options;
  absl::StatusOr<DashboardSummary> summary = WriteDashboard(*input, out.string(), options);
  EXPECT_TRUE(summary.ok()) << summary.status();
  return summary.ok() ? *summary : DashboardSummary{};
}

TEST(WriteDashboardStatusTest, SmokeNightWithoutGpuIsAWarningOnPageAndIndex) {
  const fs::path out = OutDir("smoke_site");
  const DashboardSummary summary = WriteSite(kSmoke, out);
  EXPECT_THAT(summary.broken_nights,
              ElementsAre(AllOf(HasSubstr("nothing measured"), HasSubstr("10 failed"))));
  EXPECT_TRUE(summary.newest_night_broken);
  ASSERT_THAT(summary.pages, SizeIs(2));
  const std::string index = test_util::ReadText(summary.pages[0]);
  EXPECT_THAT(index, HasSubstr("<section id=\"failures\" class=\"failed\">"));
  EXPECT_THAT(index, HasSubstr("no CUDA device"));
  EXPECT_LT(index.find("id=\"failures\""), index.find("<table class=\"nights\">"));
  EXPECT_THAT(index, HasSubstr("<td class=\"failed\">nothing measured: 10 entries not measured "
                               "(10 failed)</td><td class=\"num\">n/a</td>"));
  const std::string night = test_util::ReadText(summary.pages[1]);
  EXPECT_THAT(night, HasSubstr("<h2>Nothing measured (10)</h2>"));
}

TEST(WriteDashboardStatusTest, TruncatedResultFileIsOnThePageNotOnlyOnStderr) {
  const fs::path out = OutDir("truncated_site");
  const DashboardSummary summary = WriteSite(kTruncated, out);
  EXPECT_THAT(summary.broken_nights, ElementsAre(HasSubstr("1 unreadable")));
  EXPECT_TRUE(summary.newest_night_broken);
  ASSERT_THAT(summary.pages, SizeIs(2));
  const std::string night = test_util::ReadText(summary.pages[1]);
  EXPECT_THAT(night, HasSubstr("<td class=\"status\">unreadable</td>"));
  EXPECT_THAT(night, HasSubstr("ok.json"));
}

// An older broken night stays red on the index, but only the newest night
// decides the exit status: one broken night does not fail every later run.
TEST(WriteDashboardStatusTest, OlderBrokenNightIsListedButTheNewestDecides) {
  RunData broken = Read(kSmoke);
  broken.info.started = "2026-11-20T02:00:00Z";
  RunData healthy = Read(kSelftest);
  healthy.info.started = "2026-11-21T02:00:00Z";
  healthy.problems.clear();
  DashboardInput input;
  input.runs = {broken, healthy};
  absl::StatusOr<DashboardSummary> summary =
      WriteDashboard(input, OutDir("older_broken").string(), DashboardOptions());
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(summary->broken_nights, ElementsAre(HasSubstr("2026-11-20: nothing measured")));
  EXPECT_FALSE(summary->newest_night_broken);
  const std::string index = test_util::ReadText(summary->pages[0]);
  EXPECT_THAT(index,
              HasSubstr("<a href=\"2026-11-20/index.html\">2026-11-20</a>: nothing measured"));
}

}  // namespace
}  // namespace dissect::analysis
