// main() of every <experiment>_gpu_test: the smoke check of the registered
// experiment (experiments/framework/smoke.h).
#include <iostream>

#include "experiments/framework/experiment.h"
#include "experiments/framework/smoke.h"

int main(int argc, char** argv) {
  dissect::Experiment* experiment = dissect::RegisteredExperiment();
  if (experiment == nullptr) {
    std::cerr << "no experiment registered\n";
    return 1;
  }
  return dissect::RunSmoke(*experiment, argc, argv);
}
