// CUDA-event timing; see event_timer.h.
#include "probes/event_timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/flush.h"
#include "kernels/spin.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

// A TimingQueue on a CUDA stream; the guard is one block of kernels/spin.
class CudaTimingQueue : public TimingQueue {
 public:
  explicit CudaTimingQueue(cudaStream_t stream) : stream_(stream) {}
  ~CudaTimingQueue() override { Release(); }

  cudaStream_t stream() const override { return stream_; }

  absl::Status CreateEvents(int count) override {
    Release();
    events_.reserve(count);
    for (int i = 0; i < count; ++i) {
      cudaEvent_t e = nullptr;
      DISSECT_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
      events_.push_back(e);
    }
    return absl::OkStatus();
  }

  absl::Status Record(int event) override {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaEventRecord(events_[event], stream_));
    return absl::OkStatus();
  }

  absl::StatusOr<bool> Reached(int event) override {
    const cudaError_t e = cudaEventQuery(events_[event]);
    if (e == cudaErrorNotReady) {
      // Not an error; clear it so that the next launch's cudaGetLastError()
      // does not report it.
      cudaGetLastError();
      return false;
    }
    DISSECT_CUDA_RETURN_IF_ERROR(e);
    return true;
  }

  absl::StatusOr<double> ElapsedMs(int from, int to) override {
    float ms = 0;
    DISSECT_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return ms;
  }

  absl::Status Spin(int64_t ns) override {
    if (spins_.get() == nullptr) {
      DISSECT_ASSIGN_OR_RETURN(spins_, DeviceBuffer<uint64_t>::Allocate(kSpinThreads));
    }
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchSpin(static_cast<uint64_t>(ns), 1, spins_.get(), stream_));
    return absl::OkStatus();
  }

  absl::Status Synchronize() override {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }

 private:
  void Release() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    events_.clear();
  }

  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;
  DeviceBuffer<uint64_t> spins_;
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

absl::StatusOr<CacheState> ParseCacheState(absl::string_view name) {
  if (name == "hot") return CacheState::kHot;
  if (name == "cold") return CacheState::kCold;
  return absl::InvalidArgumentError(
      absl::StrCat("timing must be 'hot' or 'cold', not '", name, "'"));
}

absl::StatusOr<L2Flusher> L2Flusher::Create(int64_t l2_bytes) {
  if (l2_bytes <= 0) return absl::InvalidArgumentError("L2 size must be positive");
  // Twice L2, rounded up to the 16-byte words the read pass loads.
  const size_t bytes = (2 * static_cast<size_t>(l2_bytes) + 15) / 16 * 16;
  L2Flusher flusher;
  DISSECT_ASSIGN_OR_RETURN(flusher.scratch_, DeviceBuffer<uint8_t>::Allocate(bytes));
  DISSECT_ASSIGN_OR_RETURN(flusher.clean_, DeviceBuffer<uint8_t>::Allocate(bytes));
  DISSECT_ASSIGN_OR_RETURN(flusher.sink_, DeviceBuffer<uint32_t>::Allocate(1));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemset(flusher.clean_.get(), 0, flusher.clean_.bytes()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemset(flusher.sink_.get(), 0, flusher.sink_.bytes()));
  return flusher;
}

absl::Status L2Flusher::Flush(cudaStream_t stream) const {
  size_t persisting = 0;
  const cudaError_t limit = cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize);
  if (limit == cudaErrorUnsupportedLimit) {
    cudaGetLastError();  // no persisting L2 (before sm_80): nothing to reset
    persisting = 0;
  } else {
    DISSECT_CUDA_RETURN_IF_ERROR(limit);
  }
  if (FlushResetsPersistingLines(persisting)) {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaCtxResetPersistingL2Cache());
  }
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(scratch_.get(), 0x5a, scratch_.bytes(), stream));
  DISSECT_CUDA_RETURN_IF_ERROR(
      LaunchL2ReadFlush(clean_.get(), clean_.bytes(), sink_.get(), stream));
  return absl::OkStatus();
}

bool FlushResetsPersistingLines(size_t persisting_l2_limit_bytes) {
  return persisting_l2_limit_bytes > 0;
}

DramBytes CountedDramBytes(CacheState cache, double read_bytes, double written_bytes,
                           int64_t l2_bytes) {
  if (cache == CacheState::kHot) return {read_bytes + written_bytes, ""};
  const double l2 = static_cast<double>(std::max<int64_t>(l2_bytes, 0));
  DramBytes d;
  d.bytes = read_bytes + std::max(0.0, written_bytes - l2);
  d.note = absl::StrCat("cold: dram_peak_pct counts ", static_cast<int64_t>(d.bytes),
                        " B, the reads and the writes beyond one L2 (of ",
                        static_cast<int64_t>(read_bytes + written_bytes),
                        " B read + written): up to one L2 of output may still be dirty in L2 "
                        "at the end event");
  return d;
}

int LaunchesPerSample(CacheState cache, double bytes_per_launch) {
  constexpr double kBytesPerSample = 1073741824.0;  // 2^30
  constexpr double kMaxLaunches = 64;
  if (cache == CacheState::kCold) return 1;
  if (!(bytes_per_launch > 0)) return static_cast<int>(kMaxLaunches);
  return static_cast<int>(std::clamp(std::ceil(kBytesPerSample / bytes_per_launch), 1.0,
                                     kMaxLaunches));
}

std::string ShortColdSampleNote(CacheState cache, const std::vector<double>& ms) {
  if (cache == CacheState::kHot || ms.empty()) return "";
  const auto short_samples = std::count_if(
      ms.begin(), ms.end(), [](double t) { return t * 1e3 < kShortSampleUs; });
  if (2 * short_samples <= static_cast<std::ptrdiff_t>(ms.size())) return "";
  return absl::StrCat("short cold samples: ", short_samples, " of ", ms.size(), " under ",
                      kShortSampleUs, " us, so the ~", kSampleOverheadUs,
                      " us of launch and event overhead in each is over 5 % of it (cold times "
                      "one launch per flush and cannot spread it over several)");
}

int64_t NextGuardNs(int64_t first_ns, int64_t guard_ns, int64_t host_ns, bool exposed) {
  // The next guard covers twice this sample's host time, and doubles after
  // an exposed sample.
  int64_t next = std::max(first_ns, 2 * host_ns);
  if (exposed) next = std::max(next, 2 * guard_ns);
  return std::min(next, kMaxGuardNs);
}

namespace {

// Whether TimeOnQueue can time with `options` (`can_flush`: it was given
// an L2 flush, which cold timing needs).
absl::Status CheckTimingOptions(const TimingOptions& options, bool can_flush) {
  if (options.samples < 1) return absl::InvalidArgumentError("samples must be at least 1");
  if (options.warmup < 0) return absl::InvalidArgumentError("warmup must not be negative");
  if (options.launches_per_sample < 1) {
    return absl::InvalidArgumentError("launches_per_sample must be at least 1");
  }
  if (options.guard_ns < 0 || options.guard_ns > kMaxGuardNs) {
    return absl::InvalidArgumentError(
        absl::StrCat("guard_ns must be in 0..", kMaxGuardNs, " (0: no guard)"));
  }
  const bool cold = options.cache == CacheState::kCold;
  if (cold && !can_flush) return absl::InvalidArgumentError("cold timing needs an L2 flush");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<double>> TimeOnQueue(TimingQueue& queue, const LaunchFn& launch,
                                                const TimingOptions& options,
                                                const std::function<absl::Status()>& flush,
                                                const std::function<void()>& after_warmup,
                                                const std::function<void()>& after_samples,
                                                TimingStats* stats) {
  DISSECT_RETURN_IF_ERROR(CheckTimingOptions(options, flush != nullptr));
  const bool cold = options.cache == CacheState::kCold;
  const bool guarded = options.guard_ns > 0;
  const int per_sample = cold ? 1 : options.launches_per_sample;
  TimingStats local_stats;
  TimingStats& st = stats != nullptr ? *stats : local_stats;
  st = TimingStats{};
  int64_t guard = options.guard_ns;

  // Events 2i, 2i+1 bracket sample i; the last pair serves the warm-up and
  // the retries.
  const int spare = 2 * options.samples;
  DISSECT_RETURN_IF_ERROR(queue.CreateEvents(2 * options.samples + 2));

  // Queues one guarded sample (or warm-up launch) between events `start`
  // and `start` + 1; returns whether it is exposed to host time.
  auto enqueue = [&](int start, int launches) -> absl::StatusOr<bool> {
    if (cold) DISSECT_RETURN_IF_ERROR(flush());
    const int64_t begin_ns = NowNs();
    if (guarded) DISSECT_RETURN_IF_ERROR(queue.Spin(guard));
    DISSECT_RETURN_IF_ERROR(queue.Record(start));
    for (int i = 0; i < launches; ++i) {
      DISSECT_RETURN_IF_ERROR(
          CudaStatus(launch(queue.stream()), "kernel launch", __FILE__, __LINE__));
    }
    DISSECT_RETURN_IF_ERROR(queue.Record(start + 1));
    if (!guarded) return false;
    DISSECT_ASSIGN_OR_RETURN(const bool exposed, queue.Reached(start));
    guard = NextGuardNs(options.guard_ns, guard, NowNs() - begin_ns, exposed);
    return exposed;
  };

  for (int i = 0; i < options.warmup; ++i) {
    DISSECT_ASSIGN_OR_RETURN(const bool exposed, enqueue(spare, 1));
    if (exposed) ++st.exposed_warmups;
  }
  DISSECT_RETURN_IF_ERROR(queue.Synchronize());
  if (after_warmup) after_warmup();

  std::vector<int> exposed;
  for (int i = 0; i < options.samples; ++i) {
    DISSECT_ASSIGN_OR_RETURN(const bool e, enqueue(2 * i, per_sample));
    if (e) exposed.push_back(i);
  }
  DISSECT_RETURN_IF_ERROR(queue.Synchronize());
  std::vector<double> ms(options.samples);
  for (int i = 0; i < options.samples; ++i) {
    DISSECT_ASSIGN_OR_RETURN(const double elapsed, queue.ElapsedMs(2 * i, 2 * i + 1));
    ms[i] = elapsed / per_sample;
  }
  for (const int i : exposed) {
    ++st.retried_samples;
    while (true) {
      const int64_t guard_used = guard;
      ++st.retry_launches;
      DISSECT_ASSIGN_OR_RETURN(const bool e, enqueue(spare, per_sample));
      DISSECT_RETURN_IF_ERROR(queue.Synchronize());
      if (!e) break;
      if (guard_used >= kMaxGuardNs) {
        return absl::DeadlineExceededError(absl::StrCat(
            "sample ", i, ": the launch callback's host work outlasts a ", kMaxGuardNs / 1000000,
            " ms guard spin, so its time cannot be kept out of the sample; move host work "
            "out of the launch callback"));
      }
    }
    DISSECT_ASSIGN_OR_RETURN(const double elapsed, queue.ElapsedMs(spare, spare + 1));
    ms[i] = elapsed / per_sample;
  }
  st.guard_ns = guard;
  if (after_samples) after_samples();
  return ms;
}

MarkedPassTimer::MarkedPassTimer(TimingQueue& queue, int64_t first_guard_ns)
    : queue_(queue), first_guard_ns_(std::clamp<int64_t>(first_guard_ns, 1, kMaxGuardNs)) {
  stats_.guard_ns = first_guard_ns_;
}

absl::StatusOr<bool> MarkedPassTimer::QueueOnce(int steps, const MarkedRunFn& run) {
  const int64_t begin_ns = NowNs();
  DISSECT_RETURN_IF_ERROR(queue_.Spin(stats_.guard_ns));
  DISSECT_RETURN_IF_ERROR(queue_.Record(0));
  int marked = 0;
  DISSECT_RETURN_IF_ERROR(run([&]() -> absl::Status {
    if (marked == steps) {
      return absl::InvalidArgumentError(absl::StrCat("the pass marks more than ", steps, " steps"));
    }
    return queue_.Record(++marked);
  }));
  if (marked != steps) {
    return absl::InvalidArgumentError(
        absl::StrCat("the pass marked ", marked, " steps, not ", steps));
  }
  DISSECT_ASSIGN_OR_RETURN(const bool exposed, queue_.Reached(0));
  stats_.guard_ns = NextGuardNs(first_guard_ns_, stats_.guard_ns, NowNs() - begin_ns, exposed);
  DISSECT_RETURN_IF_ERROR(queue_.Synchronize());
  return exposed;
}

absl::StatusOr<std::vector<double>> MarkedPassTimer::Time(int steps, const MarkedRunFn& run) {
  if (steps < 1) return absl::InvalidArgumentError("a marked pass needs at least 1 step");
  if (events_ < steps + 1) {
    DISSECT_RETURN_IF_ERROR(queue_.CreateEvents(steps + 1));
    events_ = steps + 1;
  }
  bool retried = false;
  while (true) {
    const int64_t guard_used = stats_.guard_ns;
    DISSECT_ASSIGN_OR_RETURN(const bool exposed, QueueOnce(steps, run));
    if (!exposed) break;
    if (guard_used >= kMaxGuardNs) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the pass's host work outlasts a ", kMaxGuardNs / 1000000,
          " ms guard spin, so its time cannot be kept out of the steps' times"));
    }
    if (!retried) ++stats_.retried_samples;
    retried = true;
    ++stats_.retry_launches;
  }
  std::vector<double> ms(steps);
  for (int i = 0; i < steps; ++i) {
    DISSECT_ASSIGN_OR_RETURN(ms[i], queue_.ElapsedMs(i, i + 1));
  }
  return ms;
}

std::unique_ptr<TimingQueue> NewCudaTimingQueue(cudaStream_t stream) {
  return std::make_unique<CudaTimingQueue>(stream);
}

absl::StatusOr<std::vector<double>> TimeWithEvents(const LaunchFn& launch,
                                                   const TimingOptions& options,
                                                   const L2Flusher* flusher, cudaStream_t stream,
                                                   const std::function<void()>& after_warmup,
                                                   const std::function<void()>& after_samples,
                                                   TimingStats* stats) {
  if (options.cache == CacheState::kCold && flusher == nullptr) {
    return absl::InvalidArgumentError("cold timing needs an L2Flusher");
  }
  CudaTimingQueue queue(stream);
  std::function<absl::Status()> flush;
  if (flusher != nullptr) flush = [flusher, stream] { return flusher->Flush(stream); };
  return TimeOnQueue(queue, launch, options, flush, after_warmup, after_samples, stats);
}

}  // namespace dissect
