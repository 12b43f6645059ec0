// Layer-fusion kernels: one templated direct convolution (input and output
// transforms as functors) and the per-channel affine (BN) kernel. The BN
// arithmetic is __fmaf_rn and ReLU fmaxf(v, 0) everywhere, so that fused and
// unfused forms round identically and their outputs are bit-identical.
#include "kernels/direct_conv.cuh"
#include "kernels/fusion/fusion.h"
#include "kernels/grid_stride.cuh"

namespace dissect::fusion {
namespace device {

__device__ __forceinline__ float Relu(float v) { return fmaxf(v, 0.0f); }

// Input transforms (kernels/direct_conv.cuh): for channel c, the function
// applied to each of that channel's loaded values.
struct InIdentity : DirectConvNoTransform {};

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

template <typename In, typename Out>
__global__ void __launch_bounds__(kFusionThreads)
    ConvKernel(const float* __restrict__ x, const float* __restrict__ weights,
               float* __restrict__ y, ConvDims d, In in_op, Out out_op) {
  const int out_h = d.OutH(), out_w = d.OutW();
  const size_t total = static_cast<size_t>(d.n) * d.k * out_h * out_w;
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
    const float acc =
        DirectConvOutput(i, x, weights, d, [](const float* p) { return *p; }, in_op);
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
      return LaunchWithOutput(x, weights, y, d, device::InIdentity{}, out_op, blocks,
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
