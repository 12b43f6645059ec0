// NVML loaded at run time; see nvml_clock.h.
#include "probes/nvml_clock.h"

#include <dlfcn.h>

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dissect {
namespace {

// NVML's C ABI: return codes are ints, devices are opaque pointers.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

template <typename Fn>
Fn Symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

}  // namespace

struct NvmlClock::Api {
  void* lib = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*handle_by_pci)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned int) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned int*) = nullptr;  // optional
  bool initialized = false;

  ~Api() {
    if (initialized && shutdown != nullptr) shutdown();
    if (lib != nullptr) dlclose(lib);
  }

  absl::Status Check(NvmlReturn r, const char* call) const {
    if (r == kNvmlSuccess) return absl::OkStatus();
    const char* text = error_string != nullptr ? error_string(r) : "unknown";
    return absl::UnavailableError(
        absl::StrCat(__FILE__, ": ", call, " failed: ", text, " (", r, ")"));
  }
};

std::string DescribeThrottleReasons(uint64_t mask) {
  static const std::pair<uint64_t, const char*> kNames[] = {
      {kThrottleSwPowerCap, "sw_power_cap"},
      {kThrottleHwSlowdown, "hw_slowdown"},
      {kThrottleSwThermal, "sw_thermal"},
      {kThrottleHwThermal, "hw_thermal"},
      {kThrottleHwPowerBrake, "hw_power_brake"},
  };
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames) {
    if (mask & bit) names.push_back(name);
  }
  return absl::StrJoin(names, ",");
}

absl::StatusOr<std::unique_ptr<NvmlClock>> NvmlClock::Open(
    const std::string& pci_bus_id) {
  auto api = std::make_unique<Api>();
  api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (api->lib == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot load libnvidia-ml.so.1: ", dlerror()));
  }
  api->init = Symbol<decltype(api->init)>(api->lib, "nvmlInit_v2");
  api->shutdown = Symbol<decltype(api->shutdown)>(api->lib, "nvmlShutdown");
  api->error_string =
      Symbol<decltype(api->error_string)>(api->lib, "nvmlErrorString");
  api->handle_by_pci = Symbol<decltype(api->handle_by_pci)>(
      api->lib, "nvmlDeviceGetHandleByPciBusId_v2");
  api->clock_info =
      Symbol<decltype(api->clock_info)>(api->lib, "nvmlDeviceGetClockInfo");
  api->reasons = Symbol<decltype(api->reasons)>(
      api->lib, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api->reasons == nullptr) {
    api->reasons = Symbol<decltype(api->reasons)>(
        api->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  api->driver_version = Symbol<decltype(api->driver_version)>(
      api->lib, "nvmlSystemGetDriverVersion");
  api->power_usage =
      Symbol<decltype(api->power_usage)>(api->lib, "nvmlDeviceGetPowerUsage");
  if (api->init == nullptr || api->handle_by_pci == nullptr ||
      api->clock_info == nullptr || api->reasons == nullptr) {
    return absl::UnavailableError(
        "libnvidia-ml.so.1 lacks the clock functions dissect needs");
  }
  if (absl::Status s = api->Check(api->init(), "nvmlInit_v2"); !s.ok()) {
    return s;
  }
  api->initialized = true;
  NvmlDevice device = nullptr;
  if (absl::Status s = api->Check(api->handle_by_pci(pci_bus_id.c_str(), &device),
                                  "nvmlDeviceGetHandleByPciBusId_v2");
      !s.ok()) {
    return s;
  }
  auto clock = std::unique_ptr<NvmlClock>(new NvmlClock(std::move(api), device));
  if (clock->api_->driver_version != nullptr) {
    char buf[96] = {};
    if (clock->api_->driver_version(buf, sizeof(buf)) == kNvmlSuccess) {
      clock->driver_version_ = buf;
    }
  }
  return clock;
}

NvmlClock::NvmlClock(std::unique_ptr<Api> api, void* device)
    : api_(std::move(api)), device_(device) {}

NvmlClock::~NvmlClock() = default;

absl::StatusOr<ClockReading> NvmlClock::Read() const {
  unsigned int mhz = 0;
  if (absl::Status s = api_->Check(api_->clock_info(device_, kNvmlClockSm, &mhz),
                                   "nvmlDeviceGetClockInfo(SM)");
      !s.ok()) {
    return s;
  }
  unsigned long long mask = 0;
  if (absl::Status s = api_->Check(api_->reasons(device_, &mask),
                                   "nvmlDeviceGetCurrentClocksEventReasons");
      !s.ok()) {
    return s;
  }
  return ClockReading{static_cast<double>(mhz), static_cast<uint64_t>(mask)};
}

absl::StatusOr<double> NvmlClock::PowerWatts() const {
  if (api_->power_usage == nullptr) {
    return absl::UnavailableError("libnvidia-ml.so.1 lacks nvmlDeviceGetPowerUsage");
  }
  unsigned int milliwatts = 0;
  if (absl::Status s = api_->Check(api_->power_usage(device_, &milliwatts),
                                   "nvmlDeviceGetPowerUsage");
      !s.ok()) {
    return s;
  }
  return milliwatts * 1e-3;
}

absl::StatusOr<ClockSpan> SummarizeClock(const std::vector<ClockReading>& readings) {
  if (readings.empty()) return absl::FailedPreconditionError("no SM clock reading");
  std::vector<double> mhz;
  ClockSpan span;
  for (const ClockReading& r : readings) {
    mhz.push_back(r.sm_clock_mhz);
    span.reasons |= r.reasons;
  }
  std::sort(mhz.begin(), mhz.end());
  const size_t n = mhz.size();
  span.readings = static_cast<int>(n);
  span.min_mhz = mhz.front();
  span.max_mhz = mhz.back();
  span.median_mhz = n % 2 == 1 ? mhz[n / 2] : 0.5 * (mhz[n / 2 - 1] + mhz[n / 2]);
  return span;
}

ClockPoller::ClockPoller(const ClockSource* source, absl::Duration period)
    : source_(source), period_(period) {}

ClockPoller::~ClockPoller() {
  if (thread_.joinable()) Stop().IgnoreError();
}

void ClockPoller::Start() {
  if (thread_.joinable()) Stop().IgnoreError();
  {
    absl::MutexLock lock(&mu_);
    stop_ = false;
    readings_.clear();
    error_ = absl::OkStatus();
  }
  thread_ = std::thread([this] { Poll(); });
}

void ClockPoller::Poll() {
  while (true) {
    absl::StatusOr<ClockReading> r = source_->Read();
    absl::MutexLock lock(&mu_);
    if (r.ok()) {
      readings_.push_back(*r);
    } else if (error_.ok()) {
      error_ = r.status();
    }
    // Sleeps a period, or less when Stop() asks.
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), period_)) return;
  }
}

absl::StatusOr<ClockSpan> ClockPoller::Stop() {
  if (!thread_.joinable()) return absl::FailedPreconditionError("the clock poller is not running");
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
  absl::MutexLock lock(&mu_);
  if (readings_.empty() && !error_.ok()) return error_;
  return SummarizeClock(readings_);
}

class PowerPoller::AsClock : public ClockSource {
 public:
  explicit AsClock(const PowerSource* source) : source_(source) {}
  absl::StatusOr<ClockReading> Read() const override {
    absl::StatusOr<double> watts = source_->PowerWatts();
    if (!watts.ok()) return watts.status();
    return ClockReading{*watts, 0};
  }

 private:
  const PowerSource* source_;
};

PowerPoller::PowerPoller(const PowerSource* source, absl::Duration period)
    : as_clock_(std::make_unique<AsClock>(source)), poller_(as_clock_.get(), period) {}

PowerPoller::~PowerPoller() = default;

void PowerPoller::Start() { poller_.Start(); }

absl::StatusOr<PowerSpan> PowerPoller::Stop() {
  absl::StatusOr<ClockSpan> span = poller_.Stop();
  if (!span.ok()) return span.status();
  return PowerSpan{span->readings, span->min_mhz, span->median_mhz, span->max_mhz};
}

}  // namespace dissect
