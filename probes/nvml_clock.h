// SM clock and throttle-reason readings through NVML.
//
// NVML ships with the driver, not with the toolkit, so it is loaded at run
// time (dlopen of libnvidia-ml.so.1). A binary therefore runs where NVML is
// missing; it then records why clocks are unavailable instead of failing.
#ifndef DISSECT_PROBES_NVML_CLOCK_H_
#define DISSECT_PROBES_NVML_CLOCK_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace dissect {

// Bits of NVML's clock-event (throttle) reason mask, as documented by NVML.
enum ThrottleReason : uint64_t {
  kThrottleGpuIdle = 0x1,
  kThrottleApplicationsClocks = 0x2,
  kThrottleSwPowerCap = 0x4,
  kThrottleHwSlowdown = 0x8,
  kThrottleSyncBoost = 0x10,
  kThrottleSwThermal = 0x20,
  kThrottleHwThermal = 0x40,
  kThrottleHwPowerBrake = 0x80,
  kThrottleDisplayClocks = 0x100,
};

// Reasons that mean the clock was pulled below what the workload asked for.
inline constexpr uint64_t kThrottleSlowdownMask =
    kThrottleSwPowerCap | kThrottleHwSlowdown | kThrottleSwThermal |
    kThrottleHwThermal | kThrottleHwPowerBrake;

// "sw_power_cap,hw_thermal" for the slowdown bits set in `mask`; "" if none.
std::string DescribeThrottleReasons(uint64_t mask);

struct ClockReading {
  double sm_clock_mhz = 0;
  uint64_t reasons = 0;  // raw NVML mask
  bool throttled() const { return (reasons & kThrottleSlowdownMask) != 0; }
};

class NvmlClock {
 public:
  // Opens NVML for the CUDA device with this PCI bus id (cudaDeviceGetPCIBusId).
  static absl::StatusOr<std::unique_ptr<NvmlClock>> Open(
      const std::string& pci_bus_id);
  ~NvmlClock();
  NvmlClock(const NvmlClock&) = delete;
  NvmlClock& operator=(const NvmlClock&) = delete;

  absl::StatusOr<ClockReading> Read() const;
  const std::string& driver_version() const { return driver_version_; }

 private:
  struct Api;
  NvmlClock(std::unique_ptr<Api> api, void* device);
  std::unique_ptr<Api> api_;
  void* device_;
  std::string driver_version_;
};

}  // namespace dissect

#endif  // DISSECT_PROBES_NVML_CLOCK_H_
