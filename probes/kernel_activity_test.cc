// Host tests of the CUPTI activity wrapper. On a machine without a GPU or
// driver Start fails, and the tests check that it fails cleanly with the
// cause (cupti_status.h) that the runner records; with a GPU they check that
// only one recorder can exist. Kernel durations are checked by
// kernel_activity_gpu_test.

#include "probes/kernel_activity.h"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "probes/cupti_status.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

bool CudaSeesNoDevice() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0;
}

// A failed Start: one line with a cause; with no device the cause is no_gpu
// and the message names the CUPTI call that failed.
void ExpectCleanFailure(const absl::Status& status) {
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), Not(HasSubstr("\n")));
  const CounterCause cause = CounterCauseOf(status);
  EXPECT_NE(cause, CounterCause::kOther) << status;
  if (CudaSeesNoDevice() && cause != CounterCause::kNoCupti) {
    EXPECT_EQ(cause, CounterCause::kNoGpu) << status;
    EXPECT_THAT(status.message(), HasSubstr("cuptiActivityEnable"));
    EXPECT_THAT(status.message(), HasSubstr("no usable GPU"));
  }
}

TEST(KernelActivityRecorderTest, OneRecorderAtATimeOrACleanFailure) {
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> first =
      KernelActivityRecorder::Start();
  if (!first.ok()) {
    ExpectCleanFailure(first.status());
    // The failed Start left nothing behind, so a retry fails the same way
    // and not with "already recording".
    absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> again =
        KernelActivityRecorder::Start();
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status(), first.status());
    GTEST_SKIP() << "no kernel activity recording here: " << first.status();
  }
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> second =
      KernelActivityRecorder::Start();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("already recording"));

  absl::StatusOr<std::vector<KernelRecord>> none = (*first)->Take();
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());  // nothing was launched

  first->reset();  // the destructor frees the slot
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> third =
      KernelActivityRecorder::Start();
  EXPECT_TRUE(third.ok()) << third.status();
}

TEST(CuptiKernelTimerTest, FailsLikeStartWithoutAGpuAndLaunchesNothing) {
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> probe =
      KernelActivityRecorder::Start();
  if (probe.ok()) GTEST_SKIP() << "kernel activity works here";
  int launches = 0;
  CuptiKernelTimer timer;
  TimingOptions options;
  const absl::StatusOr<std::vector<double>> ms = timer.Time(
      [&](cudaStream_t) {
        ++launches;
        return cudaSuccess;
      },
      options, nullptr, nullptr);
  ExpectCleanFailure(ms.status());
  EXPECT_EQ(ms.status(), probe.status());
  EXPECT_EQ(launches, 0);
}

}  // namespace
}  // namespace dissect
