// `sweep`: runs a sweep file's entries, each as a child process with its
// time limit, into a resumable run folder. See experiments/drivers/sweep/runner.h.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "experiments/framework/build_info.h"
#include "experiments/drivers/sweep/cli_util.h"
#include "experiments/drivers/sweep/device_identity.h"
#include "experiments/drivers/sweep/preflight.h"
#include "experiments/drivers/sweep/runner.h"
#include "experiments/drivers/sweep/sweep_config.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(sweep, "", "a sweep name (configs/sweeps/NAME.json) or a .json path (required)");
DEFINE_string(out, "", "the run folder (created with its parents if missing; required)");
DEFINE_string(bin_dir, "",
              "take the binaries from DIR/<name> (a bundle's dist/bin) instead of the runfiles "
              "of //experiments:sweep");
DEFINE_int32(device, 0, "CUDA device for the children (--device=N)");
DEFINE_string(only, "", "run only these entries (the others stay as they are)");
DEFINE_bool(dry_run, false,
            "print the plan (entry, points, time limit, total against the budget) and the "
            "commands that would run; write nothing, need no GPU");
DEFINE_string(budget_s, "",
              "the night's budget in seconds (default: the sweep file's \"budget_s\", else "
              "none)");
DEFINE_string(expect_device, "",
              "run only on a device whose name contains X (any case), or whose UUID is X, e.g. "
              "--expect_device=H100");
DEFINE_double(kill_grace_s, 5, "seconds between SIGTERM and SIGKILL (0..600)");

namespace {

namespace fs = std::filesystem;

// The command line: flags only.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "sweep";
  program.about = R"(Runs every entry of a sweep file (configs/sweeps/NAME.json) as a child
process in its own process group, one after another, into the run folder DIR:
DIR/manifest.json (the run's identity and each entry's status, rewritten
atomically after every change), DIR/<id>.json (the entry's result file) and
DIR/<id>.log (its stdout and stderr). One crash, hang or GPU fault ends only
its own entry. An entry past its time limit has its process group stopped
(SIGTERM, then SIGKILL after --kill_grace_s) and is recorded as timeout.

Before any entry runs it checks, without a GPU, each entry's inputs
(activation_source=npy_dumps needs --activations=PATH in the entry's args)
and that the selected time limits fit the night's budget; then the CUDA
driver and the device: a night without one ends in one line, recorded in
DIR/manifest.json as preflight_failure, and exit 3 (skipped for sweeps with
"needs_gpu": false, such as selftest).

Resumable: run again with the same --out and entries already ok are skipped;
the others (pending, failed, timeout, skipped) run again with the harness's
--resume, which keeps the points already in their result file and measures
only the missing ones. SIGTERM or SIGINT stops the running entry's process
group, leaves it pending in the manifest, and exits 128 + the signal.
)";
  program.flags = {{"sweep", "NAME|PATH"}, {"out", "DIR"},      {"bin_dir", "DIR"},
                   {"device", "N"},        {"only", "ID,ID"},   {"dry_run"},
                   {"budget_s", "S"},      {"expect_device", "X"}, {"kill_grace_s", "S"}};
  program.more = R"(Progress on stderr, one line per entry:
  [3/14] memory_latency_l2: ok in 12.3 s; ETA 4 min
The ETA is the remaining entries' time limits scaled by the ratio of time
taken to time limits over the entries run so far.

Exit status: 0 every selected entry ok; 1 some entry failed, timed out or
was skipped (the others still ran); 2 bad usage (unknown sweep, bad flag,
unwritable --out, an entry without its input, time limits over the budget,
a run folder of another sweep or device, or in use by another runner); 3 no
entry ran: no NVIDIA driver, no CUDA device visible, or not the expected
device; 130/143 stopped by SIGINT/SIGTERM.

Example:
  ./bazelw run -c opt //experiments:sweep -- --sweep=nightly --out=/data/dissect/2026-11-23
)";
  program.max_args = 0;
  program.bad_usage_exit = dissect::sweep::kExitBadUsage;
  return program;
}

int Fail(const std::string& message) {
  return dissect::cli::Fail(Cli(), message, dissect::sweep::kExitBadUsage);
}

// The runner's options and the sweep's budget from the flags, checked.
absl::Status OptionsFromFlags(dissect::sweep::RunnerOptions& options,
                              std::optional<double>& budget_s) {
  options.dry_run = FLAGS_dry_run;
  options.bin_dir = dissect::cli::UserPath(FLAGS_bin_dir);
  if (FLAGS_device < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--device='", FLAGS_device, "' is not a device index (0, 1, ...)"));
  }
  options.device = FLAGS_device;
  if (dissect::cli::Given("only")) {
    options.only = absl::StrSplit(FLAGS_only, ',', absl::SkipEmpty());
    if (options.only.empty()) {
      return absl::InvalidArgumentError("--only needs entry ids (--only=ID,ID)");
    }
  }
  if (dissect::cli::Given("budget_s")) {
    double budget = 0;
    if (!absl::SimpleAtod(FLAGS_budget_s, &budget) || !(budget > 0)) {
      return absl::InvalidArgumentError("--budget_s='" + FLAGS_budget_s +
                                        "' is not a positive number of seconds");
    }
    budget_s = budget;
  }
  if (!(FLAGS_kill_grace_s >= 0 && FLAGS_kill_grace_s <= 600)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kill_grace_s='", FLAGS_kill_grace_s, "' is not a number of seconds in 0..600"));
  }
  options.kill_grace_s = FLAGS_kill_grace_s;
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  using dissect::sweep::FolderLock;
  using dissect::cli::UserPath;
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  dissect::sweep::RunnerOptions options;
  std::optional<double> budget_s;
  if (absl::Status set = OptionsFromFlags(options, budget_s); !set.ok()) {
    return Fail(std::string(set.message()));
  }
  const std::string sweep_name = FLAGS_sweep, out_dir = FLAGS_out,
                    expect_device = FLAGS_expect_device;
  if (sweep_name.empty()) return Fail("--sweep=NAME or --sweep=PATH.json is required");
  if (out_dir.empty()) return Fail("--out=DIR is required");

  absl::StatusOr<dissect::sweep::Sweep> sweep = dissect::sweep::LoadSweep(sweep_name);
  if (!sweep.ok()) return Fail(std::string(sweep.status().message()));
  if (budget_s.has_value()) sweep->budget_s = budget_s;
  if (!options.bin_dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(options.bin_dir, ec)) {
      return Fail("--bin_dir=" + options.bin_dir + " is not a folder");
    }
  }

  options.out_dir = UserPath(out_dir);
  FolderLock lock;
  if (!options.dry_run) {
    std::error_code ec;
    fs::create_directories(options.out_dir, ec);
    if (ec) return Fail(options.out_dir + ": cannot create: " + ec.message());
    if (access(options.out_dir.c_str(), W_OK) != 0) {
      return Fail(options.out_dir + ": not writable: " + std::strerror(errno));
    }
    if (std::string why = lock.Acquire(options.out_dir); !why.empty()) return Fail(why);
  }
  options.search_roots = dissect::sweep::SearchRoots();
  options.host = dissect::sweep::HostName();
  options.git_commit = dissect::GetBuildInfo().git_commit;
  options.query_device = dissect::sweep::QueryDeviceIdentity;
  options.check_device = [expect_device](int index) {
    return dissect::sweep::CheckDevice(index, expect_device);
  };
  options.progress = &std::cerr;
  options.out = &std::cout;
  // The children number devices as NVML does, so that the manifest's
  // identity (NVML) is the device they measure (CUDA).
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", /*overwrite=*/0);
  dissect::sweep::InstallStopHandlers();

  absl::StatusOr<int> status = dissect::sweep::RunSweep(*sweep, options);
  if (!status.ok()) return Fail(std::string(status.status().message()));
  return *status;
}
