// CUPTI's profiler host API; see cupti_host.h.
#include "probes/cupti_host.h"

#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "probes/cuda_status.h"
#include "probes/cupti_status.h"

namespace dissect {

// A CUpti_Profiler_Host_Object for one chip; a config image is built on a
// fresh one because metrics added to an object stay in it.
class CuptiHost::Object {
 public:
  static absl::StatusOr<std::unique_ptr<Object>> Create(
      const CuptiApi* api, const std::string& chip,
      const std::vector<uint8_t>& counter_availability) {
    CUpti_Profiler_Host_Initialize_Params p{
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage =
        counter_availability.empty() ? nullptr : counter_availability.data();
    if (const CUptiResult r = api->cuptiProfilerHostInitialize(&p);
        r != CUPTI_SUCCESS) {
      absl::Status s =
          CuptiStatus(r, "cuptiProfilerHostInitialize", __FILE__, __LINE__);
      return CounterStatus(CounterCauseOf(s),
                           absl::StrCat("chip ", chip, ": ", s.message()));
    }
    return std::unique_ptr<Object>(new Object(api, p.pHostObject));
  }
  ~Object() {
    CUpti_Profiler_Host_Deinitialize_Params p{
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = object_;
    api_->cuptiProfilerHostDeinitialize(&p);
  }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  CUpti_Profiler_Host_Object* get() const { return object_; }

 private:
  Object(const CuptiApi* api, CUpti_Profiler_Host_Object* object)
      : api_(api), object_(object) {}
  const CuptiApi* api_;
  CUpti_Profiler_Host_Object* object_;
};

CuptiHost::CuptiHost(const CuptiApi* api, std::string chip,
                     std::vector<uint8_t> counter_availability,
                     std::unique_ptr<Object> object)
    : api_(api),
      chip_(std::move(chip)),
      counter_availability_(std::move(counter_availability)),
      object_(std::move(object)) {}

CuptiHost::~CuptiHost() = default;

absl::StatusOr<std::unique_ptr<CuptiHost>> CuptiHost::Create(
    std::string chip, std::vector<uint8_t> counter_availability) {
  DISSECT_ASSIGN_OR_RETURN(const CuptiApi* api, LoadCuptiApi());
  DISSECT_ASSIGN_OR_RETURN(std::unique_ptr<Object> object,
                           Object::Create(api, chip, counter_availability));
  return std::unique_ptr<CuptiHost>(
      new CuptiHost(api, std::move(chip), std::move(counter_availability),
                    std::move(object)));
}

absl::StatusOr<std::vector<std::string>> CuptiHost::SupportedChips() {
  DISSECT_ASSIGN_OR_RETURN(const CuptiApi* api, LoadCuptiApi());
  CUpti_Profiler_Host_GetSupportedChips_Params p{
      CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
  DISSECT_CUPTI_RETURN_IF_ERROR(api->cuptiProfilerHostGetSupportedChips(&p));
  return std::vector<std::string>(p.ppChipNames, p.ppChipNames + p.numChips);
}

absl::StatusOr<PerfworksMetricInfo> CuptiHost::Describe(
    absl::string_view metric) const {
  const std::string name(metric);
  CUpti_Profiler_Host_GetMetricProperties_Params p{
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
  p.pHostObject = object_->get();
  p.pMetricName = name.c_str();
  const CUptiResult r = api_->cuptiProfilerHostGetMetricProperties(&p);
  if (r != CUPTI_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("chip ", chip_, " has no metric '", name, "' (",
                     CuptiResultName(r), ")"));
  }
  PerfworksMetricInfo info;
  info.name = name;
  info.description = p.pDescription != nullptr ? p.pDescription : "";
  info.hw_unit = p.pHwUnit != nullptr ? p.pHwUnit : "";
  info.dim_unit = p.pDimUnit != nullptr ? p.pDimUnit : "";
  info.type = p.metricType;
  return info;
}

absl::StatusOr<CounterConfig> CuptiHost::BuildConfig(
    const std::vector<std::string>& metrics) const {
  if (metrics.empty())
    return absl::InvalidArgumentError("no metrics to collect");
  std::set<std::string> seen;
  for (const std::string& m : metrics) {
    DISSECT_RETURN_IF_ERROR(Describe(m).status());
    if (!seen.insert(m).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric '", m, "' is listed twice"));
    }
  }
  DISSECT_ASSIGN_OR_RETURN(std::unique_ptr<Object> object,
                           Object::Create(api_, chip_, counter_availability_));
  CounterConfig config;
  config.metrics = metrics;
  std::vector<const char*> names;
  for (const std::string& m : config.metrics) names.push_back(m.c_str());

  CUpti_Profiler_Host_ConfigAddMetrics_Params add{
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = object->get();
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiProfilerHostConfigAddMetrics(&add));

  CUpti_Profiler_Host_GetConfigImageSize_Params size{
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = object->get();
  DISSECT_CUPTI_RETURN_IF_ERROR(
      api_->cuptiProfilerHostGetConfigImageSize(&size));
  config.image.resize(size.configImageSize);

  CUpti_Profiler_Host_GetConfigImage_Params image{
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  image.pHostObject = object->get();
  image.configImageSize = config.image.size();
  image.pConfigImage = config.image.data();
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiProfilerHostGetConfigImage(&image));

  CUpti_Profiler_Host_GetNumOfPasses_Params passes{
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = config.image.size();
  passes.pConfigImage = config.image.data();
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiProfilerHostGetNumOfPasses(&passes));
  config.passes = static_cast<int>(passes.numOfPasses);
  if (config.passes < 1) {
    return absl::InternalError(
        absl::StrCat("CUPTI scheduled ", passes.numOfPasses, " passes for ",
                     metrics.size(), " metric(s) on ", chip_));
  }
  return config;
}

absl::StatusOr<std::vector<double>> CuptiHost::Evaluate(
    const std::vector<uint8_t>& counter_data, size_t range,
    const std::vector<std::string>& metrics) const {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  std::vector<double> values(metrics.size());
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p{
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  p.pHostObject = object_->get();
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiProfilerHostEvaluateToGpuValues(&p));
  return values;
}

}  // namespace dissect
