// The sweep runner: runs each entry of a sweep (experiments/drivers/sweep/sweep_config.h)
// as a child process in its own process group, with the entry's time limit,
// into a run folder:
//
//   DIR/manifest.json   the run's identity and every entry's status, rewritten
//                       atomically after every status change
//   DIR/<id>.json       the entry's result file (the harness writes it)
//   DIR/<id>.log        the child's stdout and stderr, one header line per attempt
//
// One crash, hang or GPU fault ends only its own entry. Rerun with the same
// DIR to resume: entries already ok are skipped, the others rerun with the
// harness's --resume so that the points in their result file are kept and
// only the missing ones are measured.
#ifndef DISSECT_EXPERIMENTS_DRIVERS_SWEEP_RUNNER_H_
#define DISSECT_EXPERIMENTS_DRIVERS_SWEEP_RUNNER_H_

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/drivers/sweep/device_identity.h"
#include "experiments/drivers/sweep/manifest.h"
#include "experiments/drivers/sweep/sweep_config.h"
#include "nlohmann/json.hpp"

namespace dissect::sweep {

// The runner's exit statuses (besides 128 + signal when stopped).
inline constexpr int kExitAllOk = 0;
inline constexpr int kExitSomeFailed = 1;
inline constexpr int kExitBadUsage = 2;

// --- Child processes ---

struct ChildSpec {
  std::string binary;
  std::vector<std::string> args;  // after argv[0]
  std::string log_path;           // stdout and stderr are appended here
  std::string log_header;         // written to the log before the child starts
  double time_limit_s = 0;        // > 0
  double kill_grace_s = 5;        // SIGTERM, then SIGKILL after this long
};

struct ChildOutcome {
  enum class Kind { kExited, kSignaled, kTimedOut, kInterrupted };
  Kind kind = Kind::kExited;
  int exit_code = -1;      // kExited: the exit status
  int signal = 0;          // kSignaled: the signal; kTimedOut/kInterrupted: the last one sent
  bool sigkilled = false;  // the group needed SIGKILL after the grace period
  double seconds = 0;
};

// Runs `spec` as a child leading its own process group (it dies with the
// runner: PR_SET_PDEATHSIG), stdin from /dev/null, stdout and stderr appended
// to the log. Waits for it; past the time limit, or when a stop signal
// arrives (InstallStopHandlers), sends SIGTERM to the group and SIGKILL
// after the grace period. Whatever the outcome, no process of the group is
// left running. Errors: the log cannot be opened, or the binary cannot be
// executed.
absl::StatusOr<ChildOutcome> RunChild(const ChildSpec& spec);

// SIGTERM and SIGINT set a flag that RunChild and RunSweep poll.
void InstallStopHandlers();
// The stop signal received, else 0.
int StopSignal();
// As if `signal` had been received (tests); 0 clears it.
void SetStopSignalForTest(int signal);

// --- Progress ---

// Estimates the time left: the remaining entries' time limits scaled by the
// ratio of time taken to time limits of the entries run so far (1 before
// any ran, so the first estimate is the longest the sweep may take).
class EtaEstimator {
 public:
  void Record(double time_limit_s, double seconds);
  double Remaining(double remaining_limits_s) const;

 private:
  double limits_s_ = 0;
  double taken_s_ = 0;
};

// "12.3 s", "4 min", "2 h 05 min".
std::string FormatSeconds(double seconds);
std::string FormatEta(double seconds);

// --- The sweep ---

struct RunnerOptions {
  std::string out_dir;  // the run folder; absolute, must exist unless dry_run
  // Binaries: `bin_dir`/<basename of the entry's binary> if set (a bundle's
  // dist/bin), else the first of `search_roots`/<binary> that exists
  // (the runfiles tree of //experiments:sweep, the working directory, ...).
  std::string bin_dir;
  std::vector<std::string> search_roots;
  std::optional<int> device;      // --device=N for the children
  std::vector<std::string> only;  // entry ids; empty = all
  bool dry_run = false;           // print the commands to `out`, write nothing
  double kill_grace_s = 5;
  std::string host;
  std::string git_commit;
  // The device's identity; called once per fresh run folder (and on a
  // resume to check it is the same device).
  DeviceIdentity (*query_device)(int index) = nullptr;
  // Why the children cannot use device `index` ("" when they can; see
  // preflight.h). Asked before any entry runs unless the sweep needs no GPU
  // or this is a dry run; unset: not asked.
  std::function<std::string(int index)> check_device;
  std::ostream* progress = nullptr;  // progress lines (stderr)
  std::ostream* out = nullptr;       // --dry_run plan and commands (stdout)
};

// The path of an entry's binary per the options, or an error saying where
// it was looked for.
absl::StatusOr<std::string> FindBinary(const SweepEntry& entry, const RunnerOptions& options);

// Runs the sweep into options.out_dir. First, without a GPU, the entries'
// inputs and the night's budget (preflight.h), then the device: when it is
// not usable no entry runs, the manifest records why (preflight_failure),
// one line goes to `progress` and the status is kExitNoDevice (3).
// Returns the runner's exit status: 0 every selected entry ok, 1 any
// failed, timed out or skipped, 3 no device, 128 + signal when stopped by
// SIGTERM/SIGINT (the running entry is left pending). An error is bad usage
// (exit 2): unknown --only id, an entry without its input, time limits over
// the budget, a manifest that is not one or is of another sweep or device,
// an unwritable folder. A dry run prints the plan (preflight.h WritePlan)
// and the commands, and writes nothing.
absl::StatusOr<int> RunSweep(const Sweep& sweep, const RunnerOptions& options);

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_DRIVERS_SWEEP_RUNNER_H_
