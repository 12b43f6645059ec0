// An experiment's headline metric (Experiment::Headline): it must be one of
// its declared metrics, and the result file's context names it as
// dissect_headline_metric (the written file: result_writer_golden_test).

#include <string>
#include <utility>
#include <vector>

#include "experiments/framework/experiment.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/framework/runner.h"
#include "experiments/result_format/reader.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

// The value of `key` in `experiment`'s result context, or "<none>".
std::string ContextValue(const Experiment& experiment, std::string_view key) {
  const RunEnv env = FakeDeviceEnv("Synthetic GPU (test fixture)", 9);
  for (const auto& [k, v] : ResultContext(experiment, experiment.axes(), env)) {
    if (k == key) return v;
  }
  return "<none>";
}

TEST(HeadlineTest, TheContextNamesTheDeclaredHeadline) {
  Experiment exp("synthetic_headline");
  exp.AddMetric("overhead_cycles", "cycles").AddMetric("cycles_per_load", "cycles/load");
  exp.Headline("cycles_per_load");
  EXPECT_EQ(exp.headline_metric(), "cycles_per_load");
  EXPECT_EQ(ContextValue(exp, result_format::kHeadlineMetricKey), "cycles_per_load");
  EXPECT_NE(HelpText(exp, "synthetic_headline").find("headline: cycles_per_load"),
            std::string::npos);
}

TEST(HeadlineTest, NoKeyWithoutAHeadline) {
  Experiment exp("synthetic_no_headline");
  exp.AddMetric("value_ms", "ms");
  EXPECT_EQ(ContextValue(exp, result_format::kHeadlineMetricKey), "<none>");
  EXPECT_EQ(HelpText(exp, "synthetic_no_headline").find("  headline: "), std::string::npos);
}

TEST(HeadlineDeathTest, AHeadlineThatIsNotAMetricFailsRegistration) {
  EXPECT_DEATH(
      {
        Experiment exp("synthetic_bad_headline");
        exp.AddMetric("cycles_per_load", "cycles/load").Headline("cycles_per_lod");
      },
      "experiment synthetic_bad_headline: Headline\\(\"cycles_per_lod\"\\) is not one of its "
      "metrics \\(declared before Headline: cycles_per_load\\)");
  // Declared before its metric: the metric is not known yet.
  EXPECT_DEATH(
      {
        Experiment exp("synthetic_early_headline");
        exp.Headline("value_ms").AddMetric("value_ms", "ms");
      },
      "declared before Headline: none");
}

}  // namespace
}  // namespace dissect
