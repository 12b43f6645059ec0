// TimeOnQueue on a simulated device queue (no GPU): a launcher that sleeps
// 2 ms on the host, then queues a 10 us kernel, must be timed as 10 us.
//
// The simulated device runs what is queued in order: each item starts at
// the later of when it was queued (host steady clock) and when the item
// before it ended; an event's timestamp is when the device reaches it. So
// an event recorded on an idle device fires at once, as on a GPU, and the
// old record-launch-record ordering times the host's sleep (the Unguarded
// test shows it; with the guard forced off the other timing tests fail).
#include "probes/event_timer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

constexpr int64_t kKernelNs = 10'000;
constexpr double kKernelMs = kKernelNs / 1e6;
constexpr auto kHostSleep = std::chrono::milliseconds(2);

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A device queue on the host's clock; see the top of this file.
class SimulatedQueue : public TimingQueue {
 public:
  cudaStream_t stream() const override { return nullptr; }
  absl::Status CreateEvents(int count) override {
    events_.assign(count, -1);
    return absl::OkStatus();
  }
  absl::Status Record(int event) override {
    events_.at(event) = Queue(0);
    return absl::OkStatus();
  }
  absl::StatusOr<bool> Reached(int event) override {
    if (events_.at(event) < 0) return absl::FailedPreconditionError("event never recorded");
    return NowNs() >= events_[event];
  }
  absl::StatusOr<double> ElapsedMs(int from, int to) override {
    if (events_.at(from) < 0 || events_.at(to) < 0) {
      return absl::FailedPreconditionError("event never recorded");
    }
    if (NowNs() < std::max(events_[from], events_[to])) {
      return absl::FailedPreconditionError("event not reached yet (no synchronize)");
    }
    return (events_[to] - events_[from]) / 1e6;
  }
  absl::Status Spin(int64_t ns) override {
    Queue(ns);
    ++spins_;
    return absl::OkStatus();
  }
  absl::Status Synchronize() override {
    const int64_t wait = free_ns_ - NowNs();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
    return absl::OkStatus();
  }

  // Queues a kernel of `ns` (what a fake launcher does).
  void Kernel(int64_t ns) { Queue(ns); }
  int spins() const { return spins_; }

 private:
  // Queues an item lasting `ns`; returns when it starts.
  int64_t Queue(int64_t ns) {
    const int64_t start = std::max(NowNs(), free_ns_);
    free_ns_ = start + ns;
    return start;
  }

  std::vector<int64_t> events_;
  int64_t free_ns_ = 0;
  int spins_ = 0;
};

// Sleeps on the host for `sleep` (for launches whose number is in
// `sleepy`, or every launch if it is empty), then queues a 10 us kernel.
struct SleepyLauncher {
  SimulatedQueue* queue;
  std::chrono::nanoseconds sleep = kHostSleep;
  std::vector<int> sleepy;
  int launches = 0;

  LaunchFn Fn() {
    return [this](cudaStream_t) {
      const int n = launches++;
      if (sleepy.empty() || std::count(sleepy.begin(), sleepy.end(), n) > 0) {
        std::this_thread::sleep_for(sleep);
      }
      queue->Kernel(kKernelNs);
      return cudaSuccess;
    };
  }
};

TimingOptions Options(int warmup, int samples) {
  TimingOptions options;
  options.warmup = warmup;
  options.samples = samples;
  return options;
}

// Times `launcher`'s launches on its queue; how the guard went in `stats`.
absl::StatusOr<std::vector<double>> Time(SleepyLauncher& launcher, const TimingOptions& options,
                                         TimingStats* stats,
                                         const std::function<absl::Status()>& flush = nullptr) {
  return TimeOnQueue(*launcher.queue, launcher.Fn(), options, flush, nullptr, nullptr, stats);
}

void ExpectAllNear(const std::vector<double>& ms, double want) {
  for (size_t i = 0; i < ms.size(); ++i) {
    EXPECT_NEAR(ms[i], want, 1e-9) << "sample " << i;
  }
}

TEST(EventTimerTest, UnguardedRecordLaunchRecordTimesTheHost) {
  // guard_ns = 0 is the old ordering: the simulated queue shows the defect.
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue};
  TimingOptions options = Options(1, 3);
  options.guard_ns = 0;
  absl::StatusOr<std::vector<double>> ms = Time(launcher, options, nullptr);
  ASSERT_TRUE(ms.ok()) << ms.status();
  for (double sample : *ms) EXPECT_GE(sample, 2.0);
  EXPECT_EQ(queue.spins(), 0);
}

TEST(EventTimerTest, GuardKeepsHostSleepOutOfTheSamples) {
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue};
  TimingStats stats;
  absl::StatusOr<std::vector<double>> ms = Time(launcher, Options(3, 10), &stats);
  ASSERT_TRUE(ms.ok()) << ms.status();
  ASSERT_EQ(ms->size(), 10u);
  ExpectAllNear(*ms, kKernelMs);
  // The guard grew past the host's 2 ms.
  EXPECT_GE(stats.guard_ns, 2'000'000);
  EXPECT_EQ(launcher.launches, 3 + 10 + stats.retry_launches);
}

TEST(EventTimerTest, ExposedSamplesAreTimedAgain) {
  // No warm-up to size the guard: the first sample is exposed (the first
  // guard is 20 us, the host sleeps 2 ms) and must be timed again.
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue};
  TimingStats stats;
  absl::StatusOr<std::vector<double>> ms = Time(launcher, Options(0, 4), &stats);
  ASSERT_TRUE(ms.ok()) << ms.status();
  ExpectAllNear(*ms, kKernelMs);
  EXPECT_GE(stats.retried_samples, 1);
  EXPECT_EQ(launcher.launches, 4 + stats.retry_launches);
}

TEST(EventTimerTest, OneSlowLaunchAmongFastOnesIsTimedAgain) {
  // Launches take no host time but the 7th (sample 3) sleeps 5 ms: the
  // guard sized on the fast ones does not cover it.
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue, std::chrono::milliseconds(5), {6}};
  TimingStats stats;
  absl::StatusOr<std::vector<double>> ms = Time(launcher, Options(3, 6), &stats);
  ASSERT_TRUE(ms.ok()) << ms.status();
  ExpectAllNear(*ms, kKernelMs);
  EXPECT_GE(stats.retried_samples, 1);
}

TEST(EventTimerTest, LaunchesPerSampleReportsTimePerLaunch) {
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue, std::chrono::microseconds(500)};
  TimingOptions options = Options(2, 3);
  options.launches_per_sample = 4;
  TimingStats stats;
  absl::StatusOr<std::vector<double>> ms = Time(launcher, options, &stats);
  ASSERT_TRUE(ms.ok()) << ms.status();
  ExpectAllNear(*ms, kKernelMs);
  EXPECT_EQ(launcher.launches, 2 + 4 * (3 + stats.retry_launches));
}

TEST(EventTimerTest, ColdFlushesBeforeEverySampleAndTimesOneLaunch) {
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue};
  int flushes = 0;
  auto flush = [&] {
    ++flushes;
    queue.Kernel(100'000);  // a flush the device needs 100 us for
    return absl::OkStatus();
  };
  TimingOptions options = Options(2, 3);
  options.cache = CacheState::kCold;
  options.launches_per_sample = 4;  // ignored when cold
  TimingStats stats;
  absl::StatusOr<std::vector<double>> ms = Time(launcher, options, &stats, flush);
  ASSERT_TRUE(ms.ok()) << ms.status();
  ExpectAllNear(*ms, kKernelMs);
  EXPECT_EQ(launcher.launches, 2 + 3 + stats.retry_launches);
  EXPECT_EQ(flushes, launcher.launches);
}

TEST(EventTimerTest, HooksRunAfterWarmupAndAfterSamples) {
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue, std::chrono::nanoseconds(0)};
  std::vector<int> seen;
  absl::StatusOr<std::vector<double>> ms = TimeOnQueue(
      queue, launcher.Fn(), Options(2, 3), nullptr, [&] { seen.push_back(launcher.launches); },
      [&] { seen.push_back(launcher.launches); });
  ASSERT_TRUE(ms.ok()) << ms.status();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], 2);
  EXPECT_EQ(seen[1], launcher.launches);
}

TEST(EventTimerTest, BadOptionsAndLaunchErrors) {
  SimulatedQueue queue;
  SleepyLauncher launcher{&queue, std::chrono::nanoseconds(0)};
  TimingOptions options;
  options.launches_per_sample = 0;
  EXPECT_EQ(Time(launcher, options, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  options = TimingOptions{};
  options.cache = CacheState::kCold;
  EXPECT_EQ(Time(launcher, options, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  options = TimingOptions{};
  options.guard_ns = -1;
  EXPECT_EQ(Time(launcher, options, nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  options = TimingOptions{};
  const LaunchFn failing = [](cudaStream_t) { return cudaErrorInvalidValue; };
  EXPECT_FALSE(TimeOnQueue(queue, failing, options, nullptr).ok());
}

TEST(EventTimerTest, NextGuardCoversTwiceTheHostAndDoublesWhenExposed) {
  EXPECT_EQ(NextGuardNs(20'000, 20'000, 1'000, false), 20'000);  // never below the first
  EXPECT_EQ(NextGuardNs(20'000, 20'000, 3'000'000, false), 6'000'000);
  EXPECT_EQ(NextGuardNs(20'000, 5'000'000, 1'000, true), 10'000'000);
  EXPECT_EQ(NextGuardNs(20'000, 5'000'000, 8'000'000, true), 16'000'000);
  EXPECT_EQ(NextGuardNs(20'000, kMaxGuardNs, 1'000, true), kMaxGuardNs);
}

// A pass of `steps` steps, each a 2 ms host sleep (cuDNN's host work
// between two ops) then a 10 us kernel, marked after each step.
MarkedRunFn SleepySteps(SimulatedQueue& queue, int steps, int* runs) {
  return [&queue, steps, runs](const MarkFn& mark) -> absl::Status {
    ++*runs;
    for (int i = 0; i < steps; ++i) {
      std::this_thread::sleep_for(kHostSleep);
      queue.Kernel(kKernelNs);
      if (absl::Status s = mark(); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
}

TEST(EventTimerTest, MarkedPassTimesEachStepWithoutTheHostBetweenThem) {
  // The first 20 us guard does not cover the pass's 6 ms of host work: the
  // first pass is exposed (its first step would read about 2 ms) and is
  // queued again behind a longer guard, which the later passes keep.
  SimulatedQueue queue;
  MarkedPassTimer timer(queue);
  int runs = 0;
  for (int pass = 0; pass < 3; ++pass) {
    absl::StatusOr<std::vector<double>> ms = timer.Time(3, SleepySteps(queue, 3, &runs));
    ASSERT_TRUE(ms.ok()) << ms.status();
    ASSERT_EQ(ms->size(), 3u);
    ExpectAllNear(*ms, kKernelMs);
  }
  EXPECT_EQ(timer.stats().retried_samples, 1);
  EXPECT_EQ(runs, 3 + timer.stats().retry_launches);
  EXPECT_GE(timer.stats().guard_ns, 2 * 3 * 2'000'000);
  EXPECT_EQ(queue.spins(), runs);
}

TEST(EventTimerTest, MarkedPassMustMarkEveryStepOnce) {
  SimulatedQueue queue;
  MarkedPassTimer timer(queue, 10'000'000);
  int runs = 0;
  EXPECT_EQ(timer.Time(4, SleepySteps(queue, 3, &runs)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(timer.Time(2, SleepySteps(queue, 3, &runs)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(timer.Time(0, SleepySteps(queue, 0, &runs)).status().code(),
            absl::StatusCode::kInvalidArgument);
  const MarkedRunFn failing = [](const MarkFn&) { return absl::InternalError("cuDNN failed"); };
  EXPECT_EQ(timer.Time(1, failing).status().code(), absl::StatusCode::kInternal);
}

// A cold sample of an elementwise kernel (ReLU: read line i of the input,
// write line i of the output) on a line-level model of a write-back L2 of
// `l2_lines` lines in front of a DRAM of `dram_bps` bytes/s. The flush left
// L2 full of clean lines. Each read misses (the flush evicted the input)
// and costs one DRAM read; each write allocates a dirty line without a read
// (full-line stores); each allocation evicts the least recently used line,
// which costs a DRAM write only if dirty. Every line is touched once, so LRU
// is first in, first out. The sample lasts as long as DRAM needs for its
// transfers; output still dirty at the end drains after it.
struct ColdSample {
  double read_bytes = 0;
  double written_bytes = 0;
  double dram_bytes = 0;  // what reached DRAM inside the sample
  double seconds = 0;
};

ColdSample SimulateColdElementwise(int64_t lines, int64_t l2_lines, double line_bytes,
                                   double dram_bps) {
  std::deque<bool> dirty(l2_lines, false);  // front: least recently used
  int64_t transfers = 0;
  auto allocate = [&](bool is_dirty) {
    dirty.push_back(is_dirty);
    if (dirty.front()) ++transfers;  // write-back of the evicted line
    dirty.pop_front();
  };
  for (int64_t i = 0; i < lines; ++i) {
    ++transfers;  // the input line, read from DRAM
    allocate(false);
    allocate(true);  // the output line, dirty in L2
  }
  ColdSample s;
  s.read_bytes = s.written_bytes = lines * line_bytes;
  s.dram_bytes = transfers * line_bytes;
  s.seconds = s.dram_bytes / dram_bps;
  return s;
}

TEST(ColdDramBytesTest, CountsNoMoreThanReachedDramInASimulatedColdSample) {
  constexpr int64_t kL2Lines = 4096;
  constexpr double kLine = 128;
  constexpr double kDramBps = 3e12;
  const double l2_bytes = kL2Lines * kLine;
  // Tensors from a quarter of L2 (a cold 16 MiB ReLU on a 50 MiB L2) to 16
  // L2s; 5 L2s is a 256 MiB ReLU.
  for (const int64_t lines : {kL2Lines / 4, kL2Lines, 2 * kL2Lines, 5 * kL2Lines, 16 * kL2Lines}) {
    SCOPED_TRACE(lines);
    const ColdSample s = SimulateColdElementwise(lines, kL2Lines, kLine, kDramBps);
    // Everything read and written, the count before: more than reached DRAM,
    // so its % of the peak exceeds what DRAM did (up to 2x at 16 MiB).
    const double all_pct = 100 * (s.read_bytes + s.written_bytes) / s.seconds / kDramBps;
    EXPECT_GT(all_pct, 100.5);
    if (lines == kL2Lines / 4) {
      EXPECT_NEAR(all_pct, 200, 1e-9);
    }
    const DramBytes counted =
        CountedDramBytes(CacheState::kCold, s.read_bytes, s.written_bytes,
                         static_cast<int64_t>(l2_bytes));
    EXPECT_LE(counted.bytes, s.dram_bytes);
    EXPECT_LE(100 * counted.bytes / s.seconds / kDramBps, 100.0 + 1e-9);
    // Low by at most one L2: what can still be dirty there.
    EXPECT_GE(counted.bytes, s.dram_bytes - l2_bytes);
    EXPECT_NE(counted.note.find("cold"), std::string::npos) << counted.note;
  }
}

TEST(ColdDramBytesTest, HotCountsEveryByteAndSaysNothing) {
  const DramBytes hot = CountedDramBytes(CacheState::kHot, 256e6, 256e6, 50e6);
  EXPECT_EQ(hot.bytes, 512e6);
  EXPECT_EQ(hot.note, "");
  // Cold: the reads, and the writes beyond one L2; an unknown L2 (0) takes
  // every write.
  EXPECT_EQ(CountedDramBytes(CacheState::kCold, 256e6, 256e6, 50e6).bytes, 462e6);
  EXPECT_EQ(CountedDramBytes(CacheState::kCold, 16e6, 16e6, 50e6).bytes, 16e6);
  EXPECT_EQ(CountedDramBytes(CacheState::kCold, 16e6, 16e6, 0).bytes, 32e6);
}

TEST(ShortSampleTest, HotSpreadsAGibibyteOverLaunchesColdTimesOne) {
  constexpr double kMiB = 1 << 20;
  EXPECT_EQ(LaunchesPerSample(CacheState::kHot, 32 * kMiB), 32);  // a 16 MiB ReLU
  EXPECT_EQ(LaunchesPerSample(CacheState::kHot, 512 * kMiB), 2);
  EXPECT_EQ(LaunchesPerSample(CacheState::kHot, 2048 * kMiB), 1);
  EXPECT_EQ(LaunchesPerSample(CacheState::kHot, 1024), 64);  // at most 64
  EXPECT_EQ(LaunchesPerSample(CacheState::kCold, 32 * kMiB), 1);
  EXPECT_EQ(LaunchesPerSample(CacheState::kHot, 0), 64);
}

TEST(ShortSampleTest, ColdRowsWhoseSamplesAreShortSaySo) {
  // ms: a cold 16 MiB ReLU runs ~5 us, a 256 MiB one ~180 us.
  const std::vector<double> short_ms = {0.005, 0.0052, 0.006, 0.1};
  const std::string note = ShortColdSampleNote(CacheState::kCold, short_ms);
  EXPECT_NE(note.find("3 of 4"), std::string::npos) << note;
  EXPECT_NE(note.find("overhead"), std::string::npos) << note;
  EXPECT_EQ(note.find(';'), std::string::npos) << note;
  EXPECT_EQ(ShortColdSampleNote(CacheState::kCold, {0.18, 0.19, 0.005}), "");
  // Hot rows batch launches instead (LaunchesPerSample).
  EXPECT_EQ(ShortColdSampleNote(CacheState::kHot, short_ms), "");
}

TEST(L2FlusherTest, ResetsPersistingLinesOnlyWhenASetAsideExists) {
  // Ordinary flush traffic cannot evict persisting lines; without a
  // set-aside there are none to reset, and the reset's synchronize would
  // only slow every cold sample down.
  EXPECT_FALSE(FlushResetsPersistingLines(0));
  EXPECT_TRUE(FlushResetsPersistingLines(1));
  EXPECT_TRUE(FlushResetsPersistingLines(size_t{30} << 20));
}

}  // namespace
}  // namespace dissect
