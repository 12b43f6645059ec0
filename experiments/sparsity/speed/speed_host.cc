// Host logic of sparsity_speed; see speed_host.h.
#include "experiments/sparsity/speed/speed_host.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "kernels/sparsity_gemm/skip_gemm_layout.h"

namespace dissect::sparsity_speed {

using l1_bypass::LayerShape;
using l1_bypass::LayerType;
using sparsity_gemm::kTileK;
using sparsity_gemm::kTileN;

absl::StatusOr<GemmForm> FormOf(const LayerShape& layer, int batch) {
  if (batch < 1) return absl::InvalidArgumentError(absl::StrCat("batch ", batch, " < 1"));
  GemmForm form;
  form.m = layer.k;
  switch (layer.type) {
    case LayerType::kConv:
      form.conv = true;
      form.k = static_cast<int64_t>(layer.c) * layer.r * layer.s;
      form.n = static_cast<int64_t>(batch) * layer.OutH() * layer.OutW();
      form.activation = {batch, layer.c, layer.h, layer.w};
      return form;
    case LayerType::kFc:
      form.k = layer.c;
      form.n = batch;
      form.activation = {1, layer.c, 1, batch};
      return form;
    case LayerType::kPool:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(layer.name, " is a pooling layer: it has no GEMM form"));
}

absl::StatusOr<std::vector<float>> ActivationMatrix(const LayerShape& layer, const GemmForm& form,
                                                    absl::Span<const float> activations) {
  const sparsity::Dims& d = form.activation;
  if (static_cast<int64_t>(activations.size()) != d.elements()) {
    return absl::InvalidArgumentError(absl::StrCat("activations hold ", activations.size(),
                                                   " values, the tensor ", d.elements()));
  }
  std::vector<float> x(static_cast<size_t>(form.k * form.n), 0.f);
  if (!form.conv) {
    for (int64_t c = 0; c < form.k; ++c) {
      for (int64_t b = 0; b < form.n; ++b) x[b * form.k + c] = activations[c * form.n + b];
    }
    return x;
  }
  const int64_t out_h = layer.OutH(), out_w = layer.OutW();
  for (int64_t b = 0; b < d.n; ++b) {
    for (int64_t p = 0; p < out_h; ++p) {
      for (int64_t q = 0; q < out_w; ++q) {
        float* column = &x[((b * out_h + p) * out_w + q) * form.k];
        for (int64_t r = 0; r < layer.r; ++r) {
          const int64_t h = p * layer.stride - layer.pad + r;
          for (int64_t s = 0; s < layer.s; ++s) {
            const int64_t w = q * layer.stride - layer.pad + s;
            if (h < 0 || h >= d.h || w < 0 || w >= d.w) continue;
            for (int64_t c = 0; c < d.c; ++c) {
              column[(r * layer.s + s) * d.c + c] = activations[d.Index(b, c, h, w)];
            }
          }
        }
      }
    }
  }
  return x;
}

std::vector<uint8_t> TileBitmap(absl::Span<const float> x, int64_t k, int64_t n) {
  std::vector<uint8_t> bitmap(sparsity_gemm::TileBitmapSize(k, n), 0);
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t row = 0; row < k; ++row) {
      if (x[col * k + row] != 0.f) {
        bitmap[sparsity_gemm::TileIndex(row / kTileK, col / kTileN, n)] = 1;
      }
    }
  }
  return bitmap;
}

double ZeroFraction(absl::Span<const float> values) {
  if (values.empty()) return 0;
  const auto zeros = std::count(values.begin(), values.end(), 0.f);
  return static_cast<double>(zeros) / static_cast<double>(values.size());
}

std::vector<float> ReferenceColumn(absl::Span<const float> w, absl::Span<const float> x, int64_t m,
                                   int64_t k, int64_t col) {
  std::vector<float> y(m, 0.f);
  for (int64_t row = 0; row < m; ++row) {
    float acc = 0.f;
    for (int64_t i = 0; i < k; ++i) acc = std::fmaf(w[i * m + row], x[col * k + i], acc);
    y[row] = acc;
  }
  return y;
}

absl::StatusOr<double> MaxRelativeError(absl::Span<const float> got, absl::Span<const float> want) {
  if (got.size() != want.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("results hold ", got.size(), " and ", want.size(), " values"));
  }
  double scale = 0, diff = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
    const double d = std::fabs(static_cast<double>(got[i]) - want[i]);
    diff = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(diff, d);
  }
  if (diff == 0) return 0.0;
  if (scale == 0) return std::numeric_limits<double>::infinity();
  return diff / scale;
}

std::vector<float> RandomActivations(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  std::vector<float> v(count);
  for (float& f : v) f = 1.f - dist(rng);  // (0, 1]
  return v;
}

std::vector<float> RandomWeights(int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

}  // namespace dissect::sparsity_speed
