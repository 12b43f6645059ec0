// The host clock to %globaltimer calibration, without a GPU: simulated
// rounds with known offsets, and the host side of the handshake against a
// thread that answers as the kernel does.
#include "experiments/launch/clock_calibration.h"

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

// %globaltimer counts from the Unix epoch: late 2026 is about 1.8e18 ns, far
// beyond a double's exact integers.
constexpr int64_t kEpochOffsetNs = 1'795'000'000'123'456'789;

// A round whose request reaches the device `to_device_ns` after the host's
// first read and whose reply reaches the host `to_host_ns` after the
// device's read, on a device timer `offset_ns` ahead of the host's that
// advances in steps of `step_ns`.
Handshake SimulatedRound(int64_t host_ns, int64_t to_device_ns, int64_t to_host_ns,
                         int64_t offset_ns, int64_t step_ns) {
  const int64_t device_true = host_ns + to_device_ns + offset_ns;
  return Handshake{host_ns, device_true - device_true % step_ns,
                   host_ns + to_device_ns + to_host_ns};
}

TEST(ClockCalibrationTest, TakesTheShortestRoundTrip) {
  // Round 1: slow and lopsided (request 40 us, reply 1 us): its midpoint is
  // 19.5 us off. Round 2 is the shortest: 1.2 us.
  const std::vector<Handshake> rounds = {
      SimulatedRound(1'000'000, 40'000, 1'000, kEpochOffsetNs, 1),
      SimulatedRound(2'000'000, 700, 500, kEpochOffsetNs, 1),
      SimulatedRound(3'000'000, 3'000, 200, kEpochOffsetNs, 1),
  };
  absl::StatusOr<ClockOffset> offset = OffsetFromHandshakes(rounds, 32);
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_EQ(offset->round_trip_ns, 1'200);
  EXPECT_EQ(offset->uncertainty_ns, 600 + 32);
  // Round 2's device read is 100 ns after its midpoint.
  EXPECT_EQ(offset->offset_ns, kEpochOffsetNs + 100);
}

TEST(ClockCalibrationTest, TrueOffsetLiesWithinTheUncertainty) {
  std::mt19937_64 rng(28);
  std::uniform_int_distribution<int64_t> delay(100, 20'000);
  for (const int64_t step : {int64_t{1}, int64_t{32}, int64_t{1'000}}) {
    for (int trial = 0; trial < 200; ++trial) {
      const int64_t offset_ns = kEpochOffsetNs + trial * 7'919;
      std::vector<Handshake> rounds;
      for (int r = 0; r < 16; ++r) {
        rounds.push_back(
            SimulatedRound(5'000'000'000 + r * 100'000, delay(rng), delay(rng), offset_ns, step));
      }
      absl::StatusOr<ClockOffset> got = OffsetFromHandshakes(rounds, step);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_LE(std::llabs(got->offset_ns - offset_ns), got->uncertainty_ns)
          << "step " << step << " trial " << trial;
      EXPECT_LE(got->uncertainty_ns, 20'000 + step);
    }
  }
}

TEST(ClockCalibrationTest, RejectsNoRoundsAndABackwardHostClock) {
  EXPECT_EQ(OffsetFromHandshakes({}, 32).status().code(), absl::StatusCode::kInvalidArgument);
  const std::vector<Handshake> backwards = {Handshake{2'000, kEpochOffsetNs, 1'000}};
  EXPECT_FALSE(OffsetFromHandshakes(backwards, 32).ok());
  // The kernel's "no step seen" (~0 read as int64: -1), and no step at all.
  const std::vector<Handshake> fine = {Handshake{1'000, kEpochOffsetNs, 2'000}};
  EXPECT_FALSE(OffsetFromHandshakes(fine, -1).ok());
  EXPECT_FALSE(OffsetFromHandshakes(fine, 0).ok());
  EXPECT_TRUE(OffsetFromHandshakes(fine, 1'000).ok());
}

TEST(ClockCalibrationTest, CombinedOffsetIsTheMeanAndDriftWidensIt) {
  ClockOffset before{kEpochOffsetNs, 1'000, 532, 32};
  ClockOffset after{kEpochOffsetNs + 400, 1'400, 732, 32};
  const ClockOffset combined = CombineOffsets(before, after);
  EXPECT_EQ(combined.offset_ns, kEpochOffsetNs + 200);
  EXPECT_EQ(combined.round_trip_ns, 1'400);
  EXPECT_EQ(combined.uncertainty_ns, 732 + 200);
  EXPECT_EQ(CombineOffsets(after, before).uncertainty_ns, 732 + 200);
}

TEST(ClockCalibrationTest, NoteGivesRoundTripUncertaintyDriftAndStep) {
  const ClockOffset before{kEpochOffsetNs, 1'000, 532, 32};
  const ClockOffset after{kEpochOffsetNs + 400, 1'400, 732, 32};
  const std::string note = DescribeCalibration(CombineOffsets(before, after), before, after, 64);
  for (const char* part : {"64 handshake", "(1.40 us)", "+-0.93 us", "drift 0.40 us", "step 32 ns"}) {
    EXPECT_NE(note.find(part), std::string::npos) << part << " not in " << note;
  }
  // ';' separates a row's notes.
  EXPECT_EQ(note.find(';'), std::string::npos) << note;
}

TEST(ClockCalibrationTest, HostTimeOfADeviceReadIsExactAtEpochScale) {
  const ClockOffset offset{kEpochOffsetNs, 0, 0, 1};
  // A kernel start 7,321 ns after a launch call at host time 123,456,789,012.
  const int64_t launch_ns = 123'456'789'012;
  EXPECT_EQ(HostNsOfDevice(offset, launch_ns + 7'321 + kEpochOffsetNs) - launch_ns, 7'321);
}

// Answers `rounds` rounds on `slots` as ClockHandshakeKernel does, on a
// timer `offset_ns` ahead of the host's that advances in `step_ns` steps.
void AnswerLikeTheKernel(ClockHandshakeSlots* slots, int rounds, int64_t offset_ns,
                         int64_t step_ns) {
  for (uint32_t round = 1; round <= static_cast<uint32_t>(rounds); ++round) {
    uint32_t request = 0;
    do {
      request = __atomic_load_n(&slots->request, __ATOMIC_ACQUIRE);
    } while (request != round && request != kHandshakeAbort);
    if (request != round) return;
    const int64_t now = HostNowNs() + offset_ns;
    __atomic_store_n(&slots->device_ns[round - 1], static_cast<uint64_t>(now - now % step_ns),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&slots->reply, round, __ATOMIC_RELEASE);
  }
}

TEST(RunHandshakesTest, FindsTheOffsetOfADeviceAnsweringOnAnotherThread) {
  constexpr int kRounds = 64;
  constexpr int64_t kStep = 32;
  ClockHandshakeSlots slots{};
  std::thread device(AnswerLikeTheKernel, &slots, kRounds, kEpochOffsetNs, kStep);
  absl::StatusOr<std::vector<Handshake>> rounds =
      RunHandshakes(&slots, kRounds, absl::Seconds(5));
  device.join();
  ASSERT_TRUE(rounds.ok()) << rounds.status();
  ASSERT_EQ(rounds->size(), static_cast<size_t>(kRounds));
  for (const Handshake& h : *rounds) {
    // The device's read lies between the host's two reads.
    EXPECT_GE(h.device_ns - kEpochOffsetNs, h.host_before_ns - kStep);
    EXPECT_LE(h.device_ns - kEpochOffsetNs, h.host_after_ns);
  }
  absl::StatusOr<ClockOffset> offset = OffsetFromHandshakes(*rounds, kStep);
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_LE(std::llabs(offset->offset_ns - kEpochOffsetNs), offset->uncertainty_ns);
}

TEST(RunHandshakesTest, NoReplyTimesOutAndAbortsTheKernel) {
  ClockHandshakeSlots slots{};
  absl::StatusOr<std::vector<Handshake>> rounds =
      RunHandshakes(&slots, 4, absl::Milliseconds(20));
  EXPECT_EQ(rounds.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(slots.request, kHandshakeAbort);
  EXPECT_EQ(RunHandshakes(&slots, 0, absl::Seconds(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunHandshakes(&slots, kMaxHandshakeRounds + 1, absl::Seconds(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dissect
