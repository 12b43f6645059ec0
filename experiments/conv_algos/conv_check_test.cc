// conv_algorithms' output check on emulated results: the fma tolerance
// must reject TF32 (inputs rounded to 10 mantissa bits) on every layer
// shape the experiment runs, and accept FP32 summed in any order; and the
// math guard must refuse a row whose math is not the one asked for.
#include "experiments/conv_algos/conv_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/conv_algos/conv_layers.h"
#include "experiments/workloads/forward/network.h"
#include "gtest/gtest.h"

namespace dissect::conv_algos {
namespace {

// `v` with its mantissa rounded to TF32's 10 bits, round to nearest even,
// as cuDNN and cuBLAS convert FP32 operands for TF32 tensor cores.
float RoundToTf32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  if ((bits & 0x7f800000u) == 0x7f800000u) return v;  // inf, NaN
  bits += 0xfffu + ((bits >> 13) & 1u);
  bits &= ~0x1fffu;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

std::vector<float> RoundedToTf32(std::vector<float> values) {
  for (float& v : values) v = RoundToTf32(v);
  return values;
}

TEST(ConvCheckTest, Tf32RoundingIsNearestEven) {
  const float ulp = std::ldexp(1.0f, -10);
  EXPECT_EQ(RoundToTf32(1.0f + ulp / 2), 1.0f);                // tie: to even (down)
  EXPECT_EQ(RoundToTf32(1.0f + 3 * ulp / 2), 1.0f + 2 * ulp);  // tie: to even (up)
  EXPECT_EQ(RoundToTf32(1.0f + ulp / 2 + std::ldexp(1.0f, -23)), 1.0f + ulp);
  EXPECT_EQ(RoundToTf32(-1.0f - ulp / 4), -1.0f);
  EXPECT_EQ(RoundToTf32(1.0f + ulp), 1.0f + ulp);  // representable: unchanged
}

// FP32 FMA sums of the same products in orders a GPU algorithm may use,
// each rounded to the float output.
float Forward(const std::vector<ConvTerm>& terms) {
  float acc = 0;
  for (const ConvTerm& t : terms) acc = std::fmaf(t.x, t.w, acc);
  return acc;
}

float Reversed(const std::vector<ConvTerm>& terms) {
  float acc = 0;
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) acc = std::fmaf(it->x, it->w, acc);
  return acc;
}

// Partial sums over blocks of 32 (a GEMM's K tile), then their sum.
float Blocked(const std::vector<ConvTerm>& terms) {
  float total = 0;
  for (size_t begin = 0; begin < terms.size(); begin += 32) {
    float acc = 0;
    for (size_t i = begin; i < std::min(terms.size(), begin + 32); ++i) {
      acc = std::fmaf(terms[i].x, terms[i].w, acc);
    }
    total += acc;
  }
  return total;
}

// 8 interleaved accumulators (a split K over threads), then their sum.
float Interleaved(const std::vector<ConvTerm>& terms) {
  float acc[8] = {};
  for (size_t i = 0; i < terms.size(); ++i) {
    acc[i % 8] = std::fmaf(terms[i].x, terms[i].w, acc[i % 8]);
  }
  float total = 0;
  for (float a : acc) total += a;
  return total;
}

// Winograd F(4x4, 3x3) (Lavin & Gray 2016) in float: output (n, k, p, q)
// of a 3x3 stride-1 layer from the 6x6 input tile of its 4x4 output tile,
// transformed per channel, multiplied and summed in the transform domain.
constexpr float kBt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                             {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr float kG[6][3] = {{1 / 4.f, 0, 0},
                            {-1 / 6.f, -1 / 6.f, -1 / 6.f},
                            {-1 / 6.f, 1 / 6.f, -1 / 6.f},
                            {1 / 24.f, 1 / 12.f, 1 / 6.f},
                            {1 / 24.f, -1 / 12.f, 1 / 6.f},
                            {0, 0, 1}};
constexpr float kAt[4][6] = {
    {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};

// out = a * in * b^T for a (R x I), in (I x J), b (C x J), all in float.
template <int R, int I, int J, int C>
void Sandwich(const float (&a)[R][I], const float (&in)[I][J], const float (&b)[C][J],
              float (&out)[R][C]) {
  float left[R][J] = {};
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < J; ++j) {
      for (int t = 0; t < I; ++t) left[i][j] = std::fmaf(a[i][t], in[t][j], left[i][j]);
    }
  }
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < C; ++j) {
      out[i][j] = 0;
      for (int t = 0; t < J; ++t) out[i][j] = std::fmaf(left[i][t], b[j][t], out[i][j]);
    }
  }
}

float Winograd4x4(const forward::LayerSpec& l, const std::vector<float>& x,
                  const std::vector<float>& w, const OutputPosition& at) {
  const int top = at.p - at.p % 4 - l.pad;
  const int left = at.q - at.q % 4 - l.pad;
  float sum[6][6] = {};
  for (int c = 0; c < l.in.c; ++c) {
    float tile[6][6] = {};
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        const int h = top + i;
        const int col = left + j;
        if (h < 0 || h >= l.in.h || col < 0 || col >= l.in.w) continue;
        const size_t xi = ((static_cast<size_t>(at.n) * l.in.c + c) * l.in.h + h) * l.in.w + col;
        tile[i][j] = x[xi % x.size()];
      }
    }
    float g[3][3];
    for (int r = 0; r < 3; ++r) {
      for (int s = 0; s < 3; ++s) {
        g[r][s] = w[(((static_cast<size_t>(at.k) * l.in.c + c) * 3 + r) * 3 + s) % w.size()];
      }
    }
    float u[6][6];
    float v[6][6];
    Sandwich(kG, g, kG, u);
    Sandwich(kBt, tile, kBt, v);
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) sum[i][j] = std::fmaf(u[i][j], v[i][j], sum[i][j]);
    }
  }
  float y[4][4];
  Sandwich(kAt, sum, kAt, y);
  return y[at.p % 4][at.q % 4];
}

// The error of `value` in the fma check's unit, sqrt(sum (x w)^2).
double Relative(double value, const ReferenceValue& ref) {
  return std::fabs(value - ref.value) / ref.norm;
}

struct Margins {
  double fp32_max = 0;         // largest FP32 error, any order, any sample
  double winograd_max = 0;     // largest FP32 Winograd F(4x4, 3x3) error
  double tf32_point_min = 1;   // smallest over points of a point's largest TF32 error
  double tf32_sample_min = 1;  // smallest TF32 error of any one sample
  std::string fp32_at;
  std::string winograd_at;
  std::string tf32_at;
  int points = 0;
  int winograd_samples = 0;
  int points_tf32_accepted = 0;  // points whose every sampled TF32 output passes
  int samples_fp32_rejected = 0;
};

void AddFp32(const std::string& where, double value, const ReferenceValue& ref, double& max,
             std::string& max_at, Margins& m) {
  if (!PassesCheck(value, ref, CUDNN_FMA_MATH)) ++m.samples_fp32_rejected;
  if (Relative(value, ref) > max) {
    max = Relative(value, ref);
    max_at = where;
  }
}

// The TF32 forms of the input and weight patterns.
struct Tf32Patterns {
  std::vector<float> x;
  std::vector<float> w;
};

// One (layer, batch) point: kCheckedOutputs outputs as the experiment picks
// them, each summed as FP32 in four orders and as TF32 in two; at batch 8
// also by Winograd where it applies (3x3, stride 1).
void MeasurePoint(const ConvLayer& layer, int batch, const std::vector<float>& x,
                  const std::vector<float>& w, const Tf32Patterns& tf32_in, Margins& m) {
  const forward::LayerSpec& l = layer.spec;
  const std::string where = absl::StrCat(layer.name, " batch ", batch);
  const bool winograd = l.r == 3 && l.s == 3 && l.stride == 1 && batch == 8;
  double tf32_point = 0;
  bool tf32_rejected = false;
  for (int i = 0; i < kCheckedOutputs; ++i) {
    const OutputPosition at = CheckedOutput(l, batch, i);
    const ReferenceValue ref = ConvOutputAt(l, x, w, at.n, at.k, at.p, at.q);
    const std::vector<ConvTerm> terms = ConvTermsAt(l, x, w, at.n, at.k, at.p, at.q);
    for (const float fp32 : {Forward(terms), Reversed(terms), Blocked(terms), Interleaved(terms)}) {
      AddFp32(where, fp32, ref, m.fp32_max, m.fp32_at, m);
    }
    if (winograd) {
      AddFp32(where, Winograd4x4(l, x, w, at), ref, m.winograd_max, m.winograd_at, m);
      ++m.winograd_samples;
    }
    // TF32 accumulated in double (the rounding of the inputs alone) and in
    // float; the one nearer the reference counts.
    const float tf32_double =
        static_cast<float>(ConvOutputAt(l, tf32_in.x, tf32_in.w, at.n, at.k, at.p, at.q).value);
    const float tf32_float = Forward(ConvTermsAt(l, tf32_in.x, tf32_in.w, at.n, at.k, at.p, at.q));
    tf32_rejected |= !PassesCheck(tf32_double, ref, CUDNN_FMA_MATH) &&
                     !PassesCheck(tf32_float, ref, CUDNN_FMA_MATH);
    const double tf32 = std::min(Relative(tf32_double, ref), Relative(tf32_float, ref));
    tf32_point = std::max(tf32_point, tf32);
    m.tf32_sample_min = std::min(m.tf32_sample_min, tf32);
  }
  ++m.points;
  if (!tf32_rejected) ++m.points_tf32_accepted;
  if (tf32_point < m.tf32_point_min) {
    m.tf32_point_min = tf32_point;
    m.tf32_at = where;
  }
}

// Every distinct conv shape of every built-in network (the layer axis
// accepts them all) at the batch axis's defaults.
TEST(ConvCheckTest, FmaToleranceRejectsTf32AndAcceptsFp32InAnyOrder) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  const std::vector<float> x = InputPattern();
  Tf32Patterns tf32_in{RoundedToTf32(x), {}};
  Margins m;
  for (const ConvLayer& layer : *layers) {
    if (layer.shape_count == 0) continue;
    const std::vector<float> w = WeightPattern(layer.spec);
    tf32_in.w = RoundedToTf32(w);
    for (const int batch : {1, 8, 32, 64, 128}) MeasurePoint(layer, batch, x, w, tf32_in, m);
  }
  std::printf(
      "%d points x %d outputs; error / sqrt(sum (x w)^2): FP32 reorderings at most %.3g (%s), "
      "FP32 Winograd F(4x4,3x3) at most %.3g (%s, %d samples); TF32 largest per point at least "
      "%.3g (%s), smallest single sample %.3g; kFmaTolerance %.3g\n",
      m.points, kCheckedOutputs, m.fp32_max, m.fp32_at.c_str(), m.winograd_max,
      m.winograd_at.c_str(), m.winograd_samples, m.tf32_point_min, m.tf32_at.c_str(),
      m.tf32_sample_min, kFmaTolerance);
  EXPECT_GT(m.points, 500);
  EXPECT_GT(m.winograd_samples, 1000);
  EXPECT_EQ(m.points_tf32_accepted, 0)
      << "points where every sampled TF32 output passes the fma check (reported as FP32)";
  EXPECT_EQ(m.samples_fp32_rejected, 0) << "FP32 results the fma check rejects";
  // Margins on both sides, not a knife edge.
  EXPECT_LT(m.fp32_max * 10, kFmaTolerance);
  EXPECT_LT(m.winograd_max * 3, kFmaTolerance);
  EXPECT_GT(m.tf32_point_min, 3 * kFmaTolerance);
}

// The tensor_op tolerance accepts TF32 on the same layers (the row's own
// math), at the largest reduction.
TEST(ConvCheckTest, TensorOpToleranceAcceptsTf32) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  const std::vector<float> x = InputPattern();
  const std::vector<float> x_tf32 = RoundedToTf32(x);
  for (const char* name : {"vgg16.conv1_1", "vgg16.conv5_1", "resnet50.layer4.0.conv1"}) {
    const ConvLayer* layer = nullptr;
    for (const ConvLayer& l : *layers) {
      if (l.name == name) layer = &l;
    }
    ASSERT_NE(layer, nullptr) << name;
    const std::vector<float> w = WeightPattern(layer->spec);
    const std::vector<float> w_tf32 = RoundedToTf32(w);
    for (int i = 0; i < kCheckedOutputs; ++i) {
      const OutputPosition at = CheckedOutput(layer->spec, 8, i);
      const ReferenceValue ref = ConvOutputAt(layer->spec, x, w, at.n, at.k, at.p, at.q);
      const float tf32 = Forward(ConvTermsAt(layer->spec, x_tf32, w_tf32, at.n, at.k, at.p, at.q));
      EXPECT_TRUE(PassesCheck(tf32, ref, CUDNN_TENSOR_OP_MATH)) << name << " " << i;
    }
  }
}

TEST(ConvCheckTest, WrongOrMissingOutputsFail) {
  const ReferenceValue ref{0.5, 10.0, 1.0};
  EXPECT_TRUE(PassesCheck(0.5 + 1e-4, ref, CUDNN_FMA_MATH));
  EXPECT_FALSE(PassesCheck(0.5 + 2e-4, ref, CUDNN_FMA_MATH));
  EXPECT_DOUBLE_EQ(AllowedError(ref, CUDNN_FMA_MATH), kFmaTolerance);
  EXPECT_DOUBLE_EQ(AllowedError(ref, CUDNN_TENSOR_OP_MATH), 10 * kTf32Tolerance);
  EXPECT_FALSE(PassesCheck(NAN, ref, CUDNN_FMA_MATH));
  EXPECT_FALSE(PassesCheck(NAN, ref, CUDNN_TENSOR_OP_MATH));
  EXPECT_FALSE(PassesCheck(0.5 + 0.1, ref, CUDNN_TENSOR_OP_MATH));  // a product of ~0.1 missed
}

// WinogradGrowth from the transforms as Lavin & Gray print F(4x4, 3x3)
// (kAt, kG, kBt above): the same figure as the constructed ones, so the
// growth depends on the points, not on how the matrices were built.
double GrowthOfLavinF4x4() {
  double growth = 0;
  for (const auto& out_row : kAt) {
    double sum = 0;
    for (int j = 0; j < 6; ++j) {
      double g = 0;
      double b = 0;
      for (const float v : kG[j]) g += v * v;
      for (const float v : kBt[j]) b += v * v;
      sum += out_row[j] * out_row[j] * g * b;
    }
    growth = std::max(growth, std::sqrt(sum / 3));
  }
  return growth * growth;
}

TEST(ConvCheckTest, WinogradGrowthOfTheTiles) {
  EXPECT_NEAR(WinogradGrowth(2, 3), 1.67, 0.01);
  EXPECT_NEAR(WinogradGrowth(4, 3), 31.4, 0.1);
  EXPECT_NEAR(WinogradGrowth(4, 3), GrowthOfLavinF4x4(), 1e-3);
  EXPECT_NEAR(WinogradGrowth(6, 3), 46.3, 0.1);
  EXPECT_NEAR(WinogradGrowth(2, 5), 19.8, 0.1);
  EXPECT_NEAR(WinogradGrowth(4, 5), 29.8, 0.1);
  EXPECT_TRUE(std::isnan(WinogradGrowth(8, 3)));  // more points than listed
}

// Only winograd and winograd_nonfused on 3x3 or 5x5 stride-1 filters get a
// factor; every other algorithm (FFT included) keeps the fma bound.
TEST(ConvCheckTest, ErrorGrowthOnlyForWinograd) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  int widened = 0;
  for (const ConvLayer& layer : *layers) {
    const forward::LayerSpec& l = layer.spec;
    for (const ConvAlgo& algo : ConvAlgos()) {
      const double growth = ErrorGrowth(algo.algo, l);
      const bool winograd = algo.algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
                            algo.algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
      if (!winograd || l.stride != 1 || (l.r != 3 && l.r != 5)) {
        EXPECT_EQ(growth, 1) << algo.name << " " << layer.name;
        continue;
      }
      EXPECT_NEAR(growth, l.r == 3 ? 46.3 : 29.8, 0.1) << algo.name << " " << layer.name;
      ++widened;
    }
  }
  EXPECT_GT(widened, 0);
}

const ConvLayer& LayerNamed(const std::vector<ConvLayer>& layers, const std::string& name) {
  for (const ConvLayer& l : layers) {
    if (l.name == name) return l;
  }
  ADD_FAILURE() << "no layer " << name;
  return layers.front();
}

// The H100's winograd_nonfused output on the 5x5 alexnet.features.3
// (analysis/reference/h100_80gb_hbm3/2026-11-27-recheck/cuconv/): output
// (n 0, k 0, p 0, q 0) -1.14748 against the reference -1.1482, error 7.2e-4
// = 8.2e-4 of sqrt(sum (x w)^2). Within Winograd's bound, outside the fma
// bound.
TEST(ConvCheckTest, WinogradBoundAcceptsTheH100WinogradError) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  const forward::LayerSpec& l = LayerNamed(*layers, "alexnet.features.3").spec;
  ASSERT_EQ(l.r, 5);
  const ReferenceValue ref = ConvOutputAt(l, InputPattern(), WeightPattern(l), 0, 0, 0, 0);
  EXPECT_NEAR(ref.value, -1.1482, 1e-4);
  const double h100 = -1.14748;
  const double growth = ErrorGrowth(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, l);
  EXPECT_FALSE(PassesCheck(h100, ref, CUDNN_FMA_MATH));
  EXPECT_TRUE(PassesCheck(h100, ref, CUDNN_FMA_MATH, growth));
  std::printf("alexnet.features.3 (0,0,0,0): error %.3g, fma bound %.3g, Winograd bound %.3g\n",
              std::fabs(h100 - ref.value), AllowedError(ref, CUDNN_FMA_MATH),
              AllowedError(ref, CUDNN_FMA_MATH, growth));
}

// A wrong output still fails under the Winograd bound: input channel 0's
// products lost, on a 5x5 layer and on the widest 3x3 one (512 channels,
// the smallest share per channel). The point fails on its first failing
// output; most outputs fail (one channel's products can sum near 0 by
// chance, so not every one).
TEST(ConvCheckTest, WinogradBoundRejectsALostInputChannel) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  const std::vector<float> x = InputPattern();
  for (const char* name : {"alexnet.features.3", "vgg16.conv5_1"}) {
    const forward::LayerSpec& l = LayerNamed(*layers, name).spec;
    const std::vector<float> w = WeightPattern(l);
    const double growth = ErrorGrowth(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, l);
    ASSERT_GT(growth, 20) << name;
    int rejected_fma = 0;
    int rejected = 0;
    for (int i = 0; i < kCheckedOutputs; ++i) {
      const OutputPosition at = CheckedOutput(l, 8, i);
      const ReferenceValue ref = ConvOutputAt(l, x, w, at.n, at.k, at.p, at.q);
      const std::vector<ConvTerm> terms = ConvTermsAt(l, x, w, at.n, at.k, at.p, at.q);
      const size_t per_channel = terms.size() / l.in.c;  // channel-major
      double without_first = 0;
      for (size_t t = per_channel; t < terms.size(); ++t) {
        without_first += static_cast<double>(terms[t].x) * terms[t].w;
      }
      if (!PassesCheck(without_first, ref, CUDNN_FMA_MATH)) ++rejected_fma;
      if (!PassesCheck(without_first, ref, CUDNN_FMA_MATH, growth)) ++rejected;
    }
    std::printf("%s: a lost input channel fails the fma bound at %d, the Winograd bound at %d of "
                "%d outputs\n",
                name, rejected_fma, rejected, kCheckedOutputs);
    EXPECT_GT(rejected_fma, kCheckedOutputs * 9 / 10) << name;
    EXPECT_GT(rejected, kCheckedOutputs * 3 / 4) << name;
  }
}

TEST(ConvCheckTest, CheckedOutputsCoverTheTensor) {
  forward::LayerSpec l;
  l.out = {64, 56, 56};
  const int batch = 8;
  std::map<int, int> images;
  for (int i = 0; i < kCheckedOutputs; ++i) {
    const OutputPosition at = CheckedOutput(l, batch, i);
    EXPECT_EQ(at.index, ((static_cast<size_t>(at.n) * 64 + at.k) * 56 + at.p) * 56 + at.q);
    ASSERT_LT(at.n, batch);
    ++images[at.n];
  }
  EXPECT_EQ(images.size(), 8u);
}

TEST(ConvCheckTest, MathGuardRefusesAnyOtherMath) {
  EXPECT_EQ(MathMismatch(CUDNN_FMA_MATH, CUDNN_FMA_MATH, nullptr), "");
  EXPECT_EQ(MathMismatch(CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH, nullptr), "");
  EXPECT_EQ(MathMismatch(CUDNN_FMA_MATH, CUDNN_FMA_MATH, "0"), "");  // only keeps TF32 off
  EXPECT_EQ(MathMismatch(CUDNN_FMA_MATH, CUDNN_DEFAULT_MATH, nullptr),
            "cuDNN reports math type default after fma was set");
  EXPECT_EQ(MathMismatch(CUDNN_FMA_MATH, std::nullopt, nullptr),
            "cannot read the convolution's math type back (cudnnGetConvolutionMathType "
            "missing), so fma is not confirmed");
  EXPECT_EQ(MathMismatch(CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH, "0"),
            "NVIDIA_TF32_OVERRIDE=0 keeps NVIDIA libraries off TF32, so tensor_op would run as "
            "FP32 FMA");
  EXPECT_EQ(MathMismatch(CUDNN_FMA_MATH, CUDNN_FMA_MATH, "1"),
            "NVIDIA_TF32_OVERRIDE=1 is reserved by NVIDIA (only 0 is defined): which math cuDNN "
            "uses for fma is unknown");
  EXPECT_NE(MathMismatch(CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH, ""), "");
}

}  // namespace
}  // namespace dissect::conv_algos
