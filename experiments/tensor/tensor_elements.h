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
#include "kernels/tensor/wgmma.h"

namespace dissect {

// The exact value of one element of type `e` held in the low bits of `bits`.
double DecodeElement(TensorElement e, uint32_t bits);

// A random element of input type `e`: integers uniform over the type's
// range; floating-point types with random sign, random mantissa bits and a
// magnitude in [1/16, 2) (normal numbers, so every mantissa bit is used and
// nothing overflows).
uint32_t RandomElementBits(TensorElement e, std::mt19937_64& rng);

// A matrix element's (row, column).
struct MatrixCoord {
  int row;
  int col;
};

// Operand data of a probe: random elements or all zeros.
enum class OperandData { kRandom, kZeros };

// The `data` axis of the mma_sync and wgmma probes: the values the
// operands hold and whether the timed loop cycles through several
// fragments of them (TensorOperands).
struct ProbeData {
  const char* name;
  OperandData data;
  TensorOperands operands;
};

inline constexpr ProbeData kProbeData[] = {
    {"random", OperandData::kRandom, TensorOperands::kConstant},
    {"random_cycling", OperandData::kRandom, TensorOperands::kCycling},
    {"zeros", OperandData::kZeros, TensorOperands::kConstant},
};

// The entry of kProbeData named `name` (the first if none is).
const ProbeData& FindProbeData(absl::string_view name);

// The axis values of kProbeData, and their help text.
std::vector<std::string> ProbeDataNames();
extern const char kProbeDataHelp[];

// One warp's operands of an m16n8 mma.sync form, packed into per-lane
// registers, and the CPU reference for one D += A·B step.
//
// Sparse forms: A holds the K / 2 stored elements of each row in the dense
// layout of an m16n8(K/2) A; every lane passes kMmaSparseMetadata. B is
// random per column and the same along K (B[k][n] = b_n), so that D[m][n] =
// b_n × Σ stored A[m][·] whichever K positions the metadata selects and
// however the sparse B fragment orders K: the check does not depend on the
// sparse layouts (PTX ISA figures this code could not read), only on which
// rows and columns each register holds.
//
// With several fragments, each holds its own random A and B, one after the
// other; the reference is the sum over the fragments.
struct MmaOperands {
  int fragments = 1;
  std::vector<uint32_t> a;         // fragments × 32 lanes × a_regs, lane-major
  std::vector<uint32_t> b;         // fragments × 32 lanes × b_regs
  std::vector<uint32_t> metadata;  // sparse forms: 32 lanes × 1 (all fragments)
  // Per lane × kMmaAccElements: Σ over fragments and k of A[row][k]·B[k][col]
  // of that lane's accumulator element, and of |A[row][k]·B[k][col]|
  // (error scale).
  std::vector<double> product;
  std::vector<double> magnitude;
};

MmaOperands MakeMmaOperands(const MmaFormInfo& form, OperandData data, uint64_t seed,
                            int fragments = 1);

// Checks the kernel's output words (warps × 32 lanes × kMmaAccElements, f32
// bits or s32) against the reference for `steps` products per output
// element (steps per chain × chains: every chain adds the same products
// into its own accumulator, and the kernel sums the chains' accumulators),
// spread evenly over the fragments (InvalidArgument if they do not
// divide). Integer results must match exactly (mod 2^32). Returns
// InternalError naming the first mismatch and the count.
absl::Status CheckMmaOutput(const MmaFormInfo& form, const MmaOperands& operands, int64_t steps,
                            absl::Span<const uint32_t> out, int chains = 1);

// Relative tolerance of a float accumulator check, as a fraction of
// steps × Σ|a·b|, for these input and accumulator types; 0 for s32. fp8
// inputs into f32 use Fp8AccumulationBound instead.
double AccumulatorTolerance(TensorElement input, TensorElement accumulator);

// How an output element was accumulated: `steps` × the reference product
// in all, over `chains` accumulators (each adds steps / chains, the kernel
// sums them in f32); the reference product is the sum of `fragments`
// instructions' products, each instruction adding `terms` products a·b per
// element (K, or the K / 2 stored elements of a sparse form).
struct Accumulation {
  int64_t steps = 1;
  int chains = 1;
  int fragments = 1;
  int terms = 1;
};

// Significant bits of Hopper's fp8 tensor-core accumulation. DeepSeek-V3
// Technical Report (arXiv:2412.19437), section 3.3.2 "Increasing
// Accumulation Precision": the accumulation precision of FP8 GEMM on
// NVIDIA H800 GPUs is limited to retaining around 14 bits.
inline constexpr int kFp8AccumulationBits = 14;

// The largest error of an fp8 → f32 accumulation under this model: every
// instruction aligns its `terms` products and the running accumulator to
// the largest of them, L, and truncates each toward zero to a multiple of
// u = 2^(e - kFp8AccumulationBits), 2^(e-1) <= L < 2^e (u <= 2^-13 L), so
// it adds less than (terms + 1) u of error. `magnitude` is Σ|a·b| of the
// reference product (all its fragments): an instruction's products are
// each at most that, and before the j-th instruction of a chain (counting
// from 1) the accumulator, truncated toward zero, is at most
// ceil((j - 1) / fragments) × magnitude, so L_j <= max(that, magnitude).
// Summed over every instruction of every chain, plus the f32 sum of the
// chains. The model reproduces an H100's e4m3 wgmma result bit for bit
// (tensor_elements_test, Fp8AccumulationTest).
double Fp8AccumulationBound(double magnitude, const Accumulation& shape);

// The check behind CheckMmaOutput and CheckWgmmaOutput: `out` holds one or
// more blocks of product.size() accumulator words; each must equal
// shape.steps × product within the bound (exactly, mod 2^32, for s32):
// AccumulatorTolerance × steps × magnitude, or for fp8 inputs into f32
// Fp8AccumulationBound.
absl::Status CheckAccumulators(absl::string_view name, TensorElement input,
                               TensorElement accumulator, const std::vector<double>& product,
                               const std::vector<double>& magnitude, const Accumulation& shape,
                               absl::Span<const uint32_t> out);

// One warpgroup's operands of a wgmma form at N: A (64 × K) and B (K × N)
// as canonical K-major shared-memory images (WgmmaTileOffset; B's rows are
// its columns), A also as register fragments, and the CPU reference per
// thread and accumulator element (128 × N / 2). Sparse forms as for
// MmaOperands: A holds the K / 2 stored elements per row, every thread
// passes kMmaSparseMetadata, and B is random per column and the same along K.
// With several fragments the tiles are images of WgmmaImageRows rows
// (columns of B) and fragment f is the window 8 f rows (columns) into them,
// as the kernel reads it; the reference is the sum over the fragments.
struct WgmmaOperands {
  int fragments = 1;
  std::vector<uint8_t> a_tile;
  std::vector<uint8_t> b_tile;
  std::vector<uint32_t> a_fragments;  // fragments × 128 threads × kWgmmaARegs
  std::vector<uint32_t> metadata;     // sparse forms: 128 threads × 1
  std::vector<double> product;
  std::vector<double> magnitude;
};

WgmmaOperands MakeWgmmaOperands(const WgmmaFormInfo& form, int n, OperandData data, uint64_t seed,
                                int fragments = 1);

// Checks a wgmma probe's output (blocks × 128 threads × N / 2 words), as
// CheckMmaOutput.
absl::Status CheckWgmmaOutput(const WgmmaFormInfo& form, int n, const WgmmaOperands& operands,
                              int64_t steps, absl::Span<const uint32_t> out, int chains = 1);

// (row, col) of accumulator element v of warpgroup thread `thread`, and of
// A register `reg` element `i` (PTX ISA "Register Fragments" of wgmma: each
// warp holds 16 rows in the mma.sync m16n8 layout).
MatrixCoord WgmmaDCoord(int thread, int v);
MatrixCoord WgmmaACoord(const WgmmaFormInfo& form, int thread, int reg, int i);

// (row, col) of A element `i` of register `reg` of lane `lane` etc., for the
// m16n8kK layouts (sparse forms: the column among the K / 2 stored
// elements); exposed for tests.
MatrixCoord MmaACoord(const MmaFormInfo& form, int lane, int reg, int i);
MatrixCoord MmaBCoord(const MmaFormInfo& form, int lane, int reg, int i);  // (k, n)
MatrixCoord MmaCCoord(int lane, int e);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_TENSOR_ELEMENTS_H_
