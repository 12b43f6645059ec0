// What the harness records about the GPU a result was measured on.
#ifndef DISSECT_PROBES_DEVICE_INFO_H_
#define DISSECT_PROBES_DEVICE_INFO_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int64_t l2_bytes = 0;
  int64_t shared_per_block_optin_bytes = 0;
  int64_t sm_clock_max_khz = 0;
  int64_t memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;  // e.g. 13000

  // Theoretical DRAM bandwidth in GB/s (1e9 B/s): double data rate ×
  // memory clock × bus width.
  double DramPeakGbps() const;

  // Key/value pairs for the result context (see analysis/SCHEMA.md).
  std::vector<std::pair<std::string, std::string>> ContextEntries() const;
};

// Number of visible CUDA devices; FailedPrecondition when there is none or no
// usable driver.
absl::StatusOr<int> VisibleDeviceCount();

absl::StatusOr<DeviceInfo> QueryDevice(int index);

// "13.0" from 13000.
std::string CudaVersionString(int version);

}  // namespace dissect

#endif  // DISSECT_PROBES_DEVICE_INFO_H_
