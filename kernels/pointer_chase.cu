// Pointer-chase kernels: each load's address is the previous load's value,
// so loads cannot overlap and the time per load is the load-to-use latency.
#include "kernels/device_clock.cuh"
#include "kernels/pointer_chase.h"

namespace dissect {
namespace {

constexpr int kCopyThreads = 256;

__global__ void SharedChaseKernel(const uint32_t* __restrict__ chain,
                                  uint32_t words, uint64_t warmup_loads,
                                  uint64_t timed_loads,
                                  ChaseTiming* __restrict__ out) {
  extern __shared__ uint32_t smem[];
  // Store byte offsets so that each step is one add and one ld.shared.
  for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
    smem[i] = chain[i] * static_cast<uint32_t>(sizeof(uint32_t));
  }
  __syncthreads();
  if (threadIdx.x != 0) return;

  const char* base = reinterpret_cast<const char*>(smem);
  uint32_t j = 0;
  for (uint64_t k = 0; k < warmup_loads; ++k) {
    j = *reinterpret_cast<const uint32_t*>(base + j);
  }
  const uint64_t ns0 = ReadGlobalTimerNs();
  const uint64_t c0 = ReadClock64();
#pragma unroll 16
  for (uint64_t k = 0; k < timed_loads; ++k) {
    j = *reinterpret_cast<const uint32_t*>(base + j);
  }
  const uint64_t c1 = ReadClock64();
  const uint64_t ns1 = ReadGlobalTimerNs();
  out->cycles = c1 - c0;
  out->nanoseconds = ns1 - ns0;
  out->sink = j;
}

}  // namespace

cudaError_t LaunchSharedChase(const SharedChaseArgs& args, cudaStream_t stream) {
  const size_t shared_bytes = static_cast<size_t>(args.words) * sizeof(uint32_t);
  cudaError_t e = cudaFuncSetAttribute(
      SharedChaseKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
      static_cast<int>(shared_bytes));
  if (e != cudaSuccess) return e;
  SharedChaseKernel<<<1, kCopyThreads, shared_bytes, stream>>>(
      args.chain, args.words, args.warmup_loads, args.timed_loads, args.out);
  return cudaGetLastError();
}

}  // namespace dissect
