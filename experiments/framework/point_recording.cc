// One point's measurement and its row: Google Benchmark registration, the
// experiment's body, and the counters and label the row carries; see
// runner.h (RunPoints).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/runner_internal.h"
#include "experiments/result_format/writer.h"
#include "probes/kernel_records.h"
#include "probes/stats.h"

namespace dissect {
namespace runner_internal {

// The compute capability of `device` as major * 10 + minor.
int ComputeCapabilityOf(const DeviceInfo& device) {
  return device.cc_major * 10 + device.cc_minor;
}

}  // namespace runner_internal

namespace {

using runner_internal::ComputeCapabilityOf;

// The error message of a re-measure that was not needed (its point was not
// throttled): such rows are dropped before any reporter sees them.
constexpr char kRemeasureNotNeeded[] = "dissect: re-measure not needed";

void SetSummaryCounters(benchmark::State& state, const std::string& metric,
                        const Summary& s) {
  state.counters[metric] = s.median;
  state.counters[metric + ".min"] = s.min;
  state.counters[metric + ".max"] = s.max;
  state.counters[metric + ".spread"] = s.spread;
}

// A pass over the point that failed or was never made: a label for the row,
// and for a failure one line on stderr.
void NoteMissingPass(absl::string_view what, absl::string_view collect_fn,
                     const std::string& error, const std::string& point,
                     std::vector<std::string>& labels) {
  if (error.empty()) {
    labels.push_back(absl::StrCat(what, ": not collected (no TimeKernel or ",
                                  collect_fn, ")"));
    return;
  }
  labels.push_back(absl::StrCat(what, ": ", error));
  std::cerr << absl::StrFormat("%s: %s failed, timings kept: %s\n", point,
                               what, error);
}

// The row's cupti/<name> counters, or why it has none.
void ReportCounters(benchmark::State& state, const PointContext& ctx,
                    const std::string& point,
                    std::vector<std::string>& labels) {
  if (const std::optional<CounterReading>& r = ctx.counter_reading();
      r.has_value()) {
    for (const CounterValue& v : r->values) {
      state.counters[absl::StrCat(kCounterPrefix, v.name)] = v.value;
    }
    state.counters[absl::StrCat(kCounterPrefix, "passes")] = r->passes;
  } else if (ctx.counters_requested()) {
    NoteMissingPass("counters", "CollectCounters", ctx.counters_error(), point,
                    labels);
  }
}

// The row's activity/* counters, or why it has none. `time` summarizes the
// event-timed samples.
void ReportActivity(benchmark::State& state, const PointContext& ctx,
                    const std::optional<Summary>& time,
                    const std::string& point,
                    std::vector<std::string>& labels) {
  if (!ctx.activity_requested()) return;
  std::string error = ctx.activity_error();
  if (error.empty() && !ctx.activity_samples().empty()) {
    absl::StatusOr<Summary> activity = Summarize(ctx.activity_samples());
    if (activity.ok()) {
      SetSummaryCounters(state, kActivityKernelMs, *activity);
      const double pct =
          time.has_value() ? AgreementPercent(activity->median, time->median)
                           : std::numeric_limits<double>::quiet_NaN();
      if (std::isfinite(pct)) state.counters[kActivityVsEventsPct] = pct;
      return;
    }
    error = std::string(activity.status().message());
  }
  NoteMissingPass("activity", "CollectKernelActivity", error, point, labels);
}

// The row's SM clock: the reads after the warm-up and after the samples
// (sm_clock_mhz.before/.after), the readings polled while the samples ran
// (sm_clock_mhz.min/.median/.max, sm_clock_readings, clock_moved), and
// `throttled` if any of them had a slowdown reason. A throttle and a clock
// that moved are named first in the label.
void ReportClock(benchmark::State& state, const PointContext& ctx,
                 std::vector<std::string>& labels) {
  const std::optional<ClockReading>& before = ctx.clock_before();
  const std::optional<ClockReading>& after = ctx.clock_after();
  const std::optional<ClockSpan>& span = ctx.clock_span();
  uint64_t reasons = 0;
  bool known = !ctx.throttle_reason().empty();
  if (before.has_value() && after.has_value()) {
    state.counters["sm_clock_mhz.before"] = before->sm_clock_mhz;
    state.counters["sm_clock_mhz.after"] = after->sm_clock_mhz;
    reasons |= before->reasons | after->reasons;
    known = true;
  }
  if (span.has_value()) {
    state.counters["sm_clock_mhz.min"] = span->min_mhz;
    state.counters["sm_clock_mhz.median"] = span->median_mhz;
    state.counters["sm_clock_mhz.max"] = span->max_mhz;
    state.counters["sm_clock_readings"] = span->readings;
    state.counters["clock_moved"] = span->moved() ? 1 : 0;
    if (span->moved()) {
      labels.insert(labels.begin(), absl::StrFormat("clock moved %.0f-%.0f MHz", span->min_mhz,
                                                    span->max_mhz));
    }
    reasons |= span->reasons;
    known = true;
  }
  if (!known) return;
  const bool throttled = (reasons & kThrottleSlowdownMask) != 0;
  state.counters["throttled"] = throttled || !ctx.throttle_reason().empty() ? 1 : 0;
  if (throttled) labels.insert(labels.begin(), DescribeThrottleReasons(reasons));
  if (!ctx.throttle_reason().empty()) labels.insert(labels.begin(), ctx.throttle_reason());
}

// The experiment's body, or Skipped(why) without it on a device whose
// compute capability the experiment did not declare it can use.
absl::Status RunBody(const Experiment& experiment, PointContext& ctx) {
  if (!experiment.requires_gpu()) return experiment.run()(ctx);
  const std::string unmet = UnmetComputeCapability(experiment, ComputeCapabilityOf(ctx.device()));
  if (!unmet.empty()) return Skipped(unmet);
  return experiment.run()(ctx);
}

// Whether the body reported what the experiment declared: samples for every
// metric, and no metric or vector it did not declare.
absl::Status CheckReported(const Experiment& experiment, const PointContext& ctx) {
  absl::Status status;
  for (const MetricSpec& m : experiment.metrics()) {
    if (ctx.metric_samples().count(m.name) == 0) {
      status = absl::InternalError(
          absl::StrCat("experiment reported no samples for metric ", m.name));
      break;
    }
  }
  for (const auto& [name, samples] : ctx.metric_samples()) {
    if (experiment.FindMetric(name) == nullptr) {
      status = absl::InternalError(
          absl::StrCat("experiment reported undeclared metric ", name));
    }
  }
  for (const auto& [name, values] : ctx.vectors()) {
    if (experiment.FindVector(name) == nullptr) {
      status = absl::InternalError(
          absl::StrCat("experiment reported undeclared vector ", name));
    }
  }
  return status;
}

// Runs the body and checks what it reported; the summary of its timed
// samples, if it took any.
absl::Status MeasurePoint(const Experiment& experiment, PointContext& ctx,
                          std::optional<Summary>& time) {
  absl::Status status = RunBody(experiment, ctx);
  if (!status.ok()) return status;
  status = CheckReported(experiment, ctx);
  if (status.ok() && !ctx.time_samples().empty()) {
    absl::StatusOr<Summary> t = Summarize(ctx.time_samples());
    if (t.ok()) {
      time = *t;
    } else {
      status = t.status();
    }
  }
  return status;
}

// The row's metric summaries and vector entries; false (the row an error)
// if a metric's samples cannot be summarized.
bool RecordMetrics(benchmark::State& state, const PointContext& ctx, int* failures) {
  for (const auto& [name, samples] : ctx.metric_samples()) {
    // A metric the point cannot define (e.g. a per-GPC figure on a GPU
    // without clusters) is reported as NaN samples only: written as NaN.
    if (std::all_of(samples.begin(), samples.end(), [](double v) { return std::isnan(v); })) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      SetSummaryCounters(state, name, Summary{nan, nan, nan, nan, samples.size()});
      continue;
    }
    absl::StatusOr<Summary> s = Summarize(samples);
    if (!s.ok()) {
      ++*failures;
      state.SkipWithError(
          absl::StrCat("error: metric ", name, ": ", s.status().message()).c_str());
      return false;
    }
    SetSummaryCounters(state, name, *s);
  }
  for (const auto& [name, values] : ctx.vectors()) {
    for (size_t i = 0; i < values.size(); ++i) {
      state.counters[absl::StrCat(name, "[", i, "]")] = values[i];
    }
  }
  return true;
}

// The row's bookkeeping counters (samples, hardware counters, activity,
// clock, retries, attempt) and its label.
void RecordConditions(benchmark::State& state, const PointContext& ctx,
                      const std::optional<Summary>& time, const std::string& point_name,
                      int attempt, const RunEnv& env) {
  size_t samples = time.has_value() ? time->count : 0;
  if (!time.has_value() && !ctx.metric_samples().empty()) {
    samples = ctx.metric_samples().begin()->second.size();
  }
  state.counters["samples"] = static_cast<double>(samples);
  std::vector<std::string> labels;
  ReportCounters(state, ctx, point_name, labels);
  ReportActivity(state, ctx, time, point_name, labels);
  ReportClock(state, ctx, labels);
  if (ctx.timing_retries() > 0) state.counters["timing_retries"] = ctx.timing_retries();
  if (ctx.launches_per_sample() != 1) {
    state.counters["launches_per_sample"] = ctx.launches_per_sample();
  }
  if (attempt > 1) {
    state.counters["attempt"] = attempt;
    labels.push_back(RemeasuredNote(env.cooldown_s));
  }
  labels.insert(labels.end(), ctx.notes().begin(), ctx.notes().end());
  if (!labels.empty()) state.SetLabel(absl::StrJoin(labels, "; "));
}

// Measures one point inside a Google Benchmark run; `attempt` 2 is the
// re-measure of a throttled point. Returns whether the row is throttled.
bool RunOnePoint(benchmark::State& state, const Experiment& experiment,
                 const Point& point, const RunEnv& env, int index, int total,
                 int attempt, int* failures) {
  if (env.progress) {
    std::cerr << absl::StrFormat("[%d/%d] %s%s\n", index + 1, total,
                                 point.Name(experiment.name()),
                                 attempt > 1 ? absl::StrCat(": ", RemeasuredNote(env.cooldown_s))
                                             : "");
  }
  PointContext ctx(point, env.device, env.timing, env.stream, env.clock,
                   env.counters.collector, env.activity.timer);
  ctx.set_attempt(attempt);
  std::optional<Summary> time;
  if (absl::Status status = MeasurePoint(experiment, ctx, time); !status.ok()) {
    if (IsSkipped(status)) {
      state.SkipWithError(absl::StrCat("skipped: ", status.message()).c_str());
    } else {
      ++*failures;
      state.SkipWithError(absl::StrCat("error: ", status.ToString()).c_str());
    }
    return false;
  }
  for (auto _ : state) {
    state.SetIterationTime(time.has_value() ? time->median * 1e-3 : 0.0);
  }
  if (!RecordMetrics(state, ctx, failures)) return false;
  RecordConditions(state, ctx, time, point.Name(experiment.name()), attempt, env);
  const auto throttled = state.counters.find("throttled");
  return throttled != state.counters.end() && throttled->second.value != 0;
}

// Hands reports on to `next`, without the rows of re-measures that were not
// needed.
class DropUnneededRemeasures : public benchmark::BenchmarkReporter {
 public:
  explicit DropUnneededRemeasures(benchmark::BenchmarkReporter* next) : next_(next) {}
  bool ReportContext(const Context& context) override { return next_->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> kept;
    for (const Run& run : runs) {
      if (!(run.error_occurred && run.error_message == kRemeasureNotNeeded)) kept.push_back(run);
    }
    if (!kept.empty()) next_->ReportRuns(kept);
  }
  void Finalize() override { next_->Finalize(); }

 private:
  benchmark::BenchmarkReporter* next_;
};

}  // namespace

std::string RemeasuredNote(double cooldown_s) {
  return absl::StrFormat("re-measured after throttling (cool-down %g s)", cooldown_s);
}

int RunPoints(const Experiment& experiment, const std::vector<AxisSpec>& axes,
              const std::vector<Point>& points, const RunEnv& env,
              benchmark::BenchmarkReporter* display,
              benchmark::BenchmarkReporter* file) {
  for (const auto& [key, value] : ResultContext(experiment, axes, env)) {
    benchmark::AddCustomContext(key, value);
  }
  int failures = 0;
  const int total = static_cast<int>(points.size());
  // Whether each point's first measurement was throttled. Its re-measure is
  // registered next to it (Google Benchmark runs what was registered
  // before the run started) and runs only then.
  std::vector<char> throttled(total, 0);
  for (int i = 0; i < total; ++i) {
    const Point& point = points[i];
    const std::string name = point.Name(experiment.name());
    benchmark::RegisterBenchmark(
        name.c_str(),
        [&experiment, &point, &env, i, total, &failures, &throttled](benchmark::State& st) {
          throttled[i] = RunOnePoint(st, experiment, point, env, i, total, 1, &failures);
        })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [&experiment, &point, &env, i, total, &failures, &throttled](benchmark::State& st) {
          if (!throttled[i]) {
            st.SkipWithError(kRemeasureNotNeeded);
            return;
          }
          std::this_thread::sleep_for(std::chrono::duration<double>(env.cooldown_s));
          RunOnePoint(st, experiment, point, env, i, total, 2, &failures);
        })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  result_format::TeeReporter tee(display, file);
  DropUnneededRemeasures reports(&tee);
  benchmark::RunSpecifiedBenchmarks(&reports);
  benchmark::ClearRegisteredBenchmarks();
  return failures;
}

}  // namespace dissect
