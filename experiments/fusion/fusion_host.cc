#include "experiments/fusion/fusion_host.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/workloads/layers/conv_reference.h"
#include "experiments/workloads/layers/layer_config.h"
#include "kernels/elementwise.h"

namespace dissect::fusion {
namespace {

constexpr char kInvalidConfig[] = "invalid-config";

ConvDims Dims(int c, int hw, int k, int rs, int stride, int pad) {
  ConvDims d;
  d.c = c;
  d.h = d.w = hw;
  d.k = k;
  d.r = d.s = rs;
  d.stride = stride;
  d.pad = pad;
  return d;
}

float Relu(float v) { return std::fmax(v, 0.0f); }

size_t ImageOutputs(Pattern pattern, const ConvDims& d) {
  if (pattern == Pattern::kBnRelu) return static_cast<size_t>(d.c) * d.h * d.w;
  return static_cast<size_t>(d.k) * d.OutH() * d.OutW();
}

// Multiply-adds of one output's reference.
double OutputWork(Pattern pattern, const ConvDims& d) {
  if (pattern == Pattern::kBnRelu) return 1.0;
  return static_cast<double>(d.c) * d.r * d.s * (pattern == Pattern::kBnReluConv ? 2 : 1);
}

}  // namespace

std::vector<std::string> PatternNames() { return {"conv_relu", "bn_relu", "bn_relu_conv"}; }
std::vector<std::string> ModeNames() { return {"fused", "unfused"}; }

absl::StatusOr<Pattern> ParsePattern(absl::string_view name) {
  if (name == "conv_relu") return Pattern::kConvRelu;
  if (name == "bn_relu") return Pattern::kBnRelu;
  if (name == "bn_relu_conv") return Pattern::kBnReluConv;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown pattern '", name, "' (", absl::StrJoin(PatternNames(), ", "), ")"));
}

absl::StatusOr<Mode> ParseMode(absl::string_view name) {
  if (name == "fused") return Mode::kFused;
  if (name == "unfused") return Mode::kUnfused;
  return absl::InvalidArgumentError(absl::StrCat("unknown mode '", name, "' (fused, unfused)"));
}

const std::vector<FusionLayer>& DenseNetLayers() {
  static const auto* const kLayers = new std::vector<FusionLayer>{
      // Dense block 1, 6th layer's bottleneck: 64 + 5 x 32 = 224 channels in.
      {"densenet121.block1_1x1", Dims(224, 56, 128, 1, 1, 0)},
      // Every dense layer's 3x3 conv in block 1: 128 -> growth rate 32.
      {"densenet121.block1_3x3", Dims(128, 56, 32, 3, 1, 1)},
      // Transition layer 1: 64 + 6 x 32 = 256 channels -> 128, 1x1.
      {"densenet121.transition1", Dims(256, 56, 128, 1, 1, 0)},
      // Dense block 3's 3x3 conv at 14 x 14.
      {"densenet121.block3_3x3", Dims(128, 14, 32, 3, 1, 1)},
  };
  return *kLayers;
}

absl::StatusOr<std::vector<FusionLayer>> FusionLayers() {
  const absl::StatusOr<std::vector<l1_bypass::LayerShape>>& shapes = l1_bypass::EmbeddedLayers();
  if (!shapes.ok()) return shapes.status();
  std::vector<FusionLayer> out;
  for (const l1_bypass::LayerShape& s : *shapes) {
    if (s.type != l1_bypass::LayerType::kConv) continue;
    ConvDims d = Dims(s.c, s.h, s.k, s.r, s.stride, s.pad);
    d.w = s.w;
    d.s = s.s;
    out.push_back({s.name, d});
  }
  for (const FusionLayer& l : DenseNetLayers()) out.push_back(l);
  return out;
}

std::vector<std::string> FusionLayerNames() {
  const absl::StatusOr<std::vector<FusionLayer>> layers = FusionLayers();
  if (!layers.ok()) return {kInvalidConfig};
  std::vector<std::string> names;
  for (const FusionLayer& l : *layers) names.push_back(l.name);
  return names;
}

absl::StatusOr<FusionLayer> FindFusionLayer(absl::string_view name) {
  absl::StatusOr<std::vector<FusionLayer>> layers = FusionLayers();
  if (!layers.ok()) return layers.status();
  for (FusionLayer& l : *layers) {
    if (l.name == name) return l;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown layer '", name, "'"));
}

TensorSizes SizesOf(Pattern pattern, const ConvDims& d) {
  TensorSizes t;
  const size_t input = static_cast<size_t>(d.n) * d.c * d.h * d.w;
  const size_t conv_out = static_cast<size_t>(d.n) * d.k * d.OutH() * d.OutW();
  const size_t weights = static_cast<size_t>(d.k) * d.c * d.r * d.s;
  switch (pattern) {
    case Pattern::kConvRelu:
      t = {input, conv_out, conv_out, weights, 0};
      break;
    case Pattern::kBnRelu:
      t = {input, input, input, 0, 2 * static_cast<size_t>(d.c)};
      break;
    case Pattern::kBnReluConv:
      t = {input, conv_out, input, weights, 2 * static_cast<size_t>(d.c)};
      break;
  }
  return t;
}

double CompulsoryBytes(Pattern pattern, Mode mode, const ConvDims& d) {
  const TensorSizes t = SizesOf(pattern, d);
  double elements = static_cast<double>(t.input) + t.output + t.weights + t.channel_params;
  if (mode == Mode::kUnfused) elements += 2.0 * t.intermediate;
  return elements * sizeof(float);
}

double WorkingSetBytes(Pattern pattern, const ConvDims& d) {
  const TensorSizes t = SizesOf(pattern, d);
  return (static_cast<double>(t.input) + t.weights + t.channel_params + t.intermediate + t.output) *
         sizeof(float);
}

HostInputs MakeInputs(Pattern pattern, const ConvDims& d, uint64_t seed) {
  const TensorSizes t = SizesOf(pattern, d);
  HostInputs in;
  const auto fill = [](std::vector<float>& v, size_t n, uint64_t s, float lo, float hi) {
    v.resize(n);
    for (size_t i = 0; i < n; ++i) v[i] = FillUniformValue(s, i, lo, hi);
  };
  fill(in.x, t.input, seed, -1.0f, 1.0f);
  const float a = 1.0f / std::sqrt(static_cast<float>(d.c) * d.r * d.s);
  fill(in.weights, t.weights, seed + 1, -a, a);
  fill(in.scale, t.channel_params / 2, seed + 2, 0.5f, 1.5f);
  fill(in.shift, t.channel_params / 2, seed + 3, -0.5f, 0.5f);
  return in;
}

float ReferenceAt(Pattern pattern, const HostInputs& in, const ConvDims& d, size_t i) {
  if (pattern == Pattern::kBnRelu) {
    const size_t c = i / (static_cast<size_t>(d.h) * d.w) % d.c;
    return Relu(std::fmaf(in.x[i], in.scale[c], in.shift[c]));
  }
  const bool bn = pattern == Pattern::kBnReluConv;
  const float acc = DirectConvReferenceAt(
      d, in.x.data(), in.weights.data(), i,
      [&](float v, int c) { return bn ? Relu(std::fmaf(v, in.scale[c], in.shift[c])) : v; });
  return bn ? acc : Relu(acc);
}

std::vector<size_t> SampleOutputs(Pattern pattern, const ConvDims& d, double work_budget) {
  const size_t per_image = ImageOutputs(pattern, d);
  const size_t total = per_image * d.n;
  const double fit = std::max(1.0, work_budget / OutputWork(pattern, d));
  std::vector<size_t> out;
  if (static_cast<double>(total) <= fit) {
    out.resize(total);
    for (size_t i = 0; i < total; ++i) out[i] = i;
    return out;
  }
  const size_t count = static_cast<size_t>(fit);
  const size_t step = std::max<size_t>(1, total / count);
  // An odd offset so that the sample does not sit on one channel or column.
  for (size_t i = step / 3; i < total; i += step) out.push_back(i);
  for (int n = 0; n < d.n; ++n) {
    out.push_back(n * per_image);
    out.push_back((n + 1) * per_image - 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

absl::Status CheckAgainstReference(Pattern pattern, const HostInputs& in, const ConvDims& d,
                                   const std::vector<float>& y, double work_budget) {
  const size_t per_image = ImageOutputs(pattern, d);
  if (y.size() != per_image * d.n) {
    return absl::InternalError(
        absl::StrCat("output has ", y.size(), " elements, expected ", per_image * d.n));
  }
  for (size_t i : SampleOutputs(pattern, d, work_budget)) {
    const float want = ReferenceAt(pattern, in, d, i);
    if (!(y[i] == want)) {
      return absl::InternalError(
          absl::StrCat("output ", i, " is ", y[i], ", the CPU reference gives ", want));
    }
  }
  return absl::OkStatus();
}

}  // namespace dissect::fusion
