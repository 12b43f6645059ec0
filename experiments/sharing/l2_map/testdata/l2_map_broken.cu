// Source of l2_map_broken.sass: deliberately broken variants of L2MapKernel
// (kernels/l2_map/l2_map.cu) and the kernel as it was before the
// first-touch method, for l2_map_sass_checks_test. Not built by Bazel;
// regenerate from the repository root with
//   nvcc -O3 -std=c++17 -arch=sm_90a -I. -cubin -o /tmp/b.cubin \
//       experiments/sharing/l2_map/testdata/l2_map_broken.cu
//   cuobjdump -sass /tmp/b.cubin > experiments/sharing/l2_map/testdata/l2_map_broken.sass
#include "kernels/device_clock.cuh"
#include "kernels/l2_map/l2_map.h"
#include "kernels/line_trace.cuh"
#include "kernels/timed_chase.cuh"

namespace dissect {

enum class Broken { kNoWait, kIndexed, kCa, kGeneric, kStoreInside };

template <Broken B>
__device__ __forceinline__ unsigned long long Load(unsigned long long p, int offset) {
  unsigned long long v;
  if (B == Broken::kCa) {
    if (offset == 0) asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    if (offset != 0) asm volatile("ld.global.ca.u64 %0, [%1+8];" : "=l"(v) : "l"(p) : "memory");
  } else if (B == Broken::kGeneric) {
    if (offset == 0) asm volatile("ld.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    if (offset != 0) asm volatile("ld.u64 %0, [%1+8];" : "=l"(v) : "l"(p) : "memory");
  } else {
    if (offset == 0) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    if (offset != 0) asm volatile("ld.global.cg.u64 %0, [%1+8];" : "=l"(v) : "l"(p) : "memory");
  }
  return v;
}

// kIndexed: the lines hold the next line's index, not its address.
template <Broken B>
__device__ __forceinline__ unsigned long long Next(const L2MapArgs& a, unsigned long long v) {
  return B == Broken::kIndexed ? a.first_line + v * 4096 : v;
}

template <Broken B>
__device__ void BrokenLap(const L2MapArgs& a) {
  unsigned long long p = a.first_line;
#pragma unroll 1
  for (int i = 0; i < a.line_count; ++i) {
    const uint64_t c0 = ReadClock64();
    WaitFor(p);
    const uint64_t c1 = ReadClock64();
    const uint64_t t0 = ReadClock64();
    if (B == Broken::kStoreInside) a.sink[i] = t0;
    const unsigned long long first = Load<B>(p, 0);
    if (B != Broken::kNoWait) WaitFor(first);
    const uint64_t t1 = ReadClock64();
    const uint64_t r0 = ReadClock64();
    p = Next<B>(a, Load<B>(p, 8));
    if (B != Broken::kNoWait) WaitFor(p);
    const uint64_t r1 = ReadClock64();
    a.empty_cycles[i] = c1 - c0;
    a.first_touch_cycles[i] = t1 - t0;
    a.retouch_cycles[i] = r1 - r0;
  }
  *a.sink = p;
}

__global__ void L2MapNoWaitKernel(const L2MapArgs a) { BrokenLap<Broken::kNoWait>(a); }
__global__ void L2MapIndexedKernel(const L2MapArgs a) { BrokenLap<Broken::kIndexed>(a); }
__global__ void L2MapCaKernel(const L2MapArgs a) { BrokenLap<Broken::kCa>(a); }
__global__ void L2MapGenericKernel(const L2MapArgs a) { BrokenLap<Broken::kGeneric>(a); }
__global__ void L2MapStoreInsideKernel(const L2MapArgs a) { BrokenLap<Broken::kStoreInside>(a); }

// The kernel before the first-touch method: per line a warm load, then
// `hops` dependent loads of the same self-pointing line between two clock
// reads; every timed hop after the warm load hits a near copy.
struct RepeatedHopArgs {
  const unsigned long long* const* lines;
  int line_count;
  int hops;
  int target_sm;
  int* claimed;
  unsigned long long* cycles;
  unsigned long long* sink;
};

__global__ void L2MapRepeatedHopKernel(const RepeatedHopArgs a) {
  if (threadIdx.x != 0) return;
  if (static_cast<int>(TraceSmId()) != a.target_sm) return;
  if (atomicCAS(a.claimed, 0, a.target_sm + 1) != 0) return;
  const int trips = a.hops / 16;
  unsigned long long sink = 0;
  for (int l = 0; l < a.line_count; ++l) {
    unsigned long long p = __ldcg(reinterpret_cast<const unsigned long long*>(a.lines[l]));
    WaitFor(p);
    const uint64_t t0 = ReadClock64();
#pragma unroll 1
    for (int k = 0; k < trips; ++k) {
#pragma unroll
      for (int u = 0; u < 16; ++u) p = __ldcg(reinterpret_cast<const unsigned long long*>(p));
    }
    WaitFor(p);
    const uint64_t t1 = ReadClock64();
    a.cycles[l] = t1 - t0;
    sink ^= p;
  }
  *a.sink = sink;
}

}  // namespace dissect
