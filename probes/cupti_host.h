// CUPTI's profiler host API (cupti_profiler_host.h) for one chip: metric
// properties, config images with their pass counts, and evaluation of
// collected counter data. It needs libcupti (see cupti_api.h) but no GPU, so
// the metric catalog is checked against it on any machine.
#ifndef DISSECT_PROBES_CUPTI_HOST_H_
#define DISSECT_PROBES_CUPTI_HOST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "probes/cupti_api.h"

namespace dissect {

struct PerfworksMetricInfo {
  std::string name;         // as asked, with its rollup/submetric
  std::string description;  // CUPTI's one-line description
  std::string hw_unit;      // the unit of hardware it counts in, e.g. "dram"
  std::string dim_unit;  // the dimension of its values, e.g. "byte", "percent"
  CUpti_MetricType type = CUPTI_METRIC_TYPE_COUNTER;
};

// What a collection of metrics needs: the scheduling of its counters over
// replay passes.
struct CounterConfig {
  std::vector<std::string> metrics;  // perfworks names, in order
  std::vector<uint8_t> image;
  int passes = 0;
};

class CuptiHost {
 public:
  // `chip` as CUPTI names it, e.g. "GH100". `counter_availability` is the
  // image a device reports (cuptiProfilerGetCounterAvailability); leave it
  // empty to work from the chip alone (as the CPU tests do).
  static absl::StatusOr<std::unique_ptr<CuptiHost>> Create(
      std::string chip, std::vector<uint8_t> counter_availability = {});
  ~CuptiHost();
  CuptiHost(const CuptiHost&) = delete;
  CuptiHost& operator=(const CuptiHost&) = delete;

  // The chips this CUPTI knows.
  static absl::StatusOr<std::vector<std::string>> SupportedChips();

  const std::string& chip() const { return chip_; }

  // Properties of one metric (with its rollup, e.g. "dram__bytes_read.sum").
  // A name the chip does not have is InvalidArgument naming metric and chip.
  absl::StatusOr<PerfworksMetricInfo> Describe(absl::string_view metric) const;

  // The config image that collects `metrics` together, and its pass count.
  // Every name is checked first, so that an error names the wrong one;
  // duplicates are an error too.
  absl::StatusOr<CounterConfig> BuildConfig(
      const std::vector<std::string>& metrics) const;

  // The values of `metrics` (in order) for range `range` of a decoded
  // counter data image.
  absl::StatusOr<std::vector<double>> Evaluate(
      const std::vector<uint8_t>& counter_data, size_t range,
      const std::vector<std::string>& metrics) const;

 private:
  class Object;  // RAII owner of a CUpti_Profiler_Host_Object
  CuptiHost(const CuptiApi* api, std::string chip,
            std::vector<uint8_t> counter_availability,
            std::unique_ptr<Object> object);

  const CuptiApi* api_;
  std::string chip_;
  std::vector<uint8_t> counter_availability_;
  std::unique_ptr<Object> object_;  // for Describe and Evaluate
};

}  // namespace dissect

#endif  // DISSECT_PROBES_CUPTI_HOST_H_
