// Tests for the NVML clock reader and the clock poller that need no GPU
// (the poller reads a fake clock source).
#include "probes/nvml_clock.h"

#include <dlfcn.h>

#include <atomic>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(ThrottleReasonsTest, DescribesOnlySlowdownBits) {
  EXPECT_EQ(DescribeThrottleReasons(0), "");
  EXPECT_EQ(DescribeThrottleReasons(kThrottleGpuIdle | kThrottleApplicationsClocks), "");
  EXPECT_EQ(DescribeThrottleReasons(kThrottleSwPowerCap | kThrottleHwThermal),
            "sw_power_cap,hw_thermal");
}

TEST(ThrottleReasonsTest, ThrottledFlag) {
  EXPECT_FALSE((ClockReading{1980, kThrottleGpuIdle}.throttled()));
  EXPECT_TRUE((ClockReading{1500, kThrottleSwPowerCap}.throttled()));
}

TEST(NvmlClockTest, MissingLibraryIsUnavailableNotACrash) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
  void* probe = lib != nullptr ? lib : dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (probe != nullptr) {
    dlclose(probe);
    GTEST_SKIP() << "NVML is installed here; this test covers its absence";
  }
  auto clock = NvmlClock::Open("0000:00:00.0");
  ASSERT_FALSE(clock.ok());
  EXPECT_EQ(clock.status().code(), absl::StatusCode::kUnavailable);
}

TEST(ClockSpanTest, SummarizesAndFlagsAMove) {
  absl::StatusOr<ClockSpan> steady =
      SummarizeClock({{1980, 0}, {1980, kThrottleGpuIdle}, {1965, 0}});
  ASSERT_TRUE(steady.ok()) << steady.status();
  EXPECT_EQ(steady->readings, 3);
  EXPECT_EQ(steady->min_mhz, 1965);
  EXPECT_EQ(steady->median_mhz, 1980);
  EXPECT_EQ(steady->max_mhz, 1980);
  EXPECT_FALSE(steady->moved()) << "one 15 MHz step is not a move";
  EXPECT_FALSE(steady->throttled());

  absl::StatusOr<ClockSpan> dropped =
      SummarizeClock({{1980, 0}, {1755, kThrottleSwPowerCap}, {1830, 0}, {1980, 0}});
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_EQ(dropped->min_mhz, 1755);
  EXPECT_EQ(dropped->median_mhz, 1905);
  EXPECT_EQ(dropped->max_mhz, 1980);
  EXPECT_TRUE(dropped->moved());
  EXPECT_TRUE(dropped->throttled());

  EXPECT_FALSE(SummarizeClock({}).ok());
}

// Returns `script` one reading per Read, then its last one forever; counts
// the reads. An empty script fails every read.
class FakeClock : public ClockSource {
 public:
  explicit FakeClock(std::vector<double> script) : script_(std::move(script)) {}
  absl::StatusOr<ClockReading> Read() const override {
    const int n = reads_++;
    if (script_.empty()) return absl::UnavailableError("fake NVML error");
    const double mhz = script_[std::min<size_t>(n, script_.size() - 1)];
    return ClockReading{mhz, mhz < script_.front() ? kThrottleHwThermal : 0};
  }
  int reads() const { return reads_; }
  // Waits until the source has been read `n` times (false after 10 s).
  bool AwaitReads(int n) const {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (reads_ < n) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Microseconds(200));
    }
    return true;
  }

 private:
  std::vector<double> script_;
  mutable std::atomic<int> reads_{0};
};

TEST(ClockPollerTest, SeesADropWhileRunning) {
  // The clock drops on the 4th read and recovers on the 7th: a read after
  // the samples (the old way) would see 1980 MHz and no move.
  FakeClock clock({1980, 1980, 1980, 1500, 1500, 1500, 1980});
  ClockPoller poller(&clock, absl::Milliseconds(1));
  poller.Start();
  EXPECT_TRUE(clock.AwaitReads(8)) << "the poller stopped reading";
  absl::StatusOr<ClockSpan> span = poller.Stop();
  ASSERT_TRUE(span.ok()) << span.status();
  EXPECT_GE(span->readings, 8);
  EXPECT_EQ(span->readings, clock.reads());
  EXPECT_EQ(span->min_mhz, 1500);
  EXPECT_EQ(span->max_mhz, 1980);
  EXPECT_TRUE(span->moved());
  EXPECT_TRUE(span->throttled());
  // No read after Stop().
  const int reads = clock.reads();
  absl::SleepFor(absl::Milliseconds(5));
  EXPECT_EQ(clock.reads(), reads);
}

TEST(ClockPollerTest, AtLeastOneReadingEvenWhenStoppedAtOnce) {
  FakeClock clock({1980});
  ClockPoller poller(&clock, absl::Seconds(10));
  poller.Start();
  absl::StatusOr<ClockSpan> span = poller.Stop();  // does not wait 10 s
  ASSERT_TRUE(span.ok()) << span.status();
  EXPECT_EQ(span->readings, 1);
  EXPECT_FALSE(span->moved());
  // A second run starts afresh (and Stop does not wait out the period).
  poller.Start();
  EXPECT_TRUE(clock.AwaitReads(2));
  span = poller.Stop();
  ASSERT_TRUE(span.ok()) << span.status();
  EXPECT_EQ(span->readings, 1);
}

TEST(ClockPollerTest, ReadErrorsAreReturnedWhenNothingWasRead) {
  FakeClock clock({});
  ClockPoller poller(&clock, absl::Milliseconds(1));
  poller.Start();
  EXPECT_TRUE(clock.AwaitReads(2));
  absl::StatusOr<ClockSpan> span = poller.Stop();
  ASSERT_FALSE(span.ok());
  EXPECT_EQ(span.status().message(), "fake NVML error");
  EXPECT_FALSE(ClockPoller(&clock).Stop().ok()) << "Stop without Start";
}

// Watts in script order, then the last value again; errors for an empty
// script.
class FakePower : public PowerSource {
 public:
  explicit FakePower(std::vector<double> script) : script_(std::move(script)) {}
  absl::StatusOr<double> PowerWatts() const override {
    const int n = reads_++;
    if (script_.empty()) return absl::UnavailableError("fake power error");
    return script_[std::min<size_t>(n, script_.size() - 1)];
  }
  int reads() const { return reads_; }

 private:
  std::vector<double> script_;
  mutable std::atomic<int> reads_{0};
};

TEST(PowerPollerTest, SummarizesTheWattsReadWhileRunning) {
  FakePower power({300, 250, 700, 350, 350});
  PowerPoller poller(&power, absl::Milliseconds(1));
  poller.Start();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (power.reads() < 5 && absl::Now() < deadline) absl::SleepFor(absl::Microseconds(200));
  absl::StatusOr<PowerSpan> span = poller.Stop();
  ASSERT_TRUE(span.ok()) << span.status();
  EXPECT_EQ(span->readings, power.reads());
  EXPECT_EQ(span->min_w, 250);
  EXPECT_EQ(span->max_w, 700);
  EXPECT_EQ(span->median_w, 350);
}

TEST(PowerPollerTest, ReadErrorsAreReturnedWhenNothingWasRead) {
  FakePower power({});
  PowerPoller poller(&power, absl::Milliseconds(1));
  poller.Start();
  absl::StatusOr<PowerSpan> span = poller.Stop();
  ASSERT_FALSE(span.ok());
  EXPECT_EQ(span.status().message(), "fake power error");
}

}  // namespace
}  // namespace dissect
