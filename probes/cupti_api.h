// CUPTI's profiling functions, loaded at run time (dlopen of libcupti.so.13)
// like NVML: a binary starts and measures timings where CUPTI is missing, and
// only --metrics needs it.
//
// Where it looks: the dynamic loader's search (LD_LIBRARY_PATH, ld.so.cache),
// then $CUDA_PATH/{lib64,lib,extras/CUPTI/lib64}, /usr/local/cuda/{lib64,...}
// and the folder the build found CUPTI in. libcupti loads libnvperf_host.so
// and libnvperf_target.so by name when first used; they are preloaded from
// libcupti's own folder so that they are found even when that folder is on no
// search path.
#ifndef DISSECT_PROBES_CUPTI_API_H_
#define DISSECT_PROBES_CUPTI_API_H_

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <string>

#include "absl/status/statusor.h"

// Every CUPTI function dissect calls.
#define DISSECT_CUPTI_FUNCTIONS(X)                \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeInitialize)                    \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetSupportedChips)           \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerPushRange)                  \
  X(cuptiRangeProfilerPopRange)                   \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)

namespace dissect {

// One pointer per function, named as the function:
// api.cuptiProfilerInitialize(&p).
struct CuptiApi {
#define DISSECT_CUPTI_DECLARE_(fn) decltype(&::fn) fn = nullptr;
  DISSECT_CUPTI_FUNCTIONS(DISSECT_CUPTI_DECLARE_)
#undef DISSECT_CUPTI_DECLARE_
  std::string path;  // the libcupti that was loaded
};

// Loads CUPTI once per process (later calls return the same table or the
// same error). The error has cause kNoCupti (cupti_status.h) and says where
// it looked.
absl::StatusOr<const CuptiApi*> LoadCuptiApi();

}  // namespace dissect

#endif  // DISSECT_PROBES_CUPTI_API_H_
