// Host interface of the launch-overhead probe kernels (kernels/launch_probe.cu,
// device code in kernels/launch_probe.cuh): an empty kernel, a kernel that
// stamps its start with %globaltimer, and the clock handshake that relates
// %globaltimer to a host clock (experiments/launch).
#ifndef DISSECT_KERNELS_LAUNCH_PROBE_H_
#define DISSECT_KERNELS_LAUNCH_PROBE_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dissect {

// Threads per block of every launch-probe kernel: one warp, the smallest
// unit an SM schedules.
inline constexpr int kLaunchProbeThreads = 32;

// `blocks` blocks of kLaunchProbeThreads threads that do nothing.
cudaError_t LaunchEmptyKernel(int64_t blocks, cudaStream_t stream);

// One block; its threads read %globaltimer first thing and thread 0 writes
// that read to *start_ns (device-visible memory, e.g. mapped host memory).
cudaError_t LaunchStartStamp(uint64_t* start_ns, cudaStream_t stream);

// The most rounds one clock handshake kernel answers.
inline constexpr int kMaxHandshakeRounds = 256;
// ClockHandshakeSlots::request value that stops the kernel at once.
inline constexpr uint32_t kHandshakeAbort = 0xffffffffu;

// Memory the host and the handshake kernel share (mapped host memory).
// Round r (1-based): the host reads its clock, writes r to `request`; the
// kernel, once it has seen r, reads %globaltimer into device_ns[r - 1], then
// writes r to `reply`; the host reads its clock again once it sees r. The
// kernel's read therefore lies between the host's two reads.
struct ClockHandshakeSlots {
  uint32_t request;        // host -> kernel: the round to answer, or kHandshakeAbort
  uint32_t reply;          // kernel -> host: the last round answered
  uint64_t timer_step_ns;  // the smallest %globaltimer step the kernel saw, ~0 for none
  uint64_t device_ns[kMaxHandshakeRounds];
};

// One thread that first measures %globaltimer's step (the smallest change
// between consecutive differing reads, over 16 changes; ~0 if it did not
// advance within 2^24 reads), then answers
// `rounds` rounds (at most kMaxHandshakeRounds) and exits; it also exits
// on kHandshakeAbort or when `timeout_ns` of %globaltimer pass without the
// next request. `slots` is a device pointer to the shared slots.
cudaError_t LaunchClockHandshake(ClockHandshakeSlots* slots, int rounds, uint64_t timeout_ns,
                                 cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_LAUNCH_PROBE_H_
