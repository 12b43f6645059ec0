// Distributed-shared-memory kernels; see dsm.h.
#include <algorithm>

#include "kernels/cluster.cuh"
#include "kernels/cluster_launch.h"
#include "kernels/device_clock.cuh"
#include "kernels/dsm/dsm.h"
#include "kernels/line_trace.cuh"
#include "kernels/timed_chase.cuh"

namespace dissect {
namespace {

// The kernels' device code exists only where clusters do (their stubs
// elsewhere reference none of it).
#if DISSECT_CLUSTERS_BUILT
// One hop per path: the loaded word is the next hop's address.
struct SharedLocalStep {
  using Value = uint32_t;
  __device__ __forceinline__ Value operator()(Value address) const {
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address) : "memory");
    return v;
  }
};

// A generic load of a 64-bit address in the shared window: the hardware's
// DSM access (ptxas lowers ld.shared::cluster to this same LD.E), with the
// loaded word already the whole next address. A 32-bit shared::cluster
// address would need a register move per hop to pair it with the window's
// upper word, inside the timed dependent chain.
struct DsmPeerStep {
  using Value = unsigned long long;
  __device__ __forceinline__ Value operator()(Value address) const {
    unsigned long long v;
    asm volatile("ld.u64 %0, [%1];" : "=l"(v) : "l"(address) : "memory");
    return v;
  }
};

// The generic address, in the cluster's shared window, of the word at `p`
// (this block's shared memory) in the block of cluster rank `rank`.
__device__ __forceinline__ unsigned long long MapGenericToRank(const void* p, uint32_t rank) {
  unsigned long long out;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(out) : "l"(p), "r"(rank));
  return out;
}

struct L2Step {
  using Value = unsigned long long;
  __device__ __forceinline__ Value operator()(Value address) const {
    return __ldcg(reinterpret_cast<const unsigned long long*>(address));
  }
};

#endif  // DISSECT_CLUSTERS_BUILT

template <DsmPath P>
__global__ void __launch_bounds__(kDsmChaseThreads) DsmChase(const DsmChaseArgs a) {
#if !DISSECT_CLUSTERS_BUILT
  __trap();
#else
  extern __shared__ uint32_t chain[];
  const uint32_t rank = ClusterRank();
  const uint32_t blocks = ClusterBlocks();
  const uint32_t cta_base = SharedCtaAddress(chain);
  // The same chain in every block, rebased so that each slot holds the
  // address (in the space the path reads) of the next slot of this block's
  // copy: kDsmPeer's slots are 64-bit window addresses (slots 8-byte
  // aligned), the others' 32-bit words.
  if constexpr (P == DsmPath::kDsmPeer) {
    unsigned long long* slots = reinterpret_cast<unsigned long long*>(chain);
    const unsigned long long rebase = MapGenericToRank(chain, rank);
    for (uint64_t i = threadIdx.x; i < a.chain_bytes / sizeof(uint64_t); i += blockDim.x) {
      slots[i] = rebase + a.offsets[2 * i];
    }
  } else {
    for (uint64_t i = threadIdx.x; i < a.chain_bytes / sizeof(uint32_t); i += blockDim.x) {
      chain[i] = cta_base + a.offsets[i];
    }
  }
  if (threadIdx.x == 0 && a.block_sm != nullptr) a.block_sm[rank] = static_cast<int>(TraceSmId());
  ClusterSync();
  if (rank == 0 && threadIdx.x == 0) {
    if constexpr (P == DsmPath::kSharedLocal) {
      a.out->sink =
          RunTimedChase(SharedLocalStep{}, cta_base, a.warmup_loads, a.timed_loads, a.out) -
          cta_base;
    } else if constexpr (P == DsmPath::kL2) {
      const unsigned long long start = reinterpret_cast<unsigned long long>(a.pointers);
      a.out->sink = RunTimedChase(L2Step{}, start, a.warmup_loads, a.timed_loads, a.out) - start;
    } else {
#pragma unroll 1
      for (uint32_t d = 0; d < blocks; ++d) {
        // Mapped once per peer, outside the timed loops.
        const unsigned long long peer_base = MapGenericToRank(chain, (rank + d) % blocks);
        a.out[d].sink =
            RunTimedChase(DsmPeerStep{}, peer_base, a.warmup_loads, a.timed_loads, a.out + d) -
            peer_base;
      }
    }
  }
  // No block may exit while rank 0 still reads its shared memory.
  ClusterSync();
#endif
}

#if DISSECT_CLUSTERS_BUILT
// The four words of one 16-byte load at `address`, summed.
template <DsmPath P>
__device__ __forceinline__ uint32_t LoadSum16(uint32_t address) {
  uint32_t x, y, z, w;
  if constexpr (P == DsmPath::kDsmPeer) {
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "r"(address)
                 : "memory");
  } else {
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "r"(address)
                 : "memory");
  }
  return x + y + z + w;
}
#endif  // DISSECT_CLUSTERS_BUILT

template <DsmPath P>
__global__ void __launch_bounds__(kDsmStreamThreads) DsmStream(const DsmStreamArgs a) {
#if !DISSECT_CLUSTERS_BUILT
  __trap();
#else
  extern __shared__ uint4 buffer[];
  uint32_t* words = reinterpret_cast<uint32_t*>(buffer);
  const uint32_t rank = ClusterRank();
  for (uint64_t i = threadIdx.x; i < a.block_bytes / sizeof(uint32_t); i += blockDim.x) {
    words[i] = DsmStreamWord(static_cast<uint32_t>(i), rank);
  }
  if (threadIdx.x == 0) a.block_sm[blockIdx.x] = static_cast<int>(TraceSmId());
  ClusterSync();
  const uint32_t own = SharedCtaAddress(buffer) + threadIdx.x * 16;
  const uint32_t base = P == DsmPath::kDsmPeer ? MapToRank(own, (rank + 1) % ClusterBlocks()) : own;
  const int rows = static_cast<int>(a.block_bytes / kDsmStreamRowBytes);
  uint32_t sum = 0;
#pragma unroll 1
  for (uint64_t it = 0; it < a.iterations; ++it) {
#pragma unroll 4
    for (int r = 0; r < rows; ++r) sum += LoadSum16<P>(base + r * kDsmStreamRowBytes);
  }
  atomicAdd(a.sums + blockIdx.x, sum);
  ClusterSync();
#endif
}

template <class Args>
cudaError_t LaunchClusters(void (*kernel)(Args), const Args& args, int blocks, int threads,
                           size_t shared_bytes, int cluster_size, cudaStream_t stream) {
  const ClusterLaunchConfig launch(dim3(blocks), threads, shared_bytes, cluster_size, stream);
  return cudaLaunchKernelEx(launch.config(), kernel, args);
}

}  // namespace

const void* DsmChaseKernel(DsmPath path) {
  switch (path) {
    case DsmPath::kSharedLocal:
      return reinterpret_cast<const void*>(DsmChase<DsmPath::kSharedLocal>);
    case DsmPath::kDsmPeer:
      return reinterpret_cast<const void*>(DsmChase<DsmPath::kDsmPeer>);
    case DsmPath::kL2:
      return reinterpret_cast<const void*>(DsmChase<DsmPath::kL2>);
  }
  return nullptr;
}

cudaError_t LaunchDsmChase(const DsmChaseArgs& args, cudaStream_t stream) {
  const size_t shared = static_cast<size_t>(std::max(args.chain_bytes, args.shared_bytes));
  switch (args.path) {
    case DsmPath::kSharedLocal:
      return LaunchClusters(DsmChase<DsmPath::kSharedLocal>, args, args.cluster_size,
                            kDsmChaseThreads, shared, args.cluster_size, stream);
    case DsmPath::kDsmPeer:
      return LaunchClusters(DsmChase<DsmPath::kDsmPeer>, args, args.cluster_size, kDsmChaseThreads,
                            shared, args.cluster_size, stream);
    case DsmPath::kL2:
      return LaunchClusters(DsmChase<DsmPath::kL2>, args, args.cluster_size, kDsmChaseThreads,
                            shared, args.cluster_size, stream);
  }
  return cudaErrorInvalidValue;
}

const void* DsmStreamKernel(DsmPath path) {
  switch (path) {
    case DsmPath::kSharedLocal:
      return reinterpret_cast<const void*>(DsmStream<DsmPath::kSharedLocal>);
    case DsmPath::kDsmPeer:
      return reinterpret_cast<const void*>(DsmStream<DsmPath::kDsmPeer>);
    case DsmPath::kL2:
      break;
  }
  return nullptr;
}

cudaError_t LaunchDsmStream(const DsmStreamArgs& args, cudaStream_t stream) {
  if (args.cluster_size < 1 || args.blocks % args.cluster_size != 0) return cudaErrorInvalidValue;
  const size_t shared = static_cast<size_t>(std::max(args.block_bytes, args.shared_bytes));
  switch (args.path) {
    case DsmPath::kSharedLocal:
      return LaunchClusters(DsmStream<DsmPath::kSharedLocal>, args, args.blocks, kDsmStreamThreads,
                            shared, args.cluster_size, stream);
    case DsmPath::kDsmPeer:
      return LaunchClusters(DsmStream<DsmPath::kDsmPeer>, args, args.blocks, kDsmStreamThreads,
                            shared, args.cluster_size, stream);
    case DsmPath::kL2:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace dissect
