// Hardware counters over one launch, with CUPTI's range profiler (CUDA 13:
// cupti_range_profiler.h + cupti_profiler_host.h). Metrics come from the
// catalog (metric_catalog.h) by short name; each Collect returns one value
// per metric with its unit, and the number of replay passes it took.
//
// Counters are collected in their own passes, never during timing: the range
// profiler is enabled on the context only inside Collect and disabled before
// it returns.
#ifndef DISSECT_PROBES_COUNTERS_H_
#define DISSECT_PROBES_COUNTERS_H_

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "probes/cupti_host.h"
#include "probes/event_timer.h"
#include "probes/metric_catalog.h"

namespace dissect {

enum class CounterReplay {
  // One user range (CUPTI_UserRange) around the launch, which runs once per
  // pass (CUPTI_UserReplay). It may issue several kernels, and must leave
  // the device ready for the next pass (before_pass can help: it runs
  // before every pass, outside the range).
  kUser,
  // CUPTI replays the launch's kernel once per pass itself, saving and
  // restoring device memory (CUPTI_AutoRange, CUPTI_KernelReplay): the
  // launch runs once, for launches that cannot simply be repeated. It must
  // issue exactly one kernel; before_pass runs once, before it.
  kKernel,
};

// "user" / "kernel".
const char* CounterReplayName(CounterReplay replay);

struct CounterValue {
  std::string name;       // catalog short name, e.g. "dram_bytes_read"
  std::string perfworks;  // the CUPTI metric it was read as
  std::string unit;       // catalog unit, e.g. "B"
  double value = 0;
};

struct CounterReading {
  int passes = 0;                    // replay passes that ran
  std::vector<CounterValue> values;  // one per metric, in the requested order
};

// Runs before a pass, outside the profiled range (e.g. an L2 flush).
using BeforePassFn = std::function<absl::Status(cudaStream_t)>;

// Collects counters over a launch: CuptiCounters on a GPU, fakes in tests.
class CounterCollector {
 public:
  virtual ~CounterCollector() = default;
  // `launch` issues its work on `stream`; `before_pass` may be null.
  virtual absl::StatusOr<CounterReading> Collect(
      const LaunchFn& launch, cudaStream_t stream,
      const BeforePassFn& before_pass) = 0;
};

// A requested metric that the chip does not have, and why (the catalog's
// "unavailable" reason).
struct SkippedCounter {
  std::string name;  // catalog short name
  std::string reason;
};

// How requested metrics map onto one chip: the ones to collect with their
// perfworks names (in the requested order), and the ones skipped.
struct ChipCounterPlan {
  std::vector<const CatalogMetric*> collected;
  std::vector<std::string> perfworks;  // one per collected metric
  std::vector<SkippedCounter> skipped;
};

// Maps `metrics` onto `chip` without CUPTI. A chip the catalog does not cover
// (neither a name nor a reason for some metric) is kUnknownChip naming it; a
// request of which nothing exists on the chip is kUnknownChip listing each
// metric with its reason.
absl::StatusOr<ChipCounterPlan> PlanCounters(
    const std::vector<const CatalogMetric*>& metrics, const std::string& chip);

class CuptiCounters : public CounterCollector {
 public:
  // Sets counters up on CUDA device `device` (made current): loads CUPTI,
  // initializes its profiler, asks the chip name, maps `metrics` to that
  // chip's perfworks names (PlanCounters) and builds the config image.
  // Metrics the chip lacks are skipped (skipped() says why) and absent from
  // every reading. Errors carry a CounterCause (cupti_status.h): e.g.
  // kNoCupti when libcupti is missing, kUnknownChip when the catalog has no
  // names for the chip, kNoGpu.
  // Errors of permission or another attached profiler may only show at the
  // first Collect.
  static absl::StatusOr<std::unique_ptr<CuptiCounters>> Create(
      int device, const std::vector<const CatalogMetric*>& metrics,
      CounterReplay replay = CounterReplay::kUser);
  ~CuptiCounters() override;
  CuptiCounters(const CuptiCounters&) = delete;
  CuptiCounters& operator=(const CuptiCounters&) = delete;

  const std::string& chip() const { return host_->chip(); }
  // Passes one Collect needs, as CUPTI scheduled them.
  int passes() const { return config_.passes; }
  CounterReplay replay() const { return replay_; }
  // Requested metrics this chip does not have, with the reason.
  const std::vector<SkippedCounter>& skipped() const { return skipped_; }

  absl::StatusOr<CounterReading> Collect(
      const LaunchFn& launch, cudaStream_t stream,
      const BeforePassFn& before_pass) override;

 private:
  CuptiCounters(const CuptiApi* api, void* context, CounterReplay replay,
                std::unique_ptr<CuptiHost> host, CounterConfig config,
                ChipCounterPlan plan);

  const CuptiApi* api_;
  void* context_;  // CUcontext
  CounterReplay replay_;
  std::unique_ptr<CuptiHost> host_;
  CounterConfig config_;
  std::vector<const CatalogMetric*> metrics_;  // the collected ones
  std::vector<SkippedCounter> skipped_;
};

// The passes CUPTI needs on `chip` for each catalog metric alone and for each
// group, checked against the host API without a GPU: every perfworks name
// must exist on the chip (the error names each one that does not).
struct PassCount {
  std::string name;  // metric or group
  int passes = 0;
};
absl::StatusOr<std::vector<PassCount>> CatalogPassCounts(
    const MetricCatalog& catalog, const std::string& chip);

}  // namespace dissect

#endif  // DISSECT_PROBES_COUNTERS_H_
