// Host tests of the CUPTI wrapper: error mapping (with CUPTI's own strings)
// and the one-recorder rule. On a machine without a GPU or driver Start
// fails, and the test checks that it fails cleanly; with a GPU it checks
// that only one recorder can exist. Kernel durations are checked by
// kernel_activity_gpu_test.

#include "probes/kernel_activity.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(CuptiActivityStatusTest, SuccessIsOk) {
  EXPECT_TRUE(CuptiActivityStatus(CUPTI_SUCCESS, "cuptiFoo()").ok());
}

TEST(CuptiActivityStatusTest, NamesCallAndCuptiError) {
  const absl::Status status =
      CuptiActivityStatus(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiFoo()");
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(
      std::string(status.message()),
      StartsWith("cuptiFoo() failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"));
  EXPECT_THAT(status.message(), Not(HasSubstr("\n")));
}

TEST(CuptiActivityStatusTest, MapsCodes) {
  EXPECT_EQ(CuptiActivityStatus(CUPTI_ERROR_NOT_INITIALIZED, "c").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CuptiActivityStatus(CUPTI_ERROR_NOT_SUPPORTED, "c").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CuptiActivityStatus(CUPTI_ERROR_INVALID_KIND, "c").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CuptiActivityStatus(CUPTI_ERROR_OUT_OF_MEMORY, "c").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(CuptiActivityStatus(CUPTI_ERROR_UNKNOWN, "c").code(),
            absl::StatusCode::kInternal);
}

TEST(CuptiActivityStatusTest, UnknownResultValue) {
  const absl::Status status =
      CuptiActivityStatus(static_cast<CUptiResult>(12345), "cuptiFoo()");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("cuptiFoo() failed: CUPTI error 12345"));
}

TEST(KernelActivityRecorderTest, OneRecorderAtATimeOrACleanFailure) {
  absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> first =
      KernelActivityRecorder::Start();
  if (!first.ok()) {
    // No GPU, driver or permission: the CUPTI call is named, and the failed
    // Start left nothing behind, so a retry fails the same way and not with
    // "already recording".
    EXPECT_THAT(first.status().message(), HasSubstr("cuptiActivityEnable"));
    absl::StatusOr<std::unique_ptr<KernelActivityRecorder>> again =
        KernelActivityRecorder::Start();
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().message(), first.status().message());
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

}  // namespace
}  // namespace dissect
