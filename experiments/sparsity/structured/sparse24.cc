// See sparse24.h.
#include "experiments/sparsity/structured/sparse24.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/workloads/layers/layer_config.h"
#include "kernels/sparsity_24/sp_gemm.h"

namespace dissect::sparsity {
namespace {

constexpr int64_t kRowTile = 16;
constexpr int64_t kColTile = 8;

int64_t RoundUp(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// Writes the fp16 bits of `value` into half `half` (0: low) of `word`.
void PutHalf(uint32_t& word, int half, float value) {
  const uint32_t bits = HalfBits(value);
  word |= bits << (16 * half);
}

// The word index within a lane's fragment and the lane for element (r, c) of
// a 16-row × 16-column m16n8k16 A fragment (dense, or sparse compressed).
struct Slot {
  int lane;
  int reg;
  int half;
};
Slot AFragmentSlot(int r, int c) { return {4 * (r % 8) + (c % 8) / 2, r / 8 + 2 * (c / 8), c % 2}; }

}  // namespace

absl::StatusOr<GemmShape> LayerGemmShape(absl::string_view layer, int64_t batch) {
  if (batch < 1) return absl::InvalidArgumentError(absl::StrCat("batch must be >= 1, not ", batch));
  const absl::StatusOr<const l1_bypass::LayerShape*> found = l1_bypass::FindEmbeddedLayer(layer);
  if (!found.ok()) return found.status();
  const l1_bypass::LayerShape& l = **found;
  switch (l.type) {
    case l1_bypass::LayerType::kConv:
      return GemmShape{int64_t{l.n} * l.OutH() * l.OutW(), int64_t{l.c} * l.r * l.s, l.k};
    case l1_bypass::LayerType::kFc:
      return GemmShape{batch, l.c, l.k};
    case l1_bypass::LayerType::kPool:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("layer '", layer, "' is a pooling layer: it has no GEMM"));
}

GemmShape PaddedShape(const GemmShape& shape) {
  return {RoundUp(shape.n, kRowTile * kSp24Warps), RoundUp(shape.k, kSp24KStep),
          RoundUp(shape.m, kColTile * kSp24ColTilesPerWarp)};
}

float RoundToHalf(float x) { return __half2float(__float2half_rn(x)); }

uint16_t HalfBits(float x) {
  const __half_raw raw = __float2half_rn(x);
  return raw.x;
}

Pruned24 PruneTo24(const Matrix& a) {
  Pruned24 out;
  out.values = Matrix{a.rows, a.cols, std::vector<float>(a.values.size(), 0.0f)};
  out.kept.reserve(a.values.size() / 2);
  double total = 0, kept = 0;
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t g = 0; g < a.cols; g += 4) {
      const float* x = &a.values[r * a.cols + g];
      // The two largest |x|, ties to the lower index.
      int first = 0;
      for (int i = 1; i < 4; ++i) {
        if (std::fabs(x[i]) > std::fabs(x[first])) first = i;
      }
      int second = first == 0 ? 1 : 0;
      for (int i = 0; i < 4; ++i) {
        if (i != first && std::fabs(x[i]) > std::fabs(x[second])) second = i;
      }
      const int i0 = std::min(first, second), i1 = std::max(first, second);
      out.kept.push_back(static_cast<uint8_t>(i0));
      out.kept.push_back(static_cast<uint8_t>(i1));
      for (int i = 0; i < 4; ++i) total += std::fabs(x[i]);
      kept += std::fabs(x[i0]) + std::fabs(x[i1]);
      out.values.values[r * a.cols + g + i0] = x[i0];
      out.values.values[r * a.cols + g + i1] = x[i1];
    }
  }
  out.kept_magnitude_fraction = total > 0 ? kept / total : 1.0;
  return out;
}

double ZeroFraction(const Matrix& a) {
  if (a.values.empty()) return 0;
  const auto zeros = std::count(a.values.begin(), a.values.end(), 0.0f);
  return static_cast<double>(zeros) / static_cast<double>(a.values.size());
}

std::vector<uint32_t> PackDenseA(const Matrix& a) {
  const int64_t row_tiles = a.rows / kRowTile, k_steps = a.cols / kSp24KStep;
  std::vector<uint32_t> out(a.values.size() / 2, 0);
  for (int64_t rt = 0; rt < row_tiles; ++rt) {
    for (int64_t ks = 0; ks < k_steps; ++ks) {
      uint32_t* tile = &out[(rt * k_steps + ks) * 32 * kSp24DenseAWords];
      for (int r = 0; r < kRowTile; ++r) {
        for (int c = 0; c < kSp24KStep; ++c) {
          const Slot s = AFragmentSlot(r, c % 16);
          PutHalf(tile[s.lane * kSp24DenseAWords + 4 * (c / 16) + s.reg], s.half,
                  a.at(rt * kRowTile + r, ks * kSp24KStep + c));
        }
      }
    }
  }
  return out;
}

uint32_t MetadataNibble(int i0, int i1) { return static_cast<uint32_t>(i0 | (i1 << 2)); }

PackedSparseA PackSparseA(const Pruned24& pruned) {
  const Matrix& a = pruned.values;
  const int64_t row_tiles = a.rows / kRowTile, k_steps = a.cols / kSp24KStep;
  const int64_t groups_per_row = a.cols / 4;
  PackedSparseA out;
  out.values.assign(row_tiles * k_steps * 32 * kSp24SparseAWords, 0);
  out.metadata.assign(row_tiles * k_steps * 32, 0);
  for (int64_t rt = 0; rt < row_tiles; ++rt) {
    for (int64_t ks = 0; ks < k_steps; ++ks) {
      const int64_t tile_index = rt * k_steps + ks;
      uint32_t* tile = &out.values[tile_index * 32 * kSp24SparseAWords];
      uint32_t* meta = &out.metadata[tile_index * 32];
      for (int r = 0; r < kRowTile; ++r) {
        const int64_t row = rt * kRowTile + r;
        for (int q = 0; q < kSp24KStep / 4; ++q) {
          const int64_t group = ks * (kSp24KStep / 4) + q;
          const uint8_t* kept = &pruned.kept[2 * (row * groups_per_row + group)];
          for (int slot = 0; slot < 2; ++slot) {
            const Slot s = AFragmentSlot(r, 2 * q + slot);
            PutHalf(tile[s.lane * kSp24SparseAWords + s.reg], s.half,
                    a.at(row, group * 4 + kept[slot]));
          }
          meta[4 * (r % 8) + q / 4] |= MetadataNibble(kept[0], kept[1])
                                       << (16 * (r / 8) + 4 * (q % 4));
        }
      }
    }
  }
  return out;
}

std::vector<uint32_t> PackB(const WeightFn& weight, int64_t k_real, int64_t m_real, int64_t k_pad,
                            int64_t m_pad) {
  const int64_t col_tiles = m_pad / kColTile, k_steps = k_pad / kSp24KStep;
  std::vector<uint32_t> out(col_tiles * k_steps * 32 * kSp24BWords, 0);
  for (int64_t ct = 0; ct < col_tiles; ++ct) {
    for (int64_t ks = 0; ks < k_steps; ++ks) {
      uint32_t* tile = &out[(ct * k_steps + ks) * 32 * kSp24BWords];
      for (int n = 0; n < kColTile; ++n) {
        const int64_t j = ct * kColTile + n;
        for (int kk = 0; kk < kSp24KStep; ++kk) {
          const int64_t k = ks * kSp24KStep + kk;
          if (j >= m_real || k >= k_real) continue;
          PutHalf(tile[(4 * n + (kk % 8) / 2) * kSp24BWords + kk / 8], kk % 2, weight(j, k));
        }
      }
    }
  }
  return out;
}

std::vector<double> ReferenceProduct(const Matrix& a, const WeightFn& weight,
                                     const std::vector<int64_t>& rows,
                                     const std::vector<int64_t>& cols) {
  std::vector<double> out;
  out.reserve(rows.size() * cols.size());
  for (int64_t r : rows) {
    for (int64_t j : cols) {
      double sum = 0;
      for (int64_t k = 0; k < a.cols; ++k) {
        const float x = a.at(r, k);
        if (x != 0.0f) sum += static_cast<double>(x) * weight(j, k);
      }
      out.push_back(sum);
    }
  }
  return out;
}

double MaxRelError(const std::vector<float>& got, int64_t ldc, const std::vector<double>& want,
                   const std::vector<int64_t>& rows, const std::vector<int64_t>& cols) {
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  const double floor = std::max(1e-3 * scale, 1e-30);
  double worst = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < cols.size(); ++j) {
      const double w = want[i * cols.size() + j];
      const double g = got[rows[i] * ldc + cols[j]];
      worst = std::max(worst, std::fabs(g - w) / std::max(std::fabs(w), floor));
    }
  }
  return worst;
}

std::vector<int64_t> SpreadIndices(int64_t size, int64_t count) {
  std::vector<int64_t> out;
  if (size <= 0 || count <= 0) return out;
  if (count >= size || count == 1) {
    for (int64_t i = 0; i < std::min(size, count); ++i) out.push_back(i);
    return out;
  }
  for (int64_t i = 0; i < count; ++i) out.push_back(i * (size - 1) / (count - 1));
  return out;
}

}  // namespace dissect::sparsity
