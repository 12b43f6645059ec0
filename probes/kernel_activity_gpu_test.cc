// GPU test of KernelActivityRecorder: a kernel that spins for 60 ms
// (kernels/spin.cu) is timed by CUDA events (probes/event_timer.h) while the
// recorder records it; the CUPTI durations must agree with the event
// timings within 3 % launch by launch, and must not be shorter than the spin.
// CuptiKernelTimer (the runner's --kernel_activity pass) must agree with an
// event-timed pass hot and cold (flush kernels, if any, not counted), and
// time a launch of two kernels as their span.
// Needs a GPU: tagged "gpu", run with `./bazelw test --config=gpu
// //probes/...`.

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/spin.h"
#include "probes/device_buffer.h"
#include "probes/event_timer.h"
#include "probes/kernel_activity.h"
#include "probes/stats.h"

namespace dissect {
namespace {

constexpr uint64_t kSpinNs = 60'000'000;  // 60 ms
constexpr double kSpinMs = kSpinNs * 1e-6;
constexpr double kTolerancePercent = 3;
constexpr int kLaunches = 5;
constexpr int kBlocks = 2;
// The kernel's demangled name: dissect::(anonymous namespace)::SpinKernel(...)
constexpr char kKernelName[] = "SpinKernel";

class Stream {
 public:
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaError_t Create() { return cudaStreamCreate(&stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class KernelActivityGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess)
        << "this test needs a GPU";
    ASSERT_GT(devices, 0);
    absl::StatusOr<DeviceBuffer<uint64_t>> spins =
        DeviceBuffer<uint64_t>::Allocate(kSpinThreads * kBlocks);
    ASSERT_TRUE(spins.ok()) << spins.status();
    spins_ = *std::move(spins);
    ASSERT_EQ(stream_.Create(), cudaSuccess);
  }

  LaunchFn Spin(uint64_t ns) {
    return [this, ns](cudaStream_t s) {
      return LaunchSpin(ns, kBlocks, spins_.get(), s);
    };
  }

  DeviceBuffer<uint64_t> spins_;
  Stream stream_;
};

TEST_F(KernelActivityGpuTest, DurationsAgreeWithCudaEvents) {
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> recorder =
      KernelActivityRecorder::Start();
  ASSERT_TRUE(recorder.ok()) << recorder.status();

  // A short first launch (module load, first-launch costs), taken apart.
  ASSERT_EQ(Spin(1'000'000)(stream_.get()), cudaSuccess);
  absl::StatusOr<std::vector<KernelRecord>> warmup = (*recorder)->Take();
  ASSERT_TRUE(warmup.ok()) << warmup.status();
  ASSERT_EQ(MatchingKernels(*warmup, kKernelName).size(), 1u)
      << "kernels seen: " << warmup->size();

  TimingOptions options;
  options.warmup = 0;
  options.samples = kLaunches;
  options.guard_ns = 0;  // the guard is a spin kernel too: it would be counted
  absl::StatusOr<std::vector<double>> event_ms =
      TimeWithEvents(Spin(kSpinNs), options, nullptr, stream_.get());
  ASSERT_TRUE(event_ms.ok()) << event_ms.status();

  absl::StatusOr<std::vector<KernelRecord>> records = (*recorder)->Take();
  ASSERT_TRUE(records.ok()) << records.status();
  const std::vector<KernelRecord> spin = MatchingKernels(*records, kKernelName);
  ASSERT_EQ(spin.size(), static_cast<size_t>(kLaunches))
      << records->size() << " kernel record(s) in all";
  for (size_t i = 0; i < spin.size(); ++i) {
    std::cout << absl::StrFormat(
        "launch %d: CUPTI %.4f ms, events %.4f ms (%+.3f%%), %s\n", i,
        spin[i].duration_ms(), (*event_ms)[i],
        AgreementPercent(spin[i].duration_ms(), (*event_ms)[i]), spin[i].name);
    // Every thread spins kSpinNs by %globaltimer; allow its granularity.
    EXPECT_GE(spin[i].duration_ms(), kSpinMs - 0.01) << "launch " << i;
    EXPECT_LT(spin[i].duration_ms(), 1.5 * kSpinMs) << "launch " << i;
    EXPECT_EQ(spin[i].stream_id, spin[0].stream_id);
    if (i > 0) {
      EXPECT_GE(spin[i].start_ns, spin[i - 1].end_ns) << "launch " << i;
      EXPECT_GT(spin[i].correlation_id, spin[i - 1].correlation_id);
    }
  }
  absl::StatusOr<std::vector<double>> agreement =
      CheckAgreement(KernelDurationsMs(spin, ""), *event_ms, kTolerancePercent);
  EXPECT_TRUE(agreement.ok()) << agreement.status();

  absl::StatusOr<KernelDurationSummary> summary =
      SummarizeKernelDurations(*records, kKernelName);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->count, static_cast<size_t>(kLaunches));
  EXPECT_GE(summary->median_ms, kSpinMs - 0.01);
}

TEST_F(KernelActivityGpuTest, TakeReturnsOnlyNewKernelsAndOneRecorderAtATime) {
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> recorder =
      KernelActivityRecorder::Start();
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> second =
      KernelActivityRecorder::Start();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);

  ASSERT_EQ(Spin(100'000)(stream_.get()), cudaSuccess);
  absl::StatusOr<std::vector<KernelRecord>> first = (*recorder)->Take();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(MatchingKernels(*first, kKernelName).size(), 1u);

  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Spin(100'000)(stream_.get()), cudaSuccess);
  }
  absl::StatusOr<std::vector<KernelRecord>> next = (*recorder)->Take();
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(MatchingKernels(*next, kKernelName).size(), 3u);

  absl::StatusOr<std::vector<KernelRecord>> empty = (*recorder)->Take();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->empty());

  // Kernels run after the recorder is gone are not recorded by the next one.
  recorder->reset();
  ASSERT_EQ(Spin(100'000)(stream_.get()), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> again =
      KernelActivityRecorder::Start();
  ASSERT_TRUE(again.ok()) << again.status();
  absl::StatusOr<std::vector<KernelRecord>> after = (*again)->Take();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(after->empty());
}

double Median(const std::vector<double>& ms) {
  absl::StatusOr<Summary> s = Summarize(ms);
  return s.ok() ? s->median : -1;
}

TEST_F(KernelActivityGpuTest, CuptiKernelTimerAgreesWithEventsHotAndCold) {
  constexpr uint64_t kNs = 20'000'000;  // 20 ms
  absl::StatusOr<L2Flusher> flusher = L2Flusher::Create(64 << 20);
  ASSERT_TRUE(flusher.ok()) << flusher.status();
  for (CacheState cache : {CacheState::kHot, CacheState::kCold}) {
    TimingOptions options;
    options.warmup = 2;
    options.samples = 4;
    options.cache = cache;
    CuptiKernelTimer timer;
    absl::StatusOr<std::vector<double>> activity_ms =
        timer.Time(Spin(kNs), options, &*flusher, stream_.get());
    ASSERT_TRUE(activity_ms.ok()) << activity_ms.status();
    ASSERT_EQ(activity_ms->size(), 4u) << "one duration per sample";
    for (double ms : *activity_ms) EXPECT_GE(ms, kNs * 1e-6 - 0.01);
    absl::StatusOr<std::vector<double>> event_ms =
        TimeWithEvents(Spin(kNs), options, &*flusher, stream_.get());
    ASSERT_TRUE(event_ms.ok()) << event_ms.status();
    const double pct =
        AgreementPercent(Median(*activity_ms), Median(*event_ms));
    std::cout << absl::StrFormat(
        "%s: CUPTI %.4f ms, events %.4f ms (%+.3f%%)\n",
        cache == CacheState::kHot ? "hot" : "cold", Median(*activity_ms),
        Median(*event_ms), pct);
    EXPECT_LE(std::abs(pct), kTolerancePercent);
  }
}

TEST_F(KernelActivityGpuTest, CuptiKernelTimerSpansALaunchOfTwoKernels) {
  constexpr uint64_t kNs = 5'000'000;  // 5 ms each
  const LaunchFn spin = Spin(kNs);
  const LaunchFn twice = [&spin](cudaStream_t s) {
    const cudaError_t first = spin(s);
    return first != cudaSuccess ? first : spin(s);
  };
  TimingOptions options;
  options.warmup = 1;
  options.samples = 3;
  CuptiKernelTimer timer;
  absl::StatusOr<std::vector<double>> ms =
      timer.Time(twice, options, nullptr, stream_.get());
  ASSERT_TRUE(ms.ok()) << ms.status();
  ASSERT_EQ(ms->size(), 3u);
  for (double v : *ms) {
    EXPECT_GE(v, 2 * kNs * 1e-6 - 0.02);
    EXPECT_LT(v, 3 * kNs * 1e-6);
  }
}

}  // namespace
}  // namespace dissect
