// --resume and the throttled re-measure through the real runner and writer,
// without a GPU: rows carried over from an earlier file come first and
// unchanged, the file stays valid after every point, an existing file that
// is not a result of the experiment is refused, and a throttled point gets a
// second row (counter attempt 2, the re-measured note).
//
// Google Benchmark keeps custom context for the whole process, so every test
// here runs the same experiment ("carry"); what its body does is set per
// test.
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/result_format/reader.h"
#include "tools/testing/test_util.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/framework/runner.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using test_util::ReadText;

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// What the experiment's body does besides recording its samples; set per
// test.
std::function<void(PointContext&)>& BodyHook() {
  static auto* hook = new std::function<void(PointContext&)>();
  return *hook;
}

const Experiment& CarryExperiment() {
  static const Experiment* experiment = [] {
    auto* e = new Experiment("carry");
    e->Question("Are carried rows kept?")
        .RequiresGpu(false)
        .AddAxis(IntAxis("point", "-", {1, 2, 3}))
        .AddMetric("value_ms", "ms")
        .Run([](PointContext& ctx) -> absl::Status {
          if (BodyHook()) BodyHook()(ctx);
          ctx.RecordTimeSamples({1.0, 2.0, 3.0});
          return ctx.AddSamples("value_ms", {static_cast<double>(ctx.Int("point"))});
        });
    return e;
  }();
  return *experiment;
}

// Runs the points of `carry` whose point axis is in `points` into `path`,
// after `carried` rows. Returns the number of failed points.
int RunCarry(const std::string& path, const std::vector<int64_t>& points,
             std::vector<std::string> carried = {}, double cooldown_s = 0) {
  const Experiment& exp = CarryExperiment();
  std::vector<AxisSpec> axes = exp.axes();
  axes[0].int_values = points;
  RunEnv env;
  env.device.name = "cpu (carry, no GPU)";
  env.clocks_source = "unavailable: no GPU";
  env.progress = false;
  env.cooldown_s = cooldown_s;
  result_format::AtomicJsonReporter file(path);
  file.CarryRows(std::move(carried));
  const int failures = RunPointsQuietly(exp, axes, env, file);
  EXPECT_TRUE(file.status().ok()) << file.status();
  return failures;
}

std::vector<std::string> PointNames(const result_format::ResultFile& file) {
  std::vector<std::string> names;
  for (const result_format::Row& row : file.rows) names.push_back(result_format::RowPointName(row.name));
  return names;
}

TEST(RowPointNameTest, StripsGoogleBenchmarkSegments) {
  EXPECT_EQ(result_format::RowPointName("selftest/point:3/iterations:1/manual_time"), "selftest/point:3");
  EXPECT_EQ(result_format::RowPointName("selftest/point:3/manual_time"), "selftest/point:3");
  EXPECT_EQ(result_format::RowPointName("selftest/point:3"), "selftest/point:3");
  EXPECT_EQ(result_format::RowPointName("x/mode:iterations:a/manual_time"), "x/mode:iterations:a");
}

TEST(AtomicJsonReporterTest, CarriedRowsAloneMakeAValidDocument) {
  const std::string path = TempPath("carried_only.json");
  result_format::AtomicJsonReporter file(path);
  file.CarryRows({R"({"name": "a/iterations:1/manual_time", "x": NaN})", R"({"name": "b"})"});
  benchmark::BenchmarkReporter::Context context;
  file.ReportContext(context);
  EXPECT_EQ(file.rows(), 2);
  EXPECT_EQ(file.carried_rows(), 2);
  const std::string mid = test_util::ReadText(path);
  EXPECT_NE(mid.find(R"(    {"name": "a/iterations:1/manual_time", "x": NaN},)"
                     "\n"
                     R"(    {"name": "b"})"),
            std::string::npos)
      << mid;
  file.Finalize();
  const std::string text = test_util::ReadText(path);
  EXPECT_EQ(text, file.Snapshot());
  EXPECT_NE(text.find("    {\"name\": \"b\"}\n  ]\n}\n"), std::string::npos) << text;
}

TEST(ResumeTest, CarriedRowsComeFirstUnchangedAndEveryPointIsWritten) {
  BodyHook() = nullptr;
  const std::string first = TempPath("first.json");
  EXPECT_EQ(RunCarry(first, {1}), 0);
  absl::StatusOr<result_format::ResumedRows> kept = result_format::ReadResumedRows(first, "carry");
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_EQ(kept->rows.size(), 1u);
  EXPECT_EQ(kept->point_names, (std::set<std::string>{"carry/point:1"}));
  EXPECT_EQ(kept->failed, 0);
  // The kept row, byte for byte as in the file.
  EXPECT_NE(test_util::ReadText(first).find(kept->rows[0]), std::string::npos);
  EXPECT_EQ(kept->rows[0].front(), '{');
  EXPECT_EQ(kept->rows[0].back(), '}');

  const std::string second = TempPath("second.json");
  std::vector<int> rows_seen;
  BodyHook() = [&](PointContext&) {
    absl::StatusOr<result_format::ResultFile> now = result_format::ReadResultFile(second);
    ASSERT_TRUE(now.ok()) << now.status();
    rows_seen.push_back(static_cast<int>(now->rows.size()));
  };
  EXPECT_EQ(RunCarry(second, {2, 3}, kept->rows), 0);
  BodyHook() = nullptr;
  // Before point 2: the carried row; before point 3: it and point 2.
  EXPECT_EQ(rows_seen, (std::vector<int>{1, 2}));
  const std::string text = test_util::ReadText(second);
  EXPECT_NE(text.find(kept->rows[0]), std::string::npos) << "carried row changed:\n" << text;
  absl::StatusOr<result_format::ResultFile> file = result_format::ParseResultJson(text, second);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(PointNames(*file),
            (std::vector<std::string>{"carry/point:1", "carry/point:2", "carry/point:3"}));
  EXPECT_EQ(file->rows[2].Counter("value_ms"), 3.0);
}

TEST(ResumeTest, RefusesWhatIsNotAResultOfTheExperiment) {
  const std::string corrupt = TempPath("corrupt.json");
  WriteText(corrupt, "{\"context\": {");
  absl::StatusOr<result_format::ResumedRows> kept = result_format::ReadResumedRows(corrupt, "carry");
  EXPECT_EQ(kept.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(kept.status().message().find("--resume: " + corrupt), std::string::npos)
      << kept.status();

  BodyHook() = nullptr;
  const std::string mine = TempPath("mine.json");
  EXPECT_EQ(RunCarry(mine, {1}), 0);
  kept = result_format::ReadResumedRows(mine, "other_experiment");
  EXPECT_EQ(kept.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(kept.status().message().find("it holds experiment 'carry'"), std::string::npos)
      << kept.status();

  kept = result_format::ReadResumedRows(TempPath("missing.json"), "carry");
  EXPECT_EQ(kept.status().code(), absl::StatusCode::kInvalidArgument);

  // Rows of an older schema version would pass for this one's under the
  // context this build writes.
  const std::string old = TempPath("version1.json");
  WriteText(old, R"({"context": {"dissect_schema_version": "1", "dissect_experiment": "carry", )"
                 R"("dissect_axes": "point", "dissect_metrics": "value_ms"}, "benchmarks": []})");
  kept = result_format::ReadResumedRows(old, "carry");
  EXPECT_EQ(kept.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(kept.status().message().find(
                "--resume: " + old + " holds rows of dissect_schema_version \"1\" and this build "
                "writes \"2\"; move it away"),
            std::string::npos)
      << kept.status();
}

TEST(ResumeTest, KeepsNonFiniteCountersAndCountsFailedRows) {
  const std::string path = TempPath("nonfinite.json");
  const std::string nan_row =
      R"({"name": "carry/point:1/iterations:1/manual_time", "real_time": 1, "time_unit": "us", )"
      R"("value_ms": NaN, "label": "a } ] \" tricky label"})";
  const std::string failed_row =
      R"({"name": "carry/point:2/iterations:1/manual_time", "error_occurred": true, )"
      R"("error_message": "error: INTERNAL: boom"})";
  const std::string skipped_row =
      R"({"name": "carry/point:3/iterations:1/manual_time", "error_occurred": true, )"
      R"("error_message": "skipped: not here"})";
  WriteText(path, R"({"context": {"dissect_schema_version": "2", "dissect_experiment": "carry", )"
                  R"("dissect_axes": "point", "dissect_metrics": "value_ms"}, "benchmarks": [)" +
                      nan_row + ",\n" + failed_row + ", " + skipped_row + "]}\n");
  absl::StatusOr<result_format::ResumedRows> kept = result_format::ReadResumedRows(path, "carry");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->rows, (std::vector<std::string>{nan_row, failed_row, skipped_row}));
  EXPECT_EQ(kept->failed, 1);
  EXPECT_EQ(kept->point_names.size(), 3u);
}

TEST(RemeasureTest, AThrottledPointIsMeasuredOnceMoreAndBothRowsAreKept) {
  BodyHook() = [](PointContext& ctx) {
    if (ctx.Int("point") == 2 && ctx.attempt() == 1) ctx.MarkThrottled("test: throttled");
    // Throttled on both attempts: still only one re-measure.
    if (ctx.Int("point") == 3) ctx.MarkThrottled("test: always throttled");
  };
  const std::string path = TempPath("remeasure.json");
  EXPECT_EQ(RunCarry(path, {1, 2, 3}), 0);
  BodyHook() = nullptr;
  absl::StatusOr<result_format::ResultFile> file = result_format::ReadResultFile(path);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(PointNames(*file),
            (std::vector<std::string>{"carry/point:1", "carry/point:2", "carry/point:2",
                                      "carry/point:3", "carry/point:3"}));
  const std::vector<result_format::Row>& rows = file->rows;
  EXPECT_EQ(rows[0].Counter("attempt"), std::nullopt);
  EXPECT_EQ(rows[1].Counter("throttled"), 1.0);
  EXPECT_EQ(rows[1].Counter("attempt"), std::nullopt);
  EXPECT_EQ(rows[1].label, "test: throttled");
  EXPECT_EQ(rows[2].Counter("attempt"), 2.0);
  EXPECT_EQ(rows[2].Counter("throttled"), std::nullopt);
  EXPECT_EQ(rows[2].label, "re-measured after throttling (cool-down 0 s)");
  EXPECT_EQ(rows[2].Counter("value_ms"), 2.0);
  EXPECT_EQ(rows[4].Counter("attempt"), 2.0);
  EXPECT_EQ(rows[4].Counter("throttled"), 1.0);
  EXPECT_EQ(rows[4].label, "test: always throttled; re-measured after throttling (cool-down 0 s)");
}

TEST(RemeasureTest, NoteNamesTheCoolDown) {
  EXPECT_EQ(RemeasuredNote(30), "re-measured after throttling (cool-down 30 s)");
  EXPECT_EQ(RemeasuredNote(0.5), "re-measured after throttling (cool-down 0.5 s)");
}

}  // namespace
}  // namespace dissect
