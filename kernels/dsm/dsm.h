// Host interface of the distributed-shared-memory kernels:
// a pointer chase through a peer block's shared memory in a thread-block
// cluster (mapa + a generic load of the shared window), the same chase
// through the block's own shared memory and through L2, and a streaming
// read of a peer's (or the block's own) shared memory for bandwidth. Needs
// sm_90 (clusters).
#ifndef DISSECT_KERNELS_DSM_DSM_H_
#define DISSECT_KERNELS_DSM_DSM_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/pointer_chase.h"

namespace dissect {

// What one chase hop loads.
enum class DsmPath : int {
  kSharedLocal = 0,  // ld.shared.u32 of the chasing block's own shared memory
  kDsmPeer = 1,      // generic ld.u64 of a peer block's shared-window address
  kL2 = 2,           // ld.global.cg.u64 of the chain laid out in global memory
};

inline constexpr int kDsmMaxClusterSize = 16;
// Threads of every block of the latency kernel (they fill the shared chain;
// one thread chases).
inline constexpr int kDsmChaseThreads = 256;
// Static shared memory the latency kernel uses besides the chain (at most).
inline constexpr size_t kDsmChaseStaticSharedBytes = 16;

struct DsmChaseArgs {
  DsmPath path = DsmPath::kSharedLocal;
  // footprint_bytes / 4 words: word i holds the byte offset (from the
  // chain's start) of the slot after slot i (non-slot words: 0). Every
  // block copies it into its dynamic shared memory, rebased: kSharedLocal
  // stores each offset plus the block's own shared::cta address of the
  // chain as a 32-bit word; kDsmPeer (slots 8-byte aligned: a stride that
  // is a multiple of 8) stores in each 8-byte slot the offset plus the
  // generic address of the chain in the cluster's shared window, mapped to
  // the block's own rank (mapa.u64). So a hop loads the next hop's whole
  // address and does nothing else. Device pointer.
  const uint32_t* offsets = nullptr;
  uint64_t chain_bytes = 0;  // footprint: the chain's bytes in each block
  // Dynamic shared memory per block (at least chain_bytes): more than half
  // of an SM's keeps the blocks of a cluster on distinct SMs, so that a
  // peer's memory is another SM's.
  uint64_t shared_bytes = 0;
  // kL2: the chain as 64-bit device addresses (ChainAsPointers); its first
  // word starts the chase. Device pointer.
  const unsigned long long* pointers = nullptr;
  int cluster_size = 1;
  uint64_t warmup_loads = 0;  // untimed loads before each timed chase
  uint64_t timed_loads = 0;   // segment 0's loads, a positive multiple of kChaseUnroll
  // Device pointer. kDsmPeer: cluster_size records, record d for the peer
  // at distance d (rank (0 + d) % cluster_size, d = 0 is the chasing block
  // itself through the cluster window); other paths: one record. Each
  // record's sink is the final chain value as a byte offset from the
  // chain's start (kL2: from its first word).
  ChaseTiming* out = nullptr;
  // Device pointer, cluster_size entries (or null): the %smid of each rank.
  int* block_sm = nullptr;
};

// The __global__ function that LaunchDsmChase launches for `path`, for
// CheckClusterLaunch (experiments/sharing/cluster_support.h); null for a
// path that does not exist.
const void* DsmChaseKernel(DsmPath path);

// One cluster of args.cluster_size blocks (kDsmChaseThreads threads,
// args.chain_bytes of dynamic shared memory each). Every block fills its
// shared memory with the chain and waits at a cluster barrier; thread 0 of
// rank 0 chases (kDsmPeer: each peer distance in turn, the peer's base
// mapped once per distance, outside the timed loops), kChaseSegments timed
// segments of timed_loads << s loads after warmup_loads untimed ones; a
// second cluster barrier keeps every block's shared memory alive until the
// chase is done. The kernel must have been prepared by CheckClusterLaunch
// (dynamic shared memory, non-portable sizes).
cudaError_t LaunchDsmChase(const DsmChaseArgs& args, cudaStream_t stream);

// Threads of every block of the bandwidth kernel, and the bytes one pass of
// a block's threads reads with 16-byte loads (one row).
inline constexpr int kDsmStreamThreads = 512;
inline constexpr int kDsmStreamRowBytes = kDsmStreamThreads * 16;

struct DsmStreamArgs {
  DsmPath path = DsmPath::kDsmPeer;  // kDsmPeer or kSharedLocal
  int cluster_size = 1;
  int blocks = 0;  // a multiple of cluster_size
  // The buffer each block fills and has read, a multiple of kDsmStreamRowBytes.
  uint64_t block_bytes = 0;
  // Dynamic shared memory per block (at least block_bytes): enough that no
  // two blocks fit one SM keeps every peer on another SM.
  uint64_t shared_bytes = 0;
  uint64_t iterations = 0;  // passes over the buffer
  // Device pointers: `blocks` sums (zeroed by the caller; each thread adds
  // its sum once) and `blocks` SM ids.
  uint32_t* sums = nullptr;
  int* block_sm = nullptr;
};

const void* DsmStreamKernel(DsmPath path);

// args.blocks blocks in clusters of args.cluster_size, each with
// max(block_bytes, shared_bytes) of dynamic shared memory. Word i of the
// shared buffer of the block of cluster rank r holds DsmStreamWord(i, r);
// after a cluster barrier every thread reads its 16-byte column of every
// row of the buffer of rank (r + 1) % cluster_size (kDsmPeer,
// ld.shared::cluster.v4) or its own (kSharedLocal, ld.shared.v4),
// `iterations` times, adds the words and adds its sum to sums[block] once;
// a second cluster barrier keeps the buffers alive while peers read them.
cudaError_t LaunchDsmStream(const DsmStreamArgs& args, cudaStream_t stream);

// The word a stream buffer holds: its index, with the block's cluster rank
// in the top byte (so that a block that read its own buffer instead of its
// peer's gets a different sum).
constexpr uint32_t DsmStreamWord(uint32_t index, uint32_t rank) { return index + (rank << 24); }

}  // namespace dissect

#endif  // DISSECT_KERNELS_DSM_DSM_H_
