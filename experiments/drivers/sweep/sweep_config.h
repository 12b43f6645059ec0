// Sweep files (configs/sweeps/<name>.json, format "dissect.sweep.v1"): which
// experiments a sweep runs, with their axis overrides, samples and a time
// limit per entry. Parsed strictly: every problem is one line naming the
// file and the entry.
#ifndef DISSECT_EXPERIMENTS_DRIVERS_SWEEP_SWEEP_CONFIG_H_
#define DISSECT_EXPERIMENTS_DRIVERS_SWEEP_SWEEP_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::sweep {

inline constexpr char kSweepFormat[] = "dissect.sweep.v1";

// One experiment run of a sweep.
struct SweepEntry {
  std::string id;          // unique in the sweep; names the result file
  std::string experiment;  // e.g. "memory_latency"
  std::string binary;      // workspace-relative, default "experiments/<experiment>"
  // --axis overrides in file order: name, values in the harness's syntax
  // (experiments/framework/axes.h), e.g. {"footprint_bytes", "4MiB,8MiB"}.
  std::vector<std::pair<std::string, std::string>> axes;
  int samples = 0;                // 0 = the binary's default
  int warmup = -1;                // -1 = the binary's default
  double time_limit_s = 0;        // > 0 after parsing (the entry's, else the defaults')
  std::vector<std::string> args;  // more flags for the binary, e.g. --metrics=...
  std::string why;                // how the entry was sized (free text)
};

struct Sweep {
  std::string name;
  std::string description;
  std::string path;  // the file it was parsed from, as given
  double cooldown_s = 30;
  // The night's budget in seconds ("budget_s"): the runner refuses to start
  // when the selected entries' time limits add up to more. Absent: none.
  std::optional<double> budget_s;
  // False ("needs_gpu": false) for sweeps of CPU-only experiments (the
  // selftest): the runner then skips its device check.
  bool needs_gpu = true;
  std::vector<SweepEntry> entries;
  // Sum of the entries' time limits: the longest the sweep may take.
  double TotalTimeLimit() const;
};

// Parses a sweep file's text; `path` names the file in error messages.
absl::StatusOr<Sweep> ParseSweepJson(std::string_view text, std::string_view path);

// Loads a sweep by name ("nightly" -> configs/sweeps/nightly.json, looked up
// in the runfiles first, then relative to the working directory and to
// $BUILD_WORKSPACE_DIRECTORY) or by the path of a .json file (a relative path
// from the folder the command was run from: cli::UserPath).
absl::StatusOr<Sweep> LoadSweep(const std::string& name_or_path);

// The child's argv after argv[0]: --benchmark_out=FILE, --samples=N (if
// > 0), --warmup=N (if >= 0), one --axis=NAME=VALUES per axis in order,
// --cooldown_s=S, --resume if asked, then the entry's args.
std::vector<std::string> EntryArguments(const SweepEntry& e, double cooldown_s,
                                        const std::string& out_file, bool resume);

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_DRIVERS_SWEEP_SWEEP_CONFIG_H_
