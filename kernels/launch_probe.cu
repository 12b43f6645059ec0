// Launchers of the launch-overhead probe kernels; see launch_probe.h.
#include "kernels/launch_probe.cuh"
#include "kernels/launch_probe.h"

namespace dissect {

cudaError_t LaunchEmptyKernel(int64_t blocks, cudaStream_t stream) {
  EmptyKernel<<<static_cast<unsigned>(blocks), kLaunchProbeThreads, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t LaunchStartStamp(uint64_t* start_ns, cudaStream_t stream) {
  StartStampKernel<<<1, kLaunchProbeThreads, 0, stream>>>(start_ns);
  return cudaGetLastError();
}

cudaError_t LaunchClockHandshake(ClockHandshakeSlots* slots, int rounds, uint64_t timeout_ns,
                                 cudaStream_t stream) {
  if (rounds < 1 || rounds > kMaxHandshakeRounds) return cudaErrorInvalidValue;
  ClockHandshakeKernel<<<1, 1, 0, stream>>>(slots, rounds, timeout_ns);
  return cudaGetLastError();
}

}  // namespace dissect
