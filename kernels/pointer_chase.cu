// Pointer-chase kernels: one kernel template, instantiated per memory path.
#include "kernels/device_clock.cuh"
#include "kernels/pointer_chase.h"

namespace dissect {
namespace {

constexpr int kCopyThreads = 256;

__constant__ uint32_t c_chain[kConstChainBytes / sizeof(uint32_t)];

// How one step of the chase loads the next chain value, per path.
template <ChasePath P>
struct Step;

template <>
struct Step<ChasePath::kShared> {
  const char* base;
  __device__ uint32_t operator()(uint32_t j) const {
    return *reinterpret_cast<const uint32_t*>(base + j);
  }
};

template <>
struct Step<ChasePath::kGlobalCa> {
  const char* base;
  __device__ uint32_t operator()(uint32_t j) const {
    return __ldca(reinterpret_cast<const unsigned int*>(base + j));
  }
};

template <>
struct Step<ChasePath::kGlobalCg> {
  const char* base;
  __device__ uint32_t operator()(uint32_t j) const {
    return __ldcg(reinterpret_cast<const unsigned int*>(base + j));
  }
};

template <>
struct Step<ChasePath::kLdg> {
  const char* base;
  __device__ uint32_t operator()(uint32_t j) const {
    return __ldg(reinterpret_cast<const unsigned int*>(base + j));
  }
};

template <>
struct Step<ChasePath::kTex> {
  cudaTextureObject_t texture;
  __device__ uint32_t operator()(uint32_t j) const {
    return tex1Dfetch<unsigned int>(texture, static_cast<int>(j));
  }
};

template <>
struct Step<ChasePath::kConst> {
  __device__ uint32_t operator()(uint32_t j) const {
    return *reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(c_chain) + j);
  }
};

// Prepares the path (shared: copies the chain in) and returns its Step.
// Every thread of the block must call it; only thread 0 chases afterwards.
template <ChasePath P>
__device__ Step<P> MakeStep(const ChaseArgs& a) {
  if constexpr (P == ChasePath::kShared) {
    extern __shared__ uint32_t smem[];
    for (uint32_t i = threadIdx.x; i < a.words; i += blockDim.x) smem[i] = a.chain[i];
    __syncthreads();
    return Step<P>{reinterpret_cast<const char*>(smem)};
  } else if constexpr (P == ChasePath::kTex) {
    return Step<P>{a.texture};
  } else if constexpr (P == ChasePath::kConst) {
    return Step<P>{};
  } else {
    return Step<P>{reinterpret_cast<const char*>(a.chain)};
  }
}

template <ChasePath P>
__global__ void ChaseKernel(const ChaseArgs a) {
  const Step<P> step = MakeStep<P>(a);
  if (threadIdx.x != 0) return;
  uint32_t j = 0;
  for (uint64_t k = 0; k < a.warmup_loads; ++k) j = step(j);
  const uint64_t ns0 = ReadGlobalTimerNs();
  const uint64_t c0 = ReadClock64();
#pragma unroll 16
  for (uint64_t k = 0; k < a.timed_loads; ++k) j = step(j);
  const uint64_t c1 = ReadClock64();
  const uint64_t ns1 = ReadGlobalTimerNs();
  a.out->cycles = c1 - c0;
  a.out->nanoseconds = ns1 - ns0;
  a.out->sink = j;
}

// Fine-grained chase: each access is timed on its own. Storing the loaded
// value to shared memory before the second clock read makes the read wait
// for the load, so each record is one access's latency (plus the constant
// cost of the timing code itself).
template <ChasePath P>
__global__ void ChaseTraceKernel(const ChaseArgs a) {
  __shared__ uint32_t s_offset[kTraceLength];
  __shared__ uint32_t s_cycles[kTraceLength];
  const Step<P> step = MakeStep<P>(a);
  if (threadIdx.x == 0) {
    uint32_t j = 0;
    for (uint64_t k = 0; k < a.warmup_loads; ++k) j = step(j);
    for (int k = 0; k < kTraceLength; ++k) {
      const uint32_t t0 = static_cast<uint32_t>(ReadClock64());
      const uint32_t next = step(j);
      s_offset[k] = next;
      const uint32_t t1 = static_cast<uint32_t>(ReadClock64());
      s_cycles[k] = t1 - t0;
      j = next;
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < kTraceLength; k += blockDim.x) {
    a.trace[k] = TraceRecord{s_offset[k], s_cycles[k]};
  }
}

template <template <ChasePath> class Kernel>
cudaError_t Launch(const ChaseArgs& a, cudaStream_t stream) {
  const size_t dynamic =
      a.path == ChasePath::kShared ? static_cast<size_t>(a.words) * sizeof(uint32_t) : 0;
  auto run = [&](auto kernel) -> cudaError_t {
    const cudaError_t e = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic));
    if (e != cudaSuccess) return e;
    kernel<<<1, kCopyThreads, dynamic, stream>>>(a);
    return cudaGetLastError();
  };
  switch (a.path) {
    case ChasePath::kShared:
      return run(Kernel<ChasePath::kShared>::kFn);
    case ChasePath::kGlobalCa:
      return run(Kernel<ChasePath::kGlobalCa>::kFn);
    case ChasePath::kGlobalCg:
      return run(Kernel<ChasePath::kGlobalCg>::kFn);
    case ChasePath::kLdg:
      return run(Kernel<ChasePath::kLdg>::kFn);
    case ChasePath::kTex:
      return run(Kernel<ChasePath::kTex>::kFn);
    case ChasePath::kConst:
      return run(Kernel<ChasePath::kConst>::kFn);
  }
  return cudaErrorInvalidValue;
}

template <ChasePath P>
struct TimedChase {
  static constexpr auto kFn = ChaseKernel<P>;
};

template <ChasePath P>
struct TracedChase {
  static constexpr auto kFn = ChaseTraceKernel<P>;
};

}  // namespace

cudaError_t CopyChainToConstant(const uint32_t* host_chain, size_t words,
                                cudaStream_t stream) {
  if (words * sizeof(uint32_t) > kConstChainBytes) return cudaErrorInvalidValue;
  return cudaMemcpyToSymbolAsync(c_chain, host_chain, words * sizeof(uint32_t), 0,
                                 cudaMemcpyHostToDevice, stream);
}

cudaError_t LaunchChase(const ChaseArgs& args, cudaStream_t stream) {
  return Launch<TimedChase>(args, stream);
}

cudaError_t LaunchChaseTrace(const ChaseArgs& args, cudaStream_t stream) {
  return Launch<TracedChase>(args, stream);
}

}  // namespace dissect
