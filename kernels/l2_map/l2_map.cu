// The SM-to-L2 latency map kernel; see l2_map.h.
#include "kernels/device_clock.cuh"
#include "kernels/l2_map/l2_map.h"
#include "kernels/line_trace.cuh"
#include "kernels/timed_chase.cuh"

namespace dissect {
namespace {

constexpr int kBlockThreads = 32;

// One hop: an L2-only load (ld.global.cg) whose result is the next address.
__device__ __forceinline__ unsigned long long Hop(unsigned long long p) {
  return __ldcg(reinterpret_cast<const unsigned long long*>(p));
}

__global__ void __launch_bounds__(kBlockThreads) L2MapKernel(const L2MapArgs a) {
  // The dynamic shared memory is never touched: it only keeps a second
  // block off this SM.
  if (threadIdx.x != 0) return;
  if (static_cast<int>(TraceSmId()) != a.target_sm) return;
  if (atomicCAS(a.claimed, 0, a.target_sm + 1) != 0) return;
  const int trips = a.hops / kL2MapUnroll;
  unsigned long long sink = 0;
  for (int l = 0; l < a.line_count; ++l) {
    unsigned long long p = Hop(reinterpret_cast<unsigned long long>(a.lines[l]));  // warm
    WaitFor(p);
    const uint64_t t0 = ReadClock64();
#pragma unroll 1
    for (int k = 0; k < trips; ++k) {
#pragma unroll
      for (int u = 0; u < kL2MapUnroll; ++u) p = Hop(p);
    }
    WaitFor(p);
    const uint64_t t1 = ReadClock64();
    a.cycles[l] = t1 - t0;
    sink ^= p;
  }
  *a.sink = sink;
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
  L2MapKernel<<<blocks, kBlockThreads, dynamic_shared_bytes, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace dissect
