// The host checks of gpc_measure that need no GPU: cluster size validation,
// the refusal on a device without clusters, and bad launch counts, all
// answered before any CUDA call.
#include "experiments/sharing/topology/gpc_measure.h"

#include "absl/status/status.h"
#include "experiments/harness/experiment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;

DeviceInfo Ampere() {
  DeviceInfo device;
  device.name = "A100";
  device.cc_major = 8;
  device.cc_minor = 0;
  device.sm_count = 108;
  device.shared_per_block_optin_bytes = 163 << 10;
  return device;
}

TEST(ValidateGpcClusterSizeTest, ZeroAndPowersOfTwoFromTwo) {
  for (const int ok : {0, 2, 4, 8, 16, 32}) EXPECT_TRUE(ValidateGpcClusterSize(ok).ok()) << ok;
  for (const int bad : {-2, 1, 3, 6, 12, 17}) {
    const absl::Status s = ValidateGpcClusterSize(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(s.message()), HasSubstr("power of two >= 2")) << bad;
  }
}

TEST(PlanGpcProbeTest, DeviceWithoutClustersIsSkipped) {
  for (const int size : {0, 8, 16}) {
    const absl::StatusOr<GpcProbePlan> plan = PlanGpcProbe(Ampere(), size);
    ASSERT_FALSE(plan.ok());
    EXPECT_TRUE(::dissect::IsSkipped(plan.status())) << plan.status();
    EXPECT_THAT(std::string(plan.status().message()), HasSubstr("compute capability 9.0"));
  }
}

TEST(PlanGpcProbeTest, BadSizeIsInvalidBeforeTheDeviceIsAsked) {
  const absl::StatusOr<GpcProbePlan> plan = PlanGpcProbe(Ampere(), 3);
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(RunGpcProbeTest, RefusesAnEmptyPlanOrNoLaunches) {
  GpcProbePlan plan;
  EXPECT_EQ(RunGpcProbe(plan, nullptr, 4).status().code(), absl::StatusCode::kInvalidArgument);
  plan.shapes.push_back({{8, 1, 2}, 0});
  EXPECT_EQ(RunGpcProbe(plan, nullptr, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(MeasureGpcMapTest, BadLaunchCountAndNoClusters) {
  EXPECT_EQ(MeasureGpcMap(Ampere(), nullptr, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  const absl::StatusOr<GpcMap> map = MeasureGpcMap(Ampere(), nullptr, 4);
  EXPECT_TRUE(::dissect::IsSkipped(map.status())) << map.status();
}

}  // namespace
}  // namespace dissect
