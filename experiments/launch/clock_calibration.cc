// Host clock to %globaltimer calibration; see clock_calibration.h.
#include "experiments/launch/clock_calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dissect {

int64_t HostNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

absl::StatusOr<ClockOffset> OffsetFromHandshakes(const std::vector<Handshake>& rounds,
                                                 int64_t timer_step_ns) {
  if (rounds.empty()) return absl::InvalidArgumentError("clock handshake: no rounds");
  if (timer_step_ns < 1 || timer_step_ns > 1'000'000'000) {
    return absl::InternalError(absl::StrCat(
        "clock handshake: %globaltimer step of ", timer_step_ns,
        " ns (the timer stood still for the kernel)"));
  }
  const Handshake* best = nullptr;
  for (const Handshake& h : rounds) {
    if (h.host_after_ns < h.host_before_ns) {
      return absl::InternalError(absl::StrCat("clock handshake: host clock went back by ",
                                              h.host_before_ns - h.host_after_ns, " ns"));
    }
    if (best == nullptr ||
        h.host_after_ns - h.host_before_ns < best->host_after_ns - best->host_before_ns) {
      best = &h;
    }
  }
  ClockOffset offset;
  offset.round_trip_ns = static_cast<double>(best->host_after_ns - best->host_before_ns);
  const int64_t midpoint =
      best->host_before_ns + (best->host_after_ns - best->host_before_ns) / 2;
  offset.offset_ns = best->device_ns - midpoint;
  offset.uncertainty_ns = offset.round_trip_ns / 2 + static_cast<double>(timer_step_ns);
  offset.timer_step_ns = timer_step_ns;
  return offset;
}

ClockOffset CombineOffsets(const ClockOffset& before, const ClockOffset& after) {
  ClockOffset combined;
  combined.offset_ns = before.offset_ns + (after.offset_ns - before.offset_ns) / 2;
  combined.round_trip_ns = std::max(before.round_trip_ns, after.round_trip_ns);
  combined.timer_step_ns = std::max(before.timer_step_ns, after.timer_step_ns);
  combined.uncertainty_ns = std::max(before.uncertainty_ns, after.uncertainty_ns) +
                            std::abs(static_cast<double>(after.offset_ns - before.offset_ns)) / 2;
  return combined;
}

int64_t HostNsOfDevice(const ClockOffset& offset, int64_t device_ns) {
  return device_ns - offset.offset_ns;
}

std::string DescribeCalibration(const ClockOffset& combined, const ClockOffset& before,
                                const ClockOffset& after, int rounds) {
  return absl::StrFormat(
      "clock: host steady_clock vs %%globaltimer, offset from the shortest of %d handshake "
      "round trips (%.2f us), uncertainty +-%.2f us, drift %.2f us over the samples, "
      "%%globaltimer step %d ns",
      rounds, combined.round_trip_ns / 1e3, combined.uncertainty_ns / 1e3,
      static_cast<double>(after.offset_ns - before.offset_ns) / 1e3, combined.timer_step_ns);
}

absl::StatusOr<std::vector<Handshake>> RunHandshakes(ClockHandshakeSlots* slots, int rounds,
                                                     absl::Duration timeout) {
  if (rounds < 1 || rounds > kMaxHandshakeRounds) {
    return absl::InvalidArgumentError(
        absl::StrCat("clock handshake: rounds must be 1..", kMaxHandshakeRounds));
  }
  const int64_t timeout_ns = absl::ToInt64Nanoseconds(timeout);
  std::vector<Handshake> out;
  out.reserve(rounds);
  for (uint32_t round = 1; round <= static_cast<uint32_t>(rounds); ++round) {
    Handshake h;
    h.host_before_ns = HostNowNs();
    __atomic_store_n(&slots->request, round, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&slots->reply, __ATOMIC_ACQUIRE) != round) {
      if (HostNowNs() - h.host_before_ns > timeout_ns) {
        __atomic_store_n(&slots->request, kHandshakeAbort, __ATOMIC_SEQ_CST);
        return absl::DeadlineExceededError(absl::StrCat(
            "clock handshake: no reply to round ", round, " within ",
            absl::FormatDuration(timeout), " (is the handshake kernel running?)"));
      }
    }
    h.host_after_ns = HostNowNs();
    h.device_ns = static_cast<int64_t>(
        __atomic_load_n(&slots->device_ns[round - 1], __ATOMIC_ACQUIRE));
    out.push_back(h);
  }
  return out;
}

}  // namespace dissect
