// Warp-level tensor-core probes: one kernel template, MmaSyncKernel<Form,
// kChains, kFragments>, over the mma.sync and mma.sp forms of kMmaForms
// (shape, types and sparsity live in the Form trait), the number of
// independent accumulator chains per warp (1 for latency,
// kMmaThroughputChains for throughput) and the A/B fragments the timed
// loop reads in turn (1: constant operands; kCyclingFragments).
#include <algorithm>

#include "kernels/tensor/mma_sync.h"
#include "kernels/occupancy.h"
#include "kernels/tensor/tensor_device.cuh"

namespace dissect {
namespace {

// One mma.sync with A in four registers, B in two, and four f32
// accumulators that are both C and D.
#define DISSECT_MMA_F32_ACC(INSTR)                               \
  asm volatile(INSTR                                             \
               " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, " \
               "{%0, %1, %2, %3};"                               \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])  \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

// One mma.sp with A in four registers (K / 2 stored elements), B in four,
// four f32 accumulators, the metadata register and sparsity selector 0.
#define DISSECT_MMA_SP_F32_ACC(INSTR)                                                         \
  asm volatile(INSTR                                                                          \
               " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "                    \
               "{%0, %1, %2, %3}, %12, 0x0;"                                                  \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), \
                 "r"(b[3]), "r"(meta))

// Accumulator conventions: Acc is the register type, kCRegs registers per
// lane, Widen(acc, e) turns accumulator element e into the host-visible
// type (float or int32_t) that the epilogue sums over chains.
struct F32Accumulator {
  static constexpr int kThroughputChains = kMmaThroughputChains;
  using Acc = float;
  using Wide = float;
  static constexpr int kCRegs = 4;
  __device__ static float Widen(const float* acc, int e) { return acc[e]; }
};

struct F16Accumulator {
  static constexpr int kThroughputChains = kMmaThroughputChains;
  using Acc = uint32_t;  // f16x2
  using Wide = float;
  static constexpr int kCRegs = 2;
  __device__ static float Widen(const uint32_t* acc, int e) {
    return AccumulatorAsFloat<uint32_t>(acc, e);
  }
};

struct S32Accumulator {
  static constexpr int kThroughputChains = kMmaThroughputChains;
  using Acc = int32_t;
  using Wide = int32_t;
  static constexpr int kCRegs = 4;
  __device__ static int32_t Widen(const int32_t* acc, int e) { return acc[e]; }
};

struct F16F32 : F32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 2;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              uint32_t) {
    DISSECT_MMA_F32_ACC("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  }
};

struct F16F16 : F16Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 2;
  __device__ static void Step(uint32_t (&d)[2], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              uint32_t) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
        " {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
        : "+r"(d[0]), "+r"(d[1])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

struct Bf16F32 : F32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 2;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              uint32_t) {
    DISSECT_MMA_F32_ACC("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
  }
};

struct Tf32F32 : F32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 2;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              uint32_t) {
    DISSECT_MMA_F32_ACC("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
  }
};

struct S8S32 : S32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 2;
  __device__ static void Step(int32_t (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              uint32_t) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
        " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// fp8 mma.sync exists from sm_89 on; on older targets the kernel reports
// built = 0 and never reaches Step, which nvcc would then warn of as
// declared but never referenced (#177) in every sm_80/sm_86 pass.
#pragma nv_diag_suppress 177
struct E4m3F32 : F32Accumulator {
  static constexpr int kMinArch = 89;
  static constexpr int kBRegs = 2;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              uint32_t) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    DISSECT_MMA_F32_ACC("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
#endif
  }
};

struct E5m2F32 : F32Accumulator {
  static constexpr int kMinArch = 89;
  static constexpr int kBRegs = 2;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                              uint32_t) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    DISSECT_MMA_F32_ACC("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32");
#endif
  }
};
#pragma nv_diag_default 177

// Sparse forms: B in four registers and one metadata register.
struct SpF16F32 : F32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 4;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[4],
                              uint32_t meta) {
    DISSECT_MMA_SP_F32_ACC(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32");
  }
};

struct SpBf16F32 : F32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 4;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[4],
                              uint32_t meta) {
    DISSECT_MMA_SP_F32_ACC(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32");
  }
};

struct SpTf32F32 : F32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 4;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[4],
                              uint32_t meta) {
    DISSECT_MMA_SP_F32_ACC(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32");
  }
};

struct SpS8S32 : S32Accumulator {
  static constexpr int kMinArch = 80;
  static constexpr int kBRegs = 4;
  __device__ static void Step(int32_t (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[4],
                              uint32_t meta) {
    asm volatile(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32"
        " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, "
        "0x0;"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
          "r"(meta));
  }
};

// fp8 as above: unreferenced below sm_89.
#pragma nv_diag_suppress 177
struct SpE4m3F32 : F32Accumulator {
  static constexpr int kMinArch = 89;
  static constexpr int kBRegs = 4;
  static constexpr int kThroughputChains = 2;
  __device__ static void Step(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[4],
                              uint32_t meta) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    DISSECT_MMA_SP_F32_ACC(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32");
#endif
  }
};
#pragma nv_diag_default 177

#undef DISSECT_MMA_SP_F32_ACC
#undef DISSECT_MMA_F32_ACC

__device__ __forceinline__ uint32_t WordOf(float v) { return __float_as_uint(v); }
__device__ __forceinline__ uint32_t WordOf(int32_t v) { return static_cast<uint32_t>(v); }

// kSteps steps of every chain, step u of chain c reading fragment
// (u + c) % kFragments: all indices are compile-time constants, so the
// fragments stay in registers and choosing one costs no instruction.
template <typename Form, int kSteps, int kChains, int kFragments>
__device__ __forceinline__ void Steps(typename Form::Acc (&acc)[kChains][Form::kCRegs],
                                      const uint32_t (&a)[kFragments][4],
                                      const uint32_t (&b)[kFragments][Form::kBRegs],
                                      uint32_t meta) {
#pragma unroll
  for (int u = 0; u < kSteps; ++u) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      const int f = (u + c) % kFragments;
      Form::Step(acc[c], a[f], b[f], meta);
    }
  }
}

// Every chain of every warp computes D += A·B from zero, kFragments
// untimed steps (one per fragment, before the first clock read) and then
// `iterations` timed ones. The steps of a chain depend on each other
// through the accumulator; the chains do not depend on each other. The asm
// is volatile, so that chains with identical inputs are not merged.
// kFragments = 1: every step reads the warp's one A and B fragment.
// kFragments = kCyclingFragments: each lane holds that many fragments in
// registers and step u of chain c reads fragment (u + c) % kFragments
// (Steps), so consecutive mma of a warp read different A and B, and every
// chain reads each fragment once per loop trip.
template <typename Form, int kChains, int kFragments>
__global__ void __launch_bounds__(kMmaThreads)
    MmaSyncKernel(const uint32_t* __restrict__ a_in, const uint32_t* __restrict__ b_in,
                  const uint32_t* __restrict__ meta_in, int iterations, uint32_t* __restrict__ out,
                  TensorTiming* __restrict__ timing) {
  static_assert(kMmaUnroll % kFragments == 0, "a loop trip reads every fragment equally often");
  const int lane = threadIdx.x % 32;
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if constexpr (!ArchAtLeast(Form::kMinArch)) {
    if (lane == 0) timing[warp] = TensorTiming{0, 0, ReadSmId(), 0};
  } else {
    uint32_t a[kFragments][4];
    uint32_t b[kFragments][Form::kBRegs];
#pragma unroll
    for (int f = 0; f < kFragments; ++f) {
#pragma unroll
      for (int i = 0; i < 4; ++i) a[f][i] = a_in[(f * 32 + lane) * 4 + i];
#pragma unroll
      for (int i = 0; i < Form::kBRegs; ++i) {
        b[f][i] = b_in[(f * 32 + lane) * Form::kBRegs + i];
      }
    }
    const uint32_t meta = meta_in != nullptr ? meta_in[lane] : 0;
    typename Form::Acc acc[kChains][Form::kCRegs];
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
#pragma unroll
      for (int r = 0; r < Form::kCRegs; ++r) acc[c][r] = 0;
    }
    // The untimed steps (UntimedSteps): they consume every loaded fragment
    // and the zeroed accumulators, so both are done before the clock starts.
    Steps<Form, kFragments>(acc, a, b, meta);
    __syncwarp();
    const uint64_t start = ReadClock64();
#pragma unroll 1
    for (int i = 0; i < iterations; i += kMmaUnroll) Steps<Form, kMmaUnroll>(acc, a, b, meta);
    const uint64_t stop = ReadClock64();
#pragma unroll
    for (int e = 0; e < kMmaAccElements; ++e) {
      typename Form::Wide sum = 0;
#pragma unroll
      for (int c = 0; c < kChains; ++c) sum += Form::Widen(acc[c], e);
      out[(static_cast<size_t>(warp) * 32 + lane) * kMmaAccElements + e] = WordOf(sum);
    }
    if (lane == 0) timing[warp] = TensorTiming{start, stop, ReadSmId(), 1};
  }
}

// Calls f(Form{}) for the trait of `form`.
template <typename F>
cudaError_t DispatchForm(MmaForm form, F&& f) {
  switch (form) {
    case MmaForm::kF16F32:
      return f(F16F32{});
    case MmaForm::kF16F16:
      return f(F16F16{});
    case MmaForm::kBf16F32:
      return f(Bf16F32{});
    case MmaForm::kTf32F32:
      return f(Tf32F32{});
    case MmaForm::kS8S32:
      return f(S8S32{});
    case MmaForm::kE4m3F32:
      return f(E4m3F32{});
    case MmaForm::kE5m2F32:
      return f(E5m2F32{});
    case MmaForm::kSpF16F32:
      return f(SpF16F32{});
    case MmaForm::kSpBf16F32:
      return f(SpBf16F32{});
    case MmaForm::kSpTf32F32:
      return f(SpTf32F32{});
    case MmaForm::kSpS8S32:
      return f(SpS8S32{});
    case MmaForm::kSpE4m3F32:
      return f(SpE4m3F32{});
  }
  return cudaErrorInvalidValue;
}

// The kernel of (form, mode, operands) as a function pointer.
template <typename F>
cudaError_t WithKernel(MmaForm form, TensorMode mode, TensorOperands operands, F&& f) {
  return DispatchForm(form, [&](auto trait) {
    using Form = decltype(trait);
    constexpr int kCycling = kCyclingFragments;
    if (mode == TensorMode::kLatency) {
      return operands == TensorOperands::kCycling ? f(MmaSyncKernel<Form, 1, kCycling>)
                                                  : f(MmaSyncKernel<Form, 1, 1>);
    }
    constexpr int kChains = Form::kThroughputChains;
    return operands == TensorOperands::kCycling ? f(MmaSyncKernel<Form, kChains, kCycling>)
                                                : f(MmaSyncKernel<Form, kChains, 1>);
  });
}

}  // namespace

int ElementBits(TensorElement e) {
  switch (e) {
    case TensorElement::kF16:
    case TensorElement::kBf16:
      return 16;
    case TensorElement::kE4m3:
    case TensorElement::kE5m2:
    case TensorElement::kS8:
      return 8;
    case TensorElement::kTf32:
    case TensorElement::kF32:
    case TensorElement::kS32:
      return 32;
  }
  return 0;
}

const MmaFormInfo& MmaInfo(MmaForm form) {
  for (const MmaFormInfo& info : kMmaForms) {
    if (info.form == form) return info;
  }
  return kMmaForms[0];
}

int MmaSyncChains(MmaForm form, TensorMode mode) {
  if (mode == TensorMode::kLatency) return 1;
  int chains = 0;
  DispatchForm(form, [&](auto trait) {
    chains = decltype(trait)::kThroughputChains;
    return cudaSuccess;
  });
  return chains;
}

cudaError_t MmaSyncGrid(MmaForm form, TensorMode mode, TensorOperands operands, int* blocks,
                        int* threads) {
  if (mode == TensorMode::kLatency) {
    *blocks = 1;
    *threads = 32;
    return cudaSuccess;
  }
  *threads = kMmaThreads;
  return WithKernel(form, mode, operands, [&](auto kernel) {
    return ResidentBlocksOnDevice(reinterpret_cast<const void*>(kernel), kMmaThreads, blocks);
  });
}

cudaError_t LaunchMmaSync(const MmaSyncArgs& args, cudaStream_t stream) {
  if (args.iterations < kMmaUnroll || args.iterations % kMmaUnroll != 0 || args.blocks < 1 ||
      args.threads < 32 || args.threads % 32 != 0 || args.a == nullptr || args.b == nullptr ||
      args.out == nullptr || args.timing == nullptr ||
      (MmaInfo(args.form).sparse && args.metadata == nullptr)) {
    return cudaErrorInvalidValue;
  }
  return WithKernel(args.form, args.mode, args.operands, [&](auto kernel) {
    kernel<<<args.blocks, args.threads, 0, stream>>>(args.a, args.b, args.metadata, args.iterations,
                                                     args.out, args.timing);
    return cudaGetLastError();
  });
}

}  // namespace dissect
