// The identity of the GPU a sweep runs on, from NVML: name, UUID, serial,
// driver, VBIOS and PCI bus id, for the run folder's manifest.json.
//
// NVML ships with the driver, so it is loaded at run time (dlopen of
// libnvidia-ml.so.1, as probes/nvml_clock.cc does): the runner works where
// NVML is missing and then says why the identity is unavailable.
#ifndef DISSECT_EXPERIMENTS_DRIVERS_SWEEP_DEVICE_IDENTITY_H_
#define DISSECT_EXPERIMENTS_DRIVERS_SWEEP_DEVICE_IDENTITY_H_

#include <optional>
#include <string>

#include "nlohmann/json.hpp"

namespace dissect::sweep {

struct DeviceIdentity {
  int index = 0;  // the CUDA ordinal the children are given (--device)
  // Each is absent when NVML could not give it.
  std::optional<std::string> name, uuid, serial, driver_version, vbios, pci_bus_id;
  // Why fields are missing ("cannot load libnvidia-ml.so.1: ..."); empty
  // when every field is present.
  std::string unavailable;
};

// Queries NVML for the device the children will see as CUDA ordinal
// `cuda_index`. The runner sets CUDA_DEVICE_ORDER=PCI_BUS_ID for its
// children, so the CUDA ordinal is NVML's index, except that an entry of
// CUDA_VISIBLE_DEVICES (an index or a GPU-/MIG- UUID) is honoured. Never
// fails: what cannot be read is absent and `unavailable` says why.
DeviceIdentity QueryDeviceIdentity(int cuda_index);

// The manifest's "device" object: absent fields left out, and
// "device_unavailable" when `unavailable` is set.
nlohmann::ordered_json DeviceIdentityToJson(const DeviceIdentity& device);

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_DRIVERS_SWEEP_DEVICE_IDENTITY_H_
