// Launch records written by GpcRunJson read back (ParseGpcRunJson) and
// described (DescribeGpcRun), on a simulated H100: its cluster domains
// (four singleton TPCs) under the experiment's schedule.
#include "experiments/sharing/topology/gpc_records.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "experiments/sharing/topology/gpc_map.h"
#include "experiments/sharing/topology/gpc_measure.h"
#include "experiments/sharing/topology/gpc_sim.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The experiment's plan and run on the H100's cluster domains, every
// launch placed by the deterministic scheduler.
struct SimRun {
  GpcProbePlan plan;
  GpcProbeRun run;
};

SimRun H100Run(int launches) {
  const SimLayout layout = H100ClusterDomains();
  SimRun sim;
  sim.plan.sm_count = 132;
  for (const GpcShapeRequest& r : kGpcShapeRequests) {
    sim.plan.shapes.push_back(
        {{r.cluster_size, r.blocks_per_sm,
          SimMaxActiveClusters(layout, r.cluster_size, r.blocks_per_sm)},
         1000});
  }
  for (const GpcLaunchStep& step : GpcLaunchSchedule(132, ClusterShapes(sim.plan), launches)) {
    sim.run.records.push_back(PlaceDeterministically(layout, step, SimGpcOrder::kFillEach));
    sim.run.records.back().blocks_per_sm = step.shape.blocks_per_sm;
    sim.run.records.back().blocked_sms = step.blocked_sms;
    sim.run.steps.push_back(step);
    sim.run.blocker_failed.push_back(false);
  }
  return sim;
}

TEST(GpcRecordsTest, RoundTripsEveryLaunch) {
  const SimRun sim = H100Run(32);
  const absl::StatusOr<GpcRunFile> file = ParseGpcRunJson(GpcRunJson(sim.plan, sim.run));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->sm_count, 132);
  ASSERT_EQ(file->shapes.size(), sim.plan.shapes.size());
  EXPECT_EQ(file->shapes[3].max_active_clusters, 66);
  ASSERT_EQ(file->records.size(), sim.run.records.size());
  for (size_t i = 0; i < file->records.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(file->steps[i].shape_index, sim.run.steps[i].shape_index);
    EXPECT_EQ(file->steps[i].clusters, sim.run.steps[i].clusters);
    EXPECT_EQ(file->records[i].blocked_sms, sim.run.steps[i].blocked_sms);
    EXPECT_EQ(file->records[i].blocks_per_sm, sim.run.steps[i].shape.blocks_per_sm);
    ASSERT_EQ(file->records[i].blocks.size(), sim.run.records[i].blocks.size());
    for (size_t b = 0; b < file->records[i].blocks.size(); ++b) {
      EXPECT_EQ(file->records[i].blocks[b].sm, sim.run.records[i].blocks[b].sm);
      EXPECT_EQ(file->records[i].blocks[b].cluster, sim.run.records[i].blocks[b].cluster);
      EXPECT_EQ(file->records[i].blocks[b].rank, sim.run.records[i].blocks[b].rank);
    }
  }
}

TEST(GpcRecordsTest, DescribesTheMapAndTheLaunchesThatWentWrong) {
  SimRun sim = H100Run(32);
  std::string text = DescribeGpcRun(*ParseGpcRunJson(GpcRunJson(sim.plan, sim.run)));
  EXPECT_THAT(text, HasSubstr("map: 8 GPCs of 8 16 16 16 16 16 18 18 SMs, 8 unresolved SMs (8 in "
                              "single-TPC groups), 0 inconsistent"));
  EXPECT_THAT(text, HasSubstr("capacity: the groups hold what max_active_clusters says fits"));
  EXPECT_THAT(text, HasSubstr("unresolved SM 124: in clusters of at most 2 SMs"));
  EXPECT_THAT(text, HasSubstr("shape 16x1/SM: 6 launches, 0 with a failed blocker, 0 blocks on "
                              "held SMs, 128 overfull SM-launches"));
  EXPECT_THAT(text, Not(HasSubstr("blocker failed")));

  // Launch 20 (a blocked one) ran its first block on a held SM, twice over,
  // and its blocker failed.
  ASSERT_FALSE(sim.run.steps[20].blocked_sms.empty());
  LaunchRecord& launch = sim.run.records[20];
  const int held = sim.run.steps[20].blocked_sms.front();
  launch.blocks.push_back({held, 0, 90});
  launch.blocks.push_back({held, 0, 91});
  sim.run.blocker_failed[20] = true;
  text = DescribeGpcRun(*ParseGpcRunJson(GpcRunJson(sim.plan, sim.run)));
  const GpcClusterShape& shape = sim.run.steps[20].shape;
  EXPECT_THAT(text, HasSubstr("launch 20 (" + std::to_string(shape.cluster_size) + "x" +
                              std::to_string(shape.blocks_per_sm) + "/SM, " +
                              std::to_string(sim.run.steps[20].clusters) + " clusters, " +
                              std::to_string(sim.run.steps[20].blocked_sms.size()) +
                              " SMs held, blocker failed): 2 blocks on held SMs"));
  EXPECT_THAT(text, HasSubstr("1 with a failed blocker, 2 blocks on held SMs"));
}

// The H100's 16-launch run (gpc_topology_gpu_test, 2026-11-27-gpc-blocker-
// check/gpu_test.log) counted 64 times an SM ran more blocks than its
// launch's blocks per SM. The simulated H100 under the same 16 launches
// counts 64 too, all in the two blocked launches of 16-block clusters: the
// grid is scaled to the free SMs, but a held SM takes a whole 16-block
// cluster out of its domain, so clusters wait for a second wave. A second
// wave keeps each cluster in one domain: it does not mislead the map.
TEST(GpcRecordsTest, SixteenLaunchesRunSecondWavesLikeTheH100) {
  const SimRun sim = H100Run(16);
  int overfull = 0;
  for (size_t i = 0; i < sim.run.records.size(); ++i) {
    const int sms = CheckLaunch(132, sim.run.records[i]).overfull_sms;
    overfull += sms;
    if (i < 14) EXPECT_EQ(sms, 0) << "launch " << i << " has no blocker";
  }
  EXPECT_EQ(overfull, 64);
  EXPECT_EQ(sim.run.steps[14].shape.cluster_size, 16);
  EXPECT_EQ(CheckLaunch(132, sim.run.records[14]).overfull_sms, 32);
}

TEST(GpcRecordsTest, BadFilesAreInvalid) {
  EXPECT_EQ(ParseGpcRunJson("{").status().message(), "not JSON");
  const absl::StatusOr<GpcRunFile> missing = ParseGpcRunJson(R"({"sm_count": 4})");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("not gpc_topology launch records"));
  const absl::StatusOr<GpcRunFile> shape = ParseGpcRunJson(
      R"({"sm_count": 4, "shapes": [], "launches": [{"shape": 0, "clusters": 1,
          "blocked_sms": [], "blocker_failed": false, "blocks": []}]})");
  EXPECT_THAT(std::string(shape.status().message()),
              HasSubstr("launch 0: shape 0 is not one of the 0 shapes"));
}

}  // namespace
}  // namespace dissect
