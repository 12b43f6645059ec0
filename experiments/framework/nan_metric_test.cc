// Metrics a point cannot define (per-GPC figures on a GPU without
// clusters) through the runner and writer (no GPU). Its own binary:
// Google Benchmark's custom context is process-wide.
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/result_format/reader.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/framework/runner.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

// A metric the point cannot define comes as NaN samples only: the row is
// written with NaN (the analysis reads it back), not failed; a NaN among
// finite samples still fails the point.
TEST(ResultWriterTest, AllNanMetricIsWrittenAsNanAndMixedNanFails) {
  const std::string out = std::string(std::getenv("TEST_TMPDIR")) + "/nan.json";
  Experiment exp("synthetic_nan");
  exp.Question("Are undefined metrics written as NaN?")
      .AddAxis(IntAxis("point", "-", {1, 2}))
      .AddMetric("defined", "x")
      .AddMetric("undefined", "x")
      .Run([](PointContext& ctx) -> absl::Status {
        const double nan = std::nan("");
        ctx.RecordTimeSamples({1.0, 1.0});
        if (auto s = ctx.AddSamples("defined", {2.0, 2.0}); !s.ok()) return s;
        return ctx.AddSamples("undefined",
                              ctx.Int("point") == 1 ? std::vector<double>{nan, nan}
                                                    : std::vector<double>{nan, 1.0});
      });
  RunEnv env;
  env.device.name = "Synthetic GPU (test fixture)";
  env.device.cc_major = 9;
  env.device.sm_count = 132;
  env.clocks_source = "unavailable: synthetic";
  env.progress = false;
  result_format::AtomicJsonReporter file(out);
  EXPECT_EQ(RunPointsQuietly(exp, exp.axes(), env, file), 1);
  auto parsed = result_format::ReadResultFile(out);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->rows.size(), 2u);
  EXPECT_FALSE(parsed->rows[0].error);
  EXPECT_EQ(parsed->rows[0].Counter("defined"), 2.0);
  ASSERT_TRUE(parsed->rows[0].Counter("undefined").has_value());
  EXPECT_TRUE(std::isnan(*parsed->rows[0].Counter("undefined")));
  EXPECT_TRUE(parsed->rows[1].error);
}

}  // namespace
}  // namespace dissect
