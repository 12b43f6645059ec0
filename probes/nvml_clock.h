// SM clock, throttle-reason and board-power readings through NVML, and
// pollers that sample them while a point's timed samples run.
//
// NVML ships with the driver, not with the toolkit, so it is loaded at run
// time (dlopen of libnvidia-ml.so.1). A binary therefore runs where NVML is
// missing; it then records why clocks are unavailable instead of failing.
#ifndef DISSECT_PROBES_NVML_CLOCK_H_
#define DISSECT_PROBES_NVML_CLOCK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

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

// A source of SM clock readings: NvmlClock, or a fake in tests.
class ClockSource {
 public:
  virtual ~ClockSource() = default;
  virtual absl::StatusOr<ClockReading> Read() const = 0;
};

// A source of board power readings in watts: NvmlClock, or a fake in tests.
class PowerSource {
 public:
  virtual ~PowerSource() = default;
  virtual absl::StatusOr<double> PowerWatts() const = 0;
};

class NvmlClock : public ClockSource, public PowerSource {
 public:
  // Opens NVML for the CUDA device with this PCI bus id (cudaDeviceGetPCIBusId).
  static absl::StatusOr<std::unique_ptr<NvmlClock>> Open(
      const std::string& pci_bus_id);
  ~NvmlClock() override;
  NvmlClock(const NvmlClock&) = delete;
  NvmlClock& operator=(const NvmlClock&) = delete;

  absl::StatusOr<ClockReading> Read() const override;
  // The board's power draw (nvmlDeviceGetPowerUsage, milliwatts → W). NVML
  // averages it over its own window (tens of ms on recent GPUs), so
  // readings lag the load. Unavailable where the driver lacks the call.
  absl::StatusOr<double> PowerWatts() const override;
  const std::string& driver_version() const { return driver_version_; }

 private:
  struct Api;
  NvmlClock(std::unique_ptr<Api> api, void* device);
  std::unique_ptr<Api> api_;
  void* device_;
  std::string driver_version_;
};

// The SM clock over the readings taken while a point's samples ran.
struct ClockSpan {
  int readings = 0;
  double min_mhz = 0;
  double median_mhz = 0;
  double max_mhz = 0;
  uint64_t reasons = 0;  // the readings' NVML masks, OR-ed
  bool throttled() const { return (reasons & kThrottleSlowdownMask) != 0; }
  // The clock moved during the samples: its range exceeds
  // kClockMovedFraction of its maximum (NVML steps are 15 MHz on H100, so
  // one step, 0.8 % of 1980 MHz, is not a move; two are).
  bool moved() const { return max_mhz - min_mhz > kClockMovedFraction * max_mhz; }
  static constexpr double kClockMovedFraction = 0.01;
};

// Min, median and max of `readings`; an error if there are none.
absl::StatusOr<ClockSpan> SummarizeClock(const std::vector<ClockReading>& readings);

// Reads a ClockSource on a thread of its own, at once and then every
// `period`, from Start() until Stop(): the SM clock while samples run,
// instead of only after they finished (when the GPU is already idle and a
// clock drop during the samples shows late, or not at all).
class ClockPoller {
 public:
  static constexpr absl::Duration kDefaultPeriod = absl::Milliseconds(2);

  explicit ClockPoller(const ClockSource* source, absl::Duration period = kDefaultPeriod);
  ~ClockPoller();  // stops a running poll
  ClockPoller(const ClockPoller&) = delete;
  ClockPoller& operator=(const ClockPoller&) = delete;

  // Starts polling (the first read happens on the thread at once). Readings
  // of an earlier Start/Stop are dropped.
  void Start();
  // Stops polling (at least one read has happened) and summarizes the
  // readings; the first read error if none succeeded.
  absl::StatusOr<ClockSpan> Stop();

 private:
  void Poll();

  const ClockSource* source_;
  absl::Duration period_;
  std::thread thread_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<ClockReading> readings_ ABSL_GUARDED_BY(mu_);
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

// Board power over the readings a PowerPoller took.
struct PowerSpan {
  int readings = 0;
  double min_w = 0;
  double median_w = 0;
  double max_w = 0;
};

// Reads a PowerSource on a thread of its own, at once and then every
// `period`, from Start() until Stop(): ClockPoller's loop, fed with watts.
class PowerPoller {
 public:
  static constexpr absl::Duration kDefaultPeriod = absl::Milliseconds(5);

  explicit PowerPoller(const PowerSource* source, absl::Duration period = kDefaultPeriod);
  ~PowerPoller();
  PowerPoller(const PowerPoller&) = delete;
  PowerPoller& operator=(const PowerPoller&) = delete;

  // As ClockPoller::Start and ClockPoller::Stop.
  void Start();
  absl::StatusOr<PowerSpan> Stop();

 private:
  class AsClock;  // a ClockSource whose sm_clock_mhz carries the watts
  std::unique_ptr<AsClock> as_clock_;
  ClockPoller poller_;
};

}  // namespace dissect

#endif  // DISSECT_PROBES_NVML_CLOCK_H_
