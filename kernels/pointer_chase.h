// Host interface of the pointer-chase kernels (kernels/pointer_chase.cu).
//
// One chase kernel serves every memory path: the path only changes how the
// next chain value is loaded. Each load's address is the previous load's
// value, so loads cannot overlap and time per load is the load-to-use
// latency. On the global paths the chain holds absolute 64-bit device
// addresses, so a hop is one load and nothing else (no address arithmetic
// between loads, as on the shared, constant and texture paths).
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

// True for the paths whose chain holds 64-bit device addresses (the global
// paths); the others hold 32-bit words.
constexpr bool ChasesPointers(ChasePath path) {
  return path == ChasePath::kGlobalCa || path == ChasePath::kGlobalCg || path == ChasePath::kLdg;
}

// Bytes of one chain word on `path`: a slot must be at least this large.
constexpr int ChainWordBytes(ChasePath path) { return ChasesPointers(path) ? 8 : 4; }

// Loads per trip of the timed loop (its unroll factor). timed_loads must be
// a multiple of it, so the timed region is that loop and nothing else.
inline constexpr int kChaseUnroll = 16;

// Timed segments per launch: segment s chases timed_loads << s loads, so
// the cycles of the two segments give a line whose slope is cycles per load
// and whose intercept is the fixed cost of one timed segment.
inline constexpr int kChaseSegments = 2;

// Static shared memory the timed chase kernel uses besides the chain.
inline constexpr size_t kChaseSharedBytes = 16;

// Largest chain the constant path can hold (the 64 KiB constant bank).
inline constexpr size_t kConstChainBytes = 64 * 1024;

// Accesses one fine-grained trace launch records (Mei & Chu method).
inline constexpr int kTraceLength = 2048;

// Static shared memory the trace kernel uses (its records, and what the
// timed kernel uses too).
inline constexpr size_t kTraceSharedBytes =
    kTraceLength * (sizeof(unsigned long long) + sizeof(uint32_t)) + kChaseSharedBytes;

// What one timed chase measured, written by the kernel's single timing thread.
struct ChaseTiming {
  // %clock64 delta over segment s (timed_loads << s loads). Each segment
  // starts after the previous load has returned and ends after its last
  // load has returned.
  unsigned long long cycles[kChaseSegments];
  unsigned long long span_cycles;  // %clock64 from segment 0's start to the last segment's end
  unsigned long long span_ns;      // %globaltimer read just outside that span
  unsigned long long sink;         // final chain value: keeps the chase live
};

// One access of a fine-grained trace.
struct TraceRecord {
  unsigned long long loaded;  // the value this access loaded: the next access's address
  uint32_t cycles;            // %clock delta around that one access
  uint32_t pad;
};

struct ChaseArgs {
  ChasePath path = ChasePath::kShared;
  // Device chain; the chase starts at its first word. On the global paths
  // (ChasesPointers) every slot holds the 64-bit device address of the next
  // slot; on kShared and kConst the 32-bit byte offset of the next slot; on
  // kTex the next slot's 32-bit word index.
  const void* chain = nullptr;
  uint64_t chain_bytes = 0;
  cudaTextureObject_t texture = 0;  // kTex: a 1-D linear uint32 texture over `chain`
  uint64_t warmup_loads = 0;        // untimed loads before the first segment
  uint64_t timed_loads = 0;         // segment 0's loads: a positive multiple of kChaseUnroll
  ChaseTiming* out = nullptr;       // device pointer (LaunchChase)
  TraceRecord* trace = nullptr;     // device pointer, kTraceLength records (LaunchChaseTrace)
};

// Copies a chain (byte offsets, at most kConstChainBytes) into the constant
// bank that ChasePath::kConst reads.
cudaError_t CopyChainToConstant(const uint32_t* host_chain, size_t words, cudaStream_t stream);

// The L1/shared carveout (cudaFuncAttributePreferredSharedMemoryCarveout)
// the chase asks for on `path`. The L1 capacity a global_ca curve shows is
// the L1 of this carveout, and the analysis sets it beside
// memory_bandwidth's plateaus, which run at cudaSharedmemCarveoutMaxL1
// (kernels/bandwidth.cu): left to the driver's default, the chase's L1
// could be smaller and misplace the bandwidth's L1/L2 boundary. So every
// path that may read through L1 or the texture cache (global, ldg, tex)
// asks for the largest L1, and const with them (its constant cache is not
// L1, but one rule for the non-shared paths keeps one l1_carveout per
// file); the shared path holds its chain in shared memory, up to the
// opt-in limit, and asks for the largest shared carveout. It is a
// preference: the driver takes the nearest configuration that holds the
// kernel's own shared memory, so the trace kernel, with its
// kTraceSharedBytes of records, gets less L1 than the timed kernel.
constexpr int ChaseCarveout(ChasePath path) {
  return path == ChasePath::kShared ? cudaSharedmemCarveoutMaxShared : cudaSharedmemCarveoutMaxL1;
}

// Set, once and before anything is timed, what the launches of args.path
// need (the carveout, ChaseCarveout, and the dynamic shared memory of the
// kShared kernel), so that LaunchChase and LaunchChaseTrace only launch.
// Each kernel has its own, as their static shared memory differs.
cudaError_t PrepareChase(const ChaseArgs& args);
cudaError_t PrepareChaseTrace(const ChaseArgs& args);

// One block: for kShared all threads first copy the chain into dynamic shared
// memory; then thread 0 chases: warm-up loads, then the kChaseSegments timed
// segments, results to args.out.
cudaError_t LaunchChase(const ChaseArgs& args, cudaStream_t stream);

// Like LaunchChase, but after the warm-up records the latency of each of the
// next kTraceLength accesses individually into args.trace.
cudaError_t LaunchChaseTrace(const ChaseArgs& args, cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_POINTER_CHASE_H_
