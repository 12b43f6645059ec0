// The smoke check of an experiment (what every <experiment>_gpu_test runs,
// and `<experiment> --smoke ...` in a bundle): runs the experiment
// in-process at the tiny size given on the command line, then checks the
// result file: no failed or skipped point, and every --expect=metric:lo:hi
// within bounds (lo and hi may be negative; metric may hold '/', e.g.
// cupti/passes).
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_SMOKE_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_SMOKE_H_

#include "experiments/framework/experiment.h"

namespace dissect {

// argv[1..] are the experiment's flags plus --expect=metric:lo:hi (any
// number); the result goes to $TEST_TMPDIR/gpu_smoke.json (or /tmp).
// Returns 0 when every point ran and met every expectation, else 1.
int RunSmoke(Experiment& experiment, int argc, char** argv);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_SMOKE_H_
