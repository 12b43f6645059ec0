// The schema versions the reader takes: version 2 as written, version 1 with
// its renamed metrics under their version-2 names, anything else refused.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "experiments/result_format/reader.h"
#include "experiments/result_format/renamed_metrics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::result_format {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

// A result file of `experiment` at `version` with metrics tflops and
// `metric`, and one row that holds `metric`'s statistics and `extra`
// (further row members, each with a leading comma).
std::string ResultText(const std::string& version, const std::string& experiment,
                       const std::string& metric, const std::string& extra = "") {
  return absl::StrReplaceAll(
      R"({"context": {"dissect_schema_version": "$V", "dissect_experiment": "$E",
  "dissect_axes": "shape", "dissect_metrics": "tflops,$M",
  "metric.tflops.unit": "TFLOP/s", "metric.$M.unit": "GB/s"},
 "benchmarks": [
  {"name": "$E/shape:8x8x8/iterations:1/manual_time", "run_type": "iteration",
   "real_time": 2.5, "time_unit": "us", "tflops": 700, "tflops.max": 710,
   "$M": 283, "$M.min": 280.17, "$M.max": 285.83, "$M.spread": 0.02,
   "$M.median": 283.5, "$Mx": 7$X}
 ]}
)",
      {{"$V", version}, {"$E", experiment}, {"$M", metric}, {"$X", extra}});
}

ResultFile ParseOrDie(const std::string& text) {
  absl::StatusOr<ResultFile> file = ParseResultJson(text, "file.json");
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *std::move(file) : ResultFile();
}

// The row's counters whose name starts with `prefix`.
std::map<std::string, double> CountersStartingWith(const ResultFile& file,
                                                   const std::string& prefix) {
  std::map<std::string, double> out;
  for (const auto& [name, value] : file.rows.at(0).counters) {
    if (name.rfind(prefix, 0) == 0) out[name] = value;
  }
  return out;
}

TEST(SchemaVersionTest, AVersionOneGbpsReadsAsBandwidthGbps) {
  // The second text has a NaN counter, which the reader's slower path takes.
  for (const std::string& extra : {std::string(), std::string(R"(, "nan_counter": NaN)")}) {
    const ResultFile file = ParseOrDie(ResultText("1", "cublaslt_gemm", "gbps", extra));
    EXPECT_THAT(file.metric_names, ElementsAre("tflops", "bandwidth_gbps"));
    EXPECT_EQ(file.ContextOr("dissect_metrics", ""), "tflops,bandwidth_gbps");
    EXPECT_EQ(file.MetricUnit("bandwidth_gbps"), "GB/s");
    EXPECT_EQ(file.ContextOr("metric.gbps.unit", "none"), "none");
    EXPECT_THAT(CountersStartingWith(file, "bandwidth_gbps"),
                ElementsAre(Pair("bandwidth_gbps", 283), Pair("bandwidth_gbps.max", 285.83),
                            Pair("bandwidth_gbps.median", 283.5),
                            Pair("bandwidth_gbps.min", 280.17),
                            Pair("bandwidth_gbps.spread", 0.02)));
    // A counter whose name only starts with the old one is another counter.
    EXPECT_THAT(CountersStartingWith(file, "gbps"), ElementsAre(Pair("gbpsx", 7)));
    EXPECT_EQ(file.rows[0].Counter("tflops.max"), 710);
  }
}

TEST(SchemaVersionTest, EveryRenamedMetricOfAVersionOneFileGetsItsNewName) {
  for (const RenamedMetric& renamed : kRenamedInVersion2) {
    const std::string experiment(renamed.experiment);
    const ResultFile file =
        ParseOrDie(ResultText("1", experiment, std::string(renamed.old_name)));
    EXPECT_THAT(file.metric_names, ElementsAre("tflops", renamed.new_name)) << experiment;
    EXPECT_EQ(file.rows.at(0).Counter(renamed.new_name), 283) << experiment;
    EXPECT_EQ(file.rows.at(0).Counter(renamed.old_name), std::nullopt) << experiment;
    EXPECT_EQ(Version2MetricName(experiment, renamed.old_name), renamed.new_name);
  }
}

TEST(SchemaVersionTest, AVersionOneFileOfAnotherExperimentKeepsItsNames) {
  const std::string text = ResultText("1", "other_experiment", "gbps");
  const ResultFile file = ParseOrDie(text);
  EXPECT_THAT(file.metric_names, ElementsAre("tflops", "gbps"));
  EXPECT_EQ(file.rows.at(0).Counter("gbps"), 283);
  EXPECT_EQ(file.MetricUnit("gbps"), "GB/s");
  EXPECT_EQ(Version2MetricName("other_experiment", "gbps"), "gbps");
}

TEST(SchemaVersionTest, AVersionTwoFileIsReadAsWritten) {
  const ResultFile current = ParseOrDie(ResultText("2", "cublaslt_gemm", "bandwidth_gbps"));
  EXPECT_THAT(current.metric_names, ElementsAre("tflops", "bandwidth_gbps"));
  EXPECT_EQ(current.rows.at(0).Counter("bandwidth_gbps.max"), 285.83);
  // Only version 1 is renamed: a version-2 file's names are its own.
  const ResultFile own = ParseOrDie(ResultText("2", "cublaslt_gemm", "gbps"));
  EXPECT_THAT(own.metric_names, ElementsAre("tflops", "gbps"));
  EXPECT_EQ(own.rows.at(0).Counter("gbps"), 283);
  EXPECT_EQ(own.rows.at(0).Counter("bandwidth_gbps"), std::nullopt);
}

TEST(SchemaVersionTest, VersionThreeIsRefusedInOneLine) {
  absl::StatusOr<ResultFile> file =
      ParseResultJson(ResultText("3", "cublaslt_gemm", "bandwidth_gbps"), "file.json");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(file.status().message(),
            R"(file.json: unsupported dissect_schema_version "3" )"
            R"((this reader supports "1" and "2"))");
}

}  // namespace
}  // namespace dissect::result_format
