// Pointer-chase kernels: one kernel template, instantiated per memory path.
#include "kernels/device_clock.cuh"
#include "kernels/pointer_chase.h"
#include "kernels/timed_chase.cuh"

namespace dissect {
namespace {

constexpr int kCopyThreads = 256;

__constant__ uint32_t c_chain[kConstChainBytes / sizeof(uint32_t)];

using Pointer = unsigned long long;

// One hop of a global path: the loaded word is the next hop's address.
template <ChasePath P>
__device__ Pointer LoadPointer(const Pointer* p);

template <>
__device__ __forceinline__ Pointer LoadPointer<ChasePath::kGlobalCa>(const Pointer* p) {
  return __ldca(p);
}

template <>
__device__ __forceinline__ Pointer LoadPointer<ChasePath::kGlobalCg>(const Pointer* p) {
  return __ldcg(p);
}

template <>
__device__ __forceinline__ Pointer LoadPointer<ChasePath::kLdg>(const Pointer* p) {
  return __ldg(p);
}

// How one step of the chase loads the next chain value, per path; `start`
// is the value that addresses the chain's first word.
template <ChasePath P>
struct Step {
  static_assert(ChasesPointers(P));
  using Value = Pointer;
  Value start;
  __device__ Value operator()(Value p) const {
    return LoadPointer<P>(reinterpret_cast<const Pointer*>(p));
  }
};

template <>
struct Step<ChasePath::kShared> {
  using Value = uint32_t;
  const char* base;
  Value start;
  __device__ Value operator()(Value j) const {
    return *reinterpret_cast<const uint32_t*>(base + j);
  }
};

template <>
struct Step<ChasePath::kTex> {
  using Value = uint32_t;
  cudaTextureObject_t texture;
  Value start;
  __device__ Value operator()(Value j) const {
    return tex1Dfetch<unsigned int>(texture, static_cast<int>(j));
  }
};

template <>
struct Step<ChasePath::kConst> {
  using Value = uint32_t;
  Value start;
  __device__ Value operator()(Value j) const {
    return *reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(c_chain) + j);
  }
};

// Prepares the path (shared: copies the chain in) and returns its Step.
// Every thread of the block must call it; only thread 0 chases afterwards.
template <ChasePath P>
__device__ Step<P> MakeStep(const ChaseArgs& a) {
  if constexpr (P == ChasePath::kShared) {
    extern __shared__ uint32_t smem[];
    const uint32_t* chain = static_cast<const uint32_t*>(a.chain);
    for (uint64_t i = threadIdx.x; i < a.chain_bytes / sizeof(uint32_t); i += blockDim.x) {
      smem[i] = chain[i];
    }
    __syncthreads();
    return Step<P>{reinterpret_cast<const char*>(smem), 0};
  } else if constexpr (P == ChasePath::kTex) {
    return Step<P>{a.texture, 0};
  } else if constexpr (P == ChasePath::kConst) {
    return Step<P>{0};
  } else {
    return Step<P>{reinterpret_cast<Pointer>(a.chain)};
  }
}

template <ChasePath P>
__global__ void ChaseKernel(const ChaseArgs a) {
  const Step<P> step = MakeStep<P>(a);
  if (threadIdx.x != 0) return;
  a.out->sink = RunTimedChase(step, step.start, a.warmup_loads, a.timed_loads, a.out);
}

// Fine-grained chase: each access is timed on its own. Storing the loaded
// value to shared memory before the second clock read makes the read wait
// for the load, so each record is one access's latency (plus the constant
// cost of the timing code itself).
template <ChasePath P>
__global__ void ChaseTraceKernel(const ChaseArgs a) {
  using Value = typename Step<P>::Value;
  __shared__ Value s_loaded[kTraceLength];
  __shared__ uint32_t s_cycles[kTraceLength];
  static_assert(sizeof(s_loaded) + sizeof(s_cycles) + kChaseSharedBytes <= kTraceSharedBytes);
  const Step<P> step = MakeStep<P>(a);
  if (threadIdx.x == 0) {
    Value j = step.start;
    for (uint64_t k = 0; k < a.warmup_loads; ++k) j = step(j);
    WaitFor(static_cast<uint32_t>(j));  // the first record starts after the warm-up's last load
    for (int k = 0; k < kTraceLength; ++k) {
      const uint32_t t0 = static_cast<uint32_t>(ReadClock64());
      const Value next = step(j);
      s_loaded[k] = next;
      const uint32_t t1 = static_cast<uint32_t>(ReadClock64());
      s_cycles[k] = t1 - t0;
      j = next;
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < kTraceLength; k += blockDim.x) {
    a.trace[k] = TraceRecord{s_loaded[k], s_cycles[k], 0};
  }
}

template <ChasePath P>
struct TimedChase {
  static constexpr auto kFn = ChaseKernel<P>;
};

template <ChasePath P>
struct TracedChase {
  static constexpr auto kFn = ChaseTraceKernel<P>;
};

// Calls run(kernel) with the instance of Kernel for `path`.
template <template <ChasePath> class Kernel, class Run>
cudaError_t ForPath(ChasePath path, const Run& run) {
  switch (path) {
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

size_t DynamicSharedBytes(const ChaseArgs& a) {
  return a.path == ChasePath::kShared ? static_cast<size_t>(a.chain_bytes) : 0;
}

// The carveout is set on every path, never left to the driver's default
// (see ChaseCarveout); the shared path also needs its chain's bytes of
// dynamic shared memory allowed.
template <template <ChasePath> class Kernel>
cudaError_t Prepare(const ChaseArgs& a) {
  return ForPath<Kernel>(a.path, [&](auto kernel) {
    const cudaError_t e = cudaFuncSetAttribute(
        kernel, cudaFuncAttributePreferredSharedMemoryCarveout, ChaseCarveout(a.path));
    if (e != cudaSuccess || a.path != ChasePath::kShared) return e;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(DynamicSharedBytes(a)));
  });
}

template <template <ChasePath> class Kernel>
cudaError_t Launch(const ChaseArgs& a, cudaStream_t stream) {
  return ForPath<Kernel>(a.path, [&](auto kernel) {
    kernel<<<1, kCopyThreads, DynamicSharedBytes(a), stream>>>(a);
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t CopyChainToConstant(const uint32_t* host_chain, size_t words, cudaStream_t stream) {
  if (words * sizeof(uint32_t) > kConstChainBytes) return cudaErrorInvalidValue;
  return cudaMemcpyToSymbolAsync(c_chain, host_chain, words * sizeof(uint32_t), 0,
                                 cudaMemcpyHostToDevice, stream);
}

cudaError_t PrepareChase(const ChaseArgs& args) { return Prepare<TimedChase>(args); }

cudaError_t PrepareChaseTrace(const ChaseArgs& args) { return Prepare<TracedChase>(args); }

cudaError_t LaunchChase(const ChaseArgs& args, cudaStream_t stream) {
  return Launch<TimedChase>(args, stream);
}

cudaError_t LaunchChaseTrace(const ChaseArgs& args, cudaStream_t stream) {
  return Launch<TracedChase>(args, stream);
}

}  // namespace dissect
