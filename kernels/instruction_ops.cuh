// The op functors of the instruction kernels (kernels/instruction_ops.cu):
// one chain step each, x = op(x, a, b), on bit patterns. Each is one inline
// PTX instruction whose result is the next step's input, so steps cannot
// overlap (latency) and ptxas, which sees neither the operands' values
// (kernel arguments) nor a way to combine two steps, emits one machine
// instruction per step; the SASS tests (experiments/instructions/sass_test)
// check that it did.
#ifndef DISSECT_KERNELS_INSTRUCTION_OPS_CUH_
#define DISSECT_KERNELS_INSTRUCTION_OPS_CUH_

#include <cstdint>

#include "kernels/instruction_ops.h"

namespace dissect {

struct FfmaOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    float v = __uint_as_float(x);
    asm volatile("fma.rn.f32 %0, %0, %1, %2;"
                 : "+f"(v)
                 : "f"(__uint_as_float(a)), "f"(__uint_as_float(b)));
    return __float_as_uint(v);
  }
};

struct FaddOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    float v = __uint_as_float(x);
    asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(v) : "f"(__uint_as_float(a)));
    return __float_as_uint(v);
  }
};

struct FmulOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    float v = __uint_as_float(x);
    asm volatile("mul.rn.f32 %0, %0, %1;" : "+f"(v) : "f"(__uint_as_float(a)));
    return __float_as_uint(v);
  }
};

// Two halves per register: one HFMA2 does two fp16 FMAs.
struct Hfma2Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

struct DfmaOp {
  using Bits = unsigned long long;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    double v = __longlong_as_double(static_cast<long long>(x));
    asm volatile("fma.rn.f64 %0, %0, %1, %2;"
                 : "+d"(v)
                 : "d"(__longlong_as_double(static_cast<long long>(a))),
                   "d"(__longlong_as_double(static_cast<long long>(b))));
    return static_cast<Bits>(__double_as_longlong(v));
  }
};

struct ImadOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

// PTX has no three-input add: ptxas merges the two adds into one IADD3
// (x + a + x). With two operands (x + a + b) it does not on sm_80 to sm_89,
// where both come from the constant bank and one IADD3 reads one of them.
struct Iadd3Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("{\n\t.reg .u32 t;\n\tadd.u32 t, %0, %1;\n\tadd.u32 %0, t, %0;\n\t}"
                 : "+r"(x)
                 : "r"(a));
    return x;
  }
};

// 0x96: a ^ b ^ c.
struct Lop3Op {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits b) const {
    asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(a), "r"(b));
    return x;
  }
};

// A funnel shift of x with itself: a rotation by a (mod 32).
struct ShfOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits a, Bits) const {
    asm volatile("shf.l.wrap.b32 %0, %0, %0, %1;" : "+r"(x) : "r"(a));
    return x;
  }
};

struct PopcOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("popc.b32 %0, %0;" : "+r"(x));
    return x;
  }
};

// bfind.shiftamt: the shift that brings the highest set bit to bit 31,
// which is the count of leading zeros for x != 0 (0xffffffff for 0). One
// FLO.U32.SH; clz.b32 compiles to FLO.U32 and an IADD3 (31 - position).
struct ClzOp {
  using Bits = uint32_t;
  __device__ __forceinline__ Bits operator()(Bits x, Bits, Bits) const {
    asm volatile("bfind.shiftamt.u32 %0, %0;" : "+r"(x));
    return x;
  }
};

// Calls f(Op{}) with the functor of `op`; cudaErrorInvalidValue for an op
// without one.
template <class F>
__host__ cudaError_t WithInstructionOp(InstructionOp op, F&& f) {
  switch (op) {
    case InstructionOp::kFfma:
      return f(FfmaOp{});
    case InstructionOp::kFadd:
      return f(FaddOp{});
    case InstructionOp::kFmul:
      return f(FmulOp{});
    case InstructionOp::kHfma2:
      return f(Hfma2Op{});
    case InstructionOp::kDfma:
      return f(DfmaOp{});
    case InstructionOp::kImad:
      return f(ImadOp{});
    case InstructionOp::kIadd3:
      return f(Iadd3Op{});
    case InstructionOp::kLop3:
      return f(Lop3Op{});
    case InstructionOp::kShf:
      return f(ShfOp{});
    case InstructionOp::kPopc:
      return f(PopcOp{});
    case InstructionOp::kClz:
      return f(ClzOp{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_INSTRUCTION_OPS_CUH_
