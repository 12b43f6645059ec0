// main() of every experiment binary: runs the one registered experiment.
// `BINARY --smoke FLAGS --expect=metric:lo:hi ...` runs its smoke check
// instead (experiments/framework/smoke.h): what <experiment>_gpu_test does,
// so that a bundle for a GPU machine need not carry the test binaries too.
#include <iostream>
#include <string>

#include "absl/status/status.h"
#include "experiments/framework/experiment.h"
#include "experiments/framework/runner.h"
#include "experiments/framework/smoke.h"
#include "tools/cli/user_path.h"

int main(int argc, char** argv) {
  dissect::Experiment* experiment = dissect::RegisteredExperiment();
  if (experiment == nullptr) {
    std::cerr << "dissect: this binary registers no experiment "
                 "(is the experiment library alwayslink?)\n";
    return dissect::kExitBadInput;
  }
  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    std::cerr << experiment->name() << ": " << entered.message() << "\n";
    return dissect::kExitBadInput;
  }
  if (argc > 1 && std::string(argv[1]) == "--smoke") {
    argv[1] = argv[0];
    return dissect::RunSmoke(*experiment, argc - 1, argv + 1);
  }
  return dissect::RunMain(*experiment, argc, argv);
}
