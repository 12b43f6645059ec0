// The arithmetic of our two-stage convolution (kernels/two_stage_conv), as
// __host__ __device__ functions: the kernels call them on the GPU and the CPU
// reference test (//experiments/conv_algos:two_stage_reference_test) calls
// the same code on the host, so the decomposition itself is what the test
// checks against the direct convolution.
//
// Our reading of "cuConv: CUDA implementation of convolution for CNN
// inference" (2022): we read only its title and the reading list's note that
// it designs a "two-stage convolution" and compares it with GEMM, Winograd
// and FFT, not the paper.
// The formulation below is ours, not necessarily the paper's:
//   stage 1, per filter row r: partial[r][n][k][p][q] = sum over s, then c,
//     of x[n][c][p*stride - pad + r][q*stride - pad + s] * w[k][c][r][s]
//     (the R rows' 1-D convolutions, each summed over the channels), into a
//     workspace of R x N x K x P x Q floats;
//   stage 2: y[n][k][p][q] = sum over r (in order) of partial[r][n][k][p][q].
// Zero padding: taps outside the input are left out, a row wholly in the
// padding gives 0. NCHW input, KCRS filter, NKPQ output, float32, every
// product through one fmaf (FFMA on the GPU, the correctly rounded fmaf of
// the C library on the host), so host and device results agree bit for bit.
#ifndef DISSECT_KERNELS_TWO_STAGE_CONV_TWO_STAGE_CONV_MATH_H_
#define DISSECT_KERNELS_TWO_STAGE_CONV_TWO_STAGE_CONV_MATH_H_

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>

#include "kernels/conv_dims.h"

namespace dissect::two_stage_conv {

// x is N x C x H x W, w is K x C x R x S, y is N x K x P x Q.
using ConvDims = ::dissect::ConvDims;

// N K P Q: the output, and one filter row's slice of the workspace.
__host__ __device__ inline size_t OutputElements(const ConvDims& d) {
  return static_cast<size_t>(d.n) * d.k * d.OutH() * d.OutW();
}

// Stage 1's workspace: R slices of OutputElements(d).
__host__ __device__ inline size_t WorkspaceElements(const ConvDims& d) {
  return static_cast<size_t>(d.r) * OutputElements(d);
}

// Stage 1: workspace element i (R N K P Q order, q fastest), the partial sum
// of filter row r for output (n, k, p, q). Loops over the row's taps s
// inside the input (outer) and the channels c (inner: one x and one w load
// and one fmaf a channel, the kernel's inner loop).
__host__ __device__ inline float RowPartial(const float* x, const float* w, const ConvDims& d,
                                            size_t i) {
  const int out_w = d.OutW(), out_h = d.OutH();
  const int q = static_cast<int>(i % out_w);
  const int p = static_cast<int>(i / out_w % out_h);
  const int k = static_cast<int>(i / (static_cast<size_t>(out_w) * out_h) % d.k);
  const size_t nkpq = OutputElements(d);
  const int n = static_cast<int>(i % nkpq / (static_cast<size_t>(out_w) * out_h * d.k));
  const int r = static_cast<int>(i / nkpq);
  const int ih = p * d.stride - d.pad + r;
  if (ih < 0 || ih >= d.h) return 0.0f;
  const int iw0 = q * d.stride - d.pad;  // the input column of tap s = 0
  const int s_begin = iw0 < 0 ? -iw0 : 0;
  const int s_end = d.w - iw0 < d.s ? d.w - iw0 : d.s;
  const size_t plane = static_cast<size_t>(d.h) * d.w;
  const size_t filter_channel = static_cast<size_t>(d.r) * d.s;
  const float* x_row = x + static_cast<size_t>(n) * d.c * plane + static_cast<size_t>(ih) * d.w;
  const float* w_row = w + (static_cast<size_t>(k) * d.c * d.r + r) * d.s;
  float acc = 0.0f;
  for (int s = s_begin; s < s_end; ++s) {
    const float* xp = x_row + (iw0 + s);
    const float* wp = w_row + s;
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
    for (int c = 0; c < d.c; ++c) {
      acc = fmaf(*xp, *wp, acc);
      xp += plane;
      wp += filter_channel;
    }
  }
  return acc;
}

// Stage 2: output element i (N K P Q order), the sum of the R partials of
// `workspace` (RowPartial's layout) in filter-row order.
__host__ __device__ inline float SumOfRowPartials(const float* workspace, const ConvDims& d,
                                                  size_t i) {
  const size_t nkpq = OutputElements(d);
  float acc = workspace[i];
  for (int r = 1; r < d.r; ++r) acc += workspace[r * nkpq + i];
  return acc;
}

}  // namespace dissect::two_stage_conv

#endif  // DISSECT_KERNELS_TWO_STAGE_CONV_TWO_STAGE_CONV_MATH_H_
