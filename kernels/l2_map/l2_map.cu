// The SM-to-L2 latency map kernel; see l2_map.h.
#include "kernels/device_clock.cuh"
#include "kernels/l2_map/l2_map.h"
#include "kernels/line_trace.cuh"
#include "kernels/timed_chase.cuh"

namespace dissect {
namespace {

// The first touch: an L2-only load (ld.global.cg) of word 0 of the line at
// p. Volatile, so that it stays between its clock reads.
__device__ __forceinline__ unsigned long long FirstTouch(unsigned long long p) {
  unsigned long long v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// The re-touch: the same sector, word 1 (an immediate offset, so that the
// load's address is still p itself: no address arithmetic in the chain).
__device__ __forceinline__ unsigned long long Retouch(unsigned long long p) {
  static_assert(kL2MapRetouchOffset == 8, "the offset below");
  unsigned long long v;
  asm volatile("ld.global.cg.u64 %0, [%1+8];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Every thread of the block loads one word of every kL2MapBlockThreads-th
// sector of the sweep buffer, L2-only, kL2MapSweepUnroll at a time, and
// waits for its loads: the sweep's copies push the measured lines' copies
// out of the SM's near L2 partition.
__device__ __forceinline__ void Sweep(const L2MapArgs& a) {
  constexpr uint64_t kStride = kL2MapBlockThreads * kL2MapSectorBytes / sizeof(unsigned long long);
  const unsigned long long* w = a.sweep + threadIdx.x * (kL2MapSectorBytes / sizeof(*w));
  const uint64_t trips = a.sweep_bytes / kL2MapSweepGrainBytes;
  unsigned long long acc = 0;
#pragma unroll 1
  for (uint64_t t = 0; t < trips; ++t, w += kStride * kL2MapSweepUnroll) {
#pragma unroll
    for (int u = 0; u < kL2MapSweepUnroll; ++u) acc ^= __ldcg(w + u * kStride);
  }
  WaitFor(acc);
}

// One lap over the ring from p (thread 0): the empty, first-touch and
// re-touch intervals of every line; returns the address the lap ends on
// (the ring's first line again).
__device__ __forceinline__ unsigned long long TimedLap(const L2MapArgs& a, int lap,
                                                       unsigned long long p) {
#pragma unroll 1
  for (int i = 0; i < a.line_count; ++i) {
    const uint64_t c0 = ReadClock64();
    WaitFor(p);
    const uint64_t c1 = ReadClock64();
    const uint64_t t0 = ReadClock64();
    const unsigned long long first = FirstTouch(p);
    WaitFor(first);
    const uint64_t t1 = ReadClock64();
    const uint64_t r0 = ReadClock64();
    p = Retouch(p);
    WaitFor(p);
    const uint64_t r1 = ReadClock64();
    const int k = lap * a.line_count + i;
    a.empty_cycles[k] = c1 - c0;
    a.first_touch_cycles[k] = t1 - t0;
    a.retouch_cycles[k] = r1 - r0;
  }
  return p;
}

__global__ void __launch_bounds__(kL2MapBlockThreads) L2MapKernel(const L2MapArgs a) {
  // The dynamic shared memory is never touched: it only keeps a second
  // block off this SM.
  __shared__ int s_measure;
  if (threadIdx.x == 0) {
    s_measure = static_cast<int>(TraceSmId()) == a.target_sm &&
                atomicCAS(a.claimed, 0, a.target_sm + 1) == 0;
  }
  __syncthreads();
  if (!s_measure) return;
  unsigned long long p = a.first_line;
  for (int lap = 0; lap < a.laps; ++lap) {
    Sweep(a);
    __syncthreads();  // no sweep load is in flight while a line is timed
    if (threadIdx.x == 0) p = TimedLap(a, lap, p);
    __syncthreads();
  }
  if (threadIdx.x == 0) *a.sink = p;
}

}  // namespace

cudaError_t PrepareL2Map(int device, size_t* dynamic_shared_bytes) {
  int optin = 0;
  cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return e;
  cudaFuncAttributes attributes;
  e = cudaFuncGetAttributes(&attributes, L2MapKernel);
  if (e != cudaSuccess) return e;
  if (static_cast<size_t>(optin) < attributes.sharedSizeBytes) return cudaErrorInvalidValue;
  const size_t bytes = static_cast<size_t>(optin) - attributes.sharedSizeBytes;
  e = cudaFuncSetAttribute(L2MapKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes));
  if (e != cudaSuccess) return e;
  *dynamic_shared_bytes = bytes;
  return cudaSuccess;
}

cudaError_t LaunchL2Map(const L2MapArgs& args, int blocks, size_t dynamic_shared_bytes,
                        cudaStream_t stream) {
  L2MapKernel<<<blocks, kL2MapBlockThreads, dynamic_shared_bytes, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace dissect
