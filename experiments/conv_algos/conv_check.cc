// The output check and math guard of conv_algorithms; see conv_check.h.
#include "experiments/conv_algos/conv_check.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "experiments/workloads/forward/cpu_reference.h"

namespace dissect::conv_algos {

std::vector<float> Pattern(uint64_t stream, double scale) {
  static auto* const unit = new std::map<uint64_t, std::vector<float>>;
  std::vector<float>& values = (*unit)[stream];
  if (values.empty()) {
    values.resize(kPatternElements);
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = forward::NormalAt(kPatternSeed, stream, i);
    }
  }
  std::vector<float> scaled(values.size());
  for (size_t i = 0; i < values.size(); ++i) scaled[i] = static_cast<float>(values[i] * scale);
  return scaled;
}

std::vector<float> InputPattern() { return Pattern(0, 1.0); }

std::vector<float> WeightPattern(const forward::LayerSpec& l) {
  return Pattern(1, std::sqrt(2.0 / (l.in.c * l.r * l.s)));
}

OutputPosition CheckedOutput(const forward::LayerSpec& l, int batch, int i) {
  const size_t outputs = static_cast<size_t>(batch) * l.out.c * l.out.h * l.out.w;
  OutputPosition at;
  // A golden-ratio stride visits every part of the NKPQ tensor.
  at.index =
      static_cast<size_t>((static_cast<unsigned __int128>(i) * 0x9E3779B97F4A7C15ull) % outputs);
  size_t rest = at.index;
  at.q = static_cast<int>(rest % l.out.w);
  rest /= l.out.w;
  at.p = static_cast<int>(rest % l.out.h);
  rest /= l.out.h;
  at.k = static_cast<int>(rest % l.out.c);
  at.n = static_cast<int>(rest / l.out.c);
  return at;
}

namespace {

using Matrix = std::vector<std::vector<double>>;

// Solves a * x = b (a square, nonsingular) by Gaussian elimination with
// partial pivoting.
std::vector<double> Solve(Matrix a, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t row = col + 1; row < n; ++row) {
      if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
    }
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (size_t row = 0; row < n; ++row) {
      if (row == col) continue;
      const double f = a[row][col] / a[col][col];
      for (size_t k = col; k < n; ++k) a[row][k] -= f * a[col][k];
      b[row] -= f * b[col];
    }
  }
  for (size_t i = 0; i < n; ++i) b[i] /= a[i][i];
  return b;
}

double RowNorm(const std::vector<double>& row) {
  double sum = 0;
  for (double v : row) sum += v * v;
  return std::sqrt(sum);
}

}  // namespace

double WinogradGrowth(int m, int r) {
  static constexpr double kPoints[] = {0, 1, -1, 2, -2, 0.5, -0.5};
  const int n = m + r - 1;  // the tile: n - 1 finite points and infinity
  if (m < 1 || r < 1 || n - 1 > static_cast<int>(std::size(kPoints))) return NAN;
  Matrix at(m, std::vector<double>(n, 0));  // A^T, m x n
  Matrix g(n, std::vector<double>(r, 0));   // G, n x r
  for (int j = 0; j + 1 < n; ++j) {
    double scale = 1;
    for (int l = 0; l + 1 < n; ++l) {
      if (l != j) scale *= kPoints[j] - kPoints[l];
    }
    for (int i = 0; i < m; ++i) at[i][j] = std::pow(kPoints[j], i);
    for (int k = 0; k < r; ++k) g[j][k] = std::pow(kPoints[j], k) / scale;
  }
  at[m - 1][n - 1] = 1;
  g[n - 1][r - 1] = 1;
  // B^T, n x n: the one matrix with sum_j A^T[o][j] G[j][k] B^T[j][t] =
  // (t == o + k) for every o, k, t (the correlation), column by column from
  // the normal equations of those m r equations.
  Matrix normal(n, std::vector<double>(n, 0));
  for (int o = 0; o < m; ++o) {
    for (int k = 0; k < r; ++k) {
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) normal[i][j] += at[o][i] * g[i][k] * at[o][j] * g[j][k];
      }
    }
  }
  Matrix bt(n, std::vector<double>(n, 0));
  for (int t = 0; t < n; ++t) {
    std::vector<double> rhs(n, 0);
    for (int o = 0; o < m; ++o) {
      if (t - o >= 0 && t - o < r) {
        for (int j = 0; j < n; ++j) rhs[j] += at[o][j] * g[j][t - o];
      }
    }
    const std::vector<double> column = Solve(normal, rhs);
    for (int j = 0; j < n; ++j) bt[j][t] = column[j];
  }
  double growth = 0;
  for (int o = 0; o < m; ++o) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      const double weight = at[o][j] * RowNorm(g[j]) * RowNorm(bt[j]);
      sum += weight * weight;
    }
    growth = std::max(growth, std::sqrt(sum / r));
  }
  return growth * growth;
}

double ErrorGrowth(cudnnConvolutionFwdAlgo_t algo, const forward::LayerSpec& l) {
  const bool winograd = algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
                        algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
  if (!winograd || l.r != l.s || l.stride != 1 || (l.r != 3 && l.r != 5)) return 1;
  constexpr int kLargestInputTile = 8;
  return WinogradGrowth(kLargestInputTile - l.r + 1, l.r);
}

double AllowedError(const ReferenceValue& ref, cudnnMathType_t math, double growth) {
  return math == CUDNN_FMA_MATH ? kFmaTolerance * growth * ref.norm
                                : kTf32Tolerance * ref.magnitude;
}

bool PassesCheck(double value, const ReferenceValue& ref, cudnnMathType_t math, double growth) {
  return std::fabs(value - ref.value) <= AllowedError(ref, math, growth);
}

std::string MathTypeName(cudnnMathType_t math) {
  switch (math) {
    case CUDNN_FMA_MATH:
      return "fma";
    case CUDNN_TENSOR_OP_MATH:
      return "tensor_op";
    case CUDNN_DEFAULT_MATH:
      return "default";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return "tensor_op_allow_conversion";
  }
  return absl::StrCat("math type ", static_cast<int>(math));
}

std::string MathMismatch(cudnnMathType_t requested, std::optional<cudnnMathType_t> read_back,
                         const char* tf32_override) {
  if (!read_back.has_value()) {
    return absl::StrCat(
        "cannot read the convolution's math type back "
        "(cudnnGetConvolutionMathType missing), so ",
        MathTypeName(requested), " is not confirmed");
  }
  if (*read_back != requested) {
    return absl::StrCat("cuDNN reports math type ", MathTypeName(*read_back), " after ",
                        MathTypeName(requested), " was set");
  }
  if (tf32_override == nullptr) return "";
  const absl::string_view value(tf32_override);
  if (value == "0") {
    if (requested == CUDNN_FMA_MATH) return "";
    return absl::StrCat("NVIDIA_TF32_OVERRIDE=0 keeps NVIDIA libraries off TF32, so ",
                        MathTypeName(requested), " would run as FP32 FMA");
  }
  return absl::StrCat("NVIDIA_TF32_OVERRIDE=", value,
                      " is reserved by NVIDIA (only 0 is defined): which math cuDNN uses for ",
                      MathTypeName(requested), " is unknown");
}

}  // namespace dissect::conv_algos
