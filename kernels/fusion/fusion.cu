// Layer-fusion kernels: one templated direct convolution (input and output
// transforms as functors) and the per-channel affine (BN) kernel. The BN
// arithmetic is __fmaf_rn and ReLU fmaxf(v, 0) everywhere, so that fused and
// unfused forms round identically and their outputs are bit-identical.
#include "kernels/fusion/fusion.h"

namespace dissect::fusion {
namespace device {

__device__ __forceinline__ float Relu(float v) { return fmaxf(v, 0.0f); }

// An input transform gives, for channel c, the function applied to each of
// that channel's loaded values (so per-channel parameters are loaded once
// per channel, not once per tap).
struct InIdentity {
  struct Channel {
    __device__ __forceinline__ float operator()(float v) const { return v; }
  };
  const float* scale;
  const float* shift;
  __device__ __forceinline__ Channel ForChannel(int) const { return {}; }
};

struct InBnRelu {
  struct Channel {
    float scale, shift;
    __device__ __forceinline__ float operator()(float v) const {
      return Relu(__fmaf_rn(v, scale, shift));
    }
  };
  const float* scale;
  const float* shift;
  __device__ __forceinline__ Channel ForChannel(int c) const { return {scale[c], shift[c]}; }
};

struct OutIdentity {
  __device__ __forceinline__ float operator()(float v) const { return v; }
};

struct OutRelu {
  __device__ __forceinline__ float operator()(float v) const { return Relu(v); }
};

__device__ __forceinline__ size_t FirstThread() {
  return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ size_t GridThreads() {
  return static_cast<size_t>(gridDim.x) * blockDim.x;
}

template <typename In, typename Out>
__global__ void __launch_bounds__(kFusionThreads)
    ConvKernel(const float* __restrict__ x, const float* __restrict__ weights,
               float* __restrict__ y, ConvDims d, In in_op, Out out_op) {
  const int out_h = d.OutH(), out_w = d.OutW();
  const size_t total = static_cast<size_t>(d.n) * d.k * out_h * out_w;
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
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
          acc = __fmaf_rn(transform(plane[ih * d.w + iw]), filter[r * d.s + s], acc);
        }
      }
    }
    y[i] = out_op(acc);
  }
}

template <bool kRelu>
__global__ void __launch_bounds__(kFusionThreads)
    ChannelAffineKernel(const float* x, const float* __restrict__ scale,
                        const float* __restrict__ shift, float* y, int c, size_t hw, size_t total) {
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
    const int ch = static_cast<int>(i / hw % c);
    const float v = __fmaf_rn(x[i], scale[ch], shift[ch]);
    y[i] = kRelu ? Relu(v) : v;
  }
}

}  // namespace device

namespace {

template <typename In, typename Out>
cudaError_t Launch(const float* x, const float* weights, float* y, const ConvDims& d, In in_op,
                   Out out_op, int blocks, cudaStream_t stream) {
  device::ConvKernel<In, Out>
      <<<blocks, kFusionThreads, 0, stream>>>(x, weights, y, d, in_op, out_op);
  return cudaGetLastError();
}

template <typename In>
cudaError_t LaunchWithOutput(const float* x, const float* weights, float* y, const ConvDims& d,
                             In in_op, OutputOp out_op, int blocks, cudaStream_t stream) {
  switch (out_op) {
    case OutputOp::kIdentity:
      return Launch(x, weights, y, d, in_op, device::OutIdentity{}, blocks, stream);
    case OutputOp::kRelu:
      return Launch(x, weights, y, d, in_op, device::OutRelu{}, blocks, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchConv(const float* x, const float* weights, const float* scale, const float* shift,
                       float* y, const ConvDims& d, InputOp in_op, OutputOp out_op, int blocks,
                       cudaStream_t stream) {
  if (x == nullptr || weights == nullptr || y == nullptr || blocks < 1) {
    return cudaErrorInvalidValue;
  }
  if (d.n < 1 || d.c < 1 || d.k < 1 || d.r < 1 || d.s < 1 || d.stride < 1 || d.pad < 0 ||
      d.OutH() < 1 || d.OutW() < 1) {
    return cudaErrorInvalidValue;
  }
  switch (in_op) {
    case InputOp::kIdentity:
      return LaunchWithOutput(x, weights, y, d, device::InIdentity{scale, shift}, out_op, blocks,
                              stream);
    case InputOp::kBnRelu:
      if (scale == nullptr || shift == nullptr) return cudaErrorInvalidValue;
      return LaunchWithOutput(x, weights, y, d, device::InBnRelu{scale, shift}, out_op, blocks,
                              stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchChannelAffine(const float* x, const float* scale, const float* shift, float* y,
                                int n, int c, size_t hw, bool relu, int blocks,
                                cudaStream_t stream) {
  if (x == nullptr || scale == nullptr || shift == nullptr || y == nullptr || blocks < 1 || n < 1 ||
      c < 1 || hw < 1) {
    return cudaErrorInvalidValue;
  }
  const size_t total = static_cast<size_t>(n) * c * hw;
  if (relu) {
    device::ChannelAffineKernel<true>
        <<<blocks, kFusionThreads, 0, stream>>>(x, scale, shift, y, c, hw, total);
  } else {
    device::ChannelAffineKernel<false>
        <<<blocks, kFusionThreads, 0, stream>>>(x, scale, shift, y, c, hw, total);
  }
  return cudaGetLastError();
}

}  // namespace dissect::fusion
