// CPU references of the forward pass; see cpu_reference.h.
#include "experiments/workloads/forward/cpu_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace dissect::forward {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Streams of NormalAt/UniformAt for the input, apart from layer indices.
constexpr uint64_t kImageNoiseStream = 1ull << 40;
constexpr uint64_t kImageParamStream = (1ull << 40) + 1;

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform number in (0, 1), a pure function of its arguments.
double UniformAt(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t bits = SplitMix64(SplitMix64(SplitMix64(seed) ^ stream) ^ index);
  return (static_cast<double>(bits >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

size_t At(const TensorDims& d, int n, int c, int y, int x) {
  return ((static_cast<size_t>(n) * d.c + c) * d.h + y) * d.w + x;
}

int WindowOut(int in, int window, int stride, int pad) {
  return (in + 2 * pad - window) / stride + 1;
}

// Pools each r x s window of `in` (taps in the padding skipped): the window's
// value is finish(add(...add(init, v0)..., vk)) over its taps in row order.
template <typename Acc, typename Add, typename Finish>
std::vector<float> PoolCpu(const std::vector<float>& in, const TensorDims& dims, int r, int s,
                           int stride, int pad, TensorDims* out, Acc init, Add add, Finish finish) {
  *out = {dims.n, dims.c, WindowOut(dims.h, r, stride, pad), WindowOut(dims.w, s, stride, pad)};
  std::vector<float> result(out->elements());
  for (int n = 0; n < dims.n; ++n) {
    for (int c = 0; c < dims.c; ++c) {
      for (int y = 0; y < out->h; ++y) {
        for (int x = 0; x < out->w; ++x) {
          Acc acc = init;
          for (int i = 0; i < r; ++i) {
            const int iy = y * stride - pad + i;
            if (iy < 0 || iy >= dims.h) continue;
            for (int j = 0; j < s; ++j) {
              const int ix = x * stride - pad + j;
              if (ix >= 0 && ix < dims.w) acc = add(acc, in[At(dims, n, c, iy, ix)]);
            }
          }
          result[At(*out, n, c, y, x)] = finish(acc);
        }
      }
    }
  }
  return result;
}

}  // namespace

float NormalAt(uint64_t seed, uint64_t stream, uint64_t index) {
  const double u1 = UniformAt(seed, stream, 2 * index);
  const double u2 = UniformAt(seed, stream, 2 * index + 1);
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2));
}

std::vector<float> HeWeights(uint64_t seed, int layer, int k, int c, int r, int s) {
  const size_t count = static_cast<size_t>(k) * c * r * s;
  const double std_dev = std::sqrt(2.0 / (static_cast<double>(c) * r * s));
  std::vector<float> weights(count);
  for (size_t i = 0; i < count; ++i) {
    weights[i] = static_cast<float>(NormalAt(seed, static_cast<uint64_t>(layer), i) * std_dev);
  }
  return weights;
}

std::vector<float> SyntheticImage(uint64_t seed, const TensorDims& dims) {
  std::vector<float> image(dims.elements());
  for (int n = 0; n < dims.n; ++n) {
    for (int c = 0; c < dims.c; ++c) {
      const uint64_t plane = static_cast<uint64_t>(n) * dims.c + c;
      const double a = UniformAt(seed, kImageParamStream, 4 * plane);
      const int fx = 1 + static_cast<int>(3 * UniformAt(seed, kImageParamStream, 4 * plane + 1));
      const int fy = 1 + static_cast<int>(3 * UniformAt(seed, kImageParamStream, 4 * plane + 2));
      const double phase = 2 * kPi * UniformAt(seed, kImageParamStream, 4 * plane + 3);
      for (int y = 0; y < dims.h; ++y) {
        for (int x = 0; x < dims.w; ++x) {
          const double u = static_cast<double>(x) / std::max(dims.w - 1, 1);
          const double v = static_cast<double>(y) / std::max(dims.h - 1, 1);
          const size_t i = At(dims, n, c, y, x);
          const double z = NormalAt(seed, kImageNoiseStream, i);
          const double pixel =
              std::clamp(0.25 + 0.5 * (a * u + (1 - a) * v) +
                             0.15 * std::sin(2 * kPi * (fx * u + fy * v) + phase) + 0.05 * z,
                         0.0, 1.0);
          image[i] = static_cast<float>((pixel - 0.5) / 0.25);
        }
      }
    }
  }
  return image;
}

std::vector<float> ConvCpu(const std::vector<float>& in, const TensorDims& dims,
                           const std::vector<float>& weights, int k, int r, int s, int stride,
                           int pad, TensorDims* out) {
  *out = {dims.n, k, WindowOut(dims.h, r, stride, pad), WindowOut(dims.w, s, stride, pad)};
  std::vector<float> result(out->elements());
  for (int n = 0; n < dims.n; ++n) {
    for (int o = 0; o < k; ++o) {
      for (int y = 0; y < out->h; ++y) {
        for (int x = 0; x < out->w; ++x) {
          double sum = 0;
          for (int c = 0; c < dims.c; ++c) {
            for (int i = 0; i < r; ++i) {
              const int iy = y * stride - pad + i;
              if (iy < 0 || iy >= dims.h) continue;
              for (int j = 0; j < s; ++j) {
                const int ix = x * stride - pad + j;
                if (ix < 0 || ix >= dims.w) continue;
                const size_t w = ((static_cast<size_t>(o) * dims.c + c) * r + i) * s + j;
                sum += static_cast<double>(weights[w]) * in[At(dims, n, c, iy, ix)];
              }
            }
          }
          result[At(*out, n, o, y, x)] = static_cast<float>(sum);
        }
      }
    }
  }
  return result;
}

void ChannelMeanVarCpu(const std::vector<float>& in, const TensorDims& dims,
                       std::vector<float>* mean, std::vector<float>* var) {
  mean->assign(dims.c, 0);
  var->assign(dims.c, 0);
  const double count = static_cast<double>(dims.n) * dims.h * dims.w;
  for (int c = 0; c < dims.c; ++c) {
    double sum = 0;
    double sum_sq = 0;
    for (int n = 0; n < dims.n; ++n) {
      for (size_t i = At(dims, n, c, 0, 0), e = i + static_cast<size_t>(dims.h) * dims.w; i < e;
           ++i) {
        sum += in[i];
        sum_sq += static_cast<double>(in[i]) * in[i];
      }
    }
    const double m = sum / count;
    (*mean)[c] = static_cast<float>(m);
    (*var)[c] = static_cast<float>(std::max(sum_sq / count - m * m, 0.0));
  }
}

std::vector<float> BatchNormCpu(const std::vector<float>& in, const TensorDims& dims,
                                const std::vector<float>& mean, const std::vector<float>& var,
                                double eps) {
  std::vector<float> out(in.size());
  for (int n = 0; n < dims.n; ++n) {
    for (int c = 0; c < dims.c; ++c) {
      const double inv_std = 1.0 / std::sqrt(static_cast<double>(var[c]) + eps);
      for (size_t i = At(dims, n, c, 0, 0), e = i + static_cast<size_t>(dims.h) * dims.w; i < e;
           ++i) {
        out[i] = static_cast<float>((in[i] - static_cast<double>(mean[c])) * inv_std);
      }
    }
  }
  return out;
}

std::vector<float> FatReluCpu(const std::vector<float>& in, float threshold) {
  std::vector<float> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] > threshold ? in[i] : 0.0f;
  return out;
}

std::vector<float> MaxPoolCpu(const std::vector<float>& in, const TensorDims& dims, int r, int s,
                              int stride, int pad, TensorDims* out) {
  return PoolCpu(
      in, dims, r, s, stride, pad, out, -std::numeric_limits<float>::infinity(),
      [](float best, float v) { return std::max(best, v); }, [](float best) { return best; });
}

std::vector<float> AddCpu(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

std::vector<float> AvgPoolCpu(const std::vector<float>& in, const TensorDims& dims, int r, int s,
                              int stride, int pad, TensorDims* out) {
  return PoolCpu(
      in, dims, r, s, stride, pad, out, 0.0, [](double sum, float v) { return sum + v; },
      [r, s](double sum) { return static_cast<float>(sum / (r * s)); });
}

std::vector<float> ConcatCpu(const std::vector<float>& a, const TensorDims& a_dims,
                             const std::vector<float>& b, const TensorDims& b_dims,
                             TensorDims* out) {
  *out = {a_dims.n, a_dims.c + b_dims.c, a_dims.h, a_dims.w};
  std::vector<float> result;
  result.reserve(out->elements());
  const size_t a_image = a_dims.elements() / a_dims.n;
  const size_t b_image = b_dims.elements() / b_dims.n;
  for (int n = 0; n < a_dims.n; ++n) {
    result.insert(result.end(), a.begin() + n * a_image, a.begin() + (n + 1) * a_image);
    result.insert(result.end(), b.begin() + n * b_image, b.begin() + (n + 1) * b_image);
  }
  return result;
}

std::vector<float> FcCpu(const std::vector<float>& in, const TensorDims& dims,
                         const std::vector<float>& weights, int k, TensorDims* out) {
  *out = {dims.n, k, 1, 1};
  const size_t features = dims.elements() / dims.n;
  std::vector<float> result(out->elements());
  for (int n = 0; n < dims.n; ++n) {
    for (int o = 0; o < k; ++o) {
      double sum = 0;
      for (size_t f = 0; f < features; ++f) {
        sum += static_cast<double>(in[n * features + f]) * weights[o * features + f];
      }
      result[static_cast<size_t>(n) * k + o] = static_cast<float>(sum);
    }
  }
  return result;
}

std::vector<float> SoftmaxCpu(const std::vector<float>& in, const TensorDims& dims) {
  std::vector<float> out(in.size());
  for (int n = 0; n < dims.n; ++n) {
    for (int y = 0; y < dims.h; ++y) {
      for (int x = 0; x < dims.w; ++x) {
        double max = -std::numeric_limits<double>::infinity();
        for (int c = 0; c < dims.c; ++c) max = std::max<double>(max, in[At(dims, n, c, y, x)]);
        double sum = 0;
        for (int c = 0; c < dims.c; ++c) sum += std::exp(in[At(dims, n, c, y, x)] - max);
        for (int c = 0; c < dims.c; ++c) {
          const size_t i = At(dims, n, c, y, x);
          out[i] = static_cast<float>(std::exp(in[i] - max) / sum);
        }
      }
    }
  }
  return out;
}

absl::Status RunNetworkCpu(const NetworkSpec& net, int batch, uint64_t seed,
                           float fatrelu_threshold, const CpuLayerObserver& observer) {
  if (batch < 1) return absl::InvalidArgumentError("batch must be at least 1");
  if (fatrelu_threshold < 0) return absl::InvalidArgumentError("a FATReLU threshold must be >= 0");
  const TensorDims input_dims = {batch, net.input.c, net.input.h, net.input.w};
  const std::vector<float> input = SyntheticImage(seed, input_dims);
  std::vector<std::vector<float>> weights(net.layers.size());
  std::vector<std::vector<float>> bn_mean(net.layers.size());
  std::vector<std::vector<float>> bn_var(net.layers.size());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const LayerSpec& l = net.layers[i];
    if (l.op == LayerOp::kConv) {
      weights[i] = HeWeights(seed, static_cast<int>(i), l.k, l.in.c, l.r, l.s);
    } else if (l.op == LayerOp::kFc) {
      weights[i] =
          HeWeights(seed, static_cast<int>(i), l.k, static_cast<int>(ShapeElements(l.in)), 1, 1);
    }
  }
  for (const bool calibrate : {true, false}) {
    std::vector<std::vector<float>> outputs(net.layers.size());
    std::vector<TensorDims> dims(net.layers.size());
    for (size_t i = 0; i < net.layers.size(); ++i) {
      const LayerSpec& l = net.layers[i];
      const auto source = [&](int k) -> const std::vector<float>& {
        return l.inputs[k] == kNetworkInput ? input : outputs[l.inputs[k]];
      };
      const TensorDims in_dims = l.inputs[0] == kNetworkInput ? input_dims : dims[l.inputs[0]];
      const std::vector<float>& x = source(0);
      dims[i] = in_dims;
      switch (l.op) {
        case LayerOp::kConv:
          outputs[i] = ConvCpu(x, in_dims, weights[i], l.k, l.r, l.s, l.stride, l.pad, &dims[i]);
          break;
        case LayerOp::kBatchNorm:
          if (calibrate) ChannelMeanVarCpu(x, in_dims, &bn_mean[i], &bn_var[i]);
          outputs[i] = BatchNormCpu(x, in_dims, bn_mean[i], bn_var[i]);
          break;
        case LayerOp::kRelu:
          outputs[i] = FatReluCpu(x, calibrate ? 0.0f : fatrelu_threshold);
          break;
        case LayerOp::kMaxPool:
          outputs[i] = MaxPoolCpu(x, in_dims, l.r, l.s, l.stride, l.pad, &dims[i]);
          break;
        case LayerOp::kAdd:
          outputs[i] = AddCpu(x, source(1));
          break;
        case LayerOp::kAvgPool:
          outputs[i] = AvgPoolCpu(x, in_dims, l.r, l.s, l.stride, l.pad, &dims[i]);
          break;
        case LayerOp::kConcat: {
          const TensorDims b_dims = l.inputs[1] == kNetworkInput ? input_dims : dims[l.inputs[1]];
          outputs[i] = ConcatCpu(x, in_dims, source(1), b_dims, &dims[i]);
          break;
        }
        case LayerOp::kFc:
          outputs[i] = FcCpu(x, in_dims, weights[i], l.k, &dims[i]);
          break;
        case LayerOp::kSoftmax:
          outputs[i] = SoftmaxCpu(x, in_dims);
          break;
      }
      if (!calibrate && observer) observer(l, outputs[i], dims[i]);
    }
  }
  return absl::OkStatus();
}

}  // namespace dissect::forward
