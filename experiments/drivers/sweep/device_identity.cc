// NVML loaded at run time; see device_identity.h.
#include "experiments/drivers/sweep/device_identity.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace dissect::sweep {
namespace {

// NVML's C ABI: return codes are ints, devices are opaque pointers.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
struct NvmlPciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];
};

template <typename Fn>
Fn Symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

// The library and its initialization, released in reverse order.
class Nvml {
 public:
  ~Nvml() {
    if (initialized_ && shutdown_ != nullptr) shutdown_();
    if (lib_ != nullptr) dlclose(lib_);
  }

  // Loads and initializes NVML; on failure returns why.
  std::string Open() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib_ == nullptr) return absl::StrCat("cannot load libnvidia-ml.so.1: ", dlerror());
    auto init = Symbol<NvmlReturn (*)()>(lib_, "nvmlInit_v2");
    shutdown_ = Symbol<NvmlReturn (*)()>(lib_, "nvmlShutdown");
    error_string_ = Symbol<const char* (*)(NvmlReturn)>(lib_, "nvmlErrorString");
    if (init == nullptr) return "libnvidia-ml.so.1 has no nvmlInit_v2";
    if (NvmlReturn r = init(); r != kNvmlSuccess) return Describe("nvmlInit_v2", r);
    initialized_ = true;
    return "";
  }

  void* lib() const { return lib_; }

  std::string Describe(const char* call, NvmlReturn r) const {
    const char* text = error_string_ != nullptr ? error_string_(r) : "unknown error";
    return absl::StrCat(call, " failed: ", text, " (", r, ")");
  }

 private:
  void* lib_ = nullptr;
  bool initialized_ = false;
  NvmlReturn (*shutdown_)() = nullptr;
  const char* (*error_string_)(NvmlReturn) = nullptr;
};

// Reads one string through `fn(args..., buffer, size)`; records why not.
template <typename Fn, typename... Args>
std::optional<std::string> ReadString(const Nvml& nvml, const char* call, Fn fn,
                                      std::vector<std::string>* problems, Args... args) {
  if (fn == nullptr) {
    problems->push_back(absl::StrCat(call, " missing from libnvidia-ml.so.1"));
    return std::nullopt;
  }
  char buffer[256] = {};
  if (NvmlReturn r = fn(args..., buffer, sizeof(buffer)); r != kNvmlSuccess) {
    problems->push_back(nvml.Describe(call, r));
    return std::nullopt;
  }
  std::string text(buffer);
  if (text.empty()) return std::nullopt;
  return text;
}

// The CUDA_VISIBLE_DEVICES entry that CUDA ordinal `index` maps to, or ""
// when the variable is unset.
std::string VisibleDeviceEntry(int index) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return "";
  std::vector<std::string> entries = absl::StrSplit(visible, ',', absl::SkipWhitespace());
  if (index < 0 || index >= static_cast<int>(entries.size())) return "<none>";
  return std::string(absl::StripAsciiWhitespace(entries[index]));
}

}  // namespace

DeviceIdentity QueryDeviceIdentity(int cuda_index) {
  DeviceIdentity identity;
  identity.index = cuda_index;
  Nvml nvml;
  if (std::string why = nvml.Open(); !why.empty()) {
    identity.unavailable = why;
    return identity;
  }
  std::vector<std::string> problems;
  // Driver first: it needs no device.
  identity.driver_version = ReadString(
      nvml, "nvmlSystemGetDriverVersion",
      Symbol<NvmlReturn (*)(char*, unsigned int)>(nvml.lib(), "nvmlSystemGetDriverVersion"),
      &problems);

  NvmlDevice device = nullptr;
  const std::string visible = VisibleDeviceEntry(cuda_index);
  unsigned int nvml_index = static_cast<unsigned int>(cuda_index);
  NvmlReturn r = kNvmlSuccess;
  const char* call = "nvmlDeviceGetHandleByIndex_v2";
  if (visible == "<none>") {
    problems.push_back(absl::StrCat("CUDA_VISIBLE_DEVICES has no device ", cuda_index));
  } else if (!visible.empty() && !absl::SimpleAtoi(visible, &nvml_index)) {
    // A GPU- or MIG- UUID.
    call = "nvmlDeviceGetHandleByUUID";
    auto by_uuid = Symbol<NvmlReturn (*)(const char*, NvmlDevice*)>(nvml.lib(), call);
    r = by_uuid != nullptr ? by_uuid(visible.c_str(), &device) : -1;
  } else {
    auto by_index = Symbol<NvmlReturn (*)(unsigned int, NvmlDevice*)>(nvml.lib(), call);
    r = by_index != nullptr ? by_index(nvml_index, &device) : -1;
  }
  if (visible != "<none>" && (r != kNvmlSuccess || device == nullptr)) {
    problems.push_back(r == -1 ? absl::StrCat(call, " missing from libnvidia-ml.so.1")
                               : nvml.Describe(call, r));
    device = nullptr;
  }
  if (device != nullptr) {
    using DeviceString = NvmlReturn (*)(NvmlDevice, char*, unsigned int);
    auto read = [&](const char* fn_name) {
      return ReadString(nvml, fn_name, Symbol<DeviceString>(nvml.lib(), fn_name), &problems,
                        device);
    };
    identity.name = read("nvmlDeviceGetName");
    identity.uuid = read("nvmlDeviceGetUUID");
    identity.serial = read("nvmlDeviceGetSerial");
    identity.vbios = read("nvmlDeviceGetVbiosVersion");
    auto pci =
        Symbol<NvmlReturn (*)(NvmlDevice, NvmlPciInfo*)>(nvml.lib(), "nvmlDeviceGetPciInfo_v3");
    NvmlPciInfo info = {};
    if (pci == nullptr) {
      problems.push_back("nvmlDeviceGetPciInfo_v3 missing from libnvidia-ml.so.1");
    } else if (NvmlReturn pr = pci(device, &info); pr != kNvmlSuccess) {
      problems.push_back(nvml.Describe("nvmlDeviceGetPciInfo_v3", pr));
    } else {
      info.bus_id[sizeof(info.bus_id) - 1] = '\0';
      if (info.bus_id[0] != '\0') identity.pci_bus_id = std::string(info.bus_id);
    }
  }
  identity.unavailable = absl::StrJoin(problems, "; ");
  return identity;
}

nlohmann::ordered_json DeviceIdentityToJson(const DeviceIdentity& device) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["index"] = device.index;
  const std::pair<const char*, const std::optional<std::string>*> fields[] = {
      {"name", &device.name},     {"uuid", &device.uuid},
      {"serial", &device.serial}, {"driver_version", &device.driver_version},
      {"vbios", &device.vbios},   {"pci_bus_id", &device.pci_bus_id},
  };
  for (const auto& [key, value] : fields) {
    if (value->has_value()) j[key] = **value;
  }
  if (!device.unavailable.empty()) j["device_unavailable"] = device.unavailable;
  return j;
}

}  // namespace dissect::sweep
