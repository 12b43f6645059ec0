// The headline metric as the reader gives it: a file's own
// dissect_headline_metric as written, and for a file written before
// experiments declared it, its experiment's headline of that time.

#include "experiments/result_format/headline_metrics.h"

#include <string>

#include "experiments/result_format/reader.h"
#include "gtest/gtest.h"

namespace dissect::result_format {
namespace {

// A version-2 result file of `experiment` with `metrics` (comma-separated)
// and one row; `headline` is written as dissect_headline_metric unless
// empty. With `nan`, the row holds a NaN counter (the reader's slower path).
std::string ResultText(const std::string& experiment, const std::string& metrics,
                       const std::string& headline = "", bool nan = false) {
  const std::string headline_key =
      headline.empty() ? "" : R"("dissect_headline_metric": ")" + headline + R"(", )";
  return R"({"context": {"dissect_schema_version": "2", "dissect_experiment": ")" + experiment +
         R"(", )" + headline_key + R"("dissect_axes": "n", "dissect_metrics": ")" + metrics +
         R"("}, "benchmarks": [{"name": ")" + experiment +
         R"(/n:1/iterations:1/manual_time", "run_type": "iteration", "real_time": 1,
          "time_unit": "ms", "other": )" + (nan ? "NaN" : "1") + "}]}";
}

std::string HeadlineOf(const std::string& text) {
  absl::StatusOr<ResultFile> file = ParseResultJson(text, "file.json");
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? file->ContextOr(kHeadlineMetricKey, "<none>") : "<unreadable>";
}

TEST(HeadlineMetricsTest, AFileWithTheKeyKeepsItsOwnHeadline) {
  EXPECT_EQ(HeadlineOf(ResultText("memory_latency", "cycles_per_load,ns_per_load", "ns_per_load")),
            "ns_per_load");
  EXPECT_EQ(HeadlineOf(ResultText("new_experiment", "a,b", "b")), "b");
}

TEST(HeadlineMetricsTest, AnOlderFileGetsItsExperimentsHeadlineOfThatTime) {
  for (const bool nan : {false, true}) {
    EXPECT_EQ(HeadlineOf(ResultText("memory_latency", "overhead_cycles,cycles_per_load", "", nan)),
              "cycles_per_load");
    EXPECT_EQ(HeadlineOf(ResultText("cublaslt_gemm", "bandwidth_gbps,tflops", "", nan)), "tflops");
  }
}

TEST(HeadlineMetricsTest, EveryOlderHeadlineIsGivenToItsExperimentsFiles) {
  for (const OlderHeadline& older : kHeadlinesBeforeDeclared) {
    const std::string metric(older.metric);
    EXPECT_EQ(HeadlineOf(ResultText(std::string(older.experiment), "other," + metric)), metric)
        << older.experiment;
    EXPECT_EQ(HeadlineBeforeDeclared(older.experiment), older.metric);
  }
}

TEST(HeadlineMetricsTest, NoHeadlineWhereNoneIsKnown) {
  // An experiment that never had one.
  EXPECT_EQ(HeadlineOf(ResultText("selftest", "value_ms")), "<none>");
  EXPECT_EQ(HeadlineBeforeDeclared("selftest"), "");
  // An older file whose metrics lack its experiment's headline.
  EXPECT_EQ(HeadlineOf(ResultText("memory_latency", "ns_per_load")), "<none>");
}

}  // namespace
}  // namespace dissect::result_format
