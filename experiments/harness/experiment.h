// Declaring an experiment: a name, the question it answers, typed axes with
// units, metrics with units, a validator for axis points and a body that
// measures one point. See experiments/README.md for a complete example.
#ifndef DISSECT_EXPERIMENTS_HARNESS_EXPERIMENT_H_
#define DISSECT_EXPERIMENTS_HARNESS_EXPERIMENT_H_

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/harness/axes.h"
#include "probes/counters.h"
#include "probes/device_info.h"
#include "probes/event_timer.h"
#include "probes/nvml_clock.h"

namespace dissect {

struct MetricSpec {
  std::string name;
  std::string unit;
  std::string help;
};

// A status meaning "this point does not apply here" (e.g. a footprint larger
// than the device's shared memory). The result row records the reason.
absl::Status Skipped(absl::string_view reason);
bool IsSkipped(const absl::Status& status);

// What an experiment body sees while it measures one point.
class PointContext {
 public:
  // `clock` may be null (NVML unavailable); `counters` is null unless
  // --metrics asked for counters and they are available.
  PointContext(const Point& point, const DeviceInfo& device,
               const TimingOptions& timing, cudaStream_t stream,
               const NvmlClock* clock, CounterCollector* counters = nullptr);

  int64_t Int(absl::string_view axis) const { return point_.Int(axis); }
  const std::string& Str(absl::string_view axis) const { return point_.Str(axis); }
  const Point& point() const { return point_; }
  const DeviceInfo& device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  const TimingOptions& timing() const { return timing_; }

  // Times `launch` with CUDA events (warm-up and sample counts from the
  // command line), reads the SM clock after the warm-up and after the last
  // sample, and records the median as the row's time. Returns the samples in
  // milliseconds. With --metrics it then runs CollectCounters(launch, cache):
  // the counters come from their own launches, after the timed ones.
  absl::StatusOr<std::vector<double>> TimeKernel(const LaunchFn& launch,
                                                 CacheState cache);

  // Collects the --metrics counters over `launch` (once per replay pass, in
  // the same cache state as the timing: cold flushes L2 before each pass)
  // for the row's cupti/<name> values. Without --metrics it does nothing. A
  // failure is returned and recorded for the row's label; the point's
  // timings stand. TimeKernel calls this; experiments that time otherwise
  // may call it themselves.
  absl::Status CollectCounters(const LaunchFn& launch, CacheState cache);

  // Launches TimeKernel makes: warmup + samples, then one per counter pass.
  // A launch callback that writes one record per launch allocates
  // LaunchSlots() records and writes launch i to LaunchSlot(i): the launches
  // after the timed ones all share the last, scratch slot.
  int LaunchSlots() const { return timing_.warmup + timing_.samples + 1; }
  int LaunchSlot(int launch) const {
    return std::min(launch, timing_.warmup + timing_.samples);
  }

  // Records samples of a declared metric; they are summarized into the
  // row's counters (median, min, max, spread).
  absl::Status AddSamples(absl::string_view metric, std::vector<double> samples);

  // Records the duration samples (ms) behind the row's time. TimeKernel
  // calls this; experiments that time otherwise may call it themselves.
  void RecordTimeSamples(std::vector<double> ms) { time_ms_ = std::move(ms); }

  // Mean of the SM clock reads around the last TimeKernel (MHz), if NVML
  // answered.
  std::optional<double> SmClockMhz() const;

  // Read by the harness after the body returns.
  const std::map<std::string, std::vector<double>>& metric_samples() const {
    return metrics_;
  }
  const std::vector<double>& time_samples() const { return time_ms_; }
  const std::optional<ClockReading>& clock_before() const { return before_; }
  const std::optional<ClockReading>& clock_after() const { return after_; }
  const std::string& clock_error() const { return clock_error_; }
  const std::optional<CounterReading>& counter_reading() const {
    return counter_reading_;
  }
  // Why the last CollectCounters failed; "" if it did not.
  const std::string& counters_error() const { return counters_error_; }
  bool counters_requested() const { return counters_ != nullptr; }

 private:
  void ReadClock(std::optional<ClockReading>& into);
  absl::Status EnsureFlusher();

  const Point& point_;
  const DeviceInfo& device_;
  TimingOptions timing_;
  cudaStream_t stream_;
  const NvmlClock* clock_;
  CounterCollector* counters_;
  std::optional<L2Flusher> flusher_;
  std::map<std::string, std::vector<double>> metrics_;
  std::vector<double> time_ms_;
  std::optional<ClockReading> before_;
  std::optional<ClockReading> after_;
  std::string clock_error_;
  std::optional<CounterReading> counter_reading_;
  std::string counters_error_;
};

using ValidateFn = std::function<absl::Status(const Point&)>;
using RunFn = std::function<absl::Status(PointContext&)>;

class Experiment {
 public:
  explicit Experiment(std::string name) : name_(std::move(name)) {}

  // The question the experiment answers, one sentence.
  Experiment& Question(std::string text);
  Experiment& AddAxis(AxisSpec axis);
  Experiment& AddMetric(std::string name, std::string unit,
                        std::string help = "");
  // Rejects bad axis combinations before anything runs (exit status 2).
  Experiment& Validate(ValidateFn fn);
  Experiment& Run(RunFn fn);

  const std::string& name() const { return name_; }
  const std::string& question() const { return question_; }
  const std::vector<AxisSpec>& axes() const { return axes_; }
  const std::vector<MetricSpec>& metrics() const { return metrics_; }
  const ValidateFn& validate() const { return validate_; }
  const RunFn& run() const { return run_; }
  const MetricSpec* FindMetric(absl::string_view name) const;

 private:
  std::string name_;
  std::string question_;
  std::vector<AxisSpec> axes_;
  std::vector<MetricSpec> metrics_;
  ValidateFn validate_;
  RunFn run_;
};

// The experiment of this binary (exactly one is registered per binary).
Experiment& RegisterExperiment(std::string name);
// Null when none is registered.
Experiment* RegisteredExperiment();

}  // namespace dissect

// DISSECT_EXPERIMENT(shared_latency).Question("...").AddAxis(...)...;
#define DISSECT_EXPERIMENT(name)                                   \
  [[maybe_unused]] static ::dissect::Experiment&                   \
      dissect_experiment_##name = ::dissect::RegisterExperiment(#name)

#endif  // DISSECT_EXPERIMENTS_HARNESS_EXPERIMENT_H_
