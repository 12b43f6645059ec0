// CPU reference of the layer kernels (see reference.h). Each function
// mirrors its kernel in kernels/layers/layers.cu operation for operation.
#include "experiments/workloads/layers/reference.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "experiments/workloads/layers/conv_reference.h"
#include "kernels/elementwise.h"

namespace dissect::l1_bypass {
namespace {

using layers::LayerDims;
using layers::LayerKernel;

std::vector<float> Uniform(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = FillUniformValue(seed, i, lo, hi);
  return v;
}

float Stream(const LayerDims& d, const HostTensors& in, size_t i) {
  const size_t c = i / (size_t(d.h) * d.w) % d.c;
  return std::fmax(std::fmaf(in.x[i], in.weights[c], in.weights[d.c + c]), 0.0f);
}

float Stencil(const LayerDims& d, const HostTensors& in, size_t i) {
  const size_t plane = size_t(d.h) * d.w;
  const float* p = in.x.data() + i / plane * plane;
  const size_t at = i % plane;
  const int row = static_cast<int>(at / d.w), col = static_cast<int>(at % d.w);
  const float up = row > 0 ? p[at - d.w] : 0.0f;
  const float down = row + 1 < d.h ? p[at + d.w] : 0.0f;
  const float left = col > 0 ? p[at - 1] : 0.0f;
  const float right = col + 1 < d.w ? p[at + 1] : 0.0f;
  const float around = ((up + down) + left) + right;
  return std::fmaf(layers::kStencilNeighbour, around, layers::kStencilCentre * p[at]);
}

float Conv(const LayerDims& d, const HostTensors& in, size_t i) {
  return DirectConvReferenceAt(d, in.x.data(), in.weights.data(), i,
                               [](float v, int) { return v; });
}

float MaxPool(const LayerDims& d, const HostTensors& in, size_t i) {
  const int out_h = d.OutH(), out_w = d.OutW();
  const int q = static_cast<int>(i % out_w);
  const int p = static_cast<int>(i / out_w % out_h);
  const float* plane = in.x.data() + i / (size_t(out_w) * out_h) * d.h * d.w;
  float m = -FLT_MAX;
  for (int r = 0; r < d.r; ++r) {
    const int ih = p * d.stride - d.pad + r;
    if (ih < 0 || ih >= d.h) continue;
    for (int s = 0; s < d.s; ++s) {
      const int iw = q * d.stride - d.pad + s;
      if (iw >= 0 && iw < d.w) m = std::fmax(m, plane[ih * d.w + iw]);
    }
  }
  return m;
}

// 32 lane sums, then the butterfly of __shfl_xor_sync (every lane ends
// with the same value; lane 0's is stored).
float Gemv(const LayerDims& d, const HostTensors& in, size_t o) {
  const float* row = in.weights.data() + (o % d.k) * d.c;
  const float* x = in.x.data() + (o / d.k) * d.c;
  float lane[32];
  for (int l = 0; l < 32; ++l) {
    float acc = 0.0f;
    for (int c = l; c < d.c; c += 32) acc = std::fmaf(row[c], x[c], acc);
    lane[l] = acc;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    float next[32];
    for (int l = 0; l < 32; ++l) next[l] = lane[l] + lane[l ^ offset];
    std::copy(next, next + 32, lane);
  }
  return lane[0];
}

// Bits of a float, so that -0 and +0 and NaN payloads count as different.
uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

// A reproducible sample of `count` indices in [0, total) (more when
// `count` is below 2 x `images`): the first and the last index of each of
// `images` equal blocks, then random ones.
std::vector<size_t> Sample(size_t total, size_t count, size_t images) {
  std::vector<size_t> out;
  if (count >= total) {
    out.resize(total);
    std::iota(out.begin(), out.end(), size_t{0});
    return out;
  }
  images = std::clamp<size_t>(images, 1, total);
  const size_t block = total / images;
  for (size_t i = 0; i < images; ++i) {
    out.push_back(i * block);
    out.push_back(i + 1 == images ? total - 1 : (i + 1) * block - 1);
  }
  std::mt19937_64 rng(0x5a3c1e);
  std::uniform_int_distribution<size_t> pick(0, total - 1);
  while (out.size() < count) out.push_back(pick(rng));
  return out;
}

}  // namespace

HostTensors MakeInputs(const Workload& wl, uint64_t seed) {
  HostTensors in;
  in.x = Uniform(wl.x_elements, seed, -1.0f, 1.0f);
  const LayerDims& d = wl.dims;
  if (wl.kernel == LayerKernel::kStream) {
    in.weights = Uniform(wl.weight_elements, seed + 1, 0.5f, 1.5f);
    for (int c = 0; c < d.c; ++c) {
      in.weights[d.c + c] = FillUniformValue(seed + 2, c, -0.5f, 0.5f);
    }
  } else if (wl.weight_elements > 0) {
    const double terms = wl.kernel == LayerKernel::kConv ? double(d.c) * d.r * d.s : d.c;
    const float bound = static_cast<float>(1.0 / std::sqrt(terms));
    in.weights = Uniform(wl.weight_elements, seed + 1, -bound, bound);
  }
  if (wl.index_elements > 0) {
    in.index.resize(wl.index_elements);
    std::iota(in.index.begin(), in.index.end(), 0);
    std::mt19937_64 rng(seed + 3);
    std::shuffle(in.index.begin(), in.index.end(), rng);
  }
  return in;
}

float ExactOutputAt(const Workload& wl, const HostTensors& in, size_t i) {
  switch (wl.kernel) {
    case LayerKernel::kStream:
      return Stream(wl.dims, in, i);
    case LayerKernel::kGather:
      return in.x[in.index[i]];
    case LayerKernel::kStencil:
      return Stencil(wl.dims, in, i);
    case LayerKernel::kConv:
      return Conv(wl.dims, in, i);
    case LayerKernel::kMaxPool:
      return MaxPool(wl.dims, in, i);
    case LayerKernel::kGemv:
      return Gemv(wl.dims, in, i);
    case LayerKernel::kSoftmax:
      break;
  }
  return std::nanf("");
}

std::vector<double> SoftmaxRow(const Workload& wl, const HostTensors& in, size_t row) {
  const size_t w = wl.dims.w;
  const float* x = in.x.data() + row * w;
  double m = -DBL_MAX;
  for (size_t j = 0; j < w; ++j) m = std::max(m, double(x[j]));
  std::vector<double> out(w);
  double sum = 0;
  for (size_t j = 0; j < w; ++j) sum += out[j] = std::exp(double(x[j]) - m);
  for (double& v : out) v /= sum;
  return out;
}

absl::Status CheckAgainstReference(const Workload& wl, const HostTensors& in,
                                   const std::vector<float>& y, double work_budget) {
  if (y.size() != wl.y_elements) {
    return absl::InternalError(
        absl::StrCat("output has ", y.size(), " elements, expected ", wl.y_elements));
  }
  const double cost = std::max(1.0, wl.WorkPerOutput());
  const size_t budget_count = static_cast<size_t>(std::max(1.0, work_budget / cost));
  const char* name = KernelName(wl.kernel);
  if (wl.kernel == LayerKernel::kSoftmax) {
    const size_t w = wl.dims.w;
    for (size_t row : Sample(y.size() / w, budget_count, wl.images)) {
      const std::vector<double> want = SoftmaxRow(wl, in, row);
      for (size_t j = 0; j < w; ++j) {
        const double got = y[row * w + j];
        if (!(std::fabs(got - want[j]) <= kSoftmaxTolerance * want[j])) {
          return absl::InternalError(
              absl::StrFormat("softmax: wrong output at row %d element %d: %.9g, reference %.9g",
                              row, j, got, want[j]));
        }
      }
    }
    return absl::OkStatus();
  }
  for (size_t i : Sample(y.size(), budget_count, wl.images)) {
    const float want = ExactOutputAt(wl, in, i);
    if (Bits(y[i]) != Bits(want)) {
      return absl::InternalError(
          absl::StrFormat("%s: wrong output at element %d: %.9g (0x%08x), reference %.9g (0x%08x)",
                          name, i, y[i], Bits(y[i]), want, Bits(want)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckIdentical(const std::vector<float>& y, const std::vector<float>& want,
                            absl::string_view want_name) {
  if (y.size() != want.size()) {
    return absl::InternalError(
        absl::StrCat("output has ", y.size(), " elements, ", want_name, "'s has ", want.size()));
  }
  for (size_t i = 0; i < y.size(); ++i) {
    if (Bits(y[i]) != Bits(want[i])) {
      return absl::InternalError(
          absl::StrFormat("output differs from %s's at element %d: %.9g (0x%08x) vs %.9g (0x%08x)",
                          std::string(want_name), i, y[i], Bits(y[i]), want[i], Bits(want[i])));
    }
  }
  return absl::OkStatus();
}

}  // namespace dissect::l1_bypass
