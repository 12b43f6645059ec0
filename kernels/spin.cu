// A kernel that spins on %globaltimer for a chosen time (see spin.h).
#include "kernels/device_clock.cuh"
#include "kernels/spin.h"

namespace dissect {
namespace {

__global__ void SpinKernel(uint64_t duration_ns, uint64_t* spins) {
  const uint64_t start = ReadGlobalTimerNs();
  uint64_t count = 0;
  while (ReadGlobalTimerNs() - start < duration_ns) ++count;
  spins[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = count;
}

}  // namespace

cudaError_t LaunchSpin(uint64_t duration_ns, int blocks, uint64_t* spins,
                       cudaStream_t stream) {
  if (blocks < 1 || spins == nullptr) return cudaErrorInvalidValue;
  SpinKernel<<<blocks, kSpinThreads, 0, stream>>>(duration_ns, spins);
  return cudaGetLastError();
}

}  // namespace dissect
