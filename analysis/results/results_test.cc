// Tests for the result reader: parsing the synthetic fixtures, Google
// Benchmark quirks (NaN tokens, appended name segments) and every error case.

#include "analysis/results/results.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::Runfile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::StartsWith;

constexpr char kContext[] = R"("context": {
    "library_build_type": "release",
    "dissect_schema_version": "1",
    "dissect_experiment": "exp",
    "dissect_axes": "a,b",
    "dissect_metrics": "m",
    "axis.a.unit": "B",
    "metric.m.unit": "ns")";

// A minimal dissect file for experiment "exp" (axes a, b) with `rows` as the
// contents of the benchmarks array.
// Status messages as std::string (gmock's string matchers do not take
// Debian's absl::string_view).
std::string Msg(const absl::Status& status) {
  return std::string(status.message());
}

std::string FileWithRows(const std::string& rows) {
  return absl::StrCat("{", kContext, "},\n\"benchmarks\": [", rows, "]}\n");
}

std::string RowNamed(const std::string& name) {
  return absl::StrCat(R"({"name": ")", name,
                      R"(", "run_type": "iteration", "m": 1.5})");
}

TEST(ParseResultJsonTest, ReadsSharedLatencyFixture) {
  const std::string path =
      test_util::Runfile("analysis/testdata/synthetic_shared_latency.json");
  absl::StatusOr<ResultFile> file = ReadResultFile(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->path, path);
  EXPECT_EQ(file->experiment, "shared_latency");
  EXPECT_THAT(file->axis_names, ElementsAre("footprint_bytes", "stride_bytes"));
  EXPECT_THAT(file->metric_names,
              ElementsAre("cycles_per_load", "ns_per_load"));
  EXPECT_EQ(file->AxisUnit("footprint_bytes"), "B");
  EXPECT_EQ(file->AxisUnit("no_such_axis"), "");
  EXPECT_EQ(file->MetricUnit("cycles_per_load"), "cycles/load");
  EXPECT_EQ(file->MetricUnit("ns_per_load"), "ns/load");
  EXPECT_EQ(file->ContextOr("device_sm_count", "?"), "132");
  EXPECT_EQ(file->ContextOr("no_such_key", "fallback"), "fallback");
  // Google Benchmark's own non-string context values are kept as JSON text.
  EXPECT_EQ(file->ContextOr("num_cpus", ""), "64");
  EXPECT_EQ(file->ContextOr("cpu_scaling_enabled", ""), "false");

  ASSERT_EQ(file->rows.size(), 6u);
  const Row& first = file->rows[0];
  EXPECT_EQ(first.name,
            "shared_latency/footprint_bytes:4096/stride_bytes:4/manual_time");
  EXPECT_THAT(first.axes, ElementsAre(Pair("footprint_bytes", "4096"),
                                      Pair("stride_bytes", "4")));
  EXPECT_EQ(first.Axis("stride_bytes"), "4");
  EXPECT_EQ(first.Axis("manual_time"), std::nullopt);
  EXPECT_FALSE(first.error);
  EXPECT_EQ(first.time_unit, "us");
  EXPECT_GT(first.real_time, 0);
  EXPECT_DOUBLE_EQ(first.Counter("cycles_per_load").value_or(-1), 29.02);
  EXPECT_DOUBLE_EQ(first.Counter("cycles_per_load.spread").value_or(-1),
                   0.0069);
  EXPECT_DOUBLE_EQ(first.Counter("samples").value_or(-1), 21);
  EXPECT_DOUBLE_EQ(first.Counter("sm_clock_mhz.before").value_or(-1), 1980);
  EXPECT_DOUBLE_EQ(first.Counter("throttled").value_or(-1), 0);
  // Fixed members are not counters.
  for (const char* fixed : {"iterations", "real_time", "cpu_time",
                            "family_index", "repetitions", "threads"}) {
    EXPECT_EQ(first.Counter(fixed), std::nullopt) << fixed;
  }
  EXPECT_EQ(first.counters.size(), 12u);

  const Row& skipped = file->rows[5];
  EXPECT_TRUE(skipped.error);
  EXPECT_THAT(skipped.error_message, StartsWith("skipped: footprint 262144 B"));
  EXPECT_EQ(skipped.Axis("footprint_bytes"), "262144");
  EXPECT_TRUE(skipped.counters.empty());
}

TEST(ParseResultJsonTest, ReadsReluFixtureWithStringAxisAndThrottledRow) {
  absl::StatusOr<ResultFile> file =
      ReadResultFile(test_util::Runfile("analysis/testdata/synthetic_relu.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->experiment, "relu");
  EXPECT_EQ(file->AxisUnit("timing"), "-");
  EXPECT_EQ(file->MetricUnit("dram_peak_pct"), "%");
  ASSERT_EQ(file->rows.size(), 6u);
  EXPECT_EQ(file->rows[0].Axis("timing"), "hot");
  EXPECT_EQ(file->rows[1].Axis("timing"), "cold");
  const Row& throttled = file->rows[5];
  EXPECT_DOUBLE_EQ(throttled.Counter("throttled").value_or(-1), 1);
  EXPECT_EQ(throttled.label, "sw_power_cap");
  EXPECT_EQ(file->rows[4].label, "");
}

TEST(ParseResultJsonTest, ReadsNonFiniteTokensAsCounters) {
  // Google Benchmark writes non-finite counters as bare NaN / Infinity.
  absl::StatusOr<ResultFile> file =
      ParseResultJson(FileWithRows(R"({"name": "exp/a:1/manual_time", "m": NaN,
          "m.spread": Infinity, "m.min": -Infinity, "label": "NaN Infinity"})"),
                      "nan.json");
  ASSERT_TRUE(file.ok()) << file.status();
  const Row& row = file->rows.at(0);
  EXPECT_TRUE(std::isnan(row.Counter("m").value_or(0)));
  EXPECT_EQ(row.Counter("m.spread"), HUGE_VAL);
  EXPECT_EQ(row.Counter("m.min"), -HUGE_VAL);
  EXPECT_EQ(row.label, "NaN Infinity");
}

TEST(ParseResultJsonTest, SkipsSegmentsGoogleBenchmarkAppends) {
  absl::StatusOr<ResultFile> file = ParseResultJson(
      FileWithRows(absl::StrCat(
          RowNamed("exp/a:1/b:x/iterations:1/repeats:1/manual_time"), ",",
          RowNamed("exp/b:y/process_time/real_time/threads:2"), ",",
          RowNamed("exp/manual_time"))),
      "appended.json");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->rows.size(), 3u);
  EXPECT_THAT(file->rows[0].axes, ElementsAre(Pair("a", "1"), Pair("b", "x")));
  EXPECT_THAT(file->rows[1].axes, ElementsAre(Pair("b", "y")));
  EXPECT_TRUE(file->rows[2].axes.empty());
}

TEST(ParseResultJsonTest, DeclaredAxisNamedLikeABenchmarkSegmentIsAnAxis) {
  const std::string axes = R"("dissect_axes": "a,b")";
  std::string text = FileWithRows(RowNamed("exp/threads:256/manual_time"));
  text.replace(text.find(axes), axes.size(), R"("dissect_axes": "threads")");
  absl::StatusOr<ResultFile> file = ParseResultJson(text, "threads.json");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_THAT(file->rows.at(0).axes, ElementsAre(Pair("threads", "256")));
}

TEST(ParseResultJsonTest, MalformedJsonGivesByteOffsetLineAndColumn) {
  absl::StatusOr<ResultFile> file = ParseResultJson("{\n  \"a\": x}", "m.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      Msg(file.status()),
      StartsWith("m.json: malformed JSON at byte 10 (line 2, column 8): "
                 "syntax error"));
}

TEST(ParseResultJsonTest, ByteOffsetIgnoresQuotesAddedAroundNaN) {
  const std::string text = R"({"x": NaN, "y": NaN, "z": })";
  absl::StatusOr<ResultFile> file = ParseResultJson(text, "n.json");
  ASSERT_FALSE(file.ok());
  const size_t byte = text.find('}') + 1;  // 1-based, like the parser.
  EXPECT_THAT(Msg(file.status()),
              StartsWith(absl::StrCat("n.json: malformed JSON at byte ", byte,
                                      " (line 1, column ", byte, "): ")));
}

struct ErrorCase {
  std::string test_name;
  std::string text;
  std::string message;  // Expected after "bad.json: ".
};

void PrintTo(const ErrorCase& error_case, std::ostream* os) {
  *os << error_case.test_name;
}

class ParseErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParseErrorTest, FailsWithOneLineNamingTheFile) {
  absl::StatusOr<ResultFile> file =
      ParseResultJson(GetParam().text, "dir/bad.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(file.status()), StartsWith("dir/bad.json: "));
  EXPECT_THAT(Msg(file.status()), HasSubstr(GetParam().message));
  EXPECT_FALSE(absl::StrContains(Msg(file.status()), "\n"));
}

std::string WithContextLine(const std::string& from, const std::string& to) {
  std::string text = FileWithRows("");
  text.replace(text.find(from), from.size(), to);
  return text;
}

INSTANTIATE_TEST_SUITE_P(
    AllErrors, ParseErrorTest,
    ::testing::Values(
        ErrorCase{"Truncated", R"({"context": {)", "malformed JSON at byte 14"},
        ErrorCase{"Empty", "", "malformed JSON at byte 1"},
        ErrorCase{"NotAnObject", "[1, 2]",
                  "not a dissect result (top level is array, not an object)"},
        ErrorCase{"NoContext", R"({"benchmarks": []})",
                  R"(not a dissect result (no "context" object))"},
        ErrorCase{"ContextNotObject", R"({"context": 3, "benchmarks": []})",
                  R"(not a dissect result (no "context" object))"},
        ErrorCase{"Foreign",
                  R"({"context": {"num_cpus": 8}, "benchmarks": []})",
                  "not a dissect result (context has no "
                  "dissect_schema_version)"},
        ErrorCase{"UnsupportedVersion",
                  WithContextLine(R"("dissect_schema_version": "1")",
                                  R"("dissect_schema_version": "3")"),
                  R"(unsupported dissect_schema_version "3" (this reader )"
                  R"(supports "1" and "2"))"},
        ErrorCase{"NoExperiment",
                  WithContextLine(R"("dissect_experiment": "exp",)", ""),
                  "context has no dissect_experiment"},
        ErrorCase{"NoBenchmarks", absl::StrCat("{", kContext, "}}"),
                  R"(no "benchmarks" array)"},
        ErrorCase{"BenchmarksNotArray",
                  absl::StrCat("{", kContext, R"(}, "benchmarks": {}})"),
                  R"(no "benchmarks" array)"},
        ErrorCase{"RowNotObject", FileWithRows("1"),
                  "benchmarks[0] is not an object"},
        ErrorCase{"RowWithoutName", FileWithRows(R"({"m": 1})"),
                  "benchmarks[0] has no name"},
        ErrorCase{"OtherExperiment",
                  FileWithRows(RowNamed("other/a:1/manual_time")),
                  R"(benchmarks[0] "other/a:1/manual_time" does not start )"
                  R"(with the experiment name "exp/")"},
        ErrorCase{"ExperimentNamePrefixOnly",
                  FileWithRows(RowNamed("expx/a:1/manual_time")),
                  "does not start with the experiment name"},
        ErrorCase{"SegmentWithoutColon",
                  FileWithRows(absl::StrCat(RowNamed("exp/a:1/manual_time"),
                                            ",", RowNamed("exp/a1/b:2"))),
                  R"(benchmarks[1] "exp/a1/b:2": malformed axis:value )"
                  R"(segment "a1")"},
        ErrorCase{"EmptyValue", FileWithRows(RowNamed("exp/a:/manual_time")),
                  R"(malformed axis:value segment "a:")"},
        ErrorCase{"EmptyAxis", FileWithRows(RowNamed("exp/:1/manual_time")),
                  R"(malformed axis:value segment ":1")"},
        ErrorCase{"TwoColons", FileWithRows(RowNamed("exp/a:1:2")),
                  R"(malformed axis:value segment "a:1:2")"},
        ErrorCase{"EmptySegment", FileWithRows(RowNamed("exp//manual_time")),
                  R"(malformed axis:value segment "")"},
        ErrorCase{"UndeclaredAxis", FileWithRows(RowNamed("exp/c:1")),
                  R"(axis "c" is not in dissect_axes)"},
        ErrorCase{"RepeatedAxis", FileWithRows(RowNamed("exp/a:1/a:2")),
                  R"(axis "a" appears twice)"},
        ErrorCase{"AggregateRow",
                  FileWithRows(R"({"name": "exp/a:1/manual_time_mean",)"
                               R"( "run_type": "aggregate"})"),
                  "is an aggregate row"}),
    [](const ::testing::TestParamInfo<ErrorCase>& param_info) {
      return param_info.param.test_name;
    });

TEST(ReadResultFileTest, NonExistentPathIsNotFound) {
  absl::StatusOr<ResultFile> file = ReadResultFile("no/such/result.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Msg(file.status()),
            "no/such/result.json: no such file or directory");
}

TEST(ReadResultFileTest, FolderIsRejected) {
  const std::string dir = test_util::Runfile("analysis/testdata");
  absl::StatusOr<ResultFile> file = ReadResultFile(dir);
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(Msg(file.status()), StartsWith(dir + ": is a folder"));
}

TEST(ReadResultFileTest, ForeignFixtureIsRejected) {
  const std::string path = test_util::Runfile("analysis/testdata/foreign.json");
  absl::StatusOr<ResultFile> file = ReadResultFile(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(Msg(file.status()),
            absl::StrCat(path,
                         ": not a dissect result (context has no "
                         "dissect_schema_version)"));
}

TEST(ReadResultFileTest, MalformedFixtureIsRejectedAtItsEnd) {
  const std::string path = test_util::Runfile("analysis/testdata/malformed.json");
  absl::StatusOr<ResultFile> file = ReadResultFile(path);
  ASSERT_FALSE(file.ok());
  const auto size = std::filesystem::file_size(path);
  EXPECT_THAT(Msg(file.status()),
              StartsWith(absl::StrCat(path, ": malformed JSON at byte ",
                                      size + 1, " (line ")));
  EXPECT_THAT(Msg(file.status()), HasSubstr("unexpected end of input"));
}

class CollectResultPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") /
            "collect_result_paths_test";
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "results" / "sub");
    std::filesystem::create_directories(root_ / "empty" / "deeper");
    for (const char* name :
         {"results/b.json", "results/a.json", "results/sub/c.json",
          "results/notes.txt", "empty/deeper/readme.md", "single.txt"}) {
      std::ofstream(root_ / name) << "{}";
    }
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::string P(const std::string& relative) const {
    return (root_ / relative).string();
  }

  std::filesystem::path root_;
};

TEST_F(CollectResultPathsTest, ExpandsFoldersSortedAndKeepsFiles) {
  absl::StatusOr<std::vector<std::string>> paths =
      CollectResultPaths({P("single.txt"), P("results")});
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_THAT(*paths,
              ElementsAre(P("single.txt"), P("results/a.json"),
                          P("results/b.json"), P("results/sub/c.json")));
}

TEST_F(CollectResultPathsTest, FolderWithoutJsonIsAnError) {
  absl::StatusOr<std::vector<std::string>> paths =
      CollectResultPaths({P("results"), P("empty")});
  ASSERT_FALSE(paths.ok());
  EXPECT_EQ(paths.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Msg(paths.status()),
            P("empty") + ": folder contains no .json file");
}

TEST_F(CollectResultPathsTest, MissingPathIsAnError) {
  absl::StatusOr<std::vector<std::string>> paths =
      CollectResultPaths({P("results"), P("missing")});
  ASSERT_FALSE(paths.ok());
  EXPECT_EQ(paths.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Msg(paths.status()), P("missing") + ": no such file or directory");
}

}  // namespace
}  // namespace dissect::analysis

namespace dissect::analysis {
namespace {

TEST(ResultHelpersTest, AxisNumberMedianAndBestOfMedians) {
  Row row;
  row.axes = {{"footprint_bytes", "4096"}, {"op", "read"}, {"x", "inf"}};
  EXPECT_EQ(AxisNumber(row, "footprint_bytes"), std::optional<double>(4096));
  EXPECT_EQ(AxisNumber(row, "op"), std::nullopt);
  EXPECT_EQ(AxisNumber(row, "x"), std::nullopt);
  EXPECT_EQ(AxisNumber(row, "missing"), std::nullopt);
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 2, 3}), 2.5);
  EXPECT_EQ(Median({}), 0);
  // The best knob setting's median, not the median over all settings.
  EXPECT_EQ(BestOfMedians({{16, {1, 2, 100}}, {64, {5, 6, 7}}}), 6);
  EXPECT_EQ(BestOfMedians({}), 0);
}

TEST(ResultHelpersTest, RowVectorStopsAtTheFirstMissingIndex) {
  Row row;
  row.counters = {{"sm_lines[0]", 4}, {"sm_lines[1]", NAN}, {"sm_lines[2]", 6}, {"sm_lines[4]", 9},
                  {"sm_lines", 1},    {"gpc_of_sm[0]", -1}, {"sm_lines[x]", 7}};
  const std::vector<double> lines = RowVector(row, "sm_lines");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], 4);
  EXPECT_TRUE(std::isnan(lines[1]));
  EXPECT_EQ(lines[2], 6);
  EXPECT_THAT(RowVector(row, "gpc_of_sm"), ElementsAre(-1));
  EXPECT_TRUE(RowVector(row, "missing").empty());
  EXPECT_TRUE(RowVector(row, "sm").empty());
}

}  // namespace
}  // namespace dissect::analysis
