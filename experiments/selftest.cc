// Question: does the harness (and the sweep runner above it) keep every
//           measured point through crashes, hangs and resumes?
// Timed:    nothing on a GPU (Experiment::RequiresGpu(false)): each point
//           sleeps --selftest_ms on the host, split evenly over its
//           --samples, and times each sample with std::chrono::steady_clock;
//           the row's time is the median sample. --warmup does no work.
// Expected: value_ms a little above --selftest_ms at every point (sleeps
//           overshoot by tens of microseconds), flat across `point`; one row
//           per point measured, none lost: with --selftest_crash_at=K the
//           file holds the K-1 points before the abort, with
//           --selftest_throttle_at=K point K has two rows (the second with
//           counter attempt 2).
// Could be confused with: a GPU measurement, which it never is: its
//           rows carry no device figures and the cpu selftest device name,
//           and no analysis section reads them; what it proves is the
//           harness's bookkeeping (//experiments:selftest_test, and the
//           sweep runner's and Slurm tests, which kill and resume it).
//
// Fault injection (test-only flags of this binary; K counts the points this
// process measures, 1-based, re-measures not included, so a --resume run
// counts from its first point still to measure):
//   --selftest_crash_at=K     abort() while measuring the K-th point
//   --selftest_hang_at=K      sleep forever while measuring the K-th point
//   --selftest_throttle_at=K  the K-th point's first measurement is reported
//                             throttled ("selftest: simulated throttle")
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "gflags/gflags.h"

DEFINE_int32(selftest_ms, 50, "host time each point takes (ms, 0..60000), split over --samples");
DEFINE_int32(selftest_crash_at, 0, "test-only: abort() at the K-th point measured (0: never)");
DEFINE_int32(selftest_hang_at, 0, "test-only: sleep forever at the K-th point measured (0: never)");
DEFINE_int32(selftest_throttle_at, 0,
             "test-only: report the K-th point measured as throttled on its first measurement "
             "(0: never)");

namespace dissect {
namespace {

// Points whose first measurement has started in this process.
int points_started = 0;

// The flags, checked before anything runs (exit status 2).
absl::Status Validate(const Point&) {
  if (FLAGS_selftest_ms < 0 || FLAGS_selftest_ms > 60000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--selftest_ms must be in 0..60000 (got ", FLAGS_selftest_ms, ")"));
  }
  for (const auto& [name, value] : {std::pair<const char*, int>{"crash", FLAGS_selftest_crash_at},
                                    {"hang", FLAGS_selftest_hang_at},
                                    {"throttle", FLAGS_selftest_throttle_at}}) {
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--selftest_", name, "_at must be >= 0 (got ", value, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  if (ctx.attempt() == 1) {
    const int k = ++points_started;
    if (k == FLAGS_selftest_crash_at) {
      std::cerr << "selftest: aborting at point " << k << " (--selftest_crash_at)" << std::endl;
      std::abort();
    }
    if (k == FLAGS_selftest_hang_at) {
      std::cerr << "selftest: hanging at point " << k << " (--selftest_hang_at)" << std::endl;
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    if (k == FLAGS_selftest_throttle_at) ctx.MarkThrottled("selftest: simulated throttle");
  }
  const int samples = ctx.timing().samples;
  const auto per_sample =
      std::chrono::duration<double, std::milli>(static_cast<double>(FLAGS_selftest_ms) / samples);
  std::vector<double> sample_ms;
  std::vector<double> point_ms;
  for (int i = 0; i < samples; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(per_sample);
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    sample_ms.push_back(took.count());
    point_ms.push_back(took.count() * samples);
  }
  ctx.RecordTimeSamples(std::move(sample_ms));
  return ctx.AddSamples("value_ms", std::move(point_ms));
}

DISSECT_EXPERIMENT(selftest)
    .Question(
        "Do the harness and the sweep runner keep every measured point through crashes, hangs "
        "and resumes?")
    .RequiresGpu(false)
    .AddAxis(IntAxis("point", "-", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                     "index of the point; every point does the same work"))
    .AddMetric("value_ms", "ms",
               "host time of the point's work (--selftest_ms), from each sample scaled by "
               "--samples")
    .AddFlag("selftest_ms")
    .AddFlag("selftest_crash_at")
    .AddFlag("selftest_hang_at")
    .AddFlag("selftest_throttle_at")
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect
