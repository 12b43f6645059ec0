// Our two-stage convolution's kernels; see two_stage_conv_math.h for the
// formulation (our reading of cuConv, 2022) and two_stage_conv.h for the
// launch.
#include "kernels/grid_stride.cuh"
#include "kernels/two_stage_conv/two_stage_conv.h"

namespace dissect::two_stage_conv {
namespace {

// Consecutive threads take consecutive q of one (r, n, k, p): their x loads
// are `stride` floats apart and their w loads the same address.
__global__ void RowPartialsKernel(const float* __restrict__ x, const float* __restrict__ w,
                                  float* __restrict__ workspace, ConvDims d) {
  const size_t elements = WorkspaceElements(d);
  for (size_t i = FirstThread(); i < elements; i += GridThreads()) {
    workspace[i] = RowPartial(x, w, d, i);
  }
}

__global__ void SumRowsKernel(const float* __restrict__ workspace, float* __restrict__ y,
                              ConvDims d) {
  const size_t elements = OutputElements(d);
  for (size_t i = FirstThread(); i < elements; i += GridThreads()) {
    y[i] = SumOfRowPartials(workspace, d, i);
  }
}

// Enough blocks for one element a thread, at most 2^20 (grid-stride beyond).
unsigned int BlocksFor(size_t elements) {
  const size_t blocks = (elements + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(blocks < (size_t{1} << 20) ? blocks : (size_t{1} << 20));
}

bool Valid(const ConvDims& d) {
  return d.n > 0 && d.c > 0 && d.h > 0 && d.w > 0 && d.k > 0 && d.r > 0 && d.s > 0 &&
         d.stride > 0 && d.pad >= 0 && d.h + 2 * d.pad >= d.r && d.w + 2 * d.pad >= d.s;
}

}  // namespace

cudaError_t LaunchTwoStageConv(const float* x, const float* w, float* workspace, float* y,
                               const ConvDims& d, cudaStream_t stream) {
  if (x == nullptr || w == nullptr || workspace == nullptr || y == nullptr || !Valid(d)) {
    return cudaErrorInvalidValue;
  }
  RowPartialsKernel<<<BlocksFor(WorkspaceElements(d)), kThreads, 0, stream>>>(x, w, workspace, d);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  SumRowsKernel<<<BlocksFor(OutputElements(d)), kThreads, 0, stream>>>(workspace, y, d);
  return cudaGetLastError();
}

}  // namespace dissect::two_stage_conv
