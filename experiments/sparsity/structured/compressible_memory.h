// Compressible device memory through the CUDA driver's virtual memory API
// (cuMemCreate with CU_MEM_ALLOCATION_COMP_GENERIC), reached through the
// entry points the runtime hands out (cudaGetDriverEntryPointByVersion): the
// build links cudart statically and never links libcuda. Plus the host-side
// fill of an activation buffer with a chosen fraction of zero words.
#ifndef DISSECT_EXPERIMENTS_SPARSITY_STRUCTURED_COMPRESSIBLE_MEMORY_H_
#define DISSECT_EXPERIMENTS_SPARSITY_STRUCTURED_COMPRESSIBLE_MEMORY_H_

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dissect::sparsity {

// `bytes` rounded up to a multiple of `granularity` (> 0); 0 stays 0.
size_t RoundUpToGranularity(size_t bytes, size_t granularity);

// Zero words of `words` for a zero percentage in [0, 100]: round(words ×
// zero_pct / 100).
size_t ZeroWordCount(size_t words, int zero_pct);

// `words` 32-bit words, exactly ZeroWordCount(words, zero_pct) of them zero,
// their positions drawn uniformly at random without replacement (selection
// sampling, one pass); every other word is a random non-zero value (random
// bits: incompressible apart from the zeros). Deterministic for a seed.
std::vector<uint32_t> ZeroFractionWords(size_t words, int zero_pct, uint64_t seed);

// The driver entry points the compressible allocation needs.
struct DriverApi {
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuMemGetAllocationGranularity)(size_t*, const CUmemAllocationProp*,
                                            CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*cuMemCreate)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                          unsigned long long) = nullptr;
  CUresult (*cuMemAddressReserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr,
                                  unsigned long long) = nullptr;
  CUresult (*cuMemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                       unsigned long long) = nullptr;
  CUresult (*cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  CUresult (*cuMemUnmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemAddressFree)(CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemRelease)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*cuMemGetAllocationPropertiesFromHandle)(CUmemAllocationProp*,
                                                     CUmemGenericAllocationHandle) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
};

// The entry points of the installed driver (loaded once); an error names the
// first one missing.
absl::StatusOr<const DriverApi*> LoadDriverApi();

// "<call> failed: <CUDA_ERROR_NAME> (<code>)", OkStatus for CUDA_SUCCESS.
absl::Status DriverStatus(const DriverApi& api, CUresult result, const char* call);

// Whether `device` reports CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED.
absl::StatusOr<bool> GenericCompressionSupported(const DriverApi& api, int device);

// One physical allocation (cuMemCreate) mapped read-write for `device` at a
// reserved address range; unmapped, freed and released on destruction.
class MappedAllocation {
 public:
  MappedAllocation() = default;
  MappedAllocation(const MappedAllocation&) = delete;
  MappedAllocation& operator=(const MappedAllocation&) = delete;
  MappedAllocation(MappedAllocation&& other) noexcept;
  MappedAllocation& operator=(MappedAllocation&& other) noexcept;
  ~MappedAllocation();

  // At least `bytes` bytes (rounded up to the recommended granularity),
  // pinned device memory; `compressible` asks for
  // CU_MEM_ALLOCATION_COMP_GENERIC. The driver may refuse (an error status)
  // or grant memory without compression (compression_granted() false).
  static absl::StatusOr<MappedAllocation> Create(const DriverApi& api, int device, size_t bytes,
                                                 bool compressible);

  void* get() const { return reinterpret_cast<void*>(address_); }
  size_t bytes() const { return bytes_; }
  // What cuMemGetAllocationPropertiesFromHandle reported after creation.
  bool compression_granted() const { return compression_granted_; }

 private:
  void Reset();

  const DriverApi* api_ = nullptr;
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr address_ = 0;
  size_t bytes_ = 0;
  bool handle_valid_ = false;
  bool reserved_ = false;
  bool mapped_ = false;
  bool compression_granted_ = false;
};

}  // namespace dissect::sparsity

#endif  // DISSECT_EXPERIMENTS_SPARSITY_STRUCTURED_COMPRESSIBLE_MEMORY_H_
