// Host interface of an empty kernel (kernels/noop.cu), for probes that need
// some launch: the harness's counter self-test runs it once per pass.
#ifndef DISSECT_KERNELS_NOOP_H_
#define DISSECT_KERNELS_NOOP_H_

#include <cuda_runtime_api.h>

namespace dissect {

// One block of 32 threads that does nothing.
cudaError_t LaunchNoop(cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_NOOP_H_
