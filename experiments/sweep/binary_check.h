// Tests' check of a sweep against the experiment binaries, on the CPU: each
// entry's binary is one the test depends on, and accepts the entry's axes,
// values and flags (`BIN --list ...` needs no GPU, exits 0 and lists points
// of that experiment). Used by the sweep files' schema test and the paper
// catalog's test.
#ifndef DISSECT_EXPERIMENTS_SWEEP_BINARY_CHECK_H_
#define DISSECT_EXPERIMENTS_SWEEP_BINARY_CHECK_H_

#include <set>
#include <string>
#include <vector>

#include "experiments/sweep/sweep_config.h"

namespace dissect::sweep {

// The runner's command line for `e` (EntryArguments) with --list instead of
// --benchmark_out.
std::vector<std::string> ListArguments(const SweepEntry& e, double cooldown_s);

// What is wrong with `sweep` against `binaries` (workspace paths that exist
// in the test's runfiles, e.g. "experiments/memory_latency"): one line per
// problem, naming the sweep's file and the entry. Empty when all is well.
std::vector<std::string> CheckAgainstBinaries(const Sweep& sweep,
                                              const std::set<std::string>& binaries);

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_SWEEP_BINARY_CHECK_H_
