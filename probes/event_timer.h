// CUDA-event timing of a launch, hot (back-to-back) or cold (L2 flushed
// before every sample), with warm-up, and with the host kept out of the
// samples.
//
// Host time. An event pair measures from when the device reaches the start
// event to when it reaches the end event. If the device is idle when the
// start event is recorded, it reaches it at once, and everything the host
// then does before the launch is queued (host work in the launch callback,
// the launch call itself) lands inside the sample: a microsecond kernel
// behind a slow launch would be timed as the launch. So every sample is
// queued behind a guard:
//   [flush, if cold]  spin(guard)  start  launch × N  end  → query(start)
// The spin kernel (kernels/spin.h) keeps the device busy while the host
// records the start event, runs the launch callback N times and records
// the end event. Right after the end record the start event is queried:
// if the device had not reached it yet, it reached it only after the whole
// sample was queued, so the sample holds device time only (proof, not hope:
// the launch and the end record were already queued when the device got to
// the start). If it had reached it, the sample is "exposed": host time may
// be inside. The guard then doubles (and grows to twice the host time of
// the last queued sample), and the exposed sample is timed again after the
// others, until it is not exposed; a sample still exposed behind a
// kMaxGuardNs spin is an error (host work of that length belongs outside
// the launch callback). The warm-up launches are queued the same way (an
// exposed warm-up only lengthens the guard), so the guard fits the launch
// before the first sample.
//
// Launches. Warm-up: `warmup` launches, then the samples in order
// (samples × launches_per_sample launches when hot), then one launch per
// retried sample (× launches_per_sample when hot). A launch callback that
// writes one record per launch can therefore map launch i < warmup +
// samples × launches_per_sample to its own slot and every later one to a
// scratch slot (PointContext::LaunchSlot).
#ifndef DISSECT_PROBES_EVENT_TIMER_H_
#define DISSECT_PROBES_EVENT_TIMER_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "probes/device_buffer.h"

namespace dissect {

enum class CacheState { kHot, kCold };

// "hot" / "cold" ↔ CacheState.
absl::StatusOr<CacheState> ParseCacheState(absl::string_view name);

// The first guard spin, and the longest one before a still-exposed sample
// is an error (see the top of this file).
inline constexpr int64_t kDefaultGuardNs = 20'000;
inline constexpr int64_t kMaxGuardNs = 200'000'000;

struct TimingOptions {
  int warmup = 3;    // untimed launches before the first sample
  int samples = 20;  // timed samples
  CacheState cache = CacheState::kHot;
  // Hot only: launches queued between one sample's two events; the sample
  // is their time divided by this, i.e. the time per launch. For kernels so
  // short that one launch is near the event resolution (about 0.5 us) or
  // near the gap between two kernels (LaunchesPerSample picks it for a
  // bandwidth kernel). Cold ignores it and times one launch per sample:
  // each cold launch needs its own L2 flush before it, and a flush cannot
  // sit inside the events, so a short cold sample keeps its fixed overhead
  // and its row says so instead (ShortColdSampleNote).
  int launches_per_sample = 1;
  // Length of the first guard spin; 0 queues no guard and checks nothing
  // (for timers that do not read the events, e.g. CUPTI kernel activity).
  int64_t guard_ns = kDefaultGuardNs;
};

// How the guard went (for tests and diagnostics).
struct TimingStats {
  int exposed_warmups = 0;  // warm-up launches the guard did not cover
  int retried_samples = 0;  // samples timed again because they were exposed
  int retry_launches = 0;   // guarded re-timings of them (a retry may be exposed again)
  int64_t guard_ns = 0;     // the guard at the end
};

// Evicts L2 before a cold sample: writes a scratch buffer twice L2's size
// (cudaMemsetAsync), which evicts the data of the previous launch, then
// reads a second, zeroed buffer twice L2's size (LaunchL2ReadFlush,
// kernels/flush.h). The read pass matters: the memset alone leaves L2 full
// of its own dirty lines, which the timed kernel would then pay to write
// back to DRAM (about L2's size of writes inside a cold sample). After the
// read pass L2 holds clean lines only, and the write-backs happened during
// the flush, outside the events.
// Persisting lines (an L2 access-policy window with hitProp persisting,
// sm_80+) are the exception: ordinary traffic, the flush's included, does
// not evict them from the set-aside. So when the device has a set-aside
// (FlushResetsPersistingLines), Flush first waits for the stream and resets
// them to normal (cudaCtxResetPersistingL2Cache). The wait is needed
// because the reset acts when it is called, not in stream order: samples
// still queued would mark their lines persisting again after it.
class L2Flusher {
 public:
  static absl::StatusOr<L2Flusher> Create(int64_t l2_bytes);
  absl::Status Flush(cudaStream_t stream) const;

 private:
  DeviceBuffer<uint8_t> scratch_;  // written
  DeviceBuffer<uint8_t> clean_;    // read; zeros
  DeviceBuffer<uint32_t> sink_;    // the read pass's fold (never written)
};

// Whether a flush must reset persisting L2 lines first, given the device's
// persisting set-aside (cudaLimitPersistingL2CacheSize): only when there is
// one; without it there are no persisting lines, and the wait the reset
// needs would only slow every cold sample down.
bool FlushResetsPersistingLines(size_t persisting_l2_limit_bytes);

// The bytes a row's % of the DRAM peak counts as moved by one launch that
// reads `read_bytes` and writes `written_bytes` (distinct bytes), and a
// label note saying which.
//   Hot (back to back): what one launch leaves dirty in L2, the next writes
//   back inside its own sample, so in the steady state every byte read and
//   written is DRAM traffic (where the working set is beyond 2 x L2:
//   experiments/framework/l2_residency.h). All bytes; no note.
//   Cold: the flush leaves L2 holding clean lines only, so the start event
//   sees nothing dirty. L2 is write-back: the timed kernel's stores land in
//   L2, and up to one L2 of its output can still be dirty there at the end
//   event, written back after it. Every byte read came from DRAM (the flush
//   evicted it). So DRAM moved at least
//     read + max(0, written - l2_bytes)
//   inside the sample, and at most read + written. Cold rows count this
//   lower bound: their % never claims more than DRAM moved, and is low by
//   at most one L2 of bytes, where read + written is high by whatever
//   output is still dirty (at a 256 MiB ReLU on a 50 MiB L2, the review's
//   estimate: 5-9 %). The note says so.
// Why not the alternatives: timing until the output is written back (a
// flush inside the events whose own cost is measured apart and subtracted)
// makes the figure a difference of two times, the flush's ~70 us on an H100
// the larger, and that cost itself depends on how many lines the kernel
// left dirty. CUPTI's dram__bytes_write exists only with --metrics, in
// replay passes of their own (the row's cupti/dram_bytes_write when asked).
struct DramBytes {
  double bytes = 0;
  std::string note;  // cold: which bytes are counted; hot: ""
};
DramBytes CountedDramBytes(CacheState cache, double read_bytes, double written_bytes,
                           int64_t l2_bytes);

// Launches per sample for a bandwidth kernel moving `bytes_per_launch`:
// hot, enough launches for about 2^30 bytes per sample (at most 64), so
// that the fixed overhead of a sample (launch latency, the events: about
// kSampleOverheadUs) is spread over them; cold, 1 (see
// TimingOptions::launches_per_sample).
int LaunchesPerSample(CacheState cache, double bytes_per_launch);

// The fixed overhead inside one sample (the start event to the kernel's
// first block, its last block to the end event): about 2 us on an H100 by
// the review's estimate, not measured here. A sample under kShortSampleUs
// carries over 5 % of it.
inline constexpr double kSampleOverheadUs = 2.0;
inline constexpr double kShortSampleUs = 40.0;

// The label note of a cold row most of whose samples (`ms`, one launch
// each) are under kShortSampleUs, "" otherwise and for hot rows (which
// spread the overhead over launches_per_sample launches instead).
std::string ShortColdSampleNote(CacheState cache, const std::vector<double>& ms);

// Issues one launch on `stream`; returns the launch's error (e.g.
// cudaGetLastError() after <<<>>>).
using LaunchFn = std::function<cudaError_t(cudaStream_t)>;

// What the timing loop needs from a device: a stream, events on it, and a
// kernel that keeps the device busy. CudaTimingQueue (event_timer.cc) is the
// CUDA one; tests use a simulated device queue.
class TimingQueue {
 public:
  virtual ~TimingQueue() = default;
  // The stream the launch callback is given.
  virtual cudaStream_t stream() const = 0;
  // Makes events 0..count-1 (releasing earlier ones).
  virtual absl::Status CreateEvents(int count) = 0;
  // Queues event `event` (cudaEventRecord).
  virtual absl::Status Record(int event) = 0;
  // Whether the device has passed `event` (cudaEventQuery).
  virtual absl::StatusOr<bool> Reached(int event) = 0;
  // Milliseconds from event `from` to event `to`, both passed.
  virtual absl::StatusOr<double> ElapsedMs(int from, int to) = 0;
  // Queues a kernel that keeps the device busy for about `ns`.
  virtual absl::Status Spin(int64_t ns) = 0;
  // Waits until the device has done everything queued.
  virtual absl::Status Synchronize() = 0;
};

// Times `options.samples` samples of `launch` on `queue` as described at the
// top of this file and returns their durations in milliseconds (per launch).
// Cold samples call `flush` first (outside the events; needed when cold).
// `after_warmup`, if set, runs once the warm-up launches have finished, and
// `after_samples` once the timed ones (retries included) have; the harness
// reads and polls the SM clock between them. `stats`, if set, receives how
// the guard went.
absl::StatusOr<std::vector<double>> TimeOnQueue(
    TimingQueue& queue, const LaunchFn& launch, const TimingOptions& options,
    const std::function<absl::Status()>& flush, const std::function<void()>& after_warmup = nullptr,
    const std::function<void()>& after_samples = nullptr, TimingStats* stats = nullptr);

// The guard after a sample whose queueing took `host_ns` on the host: twice
// that, at least `first_ns`, at least doubled after an exposed sample, at
// most kMaxGuardNs. TimeOnQueue and MarkedPassTimer follow it.
int64_t NextGuardNs(int64_t first_ns, int64_t guard_ns, int64_t host_ns, bool exposed);

// Records the pass's next event (MarkedPassTimer); an error past the last.
using MarkFn = std::function<absl::Status()>;
// Queues one pass on the queue's stream, calling `mark` after each step.
using MarkedRunFn = std::function<absl::Status(const MarkFn& mark)>;

// Times a pass of several steps (layer_breakdown: the ops of a forward
// pass) step by step, with the host kept out as TimeOnQueue keeps it out:
//   spin(guard)  start  step 1  mark 1 ... step n  mark n  → query(start)
// Step i is the time from event i-1 to event i. Everything, the host work
// between steps included, is queued while the guard spins; if the device
// had already reached the start event when the pass was queued, the pass is
// exposed (host time may sit between two marks) and is queued again behind
// the guard NextGuardNs gives, until it is not, or the error TimeOnQueue
// gives behind a kMaxGuardNs spin. The guard carries over to the next pass.
class MarkedPassTimer {
 public:
  explicit MarkedPassTimer(TimingQueue& queue, int64_t first_guard_ns = kDefaultGuardNs);

  // Times one pass of `steps` steps (each `run` must mark exactly `steps`
  // times) and returns the steps' durations in milliseconds.
  absl::StatusOr<std::vector<double>> Time(int steps, const MarkedRunFn& run);

  // Passes timed again because they were exposed, and their re-timings.
  const TimingStats& stats() const { return stats_; }

 private:
  // Queues `run` once behind the guard; returns whether it was exposed.
  absl::StatusOr<bool> QueueOnce(int steps, const MarkedRunFn& run);

  TimingQueue& queue_;
  int64_t first_guard_ns_;
  int events_ = 0;  // events made on the queue
  TimingStats stats_;
};

// The CUDA TimingQueue on `stream` (the one TimeWithEvents uses).
std::unique_ptr<TimingQueue> NewCudaTimingQueue(cudaStream_t stream);

// TimeOnQueue on CUDA stream `stream`; in cold mode each sample is preceded
// (outside the events) by `flusher->Flush`.
absl::StatusOr<std::vector<double>> TimeWithEvents(
    const LaunchFn& launch, const TimingOptions& options, const L2Flusher* flusher,
    cudaStream_t stream, const std::function<void()>& after_warmup = nullptr,
    const std::function<void()>& after_samples = nullptr, TimingStats* stats = nullptr);

}  // namespace dissect

#endif  // DISSECT_PROBES_EVENT_TIMER_H_
