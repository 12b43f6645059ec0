// main() of every experiment binary: runs the one registered experiment.
#include <iostream>

#include "experiments/harness/experiment.h"
#include "experiments/harness/runner.h"

int main(int argc, char** argv) {
  dissect::Experiment* experiment = dissect::RegisteredExperiment();
  if (experiment == nullptr) {
    std::cerr << "dissect: this binary registers no experiment "
                 "(is the experiment library alwayslink?)\n";
    return dissect::kExitBadInput;
  }
  return dissect::RunMain(*experiment, argc, argv);
}
