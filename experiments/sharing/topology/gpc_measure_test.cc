// The host checks of gpc_measure that need no GPU: cluster size validation,
// the refusal on a device without clusters, bad launch counts, all answered
// before any CUDA call, the probe kernel attributes a plan's launches
// need, the map's check against the occupancy calculator and the launch
// records' JSON.
#include "experiments/sharing/topology/gpc_measure.h"

#include <iterator>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "experiments/framework/experiment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dissect {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

DeviceInfo Ampere() {
  DeviceInfo device;
  device.name = "A100";
  device.cc_major = 8;
  device.cc_minor = 0;
  device.sm_count = 108;
  device.shared_per_block_optin_bytes = 163 << 10;
  return device;
}

// The opt-in shared memory per block of an H100 80GB HBM3
// (device_shared_per_block_optin_bytes of its run,
// analysis/reference/h100_80gb_hbm3/2026-11-27/headline/gpc_topology.log).
constexpr size_t kH100OptinBytes = 232448;

// The plan PlanGpcProbe(device, 0) makes where every request of
// kGpcShapeRequests fits, in request order; the active-cluster counts are
// placeholders (the attributes do not depend on them).
GpcProbePlan EveryShapePlan(size_t optin_bytes) {
  GpcProbePlan plan;
  plan.sm_count = 132;
  plan.max_shared_bytes = optin_bytes;
  for (const GpcShapeRequest& r : kGpcShapeRequests) {
    plan.shapes.push_back({{r.cluster_size, r.blocks_per_sm, 2},
                           GpcShapeSharedBytes(optin_bytes, r.blocks_per_sm)});
  }
  return plan;
}

// What failed on the H100: planning checks each shape with
// CheckClusterLaunch, which sets the kernel's shared-memory attribute to the
// size it checks, so the last request's third of the opt-in maximum was the
// limit when the row's timed launch (the first shape: 16 blocks at one per
// SM) asked for all of it, and the launch failed with cudaErrorInvalidValue.
TEST(ProbeKernelLimitsTest, TheLastCheckedSizeIsBelowTheTimedLaunch) {
  const GpcProbePlan plan = EveryShapePlan(kH100OptinBytes);
  const GpcProbeShape& largest = plan.shapes.front();
  const TopologyArgs timed = ProbeLaunchArgs(plan, largest, largest.shape.max_active_clusters);
  EXPECT_EQ(timed.cluster_size, 16);
  EXPECT_EQ(timed.dynamic_shared_bytes, kH100OptinBytes);
  const size_t last_checked = GpcShapeSharedBytes(
      kH100OptinBytes, kGpcShapeRequests[std::size(kGpcShapeRequests) - 1].blocks_per_sm);
  EXPECT_LT(last_checked, timed.dynamic_shared_bytes);
}

TEST(ProbeKernelLimitsTest, CoverEveryLaunchOfThePlan) {
  const GpcProbePlan plan = EveryShapePlan(kH100OptinBytes);
  const GpcProbeKernelLimits limits = ProbeKernelLimits(plan);
  EXPECT_EQ(limits.max_dynamic_shared_bytes, kH100OptinBytes);
  EXPECT_TRUE(limits.non_portable_cluster_size);
  for (const GpcProbeShape& shape : plan.shapes) {
    const TopologyArgs args = ProbeLaunchArgs(plan, shape, 3);
    EXPECT_LE(args.dynamic_shared_bytes, limits.max_dynamic_shared_bytes) << args.cluster_size;
    EXPECT_EQ(args.clusters, 3);
    EXPECT_EQ(args.block_threads, plan.block_threads);
  }
}

TEST(ProbeKernelLimitsTest, PortableSizesNeedNoOptIn) {
  GpcProbePlan plan;
  plan.shapes.push_back({{8, 2, 4}, 1000});
  plan.shapes.push_back({{8, 1, 2}, 3000});
  plan.shapes.push_back({{2, 1, 9}, 2000});
  const GpcProbeKernelLimits limits = ProbeKernelLimits(plan);
  EXPECT_EQ(limits.max_dynamic_shared_bytes, 3000u);
  EXPECT_FALSE(limits.non_portable_cluster_size);
}

// The H100 80GB HBM3's shapes with its occupancy calculator's answers (the
// label of its row, analysis/reference/h100_80gb_hbm3/
// 2026-11-27-gpc-blocker-check/headline.log).
const std::vector<GpcClusterShape> kH100Shapes = {{16, 1, 7},  {8, 1, 15}, {4, 1, 30}, {2, 1, 66},
                                                  {16, 2, 14}, {8, 2, 30}, {4, 2, 62}};

GpcMap MapOfGroups(std::vector<int> group_sizes) {
  GpcMap map;
  map.group_sizes = std::move(group_sizes);
  return map;
}

// The groups the H100 showed (four singleton TPCs beside 8 larger groups)
// hold what its occupancy calculator says fits; one GPC of 16 with those
// TPCs in it, the alternative, does not.
TEST(CapacityMismatchesTest, TheH100GroupsAgreeAndAMergedGpcDoesNot) {
  EXPECT_THAT(CapacityMismatches(kH100Shapes,
                                 MapOfGroups({8, 16, 16, 16, 16, 16, 18, 18, 2, 2, 2, 2})),
              IsEmpty());
  EXPECT_THAT(CapacityMismatches(kH100Shapes, MapOfGroups({16, 16, 16, 16, 16, 16, 18, 18})),
              ElementsAre("clusters of 16: 7 fit, the map's groups hold 8",
                          "clusters of 8: 15 fit, the map's groups hold 16",
                          "clusters of 4: 30 fit, the map's groups hold 32"));
  // A domain split in two halves holds fewer large clusters.
  EXPECT_THAT(CapacityMismatches(kH100Shapes,
                                 MapOfGroups({8, 8, 8, 16, 16, 16, 16, 18, 18, 2, 2, 2, 2})),
              ElementsAre("clusters of 16: 7 fit, the map's groups hold 6"));
}

TEST(GpcRunJsonTest, EveryLaunchWithItsShapeHeldSmsAndBlocks) {
  GpcProbePlan plan;
  plan.sm_count = 4;
  plan.shapes.push_back({{2, 1, 2}, 1000});
  GpcProbeRun run;
  LaunchRecord launch;
  launch.blocks = {{0, 0, 0}, {1, 0, 1}, {3, 1, 0}, {2, 1, 1}};
  run.records = {launch};
  launch.blocked_sms = {2};
  launch.blocks = {{0, 0, 0}, {1, 0, 1}};
  run.records.push_back(launch);
  GpcLaunchStep step;
  step.clusters = 2;
  run.steps = {step};
  step.clusters = 1;
  step.blocked_sms = {2};
  run.steps.push_back(step);
  run.blocker_failed = {false, true};

  const nlohmann::json json = nlohmann::json::parse(GpcRunJson(plan, run));
  EXPECT_EQ(json["sm_count"], 4);
  EXPECT_EQ(json["shapes"][0]["cluster_size"], 2);
  EXPECT_EQ(json["shapes"][0]["dynamic_shared_bytes"], 1000);
  ASSERT_EQ(json["launches"].size(), 2u);
  EXPECT_EQ(json["launches"][0]["clusters"], 2);
  EXPECT_EQ(json["launches"][0]["blocker_failed"], false);
  EXPECT_EQ(json["launches"][0]["blocks"][2], nlohmann::json({3, 1, 0}));
  EXPECT_EQ(json["launches"][1]["shape"], 0);
  EXPECT_EQ(json["launches"][1]["blocked_sms"], nlohmann::json({2}));
  EXPECT_EQ(json["launches"][1]["blocker_failed"], true);
  EXPECT_EQ(json["launches"][1]["blocks"].size(), 2u);
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
