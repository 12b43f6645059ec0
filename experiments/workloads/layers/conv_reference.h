// The host reference of one direct-convolution output (NCHW input, KCRS
// weights, no bias), in the order the GPU kernels accumulate
// (kernels/direct_conv.cuh): over c, r, s, std::fmaf(in(x), w, acc), padded
// taps skipped. Written apart from the kernel on purpose, so that it checks
// the kernel's index arithmetic rather than repeating it. `in` transforms each
// loaded input of channel c (identity for a plain conv; BN+ReLU for a fused
// one). Used by l1_bypass's and layer_fusion's CPU checks.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_CONV_REFERENCE_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_CONV_REFERENCE_H_

#include <cmath>
#include <cstddef>

namespace dissect {

// Dims: n, c, h, w, k, r, s, stride, pad and OutH(), OutW() (LayerDims,
// fusion::ConvDims). `i` indexes the N x K x OutH x OutW output.
template <typename Dims, typename InputTransform>
float DirectConvReferenceAt(const Dims& d, const float* x, const float* weights, size_t i,
                            InputTransform in) {
  const int out_h = d.OutH(), out_w = d.OutW();
  const int q = static_cast<int>(i % out_w);
  const int p = static_cast<int>(i / out_w % out_h);
  const int k = static_cast<int>(i / (static_cast<size_t>(out_w) * out_h) % d.k);
  const size_t n = i / (static_cast<size_t>(out_w) * out_h * d.k);
  float acc = 0.0f;
  for (int c = 0; c < d.c; ++c) {
    const float* plane = x + (n * d.c + c) * d.h * d.w;
    const float* filter = weights + (static_cast<size_t>(k) * d.c + c) * d.r * d.s;
    for (int r = 0; r < d.r; ++r) {
      const int ih = p * d.stride - d.pad + r;
      if (ih < 0 || ih >= d.h) continue;
      for (int s = 0; s < d.s; ++s) {
        const int iw = q * d.stride - d.pad + s;
        if (iw < 0 || iw >= d.w) continue;
        acc = std::fmaf(in(plane[ih * d.w + iw], c), filter[r * d.s + s], acc);
      }
    }
  }
  return acc;
}

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_CONV_REFERENCE_H_
