// See compressible_memory.h.
#include "experiments/sparsity/structured/compressible_memory.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"

namespace dissect::sparsity {
namespace {

// The driver ABI version the entry points are asked for.
constexpr unsigned int kDriverApiVersion = 12000;

template <typename Fn>
absl::Status LoadEntry(const char* symbol, Fn* out) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaGetDriverEntryPointByVersion(symbol, &fn, kDriverApiVersion, cudaEnableDefault, &found));
  if (fn == nullptr || found != cudaDriverEntryPointSuccess) {
    return absl::UnavailableError(absl::StrCat("the CUDA driver has no ", symbol));
  }
  *out = reinterpret_cast<Fn>(fn);
  return absl::OkStatus();
}

absl::StatusOr<DriverApi> LoadAll() {
  DriverApi api;
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuDeviceGet", &api.cuDeviceGet));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuDeviceGetAttribute", &api.cuDeviceGetAttribute));
  DISSECT_RETURN_IF_ERROR(
      LoadEntry("cuMemGetAllocationGranularity", &api.cuMemGetAllocationGranularity));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemCreate", &api.cuMemCreate));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemAddressReserve", &api.cuMemAddressReserve));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemMap", &api.cuMemMap));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemSetAccess", &api.cuMemSetAccess));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemUnmap", &api.cuMemUnmap));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemAddressFree", &api.cuMemAddressFree));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemRelease", &api.cuMemRelease));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuMemGetAllocationPropertiesFromHandle",
                                    &api.cuMemGetAllocationPropertiesFromHandle));
  DISSECT_RETURN_IF_ERROR(LoadEntry("cuGetErrorName", &api.cuGetErrorName));
  return api;
}

}  // namespace

size_t RoundUpToGranularity(size_t bytes, size_t granularity) {
  return (bytes + granularity - 1) / granularity * granularity;
}

size_t ZeroWordCount(size_t words, int zero_pct) {
  return static_cast<size_t>(std::llround(static_cast<double>(words) * zero_pct / 100.0));
}

std::vector<uint32_t> ZeroFractionWords(size_t words, int zero_pct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> out(words);
  size_t zeros_left = ZeroWordCount(words, zero_pct);
  for (size_t w = 0; w < words; ++w) {
    // Selection sampling: zero with probability zeros_left / words_left.
    const size_t words_left = words - w;
    if (zeros_left > 0 && rng() % words_left < zeros_left) {
      out[w] = 0;
      --zeros_left;
      continue;
    }
    uint32_t v = 0;
    while (v == 0) v = static_cast<uint32_t>(rng() >> 32);
    out[w] = v;
  }
  return out;
}

absl::StatusOr<const DriverApi*> LoadDriverApi() {
  static const absl::StatusOr<DriverApi>* const kApi = new absl::StatusOr<DriverApi>(LoadAll());
  if (!kApi->ok()) return kApi->status();
  return &kApi->value();
}

absl::Status DriverStatus(const DriverApi& api, CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  if (api.cuGetErrorName == nullptr || api.cuGetErrorName(result, &name) != CUDA_SUCCESS ||
      name == nullptr) {
    name = "unknown CUresult";
  }
  return absl::InternalError(
      absl::StrCat(call, " failed: ", name, " (", static_cast<int>(result), ")"));
}

absl::StatusOr<bool> GenericCompressionSupported(const DriverApi& api, int device) {
  CUdevice dev = 0;
  DISSECT_RETURN_IF_ERROR(DriverStatus(api, api.cuDeviceGet(&dev, device), "cuDeviceGet"));
  int supported = 0;
  DISSECT_RETURN_IF_ERROR(DriverStatus(
      api,
      api.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev),
      "cuDeviceGetAttribute(GENERIC_COMPRESSION_SUPPORTED)"));
  return supported != 0;
}

MappedAllocation::MappedAllocation(MappedAllocation&& other) noexcept { *this = std::move(other); }

MappedAllocation& MappedAllocation::operator=(MappedAllocation&& other) noexcept {
  if (this != &other) {
    Reset();
    api_ = std::exchange(other.api_, nullptr);
    handle_ = std::exchange(other.handle_, 0);
    address_ = std::exchange(other.address_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
    handle_valid_ = std::exchange(other.handle_valid_, false);
    reserved_ = std::exchange(other.reserved_, false);
    mapped_ = std::exchange(other.mapped_, false);
    compression_granted_ = std::exchange(other.compression_granted_, false);
  }
  return *this;
}

MappedAllocation::~MappedAllocation() { Reset(); }

void MappedAllocation::Reset() {
  if (api_ != nullptr) {
    if (mapped_) api_->cuMemUnmap(address_, bytes_);
    if (reserved_) api_->cuMemAddressFree(address_, bytes_);
    if (handle_valid_) api_->cuMemRelease(handle_);
  }
  mapped_ = reserved_ = handle_valid_ = false;
  address_ = 0;
  handle_ = 0;
  bytes_ = 0;
}

absl::StatusOr<MappedAllocation> MappedAllocation::Create(const DriverApi& api, int device,
                                                          size_t bytes, bool compressible) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.allocFlags.compressionType = compressible ? CU_MEM_ALLOCATION_COMP_GENERIC : 0;
  size_t granularity = 0;
  DISSECT_RETURN_IF_ERROR(DriverStatus(
      api,
      api.cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
      "cuMemGetAllocationGranularity"));
  if (granularity == 0) return absl::InternalError("the driver reported granularity 0");

  MappedAllocation out;
  out.api_ = &api;
  out.bytes_ = RoundUpToGranularity(bytes, granularity);
  DISSECT_RETURN_IF_ERROR(
      DriverStatus(api, api.cuMemCreate(&out.handle_, out.bytes_, &prop, 0), "cuMemCreate"));
  out.handle_valid_ = true;
  DISSECT_RETURN_IF_ERROR(
      DriverStatus(api, api.cuMemAddressReserve(&out.address_, out.bytes_, granularity, 0, 0),
                   "cuMemAddressReserve"));
  out.reserved_ = true;
  DISSECT_RETURN_IF_ERROR(
      DriverStatus(api, api.cuMemMap(out.address_, out.bytes_, 0, out.handle_, 0), "cuMemMap"));
  out.mapped_ = true;
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  DISSECT_RETURN_IF_ERROR(DriverStatus(
      api, api.cuMemSetAccess(out.address_, out.bytes_, &access, 1), "cuMemSetAccess"));
  CUmemAllocationProp granted = {};
  DISSECT_RETURN_IF_ERROR(
      DriverStatus(api, api.cuMemGetAllocationPropertiesFromHandle(&granted, out.handle_),
                   "cuMemGetAllocationPropertiesFromHandle"));
  out.compression_granted_ = granted.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC;
  return out;
}

}  // namespace dissect::sparsity
