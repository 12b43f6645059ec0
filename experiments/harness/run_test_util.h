// For the harness's own tests: runs points through the real runner into a
// result file, with the console table kept out of the test log.
#ifndef DISSECT_EXPERIMENTS_HARNESS_RUN_TEST_UTIL_H_
#define DISSECT_EXPERIMENTS_HARNESS_RUN_TEST_UTIL_H_

#include <sstream>
#include <vector>

#include "benchmark/benchmark.h"
#include "experiments/harness/experiment.h"
#include "experiments/harness/result_writer.h"
#include "experiments/harness/runner.h"

namespace dissect {

// RunPoints over every point of `axes`; returns its failure count.
inline int RunPointsQuietly(const Experiment& experiment, const std::vector<AxisSpec>& axes,
                            const RunEnv& env, AtomicJsonReporter& file) {
  std::ostringstream console_text;
  benchmark::ConsoleReporter console;
  console.SetOutputStream(&console_text);
  console.SetErrorStream(&console_text);
  return RunPoints(experiment, axes, CartesianProduct(axes), env, &console, &file);
}

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_HARNESS_RUN_TEST_UTIL_H_
