#include "experiments/workloads/forward/forward_pass.h"

#include "gtest/gtest.h"

namespace dissect::forward {
namespace {

// Bad arguments fail before cuDNN or the device are touched.
TEST(ForwardPassTest, RejectsBadArguments) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("vgg16");
  ASSERT_TRUE(net.ok());
  const auto zero_batch = ForwardPass::Create(*net, 0, 1, nullptr);
  ASSERT_FALSE(zero_batch.ok());
  EXPECT_EQ(zero_batch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zero_batch.status().message().find("batch must be at least 1"), std::string::npos);
  const auto empty = ForwardPass::Create(NetworkSpec{"empty", {3, 8, 8}, {}}, 1, 1, nullptr);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dissect::forward
