// Host-side view of tensor-core operand elements: random bit patterns of
// each input type, their exact values, and the m16n8 fragment layouts of
// mma.sync (PTX ISA, "Matrix Fragments for mma.m16n8k16/k8/k32"), so that
// the probes' results can be checked against a CPU reference.
#ifndef DISSECT_EXPERIMENTS_TENSOR_TENSOR_ELEMENTS_H_
#define DISSECT_EXPERIMENTS_TENSOR_TENSOR_ELEMENTS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "kernels/tensor/mma_sync.h"

namespace dissect {

// The exact value of one element of type `e` held in the low bits of `bits`.
double DecodeElement(TensorElement e, uint32_t bits);

// A random element of input type `e`: integers uniform over the type's
// range; floating-point types with random sign, random mantissa bits and a
// magnitude in [1/16, 2) (normal numbers, so every mantissa bit is used and
// nothing overflows).
uint32_t RandomElementBits(TensorElement e, std::mt19937_64& rng);

// Operand data of a probe: random elements or all zeros.
enum class OperandData { kRandom, kZeros };

// One warp's operands of an m16n8 mma.sync form, packed into per-lane
// registers, and the CPU reference for one D += A·B step.
struct MmaOperands {
  std::vector<uint32_t> a;  // 32 lanes × a_regs, lane-major
  std::vector<uint32_t> b;  // 32 lanes × b_regs
  // Per lane × kMmaAccElements: Σ_k A[row][k]·B[k][col] of that lane's
  // accumulator element, and Σ_k |A[row][k]·B[k][col]| (error scale).
  std::vector<double> product;
  std::vector<double> magnitude;
};

MmaOperands MakeMmaOperands(const MmaFormInfo& form, OperandData data, uint64_t seed);

// Relative tolerance of a float accumulator check, as a fraction of
// steps × Σ|a·b|; 0 for integer accumulators (exact).
double MmaTolerance(const MmaFormInfo& form);

// Checks the kernel's output words (warps × 32 lanes × kMmaAccElements, f32
// bits or s32) against `steps` × the reference (steps = iterations × chains:
// every chain adds the same product). Integer results must match exactly
// (mod 2^32). Returns InternalError naming the first mismatch and the count.
absl::Status CheckMmaOutput(const MmaFormInfo& form, const MmaOperands& operands,
                            int64_t steps, absl::Span<const uint32_t> out);

// (row, col) of A element `i` of register `reg` of lane `lane` etc., for the
// m16n8kK layouts; exposed for tests.
struct MatrixCoord {
  int row;
  int col;
};
MatrixCoord MmaACoord(const MmaFormInfo& form, int lane, int reg, int i);
MatrixCoord MmaBCoord(const MmaFormInfo& form, int lane, int reg, int i);  // (k, n)
MatrixCoord MmaCCoord(int lane, int e);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_TENSOR_ELEMENTS_H_
