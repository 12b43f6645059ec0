// Thread-block cluster primitives for device code (PTX ISA 7.8, sm_90):
// the block's rank, the cluster's size, the cluster barrier and mapa. Shared
// by the DSM, topology and cluster-cooperative kernels. Compiled for an
// older architecture they trap: the host never launches clusters there
// (experiments/sharing/cluster_support.h skips such points).
#ifndef DISSECT_KERNELS_CLUSTER_CUH_
#define DISSECT_KERNELS_CLUSTER_CUH_

#include <cstdint>

// 1 in a device pass for an architecture with thread-block clusters (sm_90
// and newer), else 0: a kernel that only runs in clusters compiles its body
// under it and is a trapping stub elsewhere, which the host never launches
// (the experiment declares compute capability 9.0) and the SASS tests check.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define DISSECT_CLUSTERS_BUILT 1
#else
#define DISSECT_CLUSTERS_BUILT 0
#endif

namespace dissect {

// The 32-bit shared::cta address of a pointer into this block's shared memory.
__device__ __forceinline__ uint32_t SharedCtaAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// %cluster_ctarank: this block's rank in its cluster.
__device__ __forceinline__ uint32_t ClusterRank() {
#if __CUDA_ARCH__ >= 900
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
#else
  __trap();
  return 0;
#endif
}

// %cluster_nctarank: blocks in this cluster.
__device__ __forceinline__ uint32_t ClusterBlocks() {
#if __CUDA_ARCH__ >= 900
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
#else
  __trap();
  return 1;
#endif
}

// %clusterid.x: the cluster's index along x.
__device__ __forceinline__ uint32_t ClusterIdX() {
#if __CUDA_ARCH__ >= 900
  uint32_t v;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v));
  return v;
#else
  __trap();
  return 0;
#endif
}

// Every thread of every block of the cluster: release this block's
// shared-memory writes, then wait for all blocks (acquire). Not .aligned,
// so that threads of a warp may arrive at different points.
__device__ __forceinline__ void ClusterSync() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#else
  __trap();
#endif
}

// The shared::cluster address of `cta_address` (an address in this block's
// shared memory) in the block of cluster rank `rank` (mapa).
__device__ __forceinline__ uint32_t MapToRank(uint32_t cta_address, uint32_t rank) {
#if __CUDA_ARCH__ >= 900
  uint32_t out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(cta_address), "r"(rank));
  return out;
#else
  __trap();
  return 0;
#endif
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_CLUSTER_CUH_
