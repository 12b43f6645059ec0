// For the harness's own tests: runs points through the real runner into a
// result file, with the console table kept out of the test log.
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_RUN_TEST_UTIL_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_RUN_TEST_UTIL_H_

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/writer.h"
#include "experiments/framework/runner.h"

namespace dissect {

// The environment of a run on a device that is not there: `name` of compute
// capability `cc_major`.`cc_minor`, no clocks, no progress lines.
inline RunEnv FakeDeviceEnv(std::string name, int cc_major, int cc_minor = 0) {
  RunEnv env;
  env.device.name = std::move(name);
  env.device.cc_major = cc_major;
  env.device.cc_minor = cc_minor;
  env.clocks_source = "unavailable: fake device";
  env.progress = false;
  return env;
}

// RunPoints over every point of `axes`; returns its failure count.
inline int RunPointsQuietly(const Experiment& experiment, const std::vector<AxisSpec>& axes,
                            const RunEnv& env, result_format::AtomicJsonReporter& file) {
  std::ostringstream console_text;
  benchmark::ConsoleReporter console;
  console.SetOutputStream(&console_text);
  console.SetErrorStream(&console_text);
  return RunPoints(experiment, axes, CartesianProduct(axes), env, &console, &file);
}

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_RUN_TEST_UTIL_H_
