// The output check and math guard of conv_algorithms; see conv_check.h.
#include "experiments/conv_algos/conv_check.h"

#include <cmath>
#include <map>

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

double AllowedError(const ReferenceValue& ref, cudnnMathType_t math) {
  return math == CUDNN_FMA_MATH ? kFmaTolerance * ref.norm : kTf32Tolerance * ref.magnitude;
}

bool PassesCheck(double value, const ReferenceValue& ref, cudnnMathType_t math) {
  return std::fabs(value - ref.value) <= AllowedError(ref, math);
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
