// The runner's parts, shared between its files (cli.cc, output_paths.cc,
// device_setup.cc, point_recording.cc, runner.cc); not for experiments,
// which use runner.h.
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_RUNNER_INTERNAL_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_RUNNER_INTERNAL_H_

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/framework/experiment.h"
#include "experiments/framework/runner.h"
#include "gflags/gflags.h"
#include "probes/counters.h"
#include "probes/kernel_activity.h"
#include "probes/metric_catalog.h"
#include "probes/nvml_clock.h"

// The harness's own flags, defined in cli.cc.
DECLARE_int32(device);
DECLARE_int32(samples);
DECLARE_int32(warmup);
DECLARE_bool(list);
DECLARE_bool(kernel_activity);
DECLARE_bool(resume);
DECLARE_double(cooldown_s);

namespace dissect::runner_internal {

// The command line besides the gflags it sets (cli.cc).
struct Args {
  bool help = false;
  std::optional<std::string> metrics;  // --metrics, as given
  std::vector<std::string> axis_specs;
  std::string out_path;
  std::vector<std::string> benchmark_args;  // forwarded to Google Benchmark
};

// Sets the harness's and the experiment's gflags from argv and collects the
// rest; a bad argument is an InvalidArgument naming it.
absl::StatusOr<Args> ParseArgs(int argc, char** argv, const Experiment& experiment);

// Hands --benchmark_* flags to Google Benchmark; rejects the ones it does
// not know.
absl::Status InitializeBenchmark(const std::string& argv0,
                                 const std::vector<std::string>& flags);

// dissect-results/<experiment>-<UTC time>.json under the caller's folder
// (output_paths.cc).
std::string DefaultOutputPath(const std::string& experiment);

// Makes sure the result file can be written, before anything is measured.
absl::Status CheckOutputPath(const std::string& path, bool is_default);

// Creates the folder of the default result path if it is missing.
absl::Status CreateDefaultFolder(const std::string& path);

// The compute capability of `device` as major * 10 + minor.
int ComputeCapabilityOf(const DeviceInfo& device);

// Owns the measurement stream. It is a blocking stream, so that plain
// cudaMemcpy calls in experiment bodies stay ordered with its kernels.
class Stream {
 public:
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  absl::Status Create();
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// What a GPU run holds until its points are measured.
struct GpuResources {
  std::unique_ptr<NvmlClock> clock;
  Stream stream;
  std::unique_ptr<CuptiCounters> counters;
  std::unique_ptr<KernelTimer> activity;
};

// Selects --device and fills `env` with it: device properties, SM clocks,
// the stream, --metrics counters and --kernel_activity (device_setup.cc).
// Returns an exit status (kExitOk when the points can run).
int SetUpGpu(RunEnv& env, GpuResources& gpu, const std::vector<const CatalogMetric*>& metrics,
             const std::string& prefix);

}  // namespace dissect::runner_internal

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_RUNNER_INTERNAL_H_
