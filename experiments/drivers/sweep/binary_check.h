// The check of a sweep against the experiment binaries, on the CPU: each
// entry's binary is one the test depends on, and accepts the entry's axes,
// values and flags (`BIN --list ...` needs no GPU, exits 0 and lists points
// of that experiment). Used by the sweep files' schema test, the paper
// catalog's test and the runner's --dry_run plan (points per entry).
#ifndef DISSECT_EXPERIMENTS_DRIVERS_SWEEP_BINARY_CHECK_H_
#define DISSECT_EXPERIMENTS_DRIVERS_SWEEP_BINARY_CHECK_H_

#include <set>
#include <string>
#include <vector>

#include "experiments/drivers/sweep/sweep_config.h"

namespace dissect::sweep {

// A program's exit status (-1: it did not start or did not exit normally)
// and what it wrote.
struct ProgramOutput {
  int exit_code = -1;
  std::string out, err;
};

// Runs argv[0] (a path) with `argv` and waits for it; stdout and stderr are
// kept apart (through temporary files under $TEST_TMPDIR, else $TMPDIR or
// /tmp, removed afterwards).
ProgramOutput RunProgram(const std::vector<std::string>& argv);

// The runner's command line for `e` (EntryArguments) with --list instead of
// --benchmark_out.
std::vector<std::string> ListArguments(const SweepEntry& e, double cooldown_s);

// What is wrong with `sweep` against `binaries` (workspace paths that exist
// in the test's runfiles, e.g. "experiments/memory_latency"): one line per
// problem, naming the sweep's file and the entry. Empty when all is well.
std::vector<std::string> CheckAgainstBinaries(const Sweep& sweep,
                                              const std::set<std::string>& binaries);

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_DRIVERS_SWEEP_BINARY_CHECK_H_
