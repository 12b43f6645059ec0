// Host side of the 2:4 sparse GEMM probe (kernels/sparsity_24): GEMM shapes
// of the built-in layers, 2:4 pruning of the activations along K, packing
// of A (dense or 2:4 compressed, with the mma.sp metadata) and B into the
// per-lane fragment order the kernel loads, and a CPU reference.
//
// The product is C[N×M] = A[N×K] · B[K×M] with A = X^T (the activations,
// im2col rows for a convolution, one row per batch element for a fully
// connected layer) and B = W^T (B[k][j] = W[j][k]). Values are fp16,
// accumulation fp32.
//
// Fragment layouts (PTX ISA, warp-level mma fragments; g = lane / 4,
// t = lane % 4):
//   dense A, m16n8k16, per 16-column half h of a 32-wide k step:
//     register (r / 8) + 2 (c / 8) of lane 4 g + t holds (r, 16 h + c) with
//     g = r % 8, t = (c % 8) / 2, the low half for even c;
//   sparse A, m16n8k32: the same layout over the 16 × 16 compressed tile
//     (compressed column 2 q + s is the s-th kept element of group q);
//   metadata (sparsity selector 0): lane 4 g + (q / 4) holds row g's group
//     q in bits 4 (q % 4) .. +3 and row g + 8's in bits 16 + 4 (q % 4);
//     each nibble is i0 | i1 << 2, the kept indices within the group,
//     i0 < i1 (the order mma.sp::ordered_metadata requires);
//   B, k32 × n8: register kk / 8 of lane 4 n + (kk % 8) / 2 holds (kk, n),
//     the low half for even kk (two m16n8k16 B fragments back to back).
#ifndef DISSECT_EXPERIMENTS_SPARSITY_STRUCTURED_SPARSE24_H_
#define DISSECT_EXPERIMENTS_SPARSITY_STRUCTURED_SPARSE24_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect::sparsity {

struct GemmShape {
  int64_t n = 0;  // rows of A: im2col rows (conv) or the batch (fc)
  int64_t k = 0;  // reduction: C × R × S (conv) or inputs (fc)
  int64_t m = 0;  // output channels / outputs
};

// The GEMM of a built-in layer (configs/layers/cnn_layers.json): a
// convolution as its im2col GEMM (N = n × OutH × OutW with the config's n,
// K = C R S, M = K_out), a fully connected layer with N = `batch`. Pooling
// layers and unknown names are InvalidArgument.
absl::StatusOr<GemmShape> LayerGemmShape(absl::string_view layer, int64_t batch);

// Rows, columns and K rounded up to the kernel's block tile (64 × 32) and
// k step (32); the padding is zero.
GemmShape PaddedShape(const GemmShape& shape);

// `x` rounded to the nearest fp16 value (as a float), and its fp16 bits.
float RoundToHalf(float x);
uint16_t HalfBits(float x);

// A row-major matrix of floats (fp16 values).
struct Matrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> values;
  float at(int64_t r, int64_t c) const { return values[r * cols + c]; }
};

// A with 2 of every aligned group of 4 along each row kept: the two largest
// |x| (ties to the lower index); the others zero.
struct Pruned24 {
  Matrix values;              // the pruned A (dense form)
  std::vector<uint8_t> kept;  // rows × cols / 4 groups × 2 indices, ascending
  // Σ|kept| / Σ|A| (1 when A is all zero).
  double kept_magnitude_fraction = 1;
};

// cols must be a multiple of 4.
Pruned24 PruneTo24(const Matrix& a);

// Fraction of the values that are zero (0 for an empty matrix).
double ZeroFraction(const Matrix& a);

// A (rows % 16 == 0, cols % 32 == 0) as the kernel's dense A: row tile ×
// k step × lane × 8 words.
std::vector<uint32_t> PackDenseA(const Matrix& a);

struct PackedSparseA {
  std::vector<uint32_t> values;    // row tile × k step × lane × 4 words
  std::vector<uint32_t> metadata;  // row tile × k step × lane × 1 word
};
PackedSparseA PackSparseA(const Pruned24& pruned);

// The metadata nibble of one group: i0 | i1 << 2.
uint32_t MetadataNibble(int i0, int i1);

// B[k][j] = weight(j, k) (W is M × K) for k < k_pad, j < m_pad, as the
// kernel's B: column tile × k step × lane × 4 words. Positions at or beyond
// (k_real, m_real) are zero padding.
using WeightFn = std::function<float(int64_t j, int64_t k)>;
std::vector<uint32_t> PackB(const WeightFn& weight, int64_t k_real, int64_t m_real, int64_t k_pad,
                            int64_t m_pad);

// Σ_k a(r, k) · weight(j, k) in double for every (rows[i], cols[j]):
// rows.size() × cols.size() values, row-major.
std::vector<double> ReferenceProduct(const Matrix& a, const WeightFn& weight,
                                     const std::vector<int64_t>& rows,
                                     const std::vector<int64_t>& cols);

// max over the checked elements of |got − want| / max(|want|, 1e-3 ·
// max |want|); `got` is the kernel's row-major C with leading dimension
// `ldc`. 0 for no elements.
double MaxRelError(const std::vector<float>& got, int64_t ldc, const std::vector<double>& want,
                   const std::vector<int64_t>& rows, const std::vector<int64_t>& cols);

// Up to `count` indices spread evenly over [0, size), first and last
// included.
std::vector<int64_t> SpreadIndices(int64_t size, int64_t count);

}  // namespace dissect::sparsity

#endif  // DISSECT_EXPERIMENTS_SPARSITY_STRUCTURED_SPARSE24_H_
