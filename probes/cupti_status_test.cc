// The classification of counter failures, one case per cause (no GPU, no
// CUPTI call).
#include "probes/cupti_status.h"

#include <string>

#include "gtest/gtest.h"

namespace dissect {
namespace {

bool Mentions(const std::string& text, const char* what) {
  return text.find(what) != std::string::npos;
}

TEST(ClassifyCuptiResultTest, NoPermissionNamesTheDriverSetting) {
  const CounterFailure f =
      ClassifyCuptiResult(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  EXPECT_EQ(f.cause, CounterCause::kNoPermission);
  EXPECT_TRUE(Mentions(f.explanation, "NVreg_RestrictProfilingToAdminUsers"));
  EXPECT_TRUE(Mentions(f.explanation, "ERR_NVGPUCTRPERM"));
}

TEST(ClassifyCuptiResultTest, AnotherProfilerAttached) {
  for (CUptiResult r : {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                        CUPTI_ERROR_HARDWARE_BUSY, CUPTI_ERROR_DISABLED,
                        CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED}) {
    const CounterFailure f = ClassifyCuptiResult(r);
    EXPECT_EQ(f.cause, CounterCause::kProfilerAttached) << CuptiResultName(r);
    EXPECT_TRUE(Mentions(f.explanation, "another profiler")) << f.explanation;
  }
}

TEST(ClassifyCuptiResultTest, VirtualGpu) {
  const CounterFailure f =
      ClassifyCuptiResult(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED);
  EXPECT_EQ(f.cause, CounterCause::kUnsupportedDevice);
  EXPECT_TRUE(Mentions(f.explanation, "vGPU"));
  const CounterFailure h = ClassifyCuptiResult(
      CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES);
  EXPECT_EQ(h.cause, CounterCause::kUnsupportedDevice);
  EXPECT_TRUE(Mentions(h.explanation, "hypervisor"));
}

TEST(ClassifyCuptiResultTest, UnsupportedDevices) {
  for (CUptiResult r :
       {CUPTI_ERROR_NOT_SUPPORTED, CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED,
        CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
        CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED,
        CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED,
        CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED,
        CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED,
        CUPTI_ERROR_INVALID_CHIP_NAME}) {
    EXPECT_EQ(ClassifyCuptiResult(r).cause, CounterCause::kUnsupportedDevice)
        << CuptiResultName(r);
  }
  EXPECT_TRUE(Mentions(
      ClassifyCuptiResult(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED).explanation,
      "MIG"));
}

TEST(ClassifyCuptiResultTest, NoGpu) {
  EXPECT_EQ(ClassifyCuptiResult(CUPTI_ERROR_NOT_INITIALIZED).cause,
            CounterCause::kNoGpu);
  EXPECT_EQ(ClassifyCuptiResult(CUPTI_ERROR_INVALID_DEVICE).cause,
            CounterCause::kNoGpu);
}

TEST(ClassifyCuptiResultTest, EverythingElseIsOther) {
  for (CUptiResult r :
       {CUPTI_ERROR_INVALID_PARAMETER, CUPTI_ERROR_UNKNOWN,
        CUPTI_ERROR_INVALID_METRIC_NAME, CUPTI_ERROR_NOT_COMPATIBLE,
        CUPTI_ERROR_OUT_OF_MEMORY}) {
    EXPECT_EQ(ClassifyCuptiResult(r).cause, CounterCause::kOther)
        << CuptiResultName(r);
  }
}

TEST(ClassifyCudaErrorTest, NoGpuOrNoDriver) {
  for (cudaError_t e : {cudaErrorNoDevice, cudaErrorInsufficientDriver}) {
    const CounterFailure f = ClassifyCudaError(e);
    EXPECT_EQ(f.cause, CounterCause::kNoGpu);
    EXPECT_TRUE(Mentions(f.explanation, "no usable GPU"));
    EXPECT_TRUE(Mentions(f.explanation, cudaGetErrorName(e)));
  }
  EXPECT_EQ(ClassifyCudaError(cudaErrorMemoryAllocation).cause,
            CounterCause::kOther);
}

TEST(CuptiResultNameTest, KnownAndUnknownCodes) {
  EXPECT_EQ(CuptiResultName(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_EQ(CuptiResultName(static_cast<CUptiResult>(12345)),
            "CUPTI error 12345");
}

TEST(CuptiStatusTest, CarriesCallCodeAndCause) {
  EXPECT_TRUE(CuptiStatus(CUPTI_SUCCESS, "x", "f.cc", 1).ok());
  const absl::Status s = CuptiStatus(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
                                     "cuptiRangeProfilerEnable", "f.cc", 7);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(CounterCauseOf(s), CounterCause::kNoPermission);
  const std::string m(s.message());
  EXPECT_EQ(m.rfind("f.cc:7: cuptiRangeProfilerEnable failed: "
                    "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: no permission",
                    0),
            0u)
      << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);

  const absl::Status busy = CuptiStatus(
      CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "c", "f.cc", 1);
  EXPECT_EQ(busy.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(CounterCauseOf(busy), CounterCause::kProfilerAttached);
}

TEST(CounterStatusTest, CauseRoundTripsAndPlainStatusIsOther) {
  for (CounterCause c :
       {CounterCause::kNoPermission, CounterCause::kProfilerAttached,
        CounterCause::kUnsupportedDevice, CounterCause::kNoGpu,
        CounterCause::kNoCupti, CounterCause::kUnknownChip,
        CounterCause::kOther}) {
    EXPECT_EQ(CounterCauseOf(CounterStatus(c, "m")), c) << CounterCauseName(c);
  }
  EXPECT_EQ(CounterStatus(CounterCause::kNoCupti, "m").code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(CounterCauseOf(absl::InternalError("x")), CounterCause::kOther);
  EXPECT_STREQ(CounterCauseName(CounterCause::kProfilerAttached),
               "profiler_attached");
}

}  // namespace
}  // namespace dissect
