// The axes of conv_algorithms; see conv_layers.h.
#include "experiments/conv_algos/conv_layers.h"

#include <cmath>
#include <map>
#include <tuple>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/cuda_status.h"

namespace dissect::conv_algos {

absl::StatusOr<std::vector<ConvLayer>> AllConvLayers() {
  std::vector<ConvLayer> all;
  for (const std::string& network : forward::AllBuiltinNetworkNames()) {
    DISSECT_ASSIGN_OR_RETURN(forward::NetworkSpec net, forward::BuiltinNetwork(network));
    using ShapeKey = std::tuple<int, int, int, int, int, int, int, int>;
    std::map<ShapeKey, size_t> first_of_shape;  // index into `all`
    const size_t begin = all.size();
    for (const forward::LayerSpec& l : net.layers) {
      if (l.op != forward::LayerOp::kConv) continue;
      ConvLayer layer{absl::StrCat(network, ".", l.name), network, l};
      const ShapeKey key{l.in.c, l.in.h, l.in.w, l.k, l.r, l.s, l.stride, l.pad};
      const auto [it, inserted] = first_of_shape.emplace(key, all.size());
      ++(inserted ? layer : all[it->second]).shape_count;
      all.push_back(std::move(layer));
    }
    for (size_t i = begin; i < all.size(); ++i) {
      all[i].network_conv_layers = static_cast<int>(all.size() - begin);
    }
  }
  return all;
}

std::vector<std::string> DistinctShapeNames(const std::vector<ConvLayer>& layers,
                                            const std::vector<std::string>& networks) {
  std::vector<std::string> names;
  for (const ConvLayer& l : layers) {
    if (l.shape_count > 0 && absl::c_linear_search(networks, l.network)) names.push_back(l.name);
  }
  return names;
}

double ConvFlops(const forward::LayerSpec& l, int batch) {
  return 2.0 * batch * l.k * l.in.c * l.r * l.s * l.out.h * l.out.w;
}

std::vector<ConvTerm> ConvTermsAt(const forward::LayerSpec& l, const std::vector<float>& x,
                                  const std::vector<float>& w, int n, int k, int p, int q) {
  std::vector<ConvTerm> terms;
  terms.reserve(static_cast<size_t>(l.in.c) * l.r * l.s);
  for (int c = 0; c < l.in.c; ++c) {
    for (int r = 0; r < l.r; ++r) {
      const int h = p * l.stride - l.pad + r;
      if (h < 0 || h >= l.in.h) continue;
      for (int s = 0; s < l.s; ++s) {
        const int col = q * l.stride - l.pad + s;
        if (col < 0 || col >= l.in.w) continue;
        const size_t xi = ((static_cast<size_t>(n) * l.in.c + c) * l.in.h + h) * l.in.w + col;
        const size_t wi = ((static_cast<size_t>(k) * l.in.c + c) * l.r + r) * l.s + s;
        terms.push_back({x[xi % x.size()], w[wi % w.size()]});
      }
    }
  }
  return terms;
}

ReferenceValue ConvOutputAt(const forward::LayerSpec& l, const std::vector<float>& x,
                            const std::vector<float>& w, int n, int k, int p, int q) {
  ReferenceValue out;
  for (const ConvTerm& t : ConvTermsAt(l, x, w, n, k, p, q)) {
    const double product = static_cast<double>(t.x) * t.w;  // exact: 24 + 24 bits
    out.value += product;
    out.magnitude += std::fabs(product);
    out.norm += product * product;
  }
  out.norm = std::sqrt(out.norm);
  return out;
}

const std::vector<ConvAlgo>& ConvAlgos() {
  static const std::vector<ConvAlgo>* const algos = new std::vector<ConvAlgo>{
      {"implicit_gemm", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
      {"implicit_precomp_gemm", CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM},
      {"gemm", CUDNN_CONVOLUTION_FWD_ALGO_GEMM},
      {"direct", CUDNN_CONVOLUTION_FWD_ALGO_DIRECT},
      {"fft", CUDNN_CONVOLUTION_FWD_ALGO_FFT},
      {"fft_tiling", CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING},
      {"winograd", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD},
      {"winograd_nonfused", CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED},
  };
  return *algos;
}

std::vector<std::string> ConvAlgoNames() {
  std::vector<std::string> names;
  for (const ConvAlgo& a : ConvAlgos()) names.push_back(a.name);
  return names;
}

std::vector<std::string> AlgoAxisNames() {
  std::vector<std::string> names = ConvAlgoNames();
  names.push_back(kTwoStageAlgo);
  return names;
}

absl::StatusOr<cudnnConvolutionFwdAlgo_t> ConvAlgoNamed(absl::string_view name) {
  for (const ConvAlgo& a : ConvAlgos()) {
    if (name == a.name) return a.algo;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown convolution algorithm '", name,
                                                 "' (one of ", absl::StrJoin(ConvAlgoNames(), ", "),
                                                 ")"));
}

}  // namespace dissect::conv_algos
