// Host interface of the topology probe (kernels/topology/topology.cu): a
// kernel launched in 1-D thread-block clusters whose blocks record where
// they ran, for inferring which SMs share a GPC.
#ifndef DISSECT_KERNELS_TOPOLOGY_TOPOLOGY_H_
#define DISSECT_KERNELS_TOPOLOGY_TOPOLOGY_H_

#include <cuda_runtime_api.h>

#include <cstddef>

namespace dissect {

// What thread 0 of block b writes to records[b].
struct TopologyBlockRecord {
  int smid = -1;          // %smid
  int cluster = -1;       // %clusterid.x (1-D clusters: the linear cluster id)
  int cluster_rank = -1;  // %cluster_ctarank
};

struct TopologyArgs {
  int cluster_size = 1;  // blocks per cluster (1-D along x)
  int clusters = 1;      // clusters in the grid
  int block_threads = 32;
  // Dynamic shared memory per block (the kernel touches none of it): enough
  // that only one block fits per SM. The caller raises the kernel's
  // cudaFuncAttributeMaxDynamicSharedMemorySize (CheckClusterLaunch does).
  size_t dynamic_shared_bytes = 0;
  // After recording, thread 0 spins this many SM cycles (%clock64) before
  // the block exits, so that the launch's blocks are resident together.
  long long spin_cycles = 0;
  TopologyBlockRecord* records = nullptr;  // cluster_size × clusters entries
};

// Launches clusters × cluster_size blocks in clusters of cluster_size with
// cudaLaunchKernelEx (cudaLaunchAttributeClusterDimension).
// cudaErrorInvalidValue for a null records pointer or a size below 1.
cudaError_t LaunchTopologyProbe(const TopologyArgs& args, cudaStream_t stream);

// The probe kernel's address, for CheckClusterLaunch and
// cudaFuncSetAttribute.
const void* TopologyProbeKernel();

// The blocker: a kernel that holds chosen SMs while a probe launch runs, so
// that the probe's clusters must land on the others (a scheduler may place
// identical launches identically;
// experiments/sharing/topology/gpc_schedule.h). One block per SM: each
// block asks for the per-block opt-in maximum of shared memory,
// so no second blocker block and no probe block fits beside it. Every block
// reads its %smid, counts itself in `counters`, and waits until all `blocks`
// have done so (an SM freed early could otherwise take a second blocker
// block and leave another SM without one); then blocks on SMs outside the
// mask exit and the others spin until the host sets `release`. Every wait
// gives up after max_cycles (%clock64), so a lost host cannot hang the GPU.
//
// The counters live in device memory and take device-scope atomics: a
// system-scope atomic on pinned host memory is atomic only where the device
// reports cudaDevAttrHostNativeAtomicSupported (elsewhere compute-sanitizer's
// memcheck reports it as an invalid access and the kernel fails, as on an
// H100 80GB HBM3). The host sees
// only plain stores and loads in mapped pinned host memory
// (cudaHostAllocMapped): the last block to arrive sets `all_arrived`, so the
// host knows the held SMs are taken before it launches the probe, and the
// host sets `release` afterwards.
struct TopologyBlockerCounters {
  int arrived = 0;    // blocks that read their SM (after counting `held`)
  int held = 0;       // blocks on SMs of the mask
  int timed_out = 0;  // blocks that gave up waiting
};

struct TopologyBlockerSignals {
  int all_arrived = 0;  // set by the last block to arrive
  int release = 0;      // set by the host: held blocks may exit
};

struct TopologyBlockerArgs {
  // Bit (sm % 32) of word sm / 32 set: hold SM sm. Device memory.
  const unsigned* held_mask = nullptr;
  int mask_words = 0;
  int blocks = 1;  // the grid: the SM count
  int block_threads = 32;
  size_t dynamic_shared_bytes = 0;  // the per-block opt-in maximum
  long long max_cycles = 0;
  TopologyBlockerCounters* counters = nullptr;  // device memory, zeroed before each launch
  TopologyBlockerSignals* signals = nullptr;    // device view of mapped host memory
};

// An ordinary launch (no clusters) of args.blocks blocks.
// cudaErrorInvalidValue for a null mask, counters or signals or a size
// below 1.
cudaError_t LaunchTopologyBlocker(const TopologyBlockerArgs& args, cudaStream_t stream);

// The blocker's address, for cudaFuncSetAttribute.
const void* TopologyBlockerKernel();

}  // namespace dissect

#endif  // DISSECT_KERNELS_TOPOLOGY_TOPOLOGY_H_
