// The sweep runner; see runner.h.
#include "experiments/drivers/sweep/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "experiments/drivers/sweep/preflight.h"

namespace dissect::sweep {
namespace {

namespace fs = std::filesystem;

std::string Iso8601(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string Compact(absl::Time t) {
  return absl::FormatTime("%Y%m%dT%H%M%SZ", t, absl::UTCTimeZone());
}

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", signal);
}

// The last non-empty line of a file (at most its last 64 KiB are read).
std::string LastLine(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > 65536 ? size - 65536 : 0;
  in.seekg(start);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string last;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    absl::string_view stripped = absl::StripAsciiWhitespace(line);
    if (!stripped.empty()) last = std::string(stripped);
  }
  return last;
}

bool IsExecutableFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

std::string ShellQuote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-+=/.,:@%") == std::string::npos) {
    return s;
  }
  std::string quoted = "'";
  for (char c : s) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string CommandLine(const std::string& binary, const std::vector<std::string>& args) {
  std::string line = ShellQuote(binary);
  for (const std::string& a : args) absl::StrAppend(&line, " ", ShellQuote(a));
  return line;
}

// A file in a runfiles tree by its workspace path (configs/sweeps/x.json).
std::string WorkspacePath(const std::string& path) {
  constexpr std::string_view kRunfiles = ".runfiles/dissect/";
  const size_t at = path.rfind(kRunfiles);
  return at == std::string::npos ? path : path.substr(at + kRunfiles.size());
}

}  // namespace

void EtaEstimator::Record(double time_limit_s, double seconds) {
  limits_s_ += time_limit_s;
  taken_s_ += seconds;
}

double EtaEstimator::Remaining(double remaining_limits_s) const {
  const double ratio = limits_s_ > 0 ? taken_s_ / limits_s_ : 1.0;
  return remaining_limits_s * ratio;
}

std::string FormatSeconds(double seconds) { return absl::StrFormat("%.1f s", seconds); }

std::string FormatEta(double seconds) {
  if (seconds < 60) return absl::StrFormat("%d s", static_cast<int>(std::ceil(seconds)));
  const int minutes = static_cast<int>(std::ceil(seconds / 60));
  if (minutes < 60) return absl::StrFormat("%d min", minutes);
  return absl::StrFormat("%d h %02d min", minutes / 60, minutes % 60);
}

absl::StatusOr<std::string> FindBinary(const SweepEntry& entry, const RunnerOptions& options) {
  std::vector<std::string> tried;
  if (!options.bin_dir.empty()) {
    tried.push_back((fs::path(options.bin_dir) / fs::path(entry.binary).filename()).string());
  } else {
    for (const std::string& root : options.search_roots) {
      tried.push_back((fs::path(root) / entry.binary).string());
    }
  }
  for (const std::string& path : tried) {
    if (IsExecutableFile(path)) return path;
  }
  return absl::NotFoundError(absl::StrCat("binary ", entry.binary, " not found (looked for ",
                                          absl::StrJoin(tried, ", "), ")"));
}

namespace {

// The entry's status, exit code, signal, time and reason after its child
// ran (or could not be started); `log_path` gives the reason of an
// unexplained exit.
void RecordOutcome(const SweepEntry& entry, const absl::StatusOr<ChildOutcome>& outcome,
                   const std::string& log_path, double kill_grace_s, EntryRecord& record) {
  record.exit_code = -1;
  record.signal = 0;
  if (!outcome.ok()) {
    record.status = EntryStatus::kFailed;
    record.seconds = 0;
    record.reason = std::string(outcome.status().message());
  } else {
    record.seconds = outcome->seconds;
    const std::string killed = outcome->sigkilled ? absl::StrCat("SIGTERM, then SIGKILL after ",
                                                                 kill_grace_s, " s")
                                                  : "SIGTERM";
    switch (outcome->kind) {
      case ChildOutcome::Kind::kExited:
        record.exit_code = outcome->exit_code;
        if (outcome->exit_code == 0) {
          record.status = EntryStatus::kOk;
          record.reason.clear();
        } else {
          record.status = EntryStatus::kFailed;
          if (outcome->exit_code == 1) {
            record.reason = "exit 1: a point failed (its rows are kept)";
          } else {
            const std::string last = LastLine(log_path);
            record.reason =
                absl::StrCat("exit ", outcome->exit_code, last.empty() ? "" : ": ", last);
          }
        }
        break;
      case ChildOutcome::Kind::kSignaled:
        record.status = EntryStatus::kFailed;
        record.signal = outcome->signal;
        record.reason = absl::StrCat("killed by ", SignalName(outcome->signal));
        break;
      case ChildOutcome::Kind::kTimedOut:
        record.status = EntryStatus::kTimeout;
        record.signal = outcome->signal;
        record.reason = absl::StrCat("time limit of ", entry.time_limit_s,
                                     " s reached; process group stopped with ", killed);
        break;
      case ChildOutcome::Kind::kInterrupted:
        record.status = EntryStatus::kPending;
        record.signal = outcome->signal;
        record.reason = absl::StrCat("runner stopped by ", SignalName(StopSignal()),
                                     "; process group stopped with ", killed);
        break;
    }
  }
}

// One run of the sweep: the manifest and how it is kept on disk.
class SweepRun {
 public:
  SweepRun(const Sweep& sweep, const RunnerOptions& options)
      : sweep_(sweep),
        options_(options),
        manifest_path_((fs::path(options.out_dir) / kManifestName).string()) {}

  absl::StatusOr<int> Run();

 private:
  absl::Status Prepare();
  absl::Status Save() {
    if (options_.dry_run) return absl::OkStatus();
    return WriteManifest(manifest_, manifest_path_);
  }
  std::ostream& progress() { return *options_.progress; }
  std::vector<std::string> Arguments(const SweepEntry& entry, bool resume) const;
  // The device check; returns false (after recording why) when no entry may run.
  absl::StatusOr<bool> DeviceUsable();
  void WritePlan(const std::vector<const SweepEntry*>& selected);
  // Runs one entry; returns false when the runner was stopped.
  absl::StatusOr<bool> RunEntry(const SweepEntry& entry, EntryRecord& record);
  // The entries --only names (all without it), in sweep order.
  absl::StatusOr<std::vector<const SweepEntry*>> SelectEntries() const;
  // The progress line of an entry that ran; `more`: an ETA for the rest.
  void ReportEntry(const std::string& tag, const EntryRecord& record, bool more,
                   double remaining_limits);
  // Marks the run finished and sums it up; the exit status.
  absl::StatusOr<int> Finish(const std::vector<const SweepEntry*>& selected);

  const Sweep& sweep_;
  const RunnerOptions& options_;
  const std::string manifest_path_;
  Manifest manifest_;
  EtaEstimator eta_;
};

std::vector<std::string> SweepRun::Arguments(const SweepEntry& entry, bool resume) const {
  const std::string out_file = (fs::path(options_.out_dir) / (entry.id + ".json")).string();
  std::vector<std::string> args = EntryArguments(entry, sweep_.cooldown_s, out_file, resume);
  if (options_.device.has_value()) args.push_back(absl::StrCat("--device=", *options_.device));
  return args;
}

absl::Status SweepRun::Prepare() {
  absl::StatusOr<std::optional<Manifest>> existing = ReadManifest(manifest_path_);
  if (!existing.ok()) return existing.status();
  const int index = options_.device.value_or(0);
  DeviceIdentity device =
      options_.query_device != nullptr ? options_.query_device(index) : DeviceIdentity{index};
  if (existing->has_value()) {
    manifest_ = **std::move(existing);
    if (manifest_.sweep != sweep_.name) {
      return absl::FailedPreconditionError(absl::StrCat(
          manifest_path_, " is a run of sweep '", manifest_.sweep, "', not '", sweep_.name,
          "': resume it with --sweep=", manifest_.sweep, " or choose another --out"));
    }
    const std::string had = manifest_.device.value("uuid", "");
    if (!had.empty() && device.uuid.has_value() && had != *device.uuid) {
      return absl::FailedPreconditionError(absl::StrCat(manifest_path_, " is a run on device ", had,
                                                        ", this is ", *device.uuid,
                                                        ": choose another --out"));
    }
    if (had.empty()) manifest_.device = DeviceIdentityToJson(device);
    if (!manifest_.git_commit.empty() && manifest_.git_commit != options_.git_commit) {
      progress() << "sweep: note: resuming a run started at commit " << manifest_.git_commit
                 << " with commit " << options_.git_commit
                 << " (each result row records its own build)\n";
    }
    manifest_.finished.clear();
  } else {
    const absl::Time now = absl::Now();
    // Without a UUID (no NVML, or the CPU-only selftest) several runners on
    // one host (one per GPU, a Slurm array's tasks) see the same index and
    // may start in the same second: the process id keeps their runs apart.
    manifest_.run_id =
        device.uuid ? absl::StrCat(options_.host, "-", *device.uuid, "-", Compact(now))
                    : absl::StrCat(options_.host, "-", index, "-", Compact(now), "-p", getpid());
    manifest_.sweep = sweep_.name;
    manifest_.sweep_file = WorkspacePath(sweep_.path);
    manifest_.host = options_.host;
    manifest_.started = Iso8601(now);
    manifest_.git_commit = options_.git_commit;
    manifest_.device = DeviceIdentityToJson(device);
  }
  for (const SweepEntry& entry : sweep_.entries) {
    if (manifest_.Find(entry.id) != nullptr) continue;
    EntryRecord record;
    record.id = entry.id;
    record.experiment = entry.experiment;
    record.result_file = entry.id + ".json";
    record.log_file = entry.id + ".log";
    manifest_.entries.push_back(std::move(record));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> SweepRun::DeviceUsable() {
  manifest_.preflight_failure.clear();
  if (options_.dry_run || !sweep_.needs_gpu || !options_.check_device) return true;
  const std::string problem = options_.check_device(options_.device.value_or(0));
  if (problem.empty()) return true;
  manifest_.preflight_failure = problem;
  manifest_.finished = Iso8601(absl::Now());
  if (absl::Status s = Save(); !s.ok()) return s;
  progress() << "sweep " << sweep_.name << ": no entry ran: " << problem << "; recorded in "
             << manifest_path_ << "\n";
  return false;
}

void SweepRun::WritePlan(const std::vector<const SweepEntry*>& selected) {
  std::vector<PlanRow> rows;
  for (const SweepEntry* e : selected) {
    PlanRow row;
    row.entry = e->id;
    row.time_limit_s = e->time_limit_s;
    row.done = manifest_.Find(e->id)->status == EntryStatus::kOk;
    absl::StatusOr<std::string> binary = FindBinary(*e, options_);
    absl::StatusOr<int> points =
        binary.ok() ? CountPoints(*binary, *e, sweep_.cooldown_s) : binary.status();
    if (points.ok()) {
      row.points = *points;
    } else {
      row.points_problem = std::string(points.status().message());
    }
    rows.push_back(std::move(row));
  }
  dissect::sweep::WritePlan(rows, sweep_.budget_s, *options_.out);
  *options_.out << "\n";
}

absl::StatusOr<bool> SweepRun::RunEntry(const SweepEntry& entry, EntryRecord& record) {
  absl::StatusOr<std::string> binary = FindBinary(entry, options_);
  if (!binary.ok()) {
    if (options_.dry_run) {
      *options_.out << "# " << entry.id << ": skipped: " << binary.status().message() << "\n";
      return true;
    }
    record.status = EntryStatus::kSkipped;
    record.exit_code = -1;
    record.signal = 0;
    record.seconds = 0;
    record.reason = std::string(binary.status().message());
    if (absl::Status s = Save(); !s.ok()) return s;
    return true;
  }
  const std::string result_path = (fs::path(options_.out_dir) / record.result_file).string();
  std::error_code ec;
  const bool resume = fs::exists(result_path, ec);
  const std::vector<std::string> args = Arguments(entry, resume);
  const std::string command = CommandLine(*binary, args);
  if (options_.dry_run) {
    *options_.out << command << "\n";
    return true;
  }
  const absl::Time started = absl::Now();
  record.attempts += 1;
  record.started = Iso8601(started);
  record.status = EntryStatus::kPending;
  record.reason = resume ? "running (resuming its result file)" : "running";
  if (absl::Status s = Save(); !s.ok()) return s;

  ChildSpec spec;
  spec.binary = *binary;
  spec.args = args;
  spec.log_path = (fs::path(options_.out_dir) / record.log_file).string();
  spec.log_header =
      absl::StrCat("=== dissect sweep ", sweep_.name, ", entry ", entry.id, ", attempt ",
                   record.attempts, ", ", record.started, ": ", command);
  spec.time_limit_s = entry.time_limit_s;
  spec.kill_grace_s = options_.kill_grace_s;
  absl::StatusOr<ChildOutcome> outcome = RunChild(spec);
  RecordOutcome(entry, outcome, spec.log_path, options_.kill_grace_s, record);
  if (absl::Status s = Save(); !s.ok()) return s;
  if (outcome.ok() && outcome->kind == ChildOutcome::Kind::kInterrupted) return false;
  eta_.Record(entry.time_limit_s, record.seconds);
  return true;
}

void SweepRun::ReportEntry(const std::string& tag, const EntryRecord& record, bool more,
                           double remaining_limits) {
  progress() << tag << EntryStatusName(record.status);
  if (record.status == EntryStatus::kSkipped) {
    progress() << ": " << record.reason;
  } else {
    progress() << " in " << FormatSeconds(record.seconds);
    if (!record.reason.empty()) progress() << " (" << record.reason << ")";
  }
  if (more) progress() << "; ETA " << FormatEta(eta_.Remaining(remaining_limits));
  progress() << "\n";
}

absl::StatusOr<int> SweepRun::Finish(const std::vector<const SweepEntry*>& selected) {
  const int n = static_cast<int>(selected.size());
  manifest_.finished = Iso8601(absl::Now());
  if (absl::Status s = Save(); !s.ok()) return s;
  int counts[5] = {};
  for (const SweepEntry* e : selected) {
    counts[static_cast<int>(manifest_.Find(e->id)->status)] += 1;
  }
  progress() << "sweep " << sweep_.name << ": " << counts[static_cast<int>(EntryStatus::kOk)]
             << " ok, " << counts[static_cast<int>(EntryStatus::kFailed)] << " failed, "
             << counts[static_cast<int>(EntryStatus::kTimeout)] << " timeout, "
             << counts[static_cast<int>(EntryStatus::kSkipped)] << " skipped; " << manifest_path_
             << "\n";
  return counts[static_cast<int>(EntryStatus::kOk)] == n ? 0 : 1;
}

absl::StatusOr<std::vector<const SweepEntry*>> SweepRun::SelectEntries() const {
  std::vector<const SweepEntry*> selected;
  for (const std::string& id : options_.only) {
    bool found = false;
    for (const SweepEntry& e : sweep_.entries) found = found || e.id == id;
    if (!found) {
      std::vector<std::string> ids;
      for (const SweepEntry& e : sweep_.entries) ids.push_back(e.id);
      return absl::InvalidArgumentError(absl::StrCat("--only: sweep ", sweep_.name,
                                                     " has no entry '", id,
                                                     "' (entries: ", absl::StrJoin(ids, ","), ")"));
    }
  }
  for (const SweepEntry& e : sweep_.entries) {
    if (options_.only.empty() ||
        std::find(options_.only.begin(), options_.only.end(), e.id) != options_.only.end()) {
      selected.push_back(&e);
    }
  }
  return selected;
}

absl::StatusOr<int> SweepRun::Run() {
  absl::StatusOr<std::vector<const SweepEntry*>> chosen = SelectEntries();
  if (!chosen.ok()) return chosen.status();
  const std::vector<const SweepEntry*>& selected = *chosen;
  if (absl::Status s = CheckEntryInputs(sweep_, selected); !s.ok()) return s;
  if (!options_.dry_run) {
    if (absl::Status s = CheckBudget(sweep_, selected); !s.ok()) return s;
  }
  if (absl::Status s = Prepare(); !s.ok()) return s;
  absl::StatusOr<bool> usable = DeviceUsable();
  if (!usable.ok()) return usable.status();
  if (!*usable) return kExitNoDevice;
  if (absl::Status s = Save(); !s.ok()) return s;
  if (options_.dry_run) WritePlan(selected);

  double remaining_limits = 0;
  for (const SweepEntry* e : selected) {
    if (manifest_.Find(e->id)->status != EntryStatus::kOk) remaining_limits += e->time_limit_s;
  }
  if (!options_.dry_run) {
    progress() << "sweep " << sweep_.name << ": " << selected.size() << " entries into "
               << options_.out_dir << " (run " << manifest_.run_id << "); longest "
               << FormatEta(remaining_limits) << "\n";
  }
  const int n = static_cast<int>(selected.size());
  for (int i = 0; i < n; ++i) {
    const SweepEntry& entry = *selected[i];
    EntryRecord& record = *manifest_.Find(entry.id);
    const std::string tag = absl::StrCat("[", i + 1, "/", n, "] ", entry.id, ": ");
    if (StopSignal() != 0) break;
    if (record.status == EntryStatus::kOk) {
      if (options_.dry_run) {
        *options_.out << "# " << entry.id << ": done (ok in an earlier run)\n";
      } else {
        progress() << tag << "done (ok in an earlier run)\n";
      }
      continue;
    }
    if (!options_.dry_run) {
      progress() << tag << "running (attempt " << record.attempts + 1 << ", limit "
                 << entry.time_limit_s << " s)\n";
    }
    absl::StatusOr<bool> go_on = RunEntry(entry, record);
    if (!go_on.ok()) return go_on.status();
    remaining_limits -= entry.time_limit_s;
    if (!*go_on) break;
    if (options_.dry_run) continue;
    ReportEntry(tag, record, i + 1 < n, remaining_limits);
  }
  if (options_.dry_run) return 0;
  if (const int stop = StopSignal(); stop != 0) {
    if (absl::Status s = Save(); !s.ok()) return s;
    progress() << "sweep " << sweep_.name << ": stopped by " << SignalName(stop)
               << "; rerun with the same --out to resume\n";
    return 128 + stop;
  }
  return Finish(selected);
}

}  // namespace

absl::StatusOr<int> RunSweep(const Sweep& sweep, const RunnerOptions& options) {
  return SweepRun(sweep, options).Run();
}

}  // namespace dissect::sweep
