// Declaring an experiment: a name, the question it answers, typed axes with
// units, metrics with units, a validator for axis points and a body that
// measures one point. README.md's "Adding an experiment" walks through a
// complete one; experiments/selftest.cc is a small real one.
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_EXPERIMENT_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_EXPERIMENT_H_

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/axes.h"
#include "probes/counters.h"
#include "probes/device_info.h"
#include "probes/event_timer.h"
#include "probes/kernel_activity.h"
#include "probes/nvml_clock.h"

namespace dissect {

struct MetricSpec {
  std::string name;
  std::string unit;
  std::string help;
};

// A per-index value set of a row (a per-SM map, a flattened matrix): the
// row gets counters `<name>[0]`, `<name>[1]`, ...; `index` names what the
// position counts ("sm", "peer", "sm*lines+line").
struct VectorSpec {
  std::string name;
  std::string unit;
  std::string index;
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
  // --metrics asked for counters and they are available; `activity` is null
  // unless --kernel_activity asked for kernel activity and it is available.
  PointContext(const Point& point, const DeviceInfo& device,
               const TimingOptions& timing, cudaStream_t stream,
               const ClockSource* clock, CounterCollector* counters = nullptr,
               KernelTimer* activity = nullptr);

  int64_t Int(absl::string_view axis) const { return point_.Int(axis); }
  const std::string& Str(absl::string_view axis) const { return point_.Str(axis); }
  const Point& point() const { return point_; }
  const DeviceInfo& device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  const TimingOptions& timing() const { return timing_; }

  // Times `launch` with CUDA events (TimeWithEvents, probes/event_timer.h:
  // warm-up and sample counts from the command line; every sample queued
  // behind a guard spin so that host work in `launch` is never timed, and
  // exposed samples timed again), reads the SM clock after the warm-up and
  // after the last sample and polls it while the samples run (ClockPoller,
  // every 2 ms), and records the median as the row's time. Returns the
  // samples in milliseconds. Hot, `launches_per_sample` launches are timed
  // per sample and each sample is their time per launch (for kernels too
  // short for one event pair); cold ignores it (one launch per flush). With
  // --metrics it then runs CollectCounters(launch, cache), and with
  // --kernel_activity CollectKernelActivity(launch, cache): each comes from
  // its own launches, after the timed ones, in that order.
  absl::StatusOr<std::vector<double>> TimeKernel(const LaunchFn& launch,
                                                 CacheState cache,
                                                 int launches_per_sample = 1);

  // Collects the --metrics counters over `launch` (once per replay pass, in
  // the same cache state as the timing: cold flushes L2 before each pass)
  // for the row's cupti/<name> values. Without --metrics it does nothing. A
  // failure is returned and recorded for the row's label; the point's
  // timings stand. TimeKernel calls this; experiments that time otherwise
  // may call it themselves.
  absl::Status CollectCounters(const LaunchFn& launch, CacheState cache);

  // Times `launch` once more, in a pass of its own, from CUPTI's kernel
  // activity records (--kernel_activity): warm-up and samples as TimeKernel
  // (cold: L2 flushed before each), no counters, and a recorder alive only
  // during the pass. The sample durations become the row's
  // activity/kernel_ms. Without --kernel_activity it does nothing. A failure
  // is returned and recorded for the row's label; the point's timings stand.
  // TimeKernel calls this; experiments that time otherwise may call it
  // themselves.
  absl::Status CollectKernelActivity(const LaunchFn& launch, CacheState cache);

  // Launches TimeKernel makes: warmup, then samples × launches_per_sample
  // (hot; cold: samples), then launches_per_sample per sample timed again
  // (probes/event_timer.h), one per counter pass, and warmup + samples
  // again for --kernel_activity. A launch callback that writes one record
  // per launch allocates LaunchSlots(n) records and writes launch i to
  // LaunchSlot(i, n) (n: the launches_per_sample given to TimeKernel): the
  // launches after the timed ones all share the last, scratch slot. Sample
  // s's launches are warmup + s × n .. warmup + s × n + n - 1; a sample
  // timed again keeps its records from its first timing (a kernel's own
  // records do not hold host time).
  int LaunchSlots(int launches_per_sample = 1) const {
    return timing_.warmup + timing_.samples * launches_per_sample + 1;
  }
  int LaunchSlot(int launch, int launches_per_sample = 1) const {
    return std::min(launch, LaunchSlots(launches_per_sample) - 1);
  }

  // Records samples of a declared metric; they are summarized into the
  // row's counters (median, min, max, spread).
  absl::Status AddSamples(absl::string_view metric, std::vector<double> samples);

  // Records the values of a declared vector (Experiment::AddVector): the
  // row gets counters `<name>[i]`, NaN included. Unlike metrics, a vector is
  // optional per row. Setting it again replaces it.
  absl::Status SetVector(absl::string_view name, std::vector<double> values);

  // Adds a note to the row's label (after the harness's own: throttle
  // reasons, clock moved, counter and activity notes), e.g.
  // "same_code_as: cs". Notes must not contain ';', which separates them.
  void AddNote(std::string note) { notes_.push_back(std::move(note)); }
  const std::vector<std::string>& notes() const { return notes_; }

  // Marks the row throttled (counter `throttled` 1, `reason` first in its
  // label) for a slowdown the body saw by its own means; NVML's throttle
  // reasons are recorded by the harness itself. A throttled row is
  // measured once more after --cooldown_s.
  void MarkThrottled(std::string reason) { throttle_reason_ = std::move(reason); }
  const std::string& throttle_reason() const { return throttle_reason_; }

  // 1 for a point's first measurement, 2 for its re-measure after a
  // throttled first one.
  int attempt() const { return attempt_; }
  void set_attempt(int attempt) { attempt_ = attempt; }

  // Records the duration samples (ms) behind the row's time. TimeKernel
  // calls this; experiments that time otherwise may call it themselves.
  void RecordTimeSamples(std::vector<double> ms) { time_ms_ = std::move(ms); }

  // Records the SM clock polled while samples ran (ClockPoller) for the
  // row's sm_clock_mhz.min/.median/.max and clock_moved. TimeKernel calls
  // this; experiments that time otherwise may call it themselves.
  void RecordClockSpan(ClockSpan span) { span_ = span; }

  // The SM clock of the last TimeKernel (MHz), if NVML answered: the median
  // of the readings polled while its samples ran, else the mean of the
  // reads after the warm-up and after the samples.
  std::optional<double> SmClockMhz() const;

  // Read by the harness after the body returns.
  const std::map<std::string, std::vector<double>>& metric_samples() const {
    return metrics_;
  }
  const std::map<std::string, std::vector<double>>& vectors() const { return vectors_; }
  const std::vector<double>& time_samples() const { return time_ms_; }
  const std::optional<ClockReading>& clock_before() const { return before_; }
  const std::optional<ClockReading>& clock_after() const { return after_; }
  // The SM clock polled while the samples of the last TimeKernel ran.
  const std::optional<ClockSpan>& clock_span() const { return span_; }
  // Samples of the last TimeKernel timed again because host time may have
  // been inside them (TimingStats::retried_samples), and its
  // launches_per_sample.
  int timing_retries() const { return timing_retries_; }
  int launches_per_sample() const { return launches_per_sample_; }
  const std::string& clock_error() const { return clock_error_; }
  const std::optional<CounterReading>& counter_reading() const {
    return counter_reading_;
  }
  // Why the last CollectCounters failed; "" if it did not.
  const std::string& counters_error() const { return counters_error_; }
  bool counters_requested() const { return counters_ != nullptr; }
  // Sample durations (ms) of the last CollectKernelActivity; empty if none.
  const std::vector<double>& activity_samples() const {
    return activity_ms_;
  }
  // Why the last CollectKernelActivity failed; "" if it did not.
  const std::string& activity_error() const { return activity_error_; }
  bool activity_requested() const { return activity_ != nullptr; }

 private:
  void ReadClock(std::optional<ClockReading>& into);
  // The L2 flusher for `cache`: null when hot, created on first use when
  // cold.
  absl::StatusOr<const L2Flusher*> FlusherFor(CacheState cache);

  const Point& point_;
  const DeviceInfo& device_;
  TimingOptions timing_;
  cudaStream_t stream_;
  const ClockSource* clock_;
  CounterCollector* counters_;
  KernelTimer* activity_;
  std::optional<L2Flusher> flusher_;
  std::map<std::string, std::vector<double>> metrics_;
  std::map<std::string, std::vector<double>> vectors_;
  std::vector<double> time_ms_;
  std::vector<std::string> notes_;
  std::optional<ClockReading> before_;
  std::optional<ClockReading> after_;
  std::optional<ClockSpan> span_;
  int timing_retries_ = 0;
  int launches_per_sample_ = 1;
  std::string clock_error_;
  std::optional<CounterReading> counter_reading_;
  std::string counters_error_;
  std::vector<double> activity_ms_;
  std::string activity_error_;
  std::string throttle_reason_;
  int attempt_ = 1;
};

// A compute capability an experiment's kernels need
// (Experiment::NeedsComputeCapability), each as major * 10 + minor: 89 for
// 8.9.
struct ComputeCapabilityNeed {
  int min = 0;
  int max = 0;       // the newest it exists on (wgmma: 90); 0 for none
  std::string what;  // what needs it: "wgmma.mma_async", "thread-block clusters"
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
  // Adds each of `metrics` in order (for metric sets that several
  // experiments share).
  Experiment& AddMetrics(const std::vector<MetricSpec>& metrics);
  // Declares a per-index value set (VectorSpec), e.g. AddVector("gpc_of_sm",
  // "-", "sm", "GPC of each SM"); the body sets it with
  // PointContext::SetVector. Listed in --help and the result context.
  Experiment& AddVector(std::string name, std::string unit, std::string index,
                        std::string help = "");
  // Names the metric that stands for the experiment's result, the one a
  // dashboard plots for each point: the result file's context says it
  // (dissect_headline_metric, analysis/SCHEMA.md), so analysis needs no list
  // of experiments. `metric` must already be declared (AddMetric or
  // AddMetrics before Headline); registration fails otherwise.
  Experiment& Headline(std::string metric);
  // Rejects bad axis combinations before anything runs (exit status 2).
  Experiment& Validate(ValidateFn fn);
  Experiment& Run(RunFn fn);
  // An experiment that needs no GPU (the harness's own self-test): no CUDA
  // device query, NVML, counters or stream; the body times itself on the
  // host and calls RecordTimeSamples / AddSamples. PointContext::device()
  // has only its name ("cpu (<experiment>, no GPU)") and stream() is null.
  Experiment& RequiresGpu(bool requires_gpu);
  // Accepts --NAME=VALUE (booleans also --NAME / --noNAME) on this
  // experiment's command line for a gflags flag its own source file
  // defines (DEFINE_*), e.g. selftest's fault injection flags; other
  // experiments' command lines reject it. Listed in --help.
  Experiment& AddFlag(std::string gflags_name);
  // Adds `key`: `value` to the context of every result file (after the
  // harness's own keys; `key` must be none of them): a setting that holds
  // for every point and that the analysis compares between files, e.g. the
  // L1 carveout its kernels ask for (kL1CarveoutKey). Listed in --help.
  Experiment& AddContext(std::string key, std::string value);
  // Declares that the experiment's kernels need a device of compute
  // capability `min` (major * 10 + minor: 89 for 8.9) or newer, and no newer
  // than `max` unless it is 0, for `what`; e.g. NeedsComputeCapability(90,
  // "wgmma.mma_async", 90). Every point on another device is skipped with
  // the reason (UnmetComputeCapability); the binary's other architectures
  // hold stubs of such kernels. Repeatable; listed in --help.
  Experiment& NeedsComputeCapability(int min, std::string what, int max = 0);

  const std::string& name() const { return name_; }
  const std::string& question() const { return question_; }
  const std::vector<AxisSpec>& axes() const { return axes_; }
  const std::vector<MetricSpec>& metrics() const { return metrics_; }
  const std::vector<VectorSpec>& vectors() const { return vectors_; }
  // The Headline metric; "" when none is declared.
  const std::string& headline_metric() const { return headline_metric_; }
  const VectorSpec* FindVector(absl::string_view name) const;
  const ValidateFn& validate() const { return validate_; }
  const RunFn& run() const { return run_; }
  const MetricSpec* FindMetric(absl::string_view name) const;
  bool requires_gpu() const { return requires_gpu_; }
  const std::vector<std::string>& flags() const { return flags_; }
  const std::vector<std::pair<std::string, std::string>>& context() const { return context_; }
  const std::vector<ComputeCapabilityNeed>& compute_capability_needs() const {
    return compute_capability_needs_;
  }

 private:
  std::string name_;
  std::string question_;
  std::vector<AxisSpec> axes_;
  std::vector<MetricSpec> metrics_;
  std::vector<VectorSpec> vectors_;
  std::string headline_metric_;
  ValidateFn validate_;
  RunFn run_;
  bool requires_gpu_ = true;
  std::vector<std::string> flags_;
  std::vector<std::pair<std::string, std::string>> context_;
  std::vector<ComputeCapabilityNeed> compute_capability_needs_;
};

// "8.9" for 89.
std::string ComputeCapabilityName(int cc);
// What `need` asks for: "compute capability 9.0 or newer for thread-block
// clusters", "compute capability 9.0 (only) for wgmma.mma_async".
std::string DescribeNeed(const ComputeCapabilityNeed& need);
// Why a device of compute capability `cc` does not meet `need` ("needs
// compute capability 9.0 or newer for thread-block clusters; this GPU is
// 8.0"), or "" when it does: UnmetComputeCapability's reason for one need,
// also for a need only some points have (an op of instruction_latency).
std::string UnmetNeed(const ComputeCapabilityNeed& need, int cc);
// Why `experiment` cannot run on a device of compute capability `cc`
// (major * 10 + minor), "needs compute capability 9.0 or newer for
// thread-block clusters; this GPU is 8.0" (the first unmet need), or ""
// when every need is met.
std::string UnmetComputeCapability(const Experiment& experiment, int cc);
// Whether a row's error message is UnmetComputeCapability's skip.
bool IsComputeCapabilitySkip(absl::string_view error_message);

// The context key that records the L1/shared carveout
// (cudaFuncAttributePreferredSharedMemoryCarveout) an experiment's kernels
// ask for: L1 takes what shared memory leaves, so an L1 capacity or an L1
// plateau holds only at its carveout, and the analysis compares the key
// before it combines two files' L1 figures.
inline constexpr char kL1CarveoutKey[] = "l1_carveout";
// Its value for `carveout` (a percentage of the largest shared memory, or
// cudaSharedmemCarveoutDefault): "max_l1" (cudaSharedmemCarveoutMaxL1),
// "max_shared" (cudaSharedmemCarveoutMaxShared), "default" (the driver
// chooses), else "<n>pct_shared".
std::string L1CarveoutName(int carveout);

// The experiment of this binary (exactly one is registered per binary).
Experiment& RegisterExperiment(std::string name);
// Null when none is registered.
Experiment* RegisteredExperiment();

}  // namespace dissect

// DISSECT_EXPERIMENT(shared_latency).Question("...").AddAxis(...)...;
#define DISSECT_EXPERIMENT(name)                                   \
  [[maybe_unused]] static ::dissect::Experiment&                   \
      dissect_experiment_##name = ::dissect::RegisterExperiment(#name)

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_EXPERIMENT_H_
