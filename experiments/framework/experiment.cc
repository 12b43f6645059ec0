// Experiment declaration and the per-point context.
#include "experiments/framework/experiment.h"

#include <memory>

#include "absl/strings/string_view.h"
#include "absl/base/internal/raw_logging.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace dissect {
namespace {

constexpr char kSkipPayload[] = "dissect/skipped";
// How UnmetComputeCapability's reasons begin (IsComputeCapabilitySkip).
constexpr char kNeedsPrefix[] = "needs compute capability ";

std::unique_ptr<Experiment>& Slot() {
  static auto* slot = new std::unique_ptr<Experiment>();
  return *slot;
}

}  // namespace

absl::Status Skipped(absl::string_view reason) {
  absl::Status s = absl::FailedPreconditionError(reason);
  s.SetPayload(kSkipPayload, absl::Cord("1"));
  return s;
}

bool IsSkipped(const absl::Status& status) {
  return status.GetPayload(kSkipPayload).has_value();
}

PointContext::PointContext(const Point& point, const DeviceInfo& device,
                           const TimingOptions& timing, cudaStream_t stream,
                           const ClockSource* clock, CounterCollector* counters,
                           KernelTimer* activity)
    : point_(point),
      device_(device),
      timing_(timing),
      stream_(stream),
      clock_(clock),
      counters_(counters),
      activity_(activity) {}

void PointContext::ReadClock(std::optional<ClockReading>& into) {
  if (clock_ == nullptr) return;
  absl::StatusOr<ClockReading> r = clock_->Read();
  if (r.ok()) {
    into = *r;
  } else {
    clock_error_ = std::string(r.status().message());
  }
}

absl::StatusOr<const L2Flusher*> PointContext::FlusherFor(CacheState cache) {
  if (cache == CacheState::kHot) return nullptr;
  if (!flusher_.has_value()) {
    absl::StatusOr<L2Flusher> f = L2Flusher::Create(device_.l2_bytes);
    if (!f.ok()) return f.status();
    flusher_ = *std::move(f);
  }
  return &*flusher_;
}

absl::StatusOr<std::vector<double>> PointContext::TimeKernel(
    const LaunchFn& launch, CacheState cache, int launches_per_sample) {
  absl::StatusOr<const L2Flusher*> flusher = FlusherFor(cache);
  if (!flusher.ok()) return flusher.status();
  TimingOptions options = timing_;
  options.cache = cache;
  options.launches_per_sample = launches_per_sample;
  std::optional<ClockPoller> poller;
  if (clock_ != nullptr) poller.emplace(clock_);
  span_.reset();
  TimingStats stats;
  absl::StatusOr<std::vector<double>> ms = TimeWithEvents(
      launch, options, *flusher, stream_,
      [&] {
        ReadClock(before_);
        if (poller.has_value()) poller->Start();
      },
      [&] {
        if (poller.has_value()) {
          absl::StatusOr<ClockSpan> span = poller->Stop();
          if (span.ok()) {
            RecordClockSpan(*span);
          } else {
            clock_error_ = std::string(span.status().message());
          }
        }
        ReadClock(after_);
      },
      &stats);
  if (!ms.ok()) return ms;
  timing_retries_ = stats.retried_samples;
  launches_per_sample_ = cache == CacheState::kHot ? launches_per_sample : 1;
  RecordTimeSamples(*ms);
  // Counter and activity failures are recorded for the row, not returned:
  // the timings stand without them.
  CollectCounters(launch, cache).IgnoreError();
  CollectKernelActivity(launch, cache).IgnoreError();
  return ms;
}

absl::Status PointContext::CollectCounters(const LaunchFn& launch,
                                           CacheState cache) {
  if (counters_ == nullptr) return absl::OkStatus();
  counter_reading_.reset();
  counters_error_.clear();
  BeforePassFn before_pass;
  absl::StatusOr<const L2Flusher*> flusher = FlusherFor(cache);
  absl::Status status = flusher.status();
  if (status.ok() && *flusher != nullptr) {
    before_pass = [f = *flusher](cudaStream_t s) { return f->Flush(s); };
  }
  if (status.ok()) {
    absl::StatusOr<CounterReading> r = counters_->Collect(launch, stream_, before_pass);
    if (r.ok()) {
      counter_reading_ = *std::move(r);
    } else {
      status = r.status();
    }
  }
  if (!status.ok()) counters_error_ = std::string(status.message());
  return status;
}

absl::Status PointContext::CollectKernelActivity(const LaunchFn& launch,
                                                 CacheState cache) {
  if (activity_ == nullptr) return absl::OkStatus();
  activity_ms_.clear();
  activity_error_.clear();
  TimingOptions options = timing_;
  options.cache = cache;
  absl::StatusOr<const L2Flusher*> flusher = FlusherFor(cache);
  absl::StatusOr<std::vector<double>> ms =
      flusher.ok() ? activity_->Time(launch, options, *flusher, stream_)
                   : absl::StatusOr<std::vector<double>>(flusher.status());
  if (!ms.ok()) {
    activity_error_ = std::string(ms.status().message());
    return ms.status();
  }
  activity_ms_ = *std::move(ms);
  return absl::OkStatus();
}

absl::Status PointContext::AddSamples(absl::string_view metric,
                                      std::vector<double> samples) {
  if (samples.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no samples for metric '", metric, "'"));
  }
  metrics_[std::string(metric)] = std::move(samples);
  return absl::OkStatus();
}

absl::Status PointContext::SetVector(absl::string_view name, std::vector<double> values) {
  if (values.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no values for vector '", name, "'"));
  }
  vectors_[std::string(name)] = std::move(values);
  return absl::OkStatus();
}

std::optional<double> PointContext::SmClockMhz() const {
  if (span_.has_value()) return span_->median_mhz;
  if (!before_.has_value() || !after_.has_value()) return std::nullopt;
  return 0.5 * (before_->sm_clock_mhz + after_->sm_clock_mhz);
}

Experiment& Experiment::Question(std::string text) {
  question_ = std::move(text);
  return *this;
}

Experiment& Experiment::AddAxis(AxisSpec axis) {
  axes_.push_back(std::move(axis));
  return *this;
}

Experiment& Experiment::AddMetric(std::string name, std::string unit,
                                  std::string help) {
  metrics_.push_back({std::move(name), std::move(unit), std::move(help)});
  return *this;
}

Experiment& Experiment::AddMetrics(const std::vector<MetricSpec>& metrics) {
  metrics_.insert(metrics_.end(), metrics.begin(), metrics.end());
  return *this;
}

Experiment& Experiment::AddVector(std::string name, std::string unit, std::string index,
                                  std::string help) {
  vectors_.push_back({std::move(name), std::move(unit), std::move(index), std::move(help)});
  return *this;
}

Experiment& Experiment::Headline(std::string metric) {
  if (FindMetric(metric) == nullptr) {
    std::vector<std::string> declared;
    for (const MetricSpec& m : metrics_) declared.push_back(m.name);
    const std::string message =
        absl::StrCat("experiment ", name_, ": Headline(\"", metric,
                     "\") is not one of its metrics (declared before Headline: ",
                     declared.empty() ? "none" : absl::StrJoin(declared, ", "), ")");
    ABSL_RAW_LOG(FATAL, "%s", message.c_str());
  }
  headline_metric_ = std::move(metric);
  return *this;
}

Experiment& Experiment::Validate(ValidateFn fn) {
  validate_ = std::move(fn);
  return *this;
}

Experiment& Experiment::Run(RunFn fn) {
  run_ = std::move(fn);
  return *this;
}

Experiment& Experiment::RequiresGpu(bool requires_gpu) {
  requires_gpu_ = requires_gpu;
  return *this;
}

Experiment& Experiment::AddFlag(std::string gflags_name) {
  flags_.push_back(std::move(gflags_name));
  return *this;
}

Experiment& Experiment::AddContext(std::string key, std::string value) {
  context_.emplace_back(std::move(key), std::move(value));
  return *this;
}

Experiment& Experiment::NeedsComputeCapability(int min, std::string what, int max) {
  compute_capability_needs_.push_back({min, max, std::move(what)});
  return *this;
}

std::string ComputeCapabilityName(int cc) { return absl::StrCat(cc / 10, ".", cc % 10); }

std::string DescribeNeed(const ComputeCapabilityNeed& need) {
  std::string range = absl::StrCat(ComputeCapabilityName(need.min), " or newer");
  if (need.max == need.min) {
    range = absl::StrCat(ComputeCapabilityName(need.min), " (only)");
  } else if (need.max != 0) {
    range = absl::StrCat(ComputeCapabilityName(need.min), " to ", ComputeCapabilityName(need.max));
  }
  return absl::StrCat("compute capability ", range, " for ", need.what);
}

std::string UnmetNeed(const ComputeCapabilityNeed& need, int cc) {
  if (cc >= need.min && (need.max == 0 || cc <= need.max)) return "";
  return absl::StrCat("needs ", DescribeNeed(need), "; this GPU is ", ComputeCapabilityName(cc));
}

std::string UnmetComputeCapability(const Experiment& experiment, int cc) {
  for (const ComputeCapabilityNeed& need : experiment.compute_capability_needs()) {
    std::string unmet = UnmetNeed(need, cc);
    if (!unmet.empty()) return unmet;
  }
  return "";
}

bool IsComputeCapabilitySkip(absl::string_view error_message) {
  absl::ConsumePrefix(&error_message, "skipped: ");
  return absl::StartsWith(error_message, kNeedsPrefix);
}

std::string L1CarveoutName(int carveout) {
  switch (carveout) {
    case cudaSharedmemCarveoutMaxL1:
      return "max_l1";
    case cudaSharedmemCarveoutMaxShared:
      return "max_shared";
    case cudaSharedmemCarveoutDefault:
      return "default";
  }
  return absl::StrCat(carveout, "pct_shared");
}

const MetricSpec* Experiment::FindMetric(absl::string_view name) const {
  for (const MetricSpec& m : metrics_) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const VectorSpec* Experiment::FindVector(absl::string_view name) const {
  for (const VectorSpec& v : vectors_) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

Experiment& RegisterExperiment(std::string name) {
  std::unique_ptr<Experiment>& slot = Slot();
  ABSL_RAW_CHECK(slot == nullptr,
                 "a dissect binary registers exactly one experiment");
  slot = std::make_unique<Experiment>(std::move(name));
  return *slot;
}

Experiment* RegisteredExperiment() { return Slot().get(); }

}  // namespace dissect
