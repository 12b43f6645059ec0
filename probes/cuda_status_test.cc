// Tests for the CUDA error → absl::Status mapping (no GPU needed).
#include "probes/cuda_status.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(CudaStatusTest, SuccessIsOk) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "cudaFoo()", "f.cc", 1).ok());
}

TEST(CudaStatusTest, MessageCarriesCallFileLineAndCudaName) {
  absl::Status s = CudaStatus(cudaErrorMemoryAllocation, "cudaMalloc(&p, n)",
                              "probes/x.cc", 42);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), "probes/x.cc:42"));
  EXPECT_TRUE(absl::StrContains(s.message(), "cudaMalloc(&p, n) failed"));
  EXPECT_TRUE(absl::StrContains(s.message(), "cudaErrorMemoryAllocation"));
}

TEST(CudaStatusTest, CodeMapping) {
  EXPECT_EQ(CudaErrorToStatusCode(cudaErrorInvalidValue),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CudaErrorToStatusCode(cudaErrorNoDevice),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaErrorToStatusCode(cudaErrorInsufficientDriver),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaErrorToStatusCode(cudaErrorNotPermitted),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(CudaErrorToStatusCode(cudaErrorLaunchFailure),
            absl::StatusCode::kInternal);
}

absl::Status FailingCall() {
  DISSECT_CUDA_RETURN_IF_ERROR(cudaErrorInvalidDevice);
  return absl::OkStatus();
}

TEST(CudaStatusTest, MacroReturnsEarlyWithExpressionText) {
  absl::Status s = FailingCall();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "cudaErrorInvalidDevice failed"));
  EXPECT_TRUE(absl::StrContains(s.message(), "cuda_status_test.cc"));
}

}  // namespace
}  // namespace dissect
