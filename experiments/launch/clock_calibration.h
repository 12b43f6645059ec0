// Relating the host's clock to the GPU's %globaltimer, so that a host
// launch call and a kernel's first timer read can be put on one time line
// (launch_overhead's launch_to_start).
//
// Method (Cristian's): the host reads its clock (before), writes a round's
// number into mapped memory, and spins until the handshake kernel
// (kernels/launch_probe.h) answers; the kernel reads %globaltimer only
// after it has seen the request and answers only after the read, so the
// read lies between the host's two clock reads (before, after). Taking it
// at their midpoint errs by at most half the round trip; the rounds with
// the shortest round trip give the tightest bound, so the offset comes from
// the shortest round, and its uncertainty is half that round trip plus one
// %globaltimer step (the timer advances in steps, the kernel measures its
// smallest). Two calibrations (before and after a point's samples) bound
// the clocks' drift: the point uses their mean and adds half their
// difference to the uncertainty.
#ifndef DISSECT_EXPERIMENTS_LAUNCH_CLOCK_CALIBRATION_H_
#define DISSECT_EXPERIMENTS_LAUNCH_CLOCK_CALIBRATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kernels/launch_probe.h"

namespace dissect {

// The host clock both sides of a launch_to_start sample use: steady_clock
// (CLOCK_MONOTONIC on Linux), in ns.
int64_t HostNowNs();

// One handshake round: the host's clock before the request and after the
// reply, and the kernel's %globaltimer read in between.
struct Handshake {
  int64_t host_before_ns = 0;
  int64_t device_ns = 0;
  int64_t host_after_ns = 0;
};

// device time = host time + offset_ns, within +- uncertainty_ns. The offset
// is an integer: %globaltimer counts from the Unix epoch on current drivers
// (about 1.8e18 ns), where a double's step is 256 ns.
struct ClockOffset {
  int64_t offset_ns = 0;
  double round_trip_ns = 0;  // the shortest round trip (the larger of two, combined)
  double uncertainty_ns = 0;
  int64_t timer_step_ns = 0;  // %globaltimer's step (the larger of two, combined)
};

// The offset from the round with the shortest round trip: the device read
// taken at the midpoint of its host reads, uncertain by half the round trip
// plus `timer_step_ns`. An error when there are no rounds, a round whose
// host reads go backwards, or a step that is not 1 ns..1 s (the kernel saw
// the timer stand still).
absl::StatusOr<ClockOffset> OffsetFromHandshakes(const std::vector<Handshake>& rounds,
                                                 int64_t timer_step_ns);

// Two calibrations of one point (before and after its samples): their mean
// offset, uncertain by the larger uncertainty plus half their difference
// (drift between the clocks, or a bound too loose in one of them).
ClockOffset CombineOffsets(const ClockOffset& before, const ClockOffset& after);

// The host time of a %globaltimer read, given the offset.
int64_t HostNsOfDevice(const ClockOffset& offset, int64_t device_ns);

// The row note: the shortest round trip, the offset's uncertainty, the
// drift between the two calibrations and the timer's step (a kernel's own
// stamp is uncertain by one more step).
std::string DescribeCalibration(const ClockOffset& combined, const ClockOffset& before,
                                const ClockOffset& after, int rounds);

// The host side of the handshake over `slots` (memory the running kernel
// shares, kernels/launch_probe.h): `rounds` rounds, each waiting at most
// `timeout` for its reply. On a timeout it writes kHandshakeAbort (so the
// kernel exits) and returns DeadlineExceeded.
absl::StatusOr<std::vector<Handshake>> RunHandshakes(ClockHandshakeSlots* slots, int rounds,
                                                     absl::Duration timeout);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_LAUNCH_CLOCK_CALIBRATION_H_
