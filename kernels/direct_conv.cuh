// The direct NCHW convolution of one output element, shared by the layer
// kernels (kernels/layers: every load through the cache variant's Ld) and
// the fusion kernels (kernels/fusion: an input transform such as BN+ReLU).
//
// acc = sum over c, r, s (in that order) of
// __fmaf_rn(channel_transform(load(x tap)), load(weight), acc), with taps in
// the padding skipped. The order and rounding are fixed, so host references
// reproduce the result bit for bit.
#ifndef DISSECT_KERNELS_DIRECT_CONV_CUH_
#define DISSECT_KERNELS_DIRECT_CONV_CUH_

#include <cstddef>

namespace dissect {

// An input transform gives, for channel c, the function applied to each of
// that channel's loaded inputs (so per-channel parameters are loaded once per
// channel, not once per tap). This one leaves the inputs as they are.
struct DirectConvNoTransform {
  struct Channel {
    __device__ __forceinline__ float operator()(float v) const { return v; }
  };
  __device__ __forceinline__ Channel ForChannel(int) const { return {}; }
};

// Output element i (NKPQ order) of the convolution of x (N x C x H x W) with
// weights (K x C x R x S). `Dims` has n, c, h, w, k, r, s, stride, pad,
// OutH() and OutW(); `load(p)` returns the float at p; `in_op` is an input
// transform as above.
template <typename Dims, typename Load, typename In>
__device__ __forceinline__ float DirectConvOutput(size_t i, const float* x, const float* weights,
                                                  Dims d, Load load, In in_op) {
  const int out_h = d.OutH(), out_w = d.OutW();
  const int q = static_cast<int>(i % out_w);
  const int p = static_cast<int>(i / out_w % out_h);
  const int k = static_cast<int>(i / (static_cast<size_t>(out_w) * out_h) % d.k);
  const size_t n = i / (static_cast<size_t>(out_w) * out_h * d.k);
  float acc = 0.0f;
  for (int c = 0; c < d.c; ++c) {
    const float* plane = x + (n * d.c + c) * d.h * d.w;
    const float* filter = weights + (static_cast<size_t>(k) * d.c + c) * d.r * d.s;
    const typename In::Channel transform = in_op.ForChannel(c);
    for (int r = 0; r < d.r; ++r) {
      const int ih = p * d.stride - d.pad + r;
      if (ih < 0 || ih >= d.h) continue;
      for (int s = 0; s < d.s; ++s) {
        const int iw = q * d.stride - d.pad + s;
        if (iw < 0 || iw >= d.w) continue;
        acc = __fmaf_rn(transform(load(plane + ih * d.w + iw)), load(filter + r * d.s + s), acc);
      }
    }
  }
  return acc;
}

}  // namespace dissect

#endif  // DISSECT_KERNELS_DIRECT_CONV_CUH_
