// The topology probe (see topology.h): each block records its SM, cluster
// and rank in the cluster, then spins so that the launch's blocks stay
// resident together; and the blocker that holds chosen SMs meanwhile.
#include "kernels/cluster.cuh"
#include "kernels/cluster_launch.h"
#include "kernels/device_clock.cuh"
#include "kernels/line_trace.cuh"
#include "kernels/topology/topology.h"

namespace dissect {
namespace {

__global__ void TopologyProbe(TopologyBlockRecord* records, long long spin_cycles) {
#if !DISSECT_CLUSTERS_BUILT
  __trap();
#else
  if (threadIdx.x != 0) return;
  TopologyBlockRecord r;
  r.smid = static_cast<int>(TraceSmId());
  r.cluster = static_cast<int>(ClusterIdX());
  r.cluster_rank = static_cast<int>(ClusterRank());
  records[blockIdx.x] = r;
  const uint64_t start = ReadClock64();
  while (static_cast<long long>(ReadClock64() - start) < spin_cycles) {
  }
#endif
}

// A read that goes to memory every time: the control words change under
// the kernel (other blocks, the host).
__device__ __forceinline__ int LoadVolatile(const int* p) {
  return *static_cast<const volatile int*>(p);
}

__global__ void TopologyBlocker(const unsigned* held_mask, int mask_words, int blocks,
                                TopologyBlockerCounters* counters,
                                TopologyBlockerSignals* signals, long long max_cycles) {
  if (threadIdx.x != 0) return;
  const unsigned sm = TraceSmId();
  const bool hold =
      static_cast<int>(sm / 32) < mask_words && ((held_mask[sm / 32] >> (sm % 32)) & 1u) != 0;
  if (hold) atomicAdd(&counters->held, 1);
  __threadfence();
  if (atomicAdd(&counters->arrived, 1) == blocks - 1) {
    __threadfence_system();
    *static_cast<volatile int*>(&signals->all_arrived) = 1;
  }
  const uint64_t start = ReadClock64();
  while (LoadVolatile(&counters->arrived) < blocks) {
    if (static_cast<long long>(ReadClock64() - start) > max_cycles) {
      atomicAdd(&counters->timed_out, 1);
      return;
    }
  }
  if (!hold) return;
  while (LoadVolatile(&signals->release) == 0) {
    if (static_cast<long long>(ReadClock64() - start) > max_cycles) {
      atomicAdd(&counters->timed_out, 1);
      return;
    }
  }
}

}  // namespace

cudaError_t LaunchTopologyBlocker(const TopologyBlockerArgs& args, cudaStream_t stream) {
  if (args.held_mask == nullptr || args.counters == nullptr || args.signals == nullptr ||
      args.mask_words < 1 || args.blocks < 1 || args.block_threads < 1) {
    return cudaErrorInvalidValue;
  }
  TopologyBlocker<<<args.blocks, args.block_threads, args.dynamic_shared_bytes, stream>>>(
      args.held_mask, args.mask_words, args.blocks, args.counters, args.signals,
      args.max_cycles);
  return cudaGetLastError();
}

const void* TopologyBlockerKernel() { return reinterpret_cast<const void*>(&TopologyBlocker); }

cudaError_t LaunchTopologyProbe(const TopologyArgs& args, cudaStream_t stream) {
  if (args.records == nullptr || args.cluster_size < 1 || args.clusters < 1 ||
      args.block_threads < 1) {
    return cudaErrorInvalidValue;
  }
  const ClusterLaunchConfig launch(dim3(static_cast<unsigned>(args.cluster_size * args.clusters)),
                                   args.block_threads, args.dynamic_shared_bytes, args.cluster_size,
                                   stream);
  return cudaLaunchKernelEx(launch.config(), TopologyProbe, args.records, args.spin_cycles);
}

const void* TopologyProbeKernel() { return reinterpret_cast<const void*>(&TopologyProbe); }

}  // namespace dissect
