// An empty kernel; see noop.h.
#include "kernels/noop.h"

namespace dissect {
namespace {

__global__ void NoopKernel() {}

}  // namespace

cudaError_t LaunchNoop(cudaStream_t stream) {
  NoopKernel<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace dissect
