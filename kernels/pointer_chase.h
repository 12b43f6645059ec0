// Host interface of the pointer-chase kernels (kernels/pointer_chase.cu).
//
// One chase kernel serves every memory path: the path only changes how the
// next index is loaded. Each load's address is the previous load's value, so
// loads cannot overlap and time per load is the load-to-use latency.
#ifndef DISSECT_KERNELS_POINTER_CHASE_H_
#define DISSECT_KERNELS_POINTER_CHASE_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

enum class ChasePath : int {
  kShared,    // ld.shared, chain copied into dynamic shared memory
  kGlobalCa,  // ld.global.ca: cached in L1 and L2
  kGlobalCg,  // ld.global.cg: cached in L2 only
  kLdg,       // ld.global.nc: the read-only (texture) data path
  kTex,       // tex.1d via a texture object over the chain
  kConst,     // ld.const from __constant__ memory
};

// Largest chain the constant path can hold (the 64 KiB constant bank).
inline constexpr size_t kConstChainBytes = 64 * 1024;

// Accesses one fine-grained trace launch records (Mei & Chu method).
inline constexpr int kTraceLength = 2048;

// Static shared memory the trace kernel uses for its records.
inline constexpr size_t kTraceSharedBytes = 2 * kTraceLength * sizeof(uint32_t);

// What one timed chase measured, written by the kernel's single timing thread.
struct ChaseTiming {
  unsigned long long cycles;       // %clock64 delta over the timed loads
  unsigned long long nanoseconds;  // %globaltimer delta over the same loads
  uint32_t sink;                   // final chain value: keeps the chase live
  uint32_t pad;
};

// One access of a fine-grained trace.
struct TraceRecord {
  uint32_t loaded;  // the value this access loaded: the next access's address
  uint32_t cycles;  // %clock delta around that one access
};

struct ChaseArgs {
  ChasePath path = ChasePath::kShared;
  // Device chain. For every path but kTex each word holds the BYTE offset of
  // the next slot; for kTex it holds the next slot's WORD index.
  const uint32_t* chain = nullptr;
  uint32_t words = 0;               // chain length in 32-bit words
  cudaTextureObject_t texture = 0;  // kTex: a 1-D linear uint32 texture over `chain`
  uint64_t warmup_loads = 0;        // untimed loads before the clock starts
  uint64_t timed_loads = 0;         // loads between the two clock reads
  ChaseTiming* out = nullptr;       // device pointer (LaunchChase)
  TraceRecord* trace = nullptr;     // device pointer, kTraceLength records (LaunchChaseTrace)
};

// Copies a chain (byte offsets, at most kConstChainBytes) into the constant
// bank that ChasePath::kConst reads.
cudaError_t CopyChainToConstant(const uint32_t* host_chain, size_t words,
                                cudaStream_t stream);

// One block: for kShared all threads first copy the chain into dynamic shared
// memory; then thread 0 chases: warm-up loads, clock reads, timed loads,
// clock reads, results to args.out.
cudaError_t LaunchChase(const ChaseArgs& args, cudaStream_t stream);

// Like LaunchChase, but after the warm-up records the latency of each of the
// next kTraceLength accesses individually into args.trace.
cudaError_t LaunchChaseTrace(const ChaseArgs& args, cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_POINTER_CHASE_H_
