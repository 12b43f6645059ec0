// Load<Op>(p): one global load of a float or int32 with the cache behaviour
// `Op` (see cache_load.h). Kernels are written once against Load<Op>; the
// build compiles them once per Op.
//
// Every Op is one `ld.global` instruction in PTX, emitted as volatile inline
// assembly: the __ldca/__ldcg/__ldcs/__ldlu/__ldcv intrinsics for the cache
// operators (CUDA's headers write them so), and asm of the same form for the
// plain load and the L1 eviction-priority hints. Every variant therefore has
// the same instruction stream; only the load's qualifier differs. kDefault
// is what nvcc emits for a plain load through a non-restrict pointer, so
// `-Xptxas -dlcm=cg` (which rewrites exactly those loads) applies to it.
#ifndef DISSECT_KERNELS_LAYERS_CACHE_LOAD_CUH_
#define DISSECT_KERNELS_LAYERS_CACHE_LOAD_CUH_

#include <cstdint>

#include "kernels/layers/cache_load.h"

namespace dissect {

template <LoadOp Op>
struct CacheLoad;

// An Op spelled as a PTX qualifier in inline assembly.
#define DISSECT_ASM_CACHE_LOAD(op, qualifier)                                 \
  template <>                                                                 \
  struct CacheLoad<op> {                                                      \
    static __device__ __forceinline__ float Get(const float* p) {             \
      float v;                                                                \
      asm volatile("ld.global" qualifier ".f32 %0, [%1];" : "=f"(v) : "l"(p)); \
      return v;                                                               \
    }                                                                         \
    static __device__ __forceinline__ int32_t Get(const int32_t* p) {         \
      int32_t v;                                                              \
      asm volatile("ld.global" qualifier ".s32 %0, [%1];" : "=r"(v) : "l"(p)); \
      return v;                                                               \
    }                                                                         \
  }

// An Op that CUDA provides as an intrinsic.
#define DISSECT_INTRINSIC_CACHE_LOAD(op, intrinsic)                        \
  template <>                                                              \
  struct CacheLoad<op> {                                                   \
    static __device__ __forceinline__ float Get(const float* p) {          \
      return intrinsic(p);                                                 \
    }                                                                      \
    static __device__ __forceinline__ int32_t Get(const int32_t* p) {      \
      return intrinsic(p);                                                 \
    }                                                                      \
  }

DISSECT_ASM_CACHE_LOAD(LoadOp::kDefault, "");
DISSECT_INTRINSIC_CACHE_LOAD(LoadOp::kCa, __ldca);
DISSECT_INTRINSIC_CACHE_LOAD(LoadOp::kCg, __ldcg);
DISSECT_INTRINSIC_CACHE_LOAD(LoadOp::kCs, __ldcs);
DISSECT_INTRINSIC_CACHE_LOAD(LoadOp::kLu, __ldlu);
DISSECT_INTRINSIC_CACHE_LOAD(LoadOp::kCv, __ldcv);
// Eviction-priority hints exist from sm_70 (PTX ISA 7.4). Device code built
// for older targets gets the plain load; the experiment skips these variants
// on such devices (LoadOpMinComputeCapability), so it is never measured.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
DISSECT_ASM_CACHE_LOAD(LoadOp::kL1NoAllocate, ".L1::no_allocate");
DISSECT_ASM_CACHE_LOAD(LoadOp::kL1EvictFirst, ".L1::evict_first");
DISSECT_ASM_CACHE_LOAD(LoadOp::kL1EvictLast, ".L1::evict_last");
#else
DISSECT_ASM_CACHE_LOAD(LoadOp::kL1NoAllocate, "");
DISSECT_ASM_CACHE_LOAD(LoadOp::kL1EvictFirst, "");
DISSECT_ASM_CACHE_LOAD(LoadOp::kL1EvictLast, "");
#endif

#undef DISSECT_ASM_CACHE_LOAD
#undef DISSECT_INTRINSIC_CACHE_LOAD

template <LoadOp Op, typename T>
__device__ __forceinline__ T Load(const T* p) {
  return CacheLoad<Op>::Get(p);
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_LAYERS_CACHE_LOAD_CUH_
