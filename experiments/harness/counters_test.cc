// Hardware counters through the real runner and writer, without a GPU: a
// fake collector stands in for CUPTI. The rows must carry cupti/<name> beside
// the timings, the context their units, and every way counters can fail must
// leave the timings in place and say why.
//
// Google Benchmark keeps custom context for the whole process, so every test
// here asks for the same metrics (the shared keys then agree).
#include <cstdlib>
#include <sstream>
#include <string>

#include "analysis/results.h"
#include "experiments/harness/experiment.h"
#include "experiments/harness/result_writer.h"
#include "experiments/harness/runner.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

class FakeCollector : public CounterCollector {
 public:
  explicit FakeCollector(absl::Status fail = absl::OkStatus())
      : fail_(std::move(fail)) {}
  absl::StatusOr<CounterReading> Collect(
      const LaunchFn& launch, cudaStream_t stream,
      const BeforePassFn& before_pass) override {
    if (!fail_.ok()) return fail_;
    CounterReading r;
    r.passes = 2;
    for (int pass = 0; pass < r.passes; ++pass) {
      if (before_pass) EXPECT_TRUE(before_pass(stream).ok());
      EXPECT_EQ(launch(stream), cudaSuccess);
    }
    r.values = {{"dram_bytes_read", "dram__bytes_read.sum", "B", 4096},
                {"l2_hit_rate", "lts__t_sector_hit_rate.pct", "%", 87.5}};
    return r;
  }

 private:
  absl::Status fail_;
};

struct Outcome {
  int failures = 0;
  int launches = 0;
  analysis::ResultFile file;
};

// Runs a one-point synthetic experiment that times itself and, unless
// `collect` is false, takes its counters over a launch.
Outcome RunSynthetic(RunEnv env, bool collect, const std::string& name) {
  Outcome outcome;
  Experiment exp("synthetic_counters");
  exp.Question("Do counters land beside the timings?")
      .AddAxis(IntAxis("bytes", "B", {1024}))
      .AddMetric("gbps", "GB/s")
      .Run([&](PointContext& ctx) -> absl::Status {
        ctx.RecordTimeSamples({1.0, 2.0, 3.0});
        if (collect) {
          ctx.CollectCounters(
                 [&](cudaStream_t) {
                   ++outcome.launches;
                   return cudaSuccess;
                 },
                 CacheState::kHot)
              .IgnoreError();
        }
        return ctx.AddSamples("gbps", {10, 11, 12});
      });
  env.device.name = "Synthetic GPU (test fixture)";
  env.clocks_source = "unavailable: synthetic";
  env.progress = false;
  env.counters.metrics =
      *MetricCatalog::Embedded().Resolve("dram_bytes_read,l2_hit_rate");
  const std::string out =
      std::string(std::getenv("TEST_TMPDIR")) + "/" + name + ".json";
  std::ostringstream console_text;
  benchmark::ConsoleReporter console;
  console.SetOutputStream(&console_text);
  console.SetErrorStream(&console_text);
  AtomicJsonReporter file(out);
  outcome.failures = RunPoints(exp, exp.axes(), CartesianProduct(exp.axes()),
                               env, &console, &file);
  EXPECT_TRUE(file.status().ok()) << file.status();
  auto parsed = analysis::ReadResultFile(out);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (parsed.ok()) outcome.file = *std::move(parsed);
  return outcome;
}

// An environment whose counters were set up (on a pretend GH100).
RunEnv WithCollector(CounterCollector* collector) {
  RunEnv env;
  env.counters.collector = collector;
  env.counters.chip = "GH100";
  env.counters.replay = "user";
  env.counters.passes = 2;
  return env;
}

TEST(CountersInRowsTest, ValuesUnitsAndPassesBesideTheTimings) {
  FakeCollector fake;
  RunEnv env = WithCollector(&fake);
  const Outcome o = RunSynthetic(env, true, "available");
  EXPECT_EQ(o.failures, 0);
  EXPECT_EQ(o.launches, 2) << "one launch per pass";
  const auto& ctx = o.file.context;
  EXPECT_EQ(ctx.at("dissect_counters"),
            "cupti/dram_bytes_read,cupti/l2_hit_rate");
  EXPECT_EQ(o.file.MetricUnit("cupti/dram_bytes_read"), "B");
  EXPECT_EQ(o.file.MetricUnit("cupti/l2_hit_rate"), "%");
  EXPECT_EQ(ctx.at("metric.cupti/dram_bytes_read.perfworks"),
            "dram__bytes_read.sum");
  EXPECT_EQ(ctx.at("counters_chip"), "GH100");
  EXPECT_EQ(ctx.at("counters_passes"), "2");
  EXPECT_EQ(ctx.at("counters_source"), "cupti range profiler, user replay");
  // Counters are not declared metrics: the analysis tables stay as they were.
  EXPECT_EQ(o.file.metric_names, std::vector<std::string>{"gbps"});
  ASSERT_EQ(o.file.rows.size(), 1u);
  const analysis::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.Counter("cupti/dram_bytes_read"), 4096.0);
  EXPECT_EQ(row.Counter("cupti/l2_hit_rate"), 87.5);
  EXPECT_EQ(row.Counter("cupti/passes"), 2.0);
  EXPECT_EQ(row.Counter("gbps"), 11.0);
  EXPECT_DOUBLE_EQ(row.real_time, 2000.0);  // median 2 ms, in us
  EXPECT_EQ(row.label, "");
}

TEST(CountersInRowsTest, UnavailableCountersKeepTimingsAndSayWhy) {
  RunEnv env;
  env.counters.unavailable =
      "no_permission: cuptiRangeProfilerEnable failed: "
      "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  const Outcome o = RunSynthetic(env, true, "unavailable");
  EXPECT_EQ(o.failures, 0);
  EXPECT_EQ(o.launches, 0);
  EXPECT_EQ(o.file.context.at("counters_unavailable"),
            env.counters.unavailable);
  ASSERT_EQ(o.file.rows.size(), 1u);
  const analysis::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.Counter("gbps"), 11.0);
  EXPECT_FALSE(row.Counter("cupti/dram_bytes_read").has_value());
  EXPECT_FALSE(row.Counter("cupti/passes").has_value());
}

TEST(CountersInRowsTest, AFailedCounterPassLabelsTheRowAndKeepsTimings) {
  FakeCollector fake(
      absl::UnavailableError("CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"));
  RunEnv env = WithCollector(&fake);
  const Outcome o = RunSynthetic(env, true, "failed_pass");
  EXPECT_EQ(o.failures, 0) << "a counter failure does not fail the point";
  ASSERT_EQ(o.file.rows.size(), 1u);
  const analysis::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.Counter("gbps"), 11.0);
  EXPECT_FALSE(row.Counter("cupti/dram_bytes_read").has_value());
  EXPECT_EQ(row.label,
            "counters: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
}

TEST(CountersInRowsTest, AnExperimentThatTakesNoCounterPassIsLabelled) {
  FakeCollector fake;
  RunEnv env = WithCollector(&fake);
  const Outcome o = RunSynthetic(env, false, "not_collected");
  ASSERT_EQ(o.file.rows.size(), 1u);
  EXPECT_EQ(o.file.rows[0].label,
            "counters: not collected (no TimeKernel or CollectCounters)");
}

TEST(LaunchSlotTest, LaunchesAfterTheTimedOnesShareTheScratchSlot) {
  Point point;
  DeviceInfo device;
  TimingOptions timing;
  timing.warmup = 2;
  timing.samples = 3;
  PointContext ctx(point, device, timing, nullptr, nullptr);
  EXPECT_EQ(ctx.LaunchSlots(), 6);
  EXPECT_EQ(ctx.LaunchSlot(0), 0);
  EXPECT_EQ(ctx.LaunchSlot(4), 4);
  EXPECT_EQ(ctx.LaunchSlot(5), 5);
  EXPECT_EQ(ctx.LaunchSlot(9), 5);
  EXPECT_FALSE(ctx.counters_requested());
  EXPECT_TRUE(ctx.CollectCounters([](cudaStream_t) { return cudaSuccess; },
                                  CacheState::kHot)
                  .ok());
  EXPECT_FALSE(ctx.counter_reading().has_value());
}

}  // namespace
}  // namespace dissect
