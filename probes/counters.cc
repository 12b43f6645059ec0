// Hardware counters with CUPTI's range profiler; see counters.h.
#include "probes/counters.h"

#include <cuda.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/cuda_status.h"
#include "probes/cupti_status.h"

namespace dissect {
namespace {

// Ranges the counter data image holds. A user range is one range; with
// kernel replay every kernel is one, and more than one is refused.
constexpr size_t kUserRanges = 1;
constexpr size_t kKernelRanges = 16;
constexpr char kRangeName[] = "dissect";

absl::Status CudaFailure(cudaError_t error, const char* call) {
  const CounterFailure failure = ClassifyCudaError(error);
  return CounterStatus(failure.cause,
                       absl::StrCat(call, " failed: ", failure.explanation));
}

// The CUDA context current on this thread, through the driver entry point
// that the runtime hands out (no link against libcuda).
absl::StatusOr<CUcontext> CurrentContext() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t error = cudaGetDriverEntryPointByVersion(
      "cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found);
  if (error != cudaSuccess)
    return CudaFailure(error, "cudaGetDriverEntryPointByVersion");
  if (fn == nullptr || found != cudaDriverEntryPointSuccess) {
    return CounterStatus(CounterCause::kNoGpu,
                         "the CUDA driver has no cuCtxGetCurrent");
  }
  CUcontext context = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&context) != CUDA_SUCCESS ||
      context == nullptr) {
    return CounterStatus(CounterCause::kNoGpu, "no current CUDA context");
  }
  return context;
}

// cuptiProfilerInitialize/DeInitialize for the life of a CuptiCounters
// (CUPTI counts them).
absl::Status InitializeProfiler(const CuptiApi& api) {
  CUpti_Profiler_Initialize_Params p{
      CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  DISSECT_CUPTI_RETURN_IF_ERROR(api.cuptiProfilerInitialize(&p));
  return absl::OkStatus();
}

void DeinitializeProfiler(const CuptiApi& api) {
  CUpti_Profiler_DeInitialize_Params p{
      CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
  api.cuptiProfilerDeInitialize(&p);
}

absl::StatusOr<std::vector<uint8_t>> CounterAvailability(const CuptiApi& api,
                                                         CUcontext context) {
  CUpti_Profiler_GetCounterAvailability_Params p{
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  p.ctx = context;
  DISSECT_CUPTI_RETURN_IF_ERROR(api.cuptiProfilerGetCounterAvailability(&p));
  std::vector<uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  DISSECT_CUPTI_RETURN_IF_ERROR(api.cuptiProfilerGetCounterAvailability(&p));
  return image;
}

absl::StatusOr<std::string> ChipName(const CuptiApi& api, int device) {
  CUpti_Device_GetChipName_Params p{
      CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  p.deviceIndex = static_cast<size_t>(device);
  DISSECT_CUPTI_RETURN_IF_ERROR(api.cuptiDeviceGetChipName(&p));
  if (p.pChipName == nullptr)
    return absl::InternalError("CUPTI returned no chip name");
  return std::string(p.pChipName);
}

// The range profiler enabled on a context; disabled when this goes away.
class EnabledRangeProfiler {
 public:
  static absl::StatusOr<EnabledRangeProfiler> Enable(const CuptiApi* api,
                                                     CUcontext context) {
    CUpti_RangeProfiler_Enable_Params p{
        CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    p.ctx = context;
    DISSECT_CUPTI_RETURN_IF_ERROR(api->cuptiRangeProfilerEnable(&p));
    return EnabledRangeProfiler(api, p.pRangeProfilerObject);
  }
  EnabledRangeProfiler(EnabledRangeProfiler&& other) noexcept
      : api_(other.api_), object_(std::exchange(other.object_, nullptr)) {}
  EnabledRangeProfiler& operator=(EnabledRangeProfiler&&) = delete;
  ~EnabledRangeProfiler() {
    if (object_ == nullptr) return;
    CUpti_RangeProfiler_Disable_Params p{
        CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    api_->cuptiRangeProfilerDisable(&p);
  }
  CUpti_RangeProfiler_Object* get() const { return object_; }

 private:
  EnabledRangeProfiler(const CuptiApi* api, CUpti_RangeProfiler_Object* object)
      : api_(api), object_(object) {}
  const CuptiApi* api_;
  CUpti_RangeProfiler_Object* object_;
};

}  // namespace

const char* CounterReplayName(CounterReplay replay) {
  return replay == CounterReplay::kKernel ? "kernel" : "user";
}

absl::StatusOr<ChipCounterPlan> PlanCounters(
    const std::vector<const CatalogMetric*>& metrics, const std::string& chip) {
  ChipCounterPlan plan;
  for (const CatalogMetric* m : metrics) {
    if (const auto it = m->perfworks.find(chip); it != m->perfworks.end()) {
      plan.collected.push_back(m);
      plan.perfworks.push_back(it->second);
    } else if (const auto why = m->unavailable.find(chip);
               why != m->unavailable.end()) {
      plan.skipped.push_back({m->name, why->second});
    } else {
      return CounterStatus(
          CounterCause::kUnknownChip,
          absl::StrCat("chip ", chip,
                       " is not in the metric catalog "
                       "(configs/metrics/catalog.json): no name for ",
                       m->name, " on it"));
    }
  }
  if (plan.collected.empty() && !plan.skipped.empty()) {
    return CounterStatus(
        CounterCause::kUnknownChip,
        absl::StrCat("none of the requested metrics exists on chip ", chip,
                     ": ",
                     absl::StrJoin(plan.skipped, "; ",
                                   [](std::string* out, const SkippedCounter& s) {
                                     absl::StrAppend(out, s.name, ": ",
                                                     s.reason);
                                   })));
  }
  return plan;
}

CuptiCounters::CuptiCounters(const CuptiApi* api, void* context,
                             CounterReplay replay,
                             std::unique_ptr<CuptiHost> host,
                             CounterConfig config, ChipCounterPlan plan)
    : api_(api),
      context_(context),
      replay_(replay),
      host_(std::move(host)),
      config_(std::move(config)),
      metrics_(std::move(plan.collected)),
      skipped_(std::move(plan.skipped)) {}

CuptiCounters::~CuptiCounters() { DeinitializeProfiler(*api_); }

absl::StatusOr<std::unique_ptr<CuptiCounters>> CuptiCounters::Create(
    int device, const std::vector<const CatalogMetric*>& metrics,
    CounterReplay replay) {
  if (metrics.empty())
    return absl::InvalidArgumentError("no metrics to collect");
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    return CudaFailure(e, "cudaSetDevice");
  }
  // Makes the device's primary context current.
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {
    return CudaFailure(e, "cudaFree(0)");
  }
  DISSECT_ASSIGN_OR_RETURN(CUcontext context, CurrentContext());
  DISSECT_ASSIGN_OR_RETURN(const CuptiApi* api, LoadCuptiApi());
  DISSECT_RETURN_IF_ERROR(InitializeProfiler(*api));
  // From here on the destructor, or this guard, deinitializes.
  struct Guard {
    const CuptiApi* api;
    ~Guard() {
      if (api != nullptr) DeinitializeProfiler(*api);
    }
  } guard{api};
  DISSECT_ASSIGN_OR_RETURN(const std::string chip, ChipName(*api, device));
  DISSECT_ASSIGN_OR_RETURN(ChipCounterPlan plan, PlanCounters(metrics, chip));
  DISSECT_ASSIGN_OR_RETURN(std::vector<uint8_t> availability,
                           CounterAvailability(*api, context));
  DISSECT_ASSIGN_OR_RETURN(std::unique_ptr<CuptiHost> host,
                           CuptiHost::Create(chip, std::move(availability)));
  DISSECT_ASSIGN_OR_RETURN(CounterConfig config,
                           host->BuildConfig(plan.perfworks));
  guard.api = nullptr;
  return std::unique_ptr<CuptiCounters>(
      new CuptiCounters(api, context, replay, std::move(host),
                        std::move(config), std::move(plan)));
}

// Collect's steps. Their `api_` keeps the member's name: a failed CUPTI
// call's error quotes the call as written.
namespace {

// A counter data image for `metrics` over up to `max_ranges` ranges,
// initialized for `profiler`.
absl::StatusOr<std::vector<uint8_t>> InitCounterData(const CuptiApi* api_,
                                                     CUpti_RangeProfiler_Object* profiler,
                                                     const std::vector<std::string>& metrics,
                                                     size_t max_ranges) {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = profiler;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
  DISSECT_CUPTI_RETURN_IF_ERROR(
      api_->cuptiRangeProfilerGetCounterDataSize(&size));
  std::vector<uint8_t> counter_data(size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = profiler;
  init.counterDataSize = counter_data.size();
  init.pCounterData = counter_data.data();
  DISSECT_CUPTI_RETURN_IF_ERROR(
      api_->cuptiRangeProfilerCounterDataImageInitialize(&init));
  return counter_data;
}

// Hands `profiler` the config image and the counter data image: user or
// kernel replay, one nesting level.
absl::Status SetRangeConfig(const CuptiApi* api_, CUpti_RangeProfiler_Object* profiler,
                            const std::vector<uint8_t>& image, std::vector<uint8_t>& counter_data,
                            bool user, size_t max_ranges) {
  CUpti_RangeProfiler_SetConfig_Params config{
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  config.pRangeProfilerObject = profiler;
  config.configSize = image.size();
  config.pConfig = image.data();
  config.counterDataImageSize = counter_data.size();
  config.pCounterDataImage = counter_data.data();
  config.range = user ? CUPTI_UserRange : CUPTI_AutoRange;
  config.replayMode = user ? CUPTI_UserReplay : CUPTI_KernelReplay;
  config.maxRangesPerPass = max_ranges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiRangeProfilerSetConfig(&config));

  return absl::OkStatus();
}

// One counter pass: `launch` inside a range (user replay) or as the range
// (kernel replay). Whether CUPTI has all its passes.
absl::StatusOr<bool> RunCounterPass(const CuptiApi* api_, CUpti_RangeProfiler_Object* profiler,
                                    const LaunchFn& launch, cudaStream_t stream, bool user) {
  CUpti_RangeProfiler_Start_Params start{
      CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = profiler;
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiRangeProfilerStart(&start));
  if (user) {
    CUpti_RangeProfiler_PushRange_Params push{
        CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    push.pRangeProfilerObject = profiler;
    push.pRangeName = kRangeName;
    DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiRangeProfilerPushRange(&push));
  }
  DISSECT_RETURN_IF_ERROR(CudaStatus(launch(stream), "launch (counter pass)",
                                     __FILE__, __LINE__));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  if (user) {
    CUpti_RangeProfiler_PopRange_Params pop{
        CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pop.pRangeProfilerObject = profiler;
    DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiRangeProfilerPopRange(&pop));
  }
  CUpti_RangeProfiler_Stop_Params stop{
      CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = profiler;
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiRangeProfilerStop(&stop));
  return stop.isAllPassSubmitted != 0;
}

// Decodes the passes' data; an error unless it holds exactly one range.
absl::Status DecodeOneRange(const CuptiApi* api_, CUpti_RangeProfiler_Object* profiler,
                            std::vector<uint8_t>& counter_data, bool user) {
  CUpti_RangeProfiler_DecodeData_Params decode{
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = profiler;
  DISSECT_CUPTI_RETURN_IF_ERROR(api_->cuptiRangeProfilerDecodeData(&decode));
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  DISSECT_CUPTI_RETURN_IF_ERROR(
      api_->cuptiRangeProfilerGetCounterDataInfo(&info));
  if (decode.numOfRangeDropped != 0 || info.numTotalRanges != 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("the counter pass recorded ", info.numTotalRanges,
                     " range(s) and dropped ", decode.numOfRangeDropped, "; ",
                     user ? "a user range should be exactly one"
                          : "kernel replay collects a launch of exactly one "
                            "kernel (use user replay)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CounterReading> CuptiCounters::Collect(
    const LaunchFn& launch, cudaStream_t stream,
    const BeforePassFn& before_pass) {
  const bool user = replay_ == CounterReplay::kUser;
  const size_t max_ranges = user ? kUserRanges : kKernelRanges;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  DISSECT_ASSIGN_OR_RETURN(
      EnabledRangeProfiler profiler,
      EnabledRangeProfiler::Enable(api_, static_cast<CUcontext>(context_)));
  DISSECT_ASSIGN_OR_RETURN(std::vector<uint8_t> counter_data,
                           InitCounterData(api_, profiler.get(), config_.metrics, max_ranges));
  DISSECT_RETURN_IF_ERROR(
      SetRangeConfig(api_, profiler.get(), config_.image, counter_data, user, max_ranges));

  // User replay: one pass per iteration until CUPTI has them all. Kernel
  // replay: CUPTI runs every pass inside the one launch.
  const int max_iterations = user ? config_.passes + 1 : 1;
  CounterReading reading;
  bool all_submitted = false;
  for (int i = 0; i < max_iterations && !all_submitted; ++i) {
    if (before_pass) DISSECT_RETURN_IF_ERROR(before_pass(stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    DISSECT_ASSIGN_OR_RETURN(all_submitted,
                             RunCounterPass(api_, profiler.get(), launch, stream, user));
    reading.passes = user ? i + 1 : config_.passes;
  }
  if (!all_submitted) {
    return absl::InternalError(
        absl::StrCat("CUPTI wanted more than ", max_iterations,
                     " pass(es) for a config of ", config_.passes));
  }
  DISSECT_RETURN_IF_ERROR(DecodeOneRange(api_, profiler.get(), counter_data, user));
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> values,
                           host_->Evaluate(counter_data, 0, config_.metrics));
  for (size_t i = 0; i < metrics_.size(); ++i) {
    reading.values.push_back(
        {metrics_[i]->name, config_.metrics[i], metrics_[i]->unit, values[i]});
  }
  return reading;
}

absl::StatusOr<std::vector<PassCount>> CatalogPassCounts(
    const MetricCatalog& catalog, const std::string& chip) {
  DISSECT_ASSIGN_OR_RETURN(std::unique_ptr<CuptiHost> host,
                           CuptiHost::Create(chip));
  std::vector<PassCount> counts;
  std::vector<std::string> errors;
  for (const CatalogMetric& m : catalog.metrics()) {
    const auto it = m.perfworks.find(chip);
    if (it == m.perfworks.end()) continue;
    absl::StatusOr<CounterConfig> config = host->BuildConfig({it->second});
    if (config.ok()) {
      counts.push_back({m.name, config->passes});
    } else {
      errors.push_back(absl::StrCat(m.name, ": ", config.status().message()));
    }
  }
  if (!errors.empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  }
  for (const CatalogGroup& g : catalog.groups()) {
    std::vector<std::string> perfworks;
    for (const std::string& member : g.metrics) {
      const CatalogMetric* m = catalog.FindMetric(member);
      const auto it = m->perfworks.find(chip);
      if (it != m->perfworks.end()) perfworks.push_back(it->second);
    }
    if (perfworks.empty()) continue;
    DISSECT_ASSIGN_OR_RETURN(CounterConfig config,
                             host->BuildConfig(perfworks));
    counts.push_back({g.name, config.passes});
  }
  return counts;
}

}  // namespace dissect
