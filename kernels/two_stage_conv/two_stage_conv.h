// Host interface of our two-stage convolution (kernels/two_stage_conv.cu):
// stage 1 writes every filter row's partial outputs into a workspace, stage
// 2 sums them into the output. What "two-stage" means here is our reading
// of the cuConv paper's title and the reading list's note, not the paper's
// text: two_stage_conv_math.h has the formulation.
#ifndef DISSECT_KERNELS_TWO_STAGE_CONV_TWO_STAGE_CONV_H_
#define DISSECT_KERNELS_TWO_STAGE_CONV_TWO_STAGE_CONV_H_

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/two_stage_conv/two_stage_conv_math.h"

namespace dissect::two_stage_conv {

// Threads per block of both stages.
inline constexpr int kThreads = 256;

// Bytes of workspace LaunchTwoStageConv needs: R x N x K x P x Q floats.
inline size_t WorkspaceBytes(const ConvDims& d) { return WorkspaceElements(d) * sizeof(float); }

// Launches stage 1 (RowPartial over the workspace, one element a thread,
// grid-stride) then stage 2 (SumOfRowPartials over y) on `stream`. Nothing
// but the two launches; `workspace` holds at least WorkspaceBytes(d).
// cudaErrorInvalidValue for a null pointer, a non-positive dimension or
// stride, a negative pad or an empty output.
cudaError_t LaunchTwoStageConv(const float* x, const float* w, float* workspace, float* y,
                               const ConvDims& d, cudaStream_t stream);

}  // namespace dissect::two_stage_conv

#endif  // DISSECT_KERNELS_TWO_STAGE_CONV_TWO_STAGE_CONV_H_
