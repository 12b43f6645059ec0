// Runs an experiment: command line → axis points → Google Benchmark runs →
// console output and an atomically written JSON result file.
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_RUNNER_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_RUNNER_H_

#include <cuda_runtime_api.h>

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "experiments/framework/axes.h"
#include "experiments/framework/experiment.h"
#include "probes/counters.h"
#include "probes/device_info.h"
#include "probes/event_timer.h"
#include "probes/kernel_activity.h"
#include "probes/metric_catalog.h"
#include "probes/nvml_clock.h"

namespace dissect {

// The dissect_schema_version written (analysis/SCHEMA.md): the newest one the
// reader takes, result_format::kSupportedSchemaVersion (result_writer_golden_test).
inline constexpr char kSchemaVersion[] = "2";

// The result context's timing_method: how the row times were taken.
inline constexpr char kTimingMethod[] =
    "cuda events around each sample, queued behind a guard spin and checked "
    "(start event not reached when the end event was queued; exposed samples "
    "timed again); SM clock polled every 2 ms during the samples";

// The timing_method of an experiment that needs no GPU
// (Experiment::RequiresGpu(false)).
inline constexpr char kHostTimingMethod[] =
    "host clock (std::chrono::steady_clock) around each sample, taken by the "
    "experiment itself; no GPU";

// Exit statuses of every experiment binary.
inline constexpr int kExitOk = 0;
inline constexpr int kExitPointFailed = 1;  // a point hit a runtime error
inline constexpr int kExitBadInput = 2;     // bad flag/axis, no GPU

// The context key of a file whose experiment needs a compute capability the
// device lacks (UnmetComputeCapability, experiment.h): its value is the
// reason, and every row is skipped with it.
inline constexpr char kSkippedOnDeviceKey[] = "skipped_on_device";

// Row counters and context keys of hardware counters are named
// "cupti/<catalog name>"; "cupti/passes" is the replay passes they took.
inline constexpr char kCounterPrefix[] = "cupti/";

// The hardware counters a run asked for with --metrics.
struct CounterSetup {
  std::vector<const CatalogMetric*> metrics;  // empty: no --metrics
  CounterCollector* collector = nullptr;      // null: none or unavailable
  std::string chip;                           // e.g. "GH100", once known
  std::string replay;                         // "user" / "kernel"
  int passes = 0;                             // per collection
  std::string unavailable;                    // "<cause>: <reason>" if so
};

// Row counters of --kernel_activity: the sample durations from CUPTI's kernel
// activity records (summarized like a metric: median, .min, .max, .spread)
// and how far their median lies from the event-timed median, in percent of
// the latter (AgreementPercent, kernel_records.h).
inline constexpr char kActivityKernelMs[] = "activity/kernel_ms";
inline constexpr char kActivityVsEventsPct[] = "activity/vs_events_pct";

// Kernel durations from CUPTI activity records (--kernel_activity).
struct ActivitySetup {
  bool requested = false;        // --kernel_activity
  KernelTimer* timer = nullptr;  // null: not requested or unavailable
  std::string unavailable;       // "<cause>: <reason>" if so
};

// Everything a run needs besides the experiment and its points.
struct RunEnv {
  DeviceInfo device;
  TimingOptions timing;
  cudaStream_t stream = nullptr;
  const ClockSource* clock = nullptr;  // null: clocks unavailable
  std::string clocks_source;         // "nvml" or "unavailable: <reason>"
  CounterSetup counters;
  ActivitySetup activity;
  bool progress = true;              // "[i/N] name" lines on stderr
  // A throttled point (counter `throttled` 1) is measured once more after
  // sleeping this long (--cooldown_s); both rows are kept, the second with
  // counter `attempt` 2 and the label note kRemeasuredNote.
  double cooldown_s = 0;
  // Rows kept from an earlier run by --resume (context key resumed_rows).
  int resumed_rows = 0;
};

// The label note of a point's second measurement after a throttled first
// one: "re-measured after throttling (cool-down <S> s)".
std::string RemeasuredNote(double cooldown_s);

// The dissect keys of the result context (analysis/SCHEMA.md).
std::vector<std::pair<std::string, std::string>> ResultContext(
    const Experiment& experiment, const std::vector<AxisSpec>& axes,
    const RunEnv& env);

// Registers one Google Benchmark per point, runs them through `display` and
// (if not null) `file`, and returns the number of points that failed with
// an error (skips do not count). A point whose row is throttled is measured
// once more after env.cooldown_s, in a row of its own with the same name.
// Clears the registered benchmarks after.
int RunPoints(const Experiment& experiment, const std::vector<AxisSpec>& axes,
              const std::vector<Point>& points, const RunEnv& env,
              benchmark::BenchmarkReporter* display,
              benchmark::BenchmarkReporter* file);

// The whole binary: parses flags, validates, checks for a GPU, runs, writes.
// Returns an exit status (kExit*).
int RunMain(const Experiment& experiment, int argc, char** argv);

// The --help text.
std::string HelpText(const Experiment& experiment, const std::string& argv0);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_RUNNER_H_
