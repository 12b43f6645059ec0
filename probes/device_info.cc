// Device properties via the CUDA runtime.
#include "probes/device_info.h"

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

absl::StatusOr<int> Attribute(cudaDeviceAttr attr, int device,
                              const char* name) {
  int value = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&value, attr, device);
  if (e != cudaSuccess) {
    return CudaStatus(e, absl::StrCat("cudaDeviceGetAttribute(", name, ")").c_str(),
                      __FILE__, __LINE__);
  }
  return value;
}

}  // namespace

double DeviceInfo::DramPeakGbps() const {
  return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 *
         memory_bus_width_bits / 8.0 / 1e9;
}

std::string CudaVersionString(int version) {
  return absl::StrCat(version / 1000, ".", (version % 1000) / 10);
}

std::vector<std::pair<std::string, std::string>> DeviceInfo::ContextEntries()
    const {
  return {
      {"device_name", name},
      {"device_index", absl::StrCat(index)},
      {"device_pci_bus_id", pci_bus_id},
      {"device_compute_capability", absl::StrCat(cc_major, ".", cc_minor)},
      {"device_sm_count", absl::StrCat(sm_count)},
      {"device_max_threads_per_sm", absl::StrCat(max_threads_per_sm)},
      {"device_l2_bytes", absl::StrCat(l2_bytes)},
      {"device_shared_per_block_optin_bytes",
       absl::StrCat(shared_per_block_optin_bytes)},
      {"device_sm_clock_max_khz", absl::StrCat(sm_clock_max_khz)},
      {"device_memory_clock_khz", absl::StrCat(memory_clock_khz)},
      {"device_memory_bus_width_bits", absl::StrCat(memory_bus_width_bits)},
      {"device_dram_peak_gbps", absl::StrFormat("%.1f", DramPeakGbps())},
      {"driver_version", CudaVersionString(driver_version)},
      {"runtime_version", CudaVersionString(runtime_version)},
  };
}

absl::StatusOr<int> VisibleDeviceCount() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("no CUDA device visible (cudaGetDeviceCount: ",
                     cudaGetErrorName(e), ": ", cudaGetErrorString(e), ")"));
  }
  if (count == 0) {
    return absl::FailedPreconditionError(
        "no CUDA device visible (cudaGetDeviceCount returned 0)");
  }
  return count;
}

absl::StatusOr<DeviceInfo> QueryDevice(int index) {
  DeviceInfo info;
  info.index = index;
  cudaDeviceProp prop{};
  DISSECT_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, index));
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  info.l2_bytes = prop.l2CacheSize;
  info.shared_per_block_optin_bytes = prop.sharedMemPerBlockOptin;
  char bus_id[32] = {};
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), index));
  info.pci_bus_id = bus_id;
  DISSECT_ASSIGN_OR_RETURN(const int clock_khz,
                           Attribute(cudaDevAttrClockRate, index, "ClockRate"));
  DISSECT_ASSIGN_OR_RETURN(
      const int mem_khz,
      Attribute(cudaDevAttrMemoryClockRate, index, "MemoryClockRate"));
  DISSECT_ASSIGN_OR_RETURN(
      info.memory_bus_width_bits,
      Attribute(cudaDevAttrGlobalMemoryBusWidth, index, "GlobalMemoryBusWidth"));
  info.sm_clock_max_khz = clock_khz;
  info.memory_clock_khz = mem_khz;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDriverGetVersion(&info.driver_version));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

}  // namespace dissect
