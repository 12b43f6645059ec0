// The cache behaviours a global load can ask for (host and device). One
// kernel source is compiled once per LoadOp (see kernels/layers/BUILD), and
// every global load of its kernels goes through Load<Op> (cache_load.cuh).
#ifndef DISSECT_KERNELS_LAYERS_CACHE_LOAD_H_
#define DISSECT_KERNELS_LAYERS_CACHE_LOAD_H_

namespace dissect {

enum class LoadOp {
  kDefault,       // ld.global            (nvcc's plain load; L1 and L2)
  kCa,            // ld.global.ca         __ldca: cache at all levels
  kCg,            // ld.global.cg         __ldcg: cache in L2, not L1
  kCs,            // ld.global.cs         __ldcs: evict-first streaming
  kLu,            // ld.global.lu         __ldlu: last use
  kCv,            // ld.global.cv         __ldcv: do not cache, fetch again
  kL1NoAllocate,  // ld.global.L1::no_allocate   (sm_70+)
  kL1EvictFirst,  // ld.global.L1::evict_first   (sm_70+)
  kL1EvictLast,   // ld.global.L1::evict_last    (sm_70+)
};

// The qualifier the PTX `ld.global` of `op` carries, with its leading dot
// ("" for kDefault): ld.global<qualifier>.f32.
constexpr const char* LoadOpPtxQualifier(LoadOp op) {
  switch (op) {
    case LoadOp::kDefault:
      return "";
    case LoadOp::kCa:
      return ".ca";
    case LoadOp::kCg:
      return ".cg";
    case LoadOp::kCs:
      return ".cs";
    case LoadOp::kLu:
      return ".lu";
    case LoadOp::kCv:
      return ".cv";
    case LoadOp::kL1NoAllocate:
      return ".L1::no_allocate";
    case LoadOp::kL1EvictFirst:
      return ".L1::evict_first";
    case LoadOp::kL1EvictLast:
      return ".L1::evict_last";
  }
  return "";
}

// The lowest compute capability (major * 10 + minor) whose PTX has `op`.
constexpr int LoadOpMinComputeCapability(LoadOp op) {
  return op == LoadOp::kL1NoAllocate || op == LoadOp::kL1EvictFirst || op == LoadOp::kL1EvictLast
             ? 70
             : 0;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_LAYERS_CACHE_LOAD_H_
