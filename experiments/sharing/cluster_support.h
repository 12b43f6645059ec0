// Thread-block clusters on this device: whether a cluster size
// can run, how many such clusters fit at once, and how to keep the blocks
// of a cluster on different SMs. Experiments that launch clusters call
// CheckClusterLaunch before timing; a refusal comes back as Skipped(reason)
// so that the row records why and the sweep goes on.
#ifndef DISSECT_EXPERIMENTS_SHARING_CLUSTER_SUPPORT_H_
#define DISSECT_EXPERIMENTS_SHARING_CLUSTER_SUPPORT_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "probes/device_info.h"

namespace dissect {

// Largest cluster size the CUDA programming model calls portable.
inline constexpr int kPortableClusterSize = 8;
// The cluster sizes the probe sweeps (16 needs the non-portable opt-in).
inline constexpr int kClusterSizes[] = {1, 2, 4, 8, 16};

// Skipped("thread-block clusters need compute capability 9.0 or newer; ...")
// on a device without clusters, else OK.
absl::Status ClustersSupported(const DeviceInfo& device);

struct ClusterFit {
  int cluster_size = 1;
  // cudaOccupancyMaxActiveClusters for this kernel, block and shared memory.
  int max_active_clusters = 0;
  // Whether the launch needed cudaFuncAttributeNonPortableClusterSizeAllowed.
  bool non_portable = false;
};

// Prepares `kernel` (a __global__ function's address) for launches in
// clusters of `cluster_size` blocks of `block_threads` threads with
// `dynamic_shared_bytes` of dynamic shared memory each (1-D clusters along
// x): sets cudaFuncAttributeMaxDynamicSharedMemorySize when the shared
// memory needs it and, above kPortableClusterSize, the non-portable opt-in;
// then asks cudaOccupancyMaxActiveClusters. Skipped(reason) when the device
// has no clusters, the size is not a power of two in 1..16, the opt-in is
// refused, or not one such cluster fits; an error for a CUDA failure that is
// not a refusal. Host work: call it before timing.
absl::StatusOr<ClusterFit> CheckClusterLaunch(const DeviceInfo& device, const void* kernel,
                                              int cluster_size, int block_threads,
                                              size_t dynamic_shared_bytes);

// What decides how many blocks of one kernel an SM's shared memory holds:
// the SM's shared memory (cudaDevAttrMaxSharedMemoryPerMultiprocessor), the
// most one block may ask for (...PerBlockOptin), what the driver reserves
// for each block (cudaDevAttrReservedSharedMemoryPerBlock) and the
// kernel's static shared memory (cudaFuncAttributes::sharedSizeBytes).
struct SmSharedMemory {
  int64_t per_sm = 0;
  int64_t per_block_optin = 0;
  int64_t reserved_per_block = 0;
  int64_t kernel_static = 0;
};

// The occupancy calculator's shared-memory limit: how many blocks with
// `dynamic_bytes` of dynamic shared memory each fit on one SM at once
// (0 if one block asks for more than the opt-in maximum).
int64_t BlocksPerSmByShared(const SmSharedMemory& sm, int64_t dynamic_bytes);

// The dynamic shared memory per block, at least `buffer_bytes`, that keeps
// every other block of the kernel off the SM: the opt-in maximum less the
// kernel's static shared memory, so that two blocks of a cluster never
// share an SM (a "peer" on the reader's own SM never uses the SM-to-SM
// network). A kernel whose shared memory is all static passes 0 and
// launches with the result as padding it never touches. FailedPrecondition
// if the buffer does not fit or if even the maximum lets two blocks share
// an SM (BlocksPerSmByShared is not 1).
absl::StatusOr<int64_t> OneBlockPerSmSharedBytes(const SmSharedMemory& sm, int64_t buffer_bytes);

// SmSharedMemory of device `device` for `kernel` (a __global__ function's
// address), from the CUDA runtime: needs a GPU.
absl::StatusOr<SmSharedMemory> QuerySmSharedMemory(int device, const void* kernel);

// Sets `kernel`'s cudaFuncAttributeMaxDynamicSharedMemorySize to
// `dynamic_shared_bytes` and asks the runtime
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor) how many blocks of
// `block_threads` threads with that much dynamic shared memory fit one SM:
// Skipped(reason) unless exactly 1, so that a point whose blocks could
// share an SM is refused rather than measured. Needs a GPU; host work, call
// it before timing (and after any other attribute CheckClusterLaunch sets).
absl::Status CheckOneBlockPerSm(const void* kernel, int block_threads, size_t dynamic_shared_bytes);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_CLUSTER_SUPPORT_H_
