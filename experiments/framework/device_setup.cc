// The device a run measures on, set up before any point; see
// runner_internal.h.
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/runner_internal.h"
#include "kernels/noop.h"
#include "probes/cuda_status.h"
#include "probes/cupti_status.h"

namespace dissect::runner_internal {
namespace {

// "<cause>: <reason>" of a failed counter or activity setup, for the
// result context; warns once on stderr.
std::string Unavailable(absl::string_view what, const absl::Status& status,
                        const std::string& prefix) {
  const std::string why =
      absl::StrCat(CounterCauseName(CounterCauseOf(status)), ": ", status.message());
  std::cerr << prefix << what << " unavailable, timings only: " << why << "\n";
  return why;
}

// Sets up --kernel_activity and times an empty kernel with it once, so that
// a missing CUPTI or another CUPTI client shows before any point (and lands
// in the result context). Returns the timer to keep alive; on failure
// records why in env.activity.unavailable and warns on stderr.
std::unique_ptr<KernelTimer> SetUpActivity(RunEnv& env, const std::string& prefix) {
  auto timer = std::make_unique<CuptiKernelTimer>();
  TimingOptions trial;
  trial.warmup = 0;
  trial.samples = 1;
  const absl::Status status =
      timer->Time(LaunchNoop, trial, nullptr, env.stream).status();
  if (!status.ok()) {
    env.activity.unavailable = Unavailable("kernel activity", status, prefix);
    return nullptr;
  }
  env.activity.timer = timer.get();
  return timer;
}

// Sets up the --metrics counters and runs them once over an empty kernel, so
// that a missing permission or an attached profiler shows before any point
// (and lands in the result context). Returns the collector to keep alive;
// on failure records why in env.counters.unavailable and warns on stderr.
std::unique_ptr<CuptiCounters> SetUpCounters(RunEnv& env, const std::string& prefix) {
  absl::StatusOr<std::unique_ptr<CuptiCounters>> counters =
      CuptiCounters::Create(env.device.index, env.counters.metrics);
  absl::Status status = counters.status();
  if (status.ok()) {
    env.counters.chip = (*counters)->chip();
    status = (*counters)->Collect(LaunchNoop, env.stream, nullptr).status();
  }
  if (!status.ok()) {
    env.counters.unavailable = Unavailable("counters", status, prefix);
    return nullptr;
  }
  for (const SkippedCounter& skipped : (*counters)->skipped()) {
    std::cerr << prefix << "counter " << skipped.name << " skipped on " << env.counters.chip
              << ": " << skipped.reason << "\n";
  }
  env.counters.collector = counters->get();
  env.counters.replay = CounterReplayName((*counters)->replay());
  env.counters.passes = (*counters)->passes();
  return *std::move(counters);
}

}  // namespace

absl::Status Stream::Create() {
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamCreate(&stream_));
  return absl::OkStatus();
}

int SetUpGpu(RunEnv& env, GpuResources& gpu, const std::vector<const CatalogMetric*>& metrics,
             const std::string& prefix) {
  absl::StatusOr<int> count = VisibleDeviceCount();
  if (!count.ok()) {
    std::cerr << prefix << count.status().message() << "\n";
    return kExitBadInput;
  }
  if (FLAGS_device >= *count) {
    std::cerr << prefix << "--device=" << FLAGS_device << " but only " << *count
              << " CUDA device(s) are visible\n";
    return kExitBadInput;
  }
  if (absl::Status s = CudaStatus(cudaSetDevice(FLAGS_device), "cudaSetDevice",
                                  __FILE__, __LINE__);
      !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitBadInput;
  }
  absl::StatusOr<DeviceInfo> device = QueryDevice(FLAGS_device);
  if (!device.ok()) {
    std::cerr << prefix << device.status().message() << "\n";
    return kExitPointFailed;
  }
  env.device = *std::move(device);
  absl::StatusOr<std::unique_ptr<NvmlClock>> clock =
      NvmlClock::Open(env.device.pci_bus_id);
  if (clock.ok()) {
    gpu.clock = *std::move(clock);
    env.clock = gpu.clock.get();
    env.clocks_source = "nvml";
  } else {
    env.clocks_source = absl::StrCat("unavailable: ", clock.status().message());
    std::cerr << prefix << "SM clocks will not be recorded: "
              << clock.status().message() << "\n";
  }
  if (absl::Status s = gpu.stream.Create(); !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitPointFailed;
  }
  env.stream = gpu.stream.get();
  env.counters.metrics = metrics;
  if (!metrics.empty()) gpu.counters = SetUpCounters(env, prefix);
  env.activity.requested = FLAGS_kernel_activity;
  if (FLAGS_kernel_activity) gpu.activity = SetUpActivity(env, prefix);
  return kExitOk;
}

}  // namespace dissect::runner_internal
