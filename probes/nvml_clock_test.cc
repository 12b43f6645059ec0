// Tests for the NVML clock reader that need no GPU.
#include "probes/nvml_clock.h"

#include <dlfcn.h>

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

}  // namespace
}  // namespace dissect
