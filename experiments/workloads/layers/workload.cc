// Layer kernels on config layers (see workload.h).
#include "experiments/workloads/layers/workload.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dissect::l1_bypass {
namespace {

using layers::LayerDims;
using layers::LayerKernel;

struct KernelNameEntry {
  LayerKernel kernel;
  const char* name;
};

constexpr KernelNameEntry kKernelNames[] = {
    {LayerKernel::kStream, "stream"},   {LayerKernel::kGather, "gather"},
    {LayerKernel::kStencil, "stencil"}, {LayerKernel::kConv, "conv"},
    {LayerKernel::kMaxPool, "maxpool"}, {LayerKernel::kGemv, "gemv"},
    {LayerKernel::kSoftmax, "softmax"},
};

const char* TypeName(LayerType type) {
  switch (type) {
    case LayerType::kConv:
      return "conv";
    case LayerType::kPool:
      return "pool";
    case LayerType::kFc:
      return "fc";
  }
  return "?";
}

// The layer with its input resized to about `bytes` (see MakeWorkload).
LayerShape Resize(LayerKernel kernel, LayerShape l, int64_t bytes) {
  const double elements = static_cast<double>(bytes) / sizeof(float);
  if (l.type == LayerType::kFc) {
    const int64_t features = std::max<int64_t>(1, std::llround(elements / l.n));
    if (kernel == LayerKernel::kSoftmax) {
      l.k = static_cast<int>(features);
    } else {
      if (kernel == LayerKernel::kGemv) {
        const int64_t weights = static_cast<int64_t>(l.k) * l.c;
        l.k = static_cast<int>(std::max<int64_t>(1, weights / features));
      }
      l.c = static_cast<int>(features);
    }
    return l;
  }
  const int least = std::max({l.r, l.s, 1});
  const int side = static_cast<int>(std::llround(std::sqrt(elements / (double(l.n) * l.c))));
  l.h = l.w = std::max(side, least);
  return l;
}

}  // namespace

const char* KernelName(LayerKernel kernel) {
  for (const KernelNameEntry& e : kKernelNames) {
    if (e.kernel == kernel) return e.name;
  }
  return "?";
}

absl::StatusOr<LayerKernel> ParseKernel(absl::string_view name) {
  for (const KernelNameEntry& e : kKernelNames) {
    if (name == e.name) return e.kernel;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown kernel '", name, "'"));
}

std::vector<std::string> KernelNames() {
  std::vector<std::string> out;
  for (const KernelNameEntry& e : kKernelNames) out.push_back(e.name);
  return out;
}

std::string NotApplicable(LayerKernel kernel, const LayerShape& layer) {
  bool applies = true;
  switch (kernel) {
    case LayerKernel::kStream:
    case LayerKernel::kGather:
    case LayerKernel::kSoftmax:
      break;
    case LayerKernel::kStencil:
      applies = layer.type != LayerType::kFc;
      break;
    case LayerKernel::kConv:
      applies = layer.type == LayerType::kConv;
      break;
    case LayerKernel::kMaxPool:
      applies = layer.type == LayerType::kPool;
      break;
    case LayerKernel::kGemv:
      applies = layer.type == LayerType::kFc;
      break;
  }
  if (applies) return "";
  return absl::StrCat(KernelName(kernel), " does not run on ", TypeName(layer.type), " layers (",
                      layer.name, ")");
}

double Workload::WorkPerOutput() const {
  switch (kernel) {
    case LayerKernel::kConv:
      return double(dims.c) * dims.r * dims.s;
    case LayerKernel::kMaxPool:
      return double(dims.r) * dims.s;
    case LayerKernel::kGemv:
      return dims.c;
    case LayerKernel::kSoftmax:
      return 3.0 * dims.w;  // its whole row
    default:
      return 5.0;
  }
}

Workload MakeWorkload(LayerKernel kernel, const LayerShape& layer, int64_t working_set_bytes) {
  const LayerShape l = working_set_bytes > 0 ? Resize(kernel, layer, working_set_bytes) : layer;
  Workload wl;
  wl.kernel = kernel;
  wl.images = l.n;
  LayerDims& d = wl.dims;
  d.n = l.n;
  d.c = l.c;
  d.h = l.h;
  d.w = l.w;
  d.k = l.k;
  d.r = l.r;
  d.s = l.s;
  d.stride = l.stride;
  d.pad = l.pad;
  const size_t input = size_t(l.n) * l.c * l.h * l.w;
  wl.x_elements = input;
  wl.y_elements = input;
  switch (kernel) {
    case LayerKernel::kStream:
      wl.weight_elements = 2 * size_t(l.c);
      break;
    case LayerKernel::kGather:
      wl.index_elements = input;
      break;
    case LayerKernel::kStencil:
      break;
    case LayerKernel::kConv:
      wl.weight_elements = size_t(l.k) * l.c * l.r * l.s;
      wl.y_elements = size_t(l.n) * l.k * l.OutH() * l.OutW();
      break;
    case LayerKernel::kMaxPool:
      wl.y_elements = size_t(l.n) * l.c * l.OutH() * l.OutW();
      break;
    case LayerKernel::kGemv:
      d.c = l.c * l.h * l.w;
      d.h = d.w = d.r = d.s = 1;
      wl.weight_elements = size_t(l.k) * d.c;
      wl.y_elements = size_t(l.n) * l.k;
      break;
    case LayerKernel::kSoftmax:
      // Rows of w elements, n * c * h of them.
      if (l.type == LayerType::kFc) {
        d = LayerDims{};
        d.n = l.n;
        d.w = l.k;
      } else {
        d.c = l.n * l.c;
        d.n = 1;
        d.h = 1;
        d.w = l.h * l.w;
      }
      wl.x_elements = wl.y_elements = size_t(d.n) * d.c * d.h * d.w;
      break;
  }
  return wl;
}

}  // namespace dissect::l1_bypass
