// Hardware counters (--metrics) and kernel activity (--kernel_activity)
// through the real runner and writer, without a GPU: a fake collector and a
// fake kernel timer stand in for CUPTI. The rows must carry cupti/<name> and
// activity/* beside the timings, the context their units, and every way
// either can fail must leave the timings in place and say why.
//
// Google Benchmark keeps custom context for the whole process, so every test
// here asks for the same metrics (the shared keys then agree); context keys
// that differ between tests are checked on ResultContext itself.
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "experiments/result_format/reader.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/run_test_util.h"
#include "experiments/framework/runner.h"
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

// Launches as a warm-up + samples pass would, and returns fixed durations.
class FakeKernelTimer : public KernelTimer {
 public:
  explicit FakeKernelTimer(absl::StatusOr<std::vector<double>> ms)
      : ms_(std::move(ms)) {}
  absl::StatusOr<std::vector<double>> Time(const LaunchFn& launch,
                                           const TimingOptions& options,
                                           const L2Flusher* flusher,
                                           cudaStream_t stream) override {
    EXPECT_EQ(flusher, nullptr) << "the synthetic point is hot";
    EXPECT_EQ(options.cache, CacheState::kHot);
    if (!ms_.ok()) return ms_;
    for (int i = 0; i < options.warmup + options.samples; ++i) {
      EXPECT_EQ(launch(stream), cudaSuccess);
    }
    return ms_;
  }

 private:
  absl::StatusOr<std::vector<double>> ms_;
};

struct Outcome {
  int failures = 0;
  int launches = 0;           // by the counter pass
  int activity_launches = 0;  // by the kernel activity pass
  result_format::ResultFile file;
};

// Runs a one-point synthetic experiment that times itself (event samples 1,
// 2 and 3 ms) and, unless `collect` is false, takes its counters and kernel
// activity over a launch (each a no-op unless `env` sets it up).
Outcome RunSynthetic(RunEnv env, bool collect, const std::string& name) {
  Outcome outcome;
  Experiment exp("synthetic_counters");
  exp.Question("Do counters land beside the timings?")
      .AddAxis(IntAxis("bytes", "B", {1024}))
      .AddMetric("bandwidth_gbps", "GB/s")
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
          ctx.CollectKernelActivity(
                 [&](cudaStream_t) {
                   ++outcome.activity_launches;
                   return cudaSuccess;
                 },
                 CacheState::kHot)
              .IgnoreError();
        }
        return ctx.AddSamples("bandwidth_gbps", {10, 11, 12});
      });
  env.device.name = "Synthetic GPU (test fixture)";
  env.clocks_source = "unavailable: synthetic";
  env.progress = false;
  env.counters.metrics =
      *MetricCatalog::Embedded().Resolve("dram_bytes_read,l2_hit_rate");
  const std::string out =
      std::string(std::getenv("TEST_TMPDIR")) + "/" + name + ".json";
  result_format::AtomicJsonReporter file(out);
  outcome.failures = RunPointsQuietly(exp, exp.axes(), env, file);
  EXPECT_TRUE(file.status().ok()) << file.status();
  auto parsed = result_format::ReadResultFile(out);
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
  EXPECT_EQ(o.file.metric_names, std::vector<std::string>{"bandwidth_gbps"});
  ASSERT_EQ(o.file.rows.size(), 1u);
  const result_format::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.Counter("cupti/dram_bytes_read"), 4096.0);
  EXPECT_EQ(row.Counter("cupti/l2_hit_rate"), 87.5);
  EXPECT_EQ(row.Counter("cupti/passes"), 2.0);
  EXPECT_EQ(row.Counter("bandwidth_gbps"), 11.0);
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
  const result_format::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.Counter("bandwidth_gbps"), 11.0);
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
  const result_format::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.Counter("bandwidth_gbps"), 11.0);
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
  // Without --kernel_activity there is no activity pass either.
  EXPECT_FALSE(ctx.activity_requested());
  EXPECT_TRUE(ctx.CollectKernelActivity(
                     [](cudaStream_t) {
                       ADD_FAILURE() << "launched without --kernel_activity";
                       return cudaSuccess;
                     },
                     CacheState::kHot)
                  .ok());
  EXPECT_TRUE(ctx.activity_samples().empty());
}

// An environment that asked for --kernel_activity, with `timer` (null:
// unavailable).
RunEnv WithActivity(KernelTimer* timer) {
  RunEnv env;
  env.activity.requested = true;
  env.activity.timer = timer;
  if (timer == nullptr) {
    env.activity.unavailable =
        "no_cupti: cannot load CUPTI (libcupti.so.13 from the CUDA toolkit)";
  }
  return env;
}

std::string ContextValue(const RunEnv& env, const std::string& key) {
  Experiment exp("synthetic_context");
  for (const auto& [k, v] : ResultContext(exp, exp.axes(), env)) {
    if (k == key) return v;
  }
  return "<absent>";
}

TEST(CountersContextTest, MetricsTheChipLacksAreNamedWithTheReason) {
  FakeCollector fake;
  RunEnv env = WithCollector(&fake);
  env.counters.chip = "GA100";
  env.counters.metrics =
      *MetricCatalog::Embedded().Resolve("dram_bytes_read,stall_gmma");
  const std::string skipped = ContextValue(env, "counters_skipped");
  EXPECT_EQ(skipped.rfind("stall_gmma: wgmma is Hopper-only", 0), 0u)
      << skipped;
  EXPECT_EQ(skipped.find("dram_bytes_read"), std::string::npos) << skipped;
  EXPECT_EQ(ContextValue(env, "metric.cupti/stall_gmma.perfworks"),
            "<absent>");
  env.counters.chip = "GH100";
  EXPECT_EQ(ContextValue(env, "counters_skipped"), "<absent>");
}

TEST(ActivityInRowsTest, DurationsAndAgreementBesideTheTimings) {
  // Event median 2 ms; activity median 1.95 ms: 2.5% shorter.
  FakeKernelTimer fake(std::vector<double>{1.9, 2.0, 1.95});
  RunEnv env = WithActivity(&fake);
  env.timing.warmup = 2;
  env.timing.samples = 3;
  const Outcome o = RunSynthetic(env, true, "activity");
  EXPECT_EQ(o.failures, 0);
  EXPECT_EQ(o.activity_launches, 5) << "warm-up + samples, in its own pass";
  EXPECT_EQ(o.launches, 0) << "no counter pass without --metrics";
  EXPECT_EQ(o.file.MetricUnit("activity/kernel_ms"), "ms");
  EXPECT_EQ(o.file.MetricUnit("activity/vs_events_pct"), "%");
  EXPECT_EQ(o.file.context.at("dissect_activity"),
            "activity/kernel_ms,activity/vs_events_pct");
  EXPECT_EQ(o.file.metric_names, std::vector<std::string>{"bandwidth_gbps"});
  ASSERT_EQ(o.file.rows.size(), 1u);
  const result_format::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.label, "");
  EXPECT_DOUBLE_EQ(row.Counter("activity/kernel_ms").value_or(-1), 1.95);
  EXPECT_DOUBLE_EQ(row.Counter("activity/kernel_ms.min").value_or(-1), 1.9);
  EXPECT_DOUBLE_EQ(row.Counter("activity/kernel_ms.max").value_or(-1), 2.0);
  EXPECT_NEAR(row.Counter("activity/kernel_ms.spread").value_or(-1),
              0.1 / 1.95, 1e-12);
  EXPECT_NEAR(row.Counter("activity/vs_events_pct").value_or(0), -2.5, 1e-9);
  EXPECT_DOUBLE_EQ(row.real_time, 2000.0) << "the event timings stand";
  EXPECT_EQ(row.Counter("samples"), 3.0);
}

TEST(ActivityInRowsTest, CountersAndActivityBothLand) {
  FakeCollector counters;
  FakeKernelTimer activity(std::vector<double>{2.1});
  RunEnv env = WithCollector(&counters);
  env.activity = WithActivity(&activity).activity;
  const Outcome o = RunSynthetic(env, true, "both");
  EXPECT_EQ(o.failures, 0);
  EXPECT_EQ(o.launches, 2);
  EXPECT_EQ(o.activity_launches, env.timing.warmup + env.timing.samples);
  ASSERT_EQ(o.file.rows.size(), 1u);
  const result_format::Row& row = o.file.rows[0];
  EXPECT_EQ(row.label, "");
  EXPECT_EQ(row.Counter("cupti/dram_bytes_read"), 4096.0);
  EXPECT_DOUBLE_EQ(row.Counter("activity/kernel_ms").value_or(-1), 2.1);
  EXPECT_NEAR(row.Counter("activity/vs_events_pct").value_or(0), 5.0, 1e-9);
}

TEST(ActivityInRowsTest, UnavailableActivityKeepsTimingsAndSaysWhy) {
  const RunEnv env = WithActivity(nullptr);
  EXPECT_EQ(ContextValue(env, "activity_unavailable"),
            env.activity.unavailable);
  EXPECT_EQ(ContextValue(env, "activity_source"), "<absent>");
  EXPECT_EQ(ContextValue(env, "metric.activity/kernel_ms.unit"), "ms");
  const Outcome o = RunSynthetic(env, true, "activity_unavailable");
  EXPECT_EQ(o.failures, 0);
  EXPECT_EQ(o.activity_launches, 0);
  ASSERT_EQ(o.file.rows.size(), 1u);
  const result_format::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_EQ(row.label, "");
  EXPECT_EQ(row.Counter("bandwidth_gbps"), 11.0);
  EXPECT_FALSE(row.Counter("activity/kernel_ms").has_value());
  EXPECT_FALSE(row.Counter("activity/vs_events_pct").has_value());
}

TEST(ActivityInRowsTest, AvailableActivityNamesItsSource) {
  FakeKernelTimer fake(std::vector<double>{1.0});
  const RunEnv env = WithActivity(&fake);
  EXPECT_EQ(ContextValue(env, "activity_unavailable"), "<absent>");
  EXPECT_EQ(ContextValue(env, "activity_source"),
            "cupti activity api, concurrent kernel records, own pass");
  EXPECT_EQ(ContextValue(RunEnv(), "dissect_activity"), "<absent>")
      << "no activity keys without --kernel_activity";
}

TEST(ActivityInRowsTest, AFailedActivityPassLabelsTheRowAndKeepsTimings) {
  FakeKernelTimer fake(absl::InternalError(
      "kernel activity of the timed launches: 5 kernel record(s) cannot be "
      "split evenly into 3 launch(es)"));
  const Outcome o = RunSynthetic(WithActivity(&fake), true, "activity_failed");
  EXPECT_EQ(o.failures, 0) << "an activity failure does not fail the point";
  ASSERT_EQ(o.file.rows.size(), 1u);
  const result_format::Row& row = o.file.rows[0];
  EXPECT_FALSE(row.error);
  EXPECT_DOUBLE_EQ(row.real_time, 2000.0);
  EXPECT_FALSE(row.Counter("activity/kernel_ms").has_value());
  EXPECT_EQ(row.label,
            "activity: kernel activity of the timed launches: 5 kernel "
            "record(s) cannot be split evenly into 3 launch(es)");
}

TEST(ActivityInRowsTest, AnExperimentThatTakesNoActivityPassIsLabelled) {
  FakeKernelTimer fake(std::vector<double>{1.0});
  const Outcome o = RunSynthetic(WithActivity(&fake), false, "activity_none");
  ASSERT_EQ(o.file.rows.size(), 1u);
  EXPECT_EQ(o.file.rows[0].label,
            "activity: not collected (no TimeKernel or CollectKernelActivity)");
}

}  // namespace
}  // namespace dissect
