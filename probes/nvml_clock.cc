// NVML loaded at run time; see nvml_clock.h.
#include "probes/nvml_clock.h"

#include <dlfcn.h>

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

}  // namespace dissect
