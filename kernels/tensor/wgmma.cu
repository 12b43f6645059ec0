// Warpgroup-level tensor-core probes: one kernel template, WgmmaKernel<Form,
// N, kARegs, kChains, kLatency, kFragments>, over the wgmma.mma_async (dense and 2:4
// sparse) forms of kWgmmaForms, N in kWgmmaNs, A from shared memory (descriptor) or from
// registers, the latency / throughput loop, and the A/B fragments the timed
// loop reads in turn (1: constant operands; kCyclingFragments). Only the instruction text
// differs between forms and N: WgmmaIssue<Form, N> holds it, written out by
// the macros below because inline asm needs one literal per operand count.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "kernels/occupancy.h"
#include "kernels/tensor/tensor_device.cuh"
#include "kernels/tensor/wgmma.h"

// wgmma exists only in sm_90a code; elsewhere the kernels report built = 0.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define DISSECT_WGMMA_BUILT 1
#else
#define DISSECT_WGMMA_BUILT 0
#endif

namespace dissect {
namespace {

struct WgF16F32 {
  using Acc = float;
  static constexpr bool kSparse = false;
};
struct WgBf16F32 {
  using Acc = float;
  static constexpr bool kSparse = false;
};
struct WgTf32F32 {
  using Acc = float;
  static constexpr bool kSparse = false;
};
struct WgE4m3F32 {
  using Acc = float;
  static constexpr bool kSparse = false;
};
struct WgE5m2F32 {
  using Acc = float;
  static constexpr bool kSparse = false;
};
struct WgS8S32 {
  using Acc = int32_t;
  static constexpr bool kSparse = false;
};
struct WgSpF16F32 {
  using Acc = float;
  static constexpr bool kSparse = true;
};
struct WgSpBf16F32 {
  using Acc = float;
  static constexpr bool kSparse = true;
};
struct WgSpTf32F32 {
  using Acc = float;
  static constexpr bool kSparse = true;
};
struct WgSpE4m3F32 {
  using Acc = float;
  static constexpr bool kSparse = true;
};
struct WgSpS8S32 {
  using Acc = int32_t;
  static constexpr bool kSparse = true;
};

template <typename Form, int N>
struct WgmmaIssue;

// clang-format off
// Operand placeholders "%0, %1, ..." of the accumulator list: DISSECT_Pn(t)
// names %t0 ... %t(n-1); the lists hold N / 2 registers.
#define DISSECT_P2(t) "%" #t "0, %" #t "1"
#define DISSECT_P4(t) DISSECT_P2(t) ", %" #t "2, %" #t "3"
#define DISSECT_P6(t) DISSECT_P4(t) ", %" #t "4, %" #t "5"
#define DISSECT_P8(t) DISSECT_P6(t) ", %" #t "6, %" #t "7"
#define DISSECT_P10(t) DISSECT_P8(t) ", %" #t "8, %" #t "9"
#define DISSECT_L4 DISSECT_P4()
#define DISSECT_L8 DISSECT_P8()
#define DISSECT_L16 DISSECT_P10() ", " DISSECT_P6(1)
#define DISSECT_L32 DISSECT_P10() ", " DISSECT_P10(1) ", " DISSECT_P10(2) ", " DISSECT_P2(3)
#define DISSECT_L64                                                               \
  DISSECT_P10() ", " DISSECT_P10(1) ", " DISSECT_P10(2) ", " DISSECT_P10(3) ", " \
      DISSECT_P10(4) ", " DISSECT_P10(5) ", " DISSECT_P4(6)
#define DISSECT_L128                                                              \
  DISSECT_P10() ", " DISSECT_P10(1) ", " DISSECT_P10(2) ", " DISSECT_P10(3) ", " \
      DISSECT_P10(4) ", " DISSECT_P10(5) ", " DISSECT_P10(6) ", " DISSECT_P10(7) \
      ", " DISSECT_P10(8) ", " DISSECT_P10(9) ", " DISSECT_P10(10) ", "          \
      DISSECT_P10(11) ", " DISSECT_P8(12)

// The matching read-write constraints "+f"(d[t0]) ... ("+r" for s32).
#define DISSECT_C2(c, t) "+" #c(d[t##0]), "+" #c(d[t##1])
#define DISSECT_C4(c, t) DISSECT_C2(c, t), "+" #c(d[t##2]), "+" #c(d[t##3])
#define DISSECT_C6(c, t) DISSECT_C4(c, t), "+" #c(d[t##4]), "+" #c(d[t##5])
#define DISSECT_C8(c, t) DISSECT_C6(c, t), "+" #c(d[t##6]), "+" #c(d[t##7])
#define DISSECT_C10(c, t) DISSECT_C8(c, t), "+" #c(d[t##8]), "+" #c(d[t##9])
#define DISSECT_CL4(c) DISSECT_C4(c, )
#define DISSECT_CL8(c) DISSECT_C8(c, )
#define DISSECT_CL16(c) DISSECT_C10(c, ), DISSECT_C6(c, 1)
#define DISSECT_CL32(c) DISSECT_C10(c, ), DISSECT_C10(c, 1), DISSECT_C10(c, 2), DISSECT_C2(c, 3)
#define DISSECT_CL64(c)                                                                  \
  DISSECT_C10(c, ), DISSECT_C10(c, 1), DISSECT_C10(c, 2), DISSECT_C10(c, 3),            \
      DISSECT_C10(c, 4), DISSECT_C10(c, 5), DISSECT_C4(c, 6)
#define DISSECT_CL128(c)                                                                 \
  DISSECT_C10(c, ), DISSECT_C10(c, 1), DISSECT_C10(c, 2), DISSECT_C10(c, 3),            \
      DISSECT_C10(c, 4), DISSECT_C10(c, 5), DISSECT_C10(c, 6), DISSECT_C10(c, 7),       \
      DISSECT_C10(c, 8), DISSECT_C10(c, 9), DISSECT_C10(c, 10), DISSECT_C10(c, 11),     \
      DISSECT_C8(c, 12)

// One form at one N: A from a descriptor (operand RA) or from four
// registers (RA ... RA3), B's descriptor after them; sparse forms then take
// the metadata register and sparsity selector 0. scale-d is 1 (D += A·B),
// then the form's immediates (scale-a, scale-b and, for f16/bf16, the
// transposes, all "none"). Every variant receives the metadata register as
// its last input; dense ones do not name it.
#define DISSECT_WG_DEFINE(FORM, N, OPCODE, SMEM_OPERANDS, REGS_OPERANDS, C, LIST, CONS) \
  template <>                                                                          \
  struct WgmmaIssue<FORM, N> {                                                        \
    using Acc = typename FORM::Acc;                                                    \
    __device__ static void Smem(Acc* d, uint64_t desc_a, uint64_t desc_b, uint32_t meta) { \
      asm volatile(OPCODE " {" LIST "}, " SMEM_OPERANDS ";"                            \
                   : CONS(C)                                                           \
                   : "l"(desc_a), "l"(desc_b), "r"(meta));                             \
    }                                                                                  \
    __device__ static void Regs(Acc* d, const uint32_t* a, uint64_t desc_b, uint32_t meta) { \
      asm volatile(OPCODE " {" LIST "}, " REGS_OPERANDS ";"                            \
                   : CONS(C)                                                           \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(meta)); \
    }                                                                                  \
  };

#define DISSECT_WG_DENSE(FORM, SUFFIX, TAIL_SMEM, TAIL_REGS, C, N, LIST, CONS, RA, RA1,   \
                         RA2, RA3, RA4, RA5)                                             \
  DISSECT_WG_DEFINE(FORM, N, "wgmma.mma_async.sync.aligned.m64n" #N SUFFIX,              \
                    RA ", " RA1 ", " TAIL_SMEM,                                          \
                    "{" RA ", " RA1 ", " RA2 ", " RA3 "}, " RA4 ", " TAIL_REGS, C, LIST,  \
                    CONS)

#define DISSECT_WG_SPARSE(FORM, SUFFIX, TAIL_SMEM, TAIL_REGS, C, N, LIST, CONS, RA, RA1,  \
                          RA2, RA3, RA4, RA5)                                            \
  DISSECT_WG_DEFINE(FORM, N, "wgmma.mma_async.sp.sync.aligned.m64n" #N SUFFIX,           \
                    RA ", " RA1 ", " RA2 ", 0, " TAIL_SMEM,                              \
                    "{" RA ", " RA1 ", " RA2 ", " RA3 "}, " RA4 ", " RA5 ", 0, " TAIL_REGS, \
                    C, LIST, CONS)

#define DISSECT_WG_N(N, LIST, CONS, ...)                                                  \
  DISSECT_WG_DENSE(WgF16F32, "k16.f32.f16.f16", "1, 1, 1, 0, 0", "1, 1, 1, 0", f, N, LIST, \
                   CONS, __VA_ARGS__)                                                    \
  DISSECT_WG_DENSE(WgBf16F32, "k16.f32.bf16.bf16", "1, 1, 1, 0, 0", "1, 1, 1, 0", f, N,  \
                   LIST, CONS, __VA_ARGS__)                                              \
  DISSECT_WG_DENSE(WgTf32F32, "k8.f32.tf32.tf32", "1, 1, 1", "1, 1, 1", f, N, LIST, CONS, \
                   __VA_ARGS__)                                                          \
  DISSECT_WG_DENSE(WgE4m3F32, "k32.f32.e4m3.e4m3", "1, 1, 1", "1, 1, 1", f, N, LIST, CONS, \
                   __VA_ARGS__)                                                          \
  DISSECT_WG_DENSE(WgE5m2F32, "k32.f32.e5m2.e5m2", "1, 1, 1", "1, 1, 1", f, N, LIST, CONS, \
                   __VA_ARGS__)                                                          \
  DISSECT_WG_DENSE(WgS8S32, "k32.s32.s8.s8", "1", "1", r, N, LIST, CONS, __VA_ARGS__)     \
  DISSECT_WG_SPARSE(WgSpF16F32, "k32.f32.f16.f16", "1, 1, 1, 0, 0", "1, 1, 1, 0", f, N,  \
                    LIST, CONS, __VA_ARGS__)                                             \
  DISSECT_WG_SPARSE(WgSpBf16F32, "k32.f32.bf16.bf16", "1, 1, 1, 0, 0", "1, 1, 1, 0", f,  \
                    N, LIST, CONS, __VA_ARGS__)                                          \
  DISSECT_WG_SPARSE(WgSpTf32F32, "k16.f32.tf32.tf32", "1, 1, 1", "1, 1, 1", f, N, LIST,  \
                    CONS, __VA_ARGS__)                                                   \
  DISSECT_WG_SPARSE(WgSpE4m3F32, "k64.f32.e4m3.e4m3", "1, 1, 1", "1, 1, 1", f, N, LIST,  \
                    CONS, __VA_ARGS__)                                                   \
  DISSECT_WG_SPARSE(WgSpS8S32, "k64.s32.s8.s8", "1", "1", r, N, LIST, CONS, __VA_ARGS__)

DISSECT_WG_N(8, DISSECT_L4, DISSECT_CL4, "%4", "%5", "%6", "%7", "%8", "%9")
DISSECT_WG_N(16, DISSECT_L8, DISSECT_CL8, "%8", "%9", "%10", "%11", "%12", "%13")
DISSECT_WG_N(32, DISSECT_L16, DISSECT_CL16, "%16", "%17", "%18", "%19", "%20", "%21")
DISSECT_WG_N(64, DISSECT_L32, DISSECT_CL32, "%32", "%33", "%34", "%35", "%36", "%37")
DISSECT_WG_N(128, DISSECT_L64, DISSECT_CL64, "%64", "%65", "%66", "%67", "%68", "%69")
DISSECT_WG_N(256, DISSECT_L128, DISSECT_CL128, "%128", "%129", "%130", "%131", "%132", "%133")

#undef DISSECT_WG_N
#undef DISSECT_WG_SPARSE
#undef DISSECT_WG_DENSE
#undef DISSECT_WG_DEFINE
// clang-format on

__device__ __forceinline__ void WgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void WgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void WgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// Tells the compiler that the accumulators may have changed (an async
// wgmma wrote them): nothing is emitted.
template <typename Acc, int kCount>
__device__ __forceinline__ void TouchAccumulators(Acc (&d)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) {
    if constexpr (std::is_same_v<Acc, float>) {
      asm volatile("" : "+f"(d[i])::"memory");
    } else {
      asm volatile("" : "+r"(d[i])::"memory");
    }
  }
}

// Descriptor of a canonical K-major, no-swizzle tile at `tile` (shared)
// whose rows hold `row_bytes`: 8-row groups are 8 × row_bytes apart.
__device__ __forceinline__ uint64_t TileDescriptor(const void* tile, int row_bytes) {
  const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  return static_cast<uint64_t>((address & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>(kWgmmaLeadingByteOffset >> 4) << 16) |
         (static_cast<uint64_t>((8 * row_bytes) >> 4) << 32);
}

__device__ __forceinline__ uint32_t WordOf(float v) { return __float_as_uint(v); }
__device__ __forceinline__ uint32_t WordOf(int32_t v) { return static_cast<uint32_t>(v); }

// One warpgroup per block; every chain starts from zero with kFragments
// untimed wgmma (UntimedSteps) before the first clock read. Fragment f is
// the A tile and the B tile that start f row groups (8 rows, the stride
// byte offset) into their shared-memory images (WgmmaImageRows), and A's
// registers of fragment f when A comes from registers; step u of chain c
// reads fragment (u + c) % kFragments, so with kCyclingFragments
// consecutive wgmma read different A and B (other descriptors, other A
// registers), and every chain reads each fragment once per loop trip. The
// descriptors are computed before the clock starts, and the loop unrolls
// over the fragments, so choosing one costs no instruction in the loop. Latency: every wgmma is
// committed and waited for before the next (one chain). Throughput: each loop trip issues
// kWgmmaUnroll steps over kChains accumulators, commits them as one group
// and waits until at most one group is in flight.
// ptxas notes "C7519 warpgroup.arrive is injected" for these kernels: it puts
// a wgmma.fence at the top of each trip (throughput) or before each wgmma
// (latency), where CUTLASS's main loops put theirs (checked in the SASS).
// Written out here, the fences let ptxas unroll the latency loop further,
// which would break the per-trip instruction counts the SASS test checks.
// In throughput kernels ptxas also sees that the chains' untimed steps are
// the same product (same operands, zero accumulators), issues it once and
// copies the result ("C7517 warpgroup.wait is injected" for the copies):
// all before the first clock read, and the timed loop keeps every wgmma
// (//experiments/tensor:sass_test).
// The kernel stays one function of about 100 lines: the fences, the commit
// groups and the clock reads must sit in one body for ptxas to place them as
// described above, and the SASS test reads that body's loop.
template <typename Form, int N, bool kARegs, int kChains, bool kLatency, int kFragments>
__global__ void __launch_bounds__(kWarpgroupThreads)
    WgmmaKernel(const uint8_t* __restrict__ a_tile, const uint8_t* __restrict__ b_tile,
                const uint32_t* __restrict__ a_fragments, const uint32_t* __restrict__ metadata,
                int iterations, uint32_t* __restrict__ out, TensorTiming* __restrict__ timing) {
  static_assert(kWgmmaUnroll % kFragments == 0, "a loop trip reads every fragment equally often");
  constexpr int kAccRegs = N / 2;
  constexpr int kABytes = WgmmaImageRows(kWgmmaM, kFragments) * kWgmmaRowBytes;
  constexpr int kBRowBytes = Form::kSparse ? 2 * kWgmmaRowBytes : kWgmmaRowBytes;
  constexpr int kBBytes = WgmmaImageRows(N, kFragments) * kBRowBytes;
  __shared__ alignas(128) uint8_t tiles[kABytes + kBBytes];
  const int tid = threadIdx.x;
  if constexpr (!DISSECT_WGMMA_BUILT) {
    if (tid == 0) timing[blockIdx.x] = TensorTiming{0, 0, ReadSmId(), 0};
  } else {
    for (int i = tid; i < kABytes / 16; i += kWarpgroupThreads) {
      reinterpret_cast<uint4*>(tiles)[i] = reinterpret_cast<const uint4*>(a_tile)[i];
    }
    for (int i = tid; i < kBBytes / 16; i += kWarpgroupThreads) {
      reinterpret_cast<uint4*>(tiles + kABytes)[i] = reinterpret_cast<const uint4*>(b_tile)[i];
    }
    uint32_t a[kFragments][kWgmmaARegs];
#pragma unroll
    for (int f = 0; f < kFragments; ++f) {
#pragma unroll
      for (int i = 0; i < kWgmmaARegs; ++i) {
        a[f][i] = a_fragments[(f * kWarpgroupThreads + tid) * kWgmmaARegs + i];
      }
    }
    const uint32_t meta = metadata != nullptr ? metadata[tid] : 0;
    // Make the generic-proxy stores visible to the tensor cores' async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    uint64_t desc_a[kFragments], desc_b[kFragments];
#pragma unroll
    for (int f = 0; f < kFragments; ++f) {
      desc_a[f] = TileDescriptor(tiles + f * 8 * kWgmmaRowBytes, kWgmmaRowBytes);
      desc_b[f] = TileDescriptor(tiles + kABytes + f * 8 * kBRowBytes, kBRowBytes);
    }
    using Acc = typename Form::Acc;
    Acc acc[kChains][kAccRegs];
    const auto issue = [&](Acc(&d)[kAccRegs], int f) {
      if constexpr (kARegs) {
        WgmmaIssue<Form, N>::Regs(d, a[f], desc_b[f], meta);
      } else {
        WgmmaIssue<Form, N>::Smem(d, desc_a[f], desc_b[f], meta);
      }
    };
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
#pragma unroll
      for (int r = 0; r < kAccRegs; ++r) acc[c][r] = 0;
      // Pins the zeroing moves before the fence: without it NVVM may sink
      // them below wgmma.fence, and only ptxas's injected
      // WARPGROUP.ARRIVE would make the wgmma read them correctly.
      TouchAccumulators(acc[c]);
    }
    WgmmaFence();
    // The untimed steps (UntimedSteps), committed and waited for: every A
    // fragment and the zeroed accumulators are consumed, and the
    // accumulators written, before the clock starts.
#pragma unroll
    for (int u = 0; u < kFragments; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) issue(acc[c], (u + c) % kFragments);
    }
    WgmmaCommit();
    WgmmaWait<0>();
#pragma unroll
    for (int c = 0; c < kChains; ++c) TouchAccumulators(acc[c]);
    const uint64_t start = ReadClock64();
#pragma unroll 1
    for (int i = 0; i < iterations; i += kWgmmaUnroll) {
#pragma unroll
      for (int u = 0; u < kWgmmaUnroll; ++u) {
#pragma unroll
        for (int c = 0; c < kChains; ++c) {
          issue(acc[c], (u + c) % kFragments);
          if constexpr (kLatency) {
            WgmmaCommit();
            WgmmaWait<0>();
            TouchAccumulators(acc[c]);
          }
        }
      }
      if constexpr (!kLatency) {
        WgmmaCommit();
        WgmmaWait<1>();
      }
    }
    WgmmaWait<0>();
#pragma unroll
    for (int c = 0; c < kChains; ++c) TouchAccumulators(acc[c]);
    const uint64_t stop = ReadClock64();
#pragma unroll
    for (int e = 0; e < kAccRegs; ++e) {
      Acc sum = 0;
#pragma unroll
      for (int c = 0; c < kChains; ++c) sum += acc[c][e];
      out[(static_cast<size_t>(blockIdx.x) * kWarpgroupThreads + tid) * kAccRegs + e] = WordOf(sum);
    }
    if (tid == 0) timing[blockIdx.x] = TensorTiming{start, stop, ReadSmId(), 1};
  }
}

template <typename F>
cudaError_t DispatchForm(WgmmaForm form, F&& f) {
  switch (form) {
    case WgmmaForm::kF16F32:
      return f(WgF16F32{});
    case WgmmaForm::kBf16F32:
      return f(WgBf16F32{});
    case WgmmaForm::kTf32F32:
      return f(WgTf32F32{});
    case WgmmaForm::kE4m3F32:
      return f(WgE4m3F32{});
    case WgmmaForm::kE5m2F32:
      return f(WgE5m2F32{});
    case WgmmaForm::kS8S32:
      return f(WgS8S32{});
    case WgmmaForm::kSpF16F32:
      return f(WgSpF16F32{});
    case WgmmaForm::kSpBf16F32:
      return f(WgSpBf16F32{});
    case WgmmaForm::kSpTf32F32:
      return f(WgSpTf32F32{});
    case WgmmaForm::kSpE4m3F32:
      return f(WgSpE4m3F32{});
    case WgmmaForm::kSpS8S32:
      return f(WgSpS8S32{});
  }
  return cudaErrorInvalidValue;
}

template <typename F>
cudaError_t DispatchN(int n, F&& f) {
  switch (n) {
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    case 32:
      return f(std::integral_constant<int, 32>{});
    case 64:
      return f(std::integral_constant<int, 64>{});
    case 128:
      return f(std::integral_constant<int, 128>{});
    case 256:
      return f(std::integral_constant<int, 256>{});
    default:
      return cudaErrorInvalidValue;
  }
}

template <typename F>
cudaError_t DispatchFragments(TensorOperands operands, F&& f) {
  return operands == TensorOperands::kCycling
             ? f(std::integral_constant<int, kCyclingFragments>{})
             : f(std::integral_constant<int, 1>{});
}

constexpr int ThroughputChains(int n) { return std::min(4, std::max(1, 256 / n)); }

// Calls f(kernel) with the kernel of `args`.
template <typename F>
cudaError_t WithKernel(const WgmmaArgs& args, F&& f) {
  return DispatchForm(args.form, [&](auto form) {
    using Form = decltype(form);
    return DispatchN(args.n, [&](auto n_constant) {
      constexpr int N = decltype(n_constant)::value;
      return DispatchFragments(args.operands, [&](auto fragments_constant) {
        constexpr int kFragments = decltype(fragments_constant)::value;
        constexpr int kChains = ThroughputChains(N);
        if (args.mode == TensorMode::kLatency) {
          return args.a_from_registers ? f(WgmmaKernel<Form, N, true, 1, true, kFragments>)
                                       : f(WgmmaKernel<Form, N, false, 1, true, kFragments>);
        }
        return args.a_from_registers ? f(WgmmaKernel<Form, N, true, kChains, false, kFragments>)
                                     : f(WgmmaKernel<Form, N, false, kChains, false, kFragments>);
      });
    });
  });
}

}  // namespace

const WgmmaFormInfo& WgmmaInfo(WgmmaForm form) {
  for (const WgmmaFormInfo& info : kWgmmaForms) {
    if (info.form == form) return info;
  }
  return kWgmmaForms[0];
}

int WgmmaChains(TensorMode mode, int n) {
  return mode == TensorMode::kLatency ? 1 : ThroughputChains(n);
}

cudaError_t WgmmaGrid(const WgmmaArgs& args, int* blocks) {
  if (args.mode == TensorMode::kLatency) {
    return DispatchN(args.n, [&](auto) {
      *blocks = 1;
      return cudaSuccess;
    });
  }
  return WithKernel(args, [&](auto kernel) {
    return ResidentBlocksOnDevice(reinterpret_cast<const void*>(kernel), kWarpgroupThreads, blocks);
  });
}

cudaError_t LaunchWgmma(const WgmmaArgs& args, cudaStream_t stream) {
  if (args.iterations < kWgmmaUnroll || args.iterations % kWgmmaUnroll != 0 || args.blocks < 1 ||
      args.a_tile == nullptr || args.b_tile == nullptr || args.a_fragments == nullptr ||
      args.out == nullptr || args.timing == nullptr ||
      (WgmmaInfo(args.form).sparse && args.metadata == nullptr)) {
    return cudaErrorInvalidValue;
  }
  return WithKernel(args, [&](auto kernel) {
    kernel<<<args.blocks, kWarpgroupThreads, 0, stream>>>(args.a_tile, args.b_tile,
                                                          args.a_fragments, args.metadata,
                                                          args.iterations, args.out, args.timing);
    return cudaGetLastError();
  });
}

}  // namespace dissect
