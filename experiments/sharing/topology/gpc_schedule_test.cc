// The launch schedule against simulated schedulers: a deterministic one
// (every launch of the same step lands the same way) must still yield the
// true GPCs, and so must a random one.
#include "experiments/sharing/topology/gpc_schedule.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "experiments/sharing/topology/gpc_map.h"
#include "experiments/sharing/topology/gpc_sim.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;

// The experiment's cluster sizes (largest first, down to 2).
const std::vector<int> kSizes = {16, 8, 4, 2};

std::vector<LaunchRecord> Replay(const SimLayout& layout, const std::vector<GpcLaunchStep>& steps,
                                 SimGpcOrder order) {
  std::vector<LaunchRecord> records;
  for (const GpcLaunchStep& step : steps) {
    records.push_back(PlaceDeterministically(layout, step, order));
  }
  return records;
}

std::vector<int> SortedSizes(const GpcMap& map) {
  std::vector<int> sizes = map.gpc_sizes;
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

// The experiment's shapes on `layout`, as PlanGpcProbe would find them.
std::vector<GpcClusterShape> ExperimentShapes(const SimLayout& layout) {
  std::vector<GpcClusterShape> shapes;
  for (const GpcShapeRequest& r : kGpcShapeRequests) {
    shapes.push_back({r.cluster_size, r.blocks_per_sm,
                      SimMaxActiveClusters(layout, r.cluster_size, r.blocks_per_sm)});
  }
  return shapes;
}

struct NamedLayout {
  const char* name;
  SimLayout layout;
};

std::vector<NamedLayout> Layouts() {
  return {{"H100-like, interleaved ids", H100LikeLayout()},
          {"H100-like, contiguous ids", ContiguousLayout({18, 18, 18, 18, 16, 16, 16, 12})},
          {"odd sizes, contiguous ids", ContiguousLayout({17, 15, 18, 13, 18, 16, 18, 17})},
          {"7 GPCs, interleaved ids", InterleavedLayout({16, 16, 14, 18, 18, 16, 16})}};
}

void ExpectExactMap(const SimLayout& layout, const GpcMap& map) {
  std::string why;
  EXPECT_TRUE(SamePartition(layout, map, &why)) << why;
  std::vector<int> want;
  for (const std::vector<int>& sms : layout.sms_of_gpc) want.push_back(sms.size());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(map.gpc_count, static_cast<int>(want.size())) << map.note;
  EXPECT_EQ(SortedSizes(map), want);
  EXPECT_EQ(map.unmapped_sms, 0);
  EXPECT_EQ(map.unresolved_sms, 0);
  EXPECT_EQ(map.inconsistent_sms, 0);
}

// Identical launches land identically, so the plain schedule leaves the
// SMs a full GPC's clusters never reach in groups of their own: the model
// is as hard as the concern, and the varied schedule below has to beat it.
TEST(DeterministicPlacementTest, PlainScheduleSplitsGpcs) {
  const SimLayout layout = H100LikeLayout();
  const std::vector<GpcClusterShape> shapes = ExperimentShapes(layout);
  const GpcMap map = InferGpcMap(132, Replay(layout, PlainGpcSchedule(shapes, kGpcDefaultLaunches),
                                             SimGpcOrder::kFillEach));
  EXPECT_GT(map.group_sizes.size(), 8u);
  EXPECT_EQ(map.inconsistent_sms, 0) << "the split is consistent: nothing flags it";
  EXPECT_EQ(*std::min_element(map.group_sizes.begin(), map.group_sizes.end()), 2);
}

// The varied schedule on a scheduler whose placement is a function of
// (grid, blocks per SM, held SMs) only: the exact map, on several layouts
// and both GPC orders.
TEST(DeterministicPlacementTest, VariedScheduleRecoversTheGpcs) {
  for (const NamedLayout& named : Layouts()) {
    const SimLayout& layout = named.layout;
    const int sm_count = static_cast<int>(layout.true_gpc.size());
    const std::vector<GpcClusterShape> shapes = ExperimentShapes(layout);
    const std::vector<GpcLaunchStep> steps =
        GpcLaunchSchedule(sm_count, shapes, kGpcDefaultLaunches);
    for (const SimGpcOrder order : {SimGpcOrder::kFillEach, SimGpcOrder::kRoundRobin}) {
      SCOPED_TRACE(std::string(named.name) +
                   (order == SimGpcOrder::kFillEach ? ", GPCs filled in turn" : ", round-robin"));
      const GpcMap map =
          InferGpcMap(sm_count, Replay(layout, steps, order), SmallestClusterSize(shapes));
      ExpectExactMap(layout, map);
      EXPECT_EQ(map.note.find("blocker"), std::string::npos) << map.note;
    }
  }
}

// The same schedule on a scheduler that picks SMs at random.
TEST(RandomPlacementTest, VariedScheduleRecoversTheGpcs) {
  std::mt19937 rng(7);
  for (const NamedLayout& named : Layouts()) {
    SCOPED_TRACE(named.name);
    const SimLayout& layout = named.layout;
    const int sm_count = static_cast<int>(layout.true_gpc.size());
    const std::vector<GpcClusterShape> shapes = ExperimentShapes(layout);
    std::vector<LaunchRecord> records;
    for (const GpcLaunchStep& step : GpcLaunchSchedule(sm_count, shapes, kGpcDefaultLaunches)) {
      records.push_back(PlaceRandomly(layout, step, rng));
    }
    ExpectExactMap(layout, InferGpcMap(sm_count, records, SmallestClusterSize(shapes)));
  }
}

// The H100's cluster domains (gpc_sim.h, H100ClusterDomains): 8 of 8 to 18
// SMs and 4 singleton TPCs that run clusters of their own only. Whatever
// the schedule, the singletons stay 2-SM groups; counted as GPCs (the rule
// before, with the smallest cluster size 2 as the floor) they made the 12
// GPCs the H100 reported. They are single-TPC groups now, not GPCs, and the
// groups predict the occupancy calculator's answers.
TEST(SingletonTpcTest, H100DomainsGiveEightGpcsAndFourSingleTpcGroups) {
  const SimLayout layout = H100ClusterDomains();
  const std::vector<GpcClusterShape> shapes = ExperimentShapes(layout);
  // The H100's own answers at one block per SM (the row's label): the
  // simulated domains reproduce them.
  for (const auto& [size, active] : std::vector<std::pair<int, int>>{{16, 7}, {8, 15},
                                                                      {4, 30}, {2, 66}}) {
    EXPECT_EQ(SimMaxActiveClusters(layout, size, 1), active) << "clusters of " << size;
  }
  std::vector<int> singletons(8);
  std::iota(singletons.begin(), singletons.end(), 124);
  const std::vector<GpcLaunchStep> steps = GpcLaunchSchedule(132, shapes, kGpcDefaultLaunches);
  std::mt19937 rng(11);
  std::vector<LaunchRecord> random;
  for (const GpcLaunchStep& step : steps) random.push_back(PlaceRandomly(layout, step, rng));
  const std::vector<std::pair<const char*, std::vector<LaunchRecord>>> runs = {
      {"GPCs filled in turn", Replay(layout, steps, SimGpcOrder::kFillEach)},
      {"round-robin", Replay(layout, steps, SimGpcOrder::kRoundRobin)},
      {"random", random}};
  for (const auto& [name, records] : runs) {
    SCOPED_TRACE(name);
    const GpcMap map = InferGpcMap(132, records, SmallestClusterSize(shapes));
    std::vector<int> groups = map.group_sizes;
    std::sort(groups.begin(), groups.end());
    EXPECT_EQ(groups, (std::vector<int>{2, 2, 2, 2, 8, 16, 16, 16, 16, 16, 18, 18}))
        << "12 groups, each at least the smallest cluster size: the old rule's 12 GPCs";
    EXPECT_EQ(map.gpc_count, 8) << map.note;
    EXPECT_EQ(SortedSizes(map), (std::vector<int>{8, 16, 16, 16, 16, 16, 18, 18}));
    EXPECT_EQ(map.unresolved_sm_ids, singletons);
    EXPECT_EQ(map.single_tpc_sm_ids, singletons);
    EXPECT_EQ(map.inconsistent_sms, 0);
    for (const int sm : singletons) EXPECT_EQ(map.gpc_of_sm[sm], -1) << "SM " << sm;
    std::string why;
    EXPECT_TRUE(SamePartition(layout, map, &why)) << why;
    for (const GpcClusterShape& shape : shapes) {
      if (shape.blocks_per_sm != 1) continue;
      EXPECT_EQ(ClustersThatFit(map, shape.cluster_size), shape.max_active_clusters)
          << "clusters of " << shape.cluster_size;
    }
    EXPECT_THAT(map.note, HasSubstr("8 of them in groups of one TPC"));
  }
}

TEST(GpcLaunchScheduleTest, PairsRoundsGridsAndHeldSms) {
  const SimLayout layout = H100LikeLayout();
  const std::vector<GpcClusterShape> shapes = ExperimentShapes(layout);
  const std::vector<GpcLaunchStep> steps = GpcLaunchSchedule(132, shapes, kGpcDefaultLaunches);
  ASSERT_EQ(steps.size(), static_cast<size_t>(kGpcDefaultLaunches));
  EXPECT_EQ(GpcLaunchSchedule(132, shapes, kGpcDefaultLaunches).back().blocked_sms,
            steps.back().blocked_sms)
      << "the schedule is a fixed function of its arguments";
  std::vector<bool> ever_held(132, false);
  std::set<int> grids_of_largest;
  for (size_t i = 0; i < steps.size(); ++i) {
    const GpcLaunchStep& step = steps[i];
    const size_t k = i / kGpcStepRepeats;
    SCOPED_TRACE(i);
    if (i % kGpcStepRepeats == 1) {
      EXPECT_EQ(step.blocked_sms, steps[i - 1].blocked_sms);
      EXPECT_EQ(step.clusters, steps[i - 1].clusters);
    }
    EXPECT_EQ(step.shape_index, static_cast<int>(k % shapes.size()));
    EXPECT_EQ(step.shape.cluster_size, shapes[k % shapes.size()].cluster_size);
    EXPECT_EQ(step.shape.blocks_per_sm, shapes[k % shapes.size()].blocks_per_sm);
    EXPECT_GE(step.clusters, 1);
    EXPECT_LE(step.clusters, step.shape.max_active_clusters);
    EXPECT_TRUE(std::is_sorted(step.blocked_sms.begin(), step.blocked_sms.end()));
    if (k < shapes.size()) {
      EXPECT_TRUE(step.blocked_sms.empty()) << "round 0 runs without a blocker";
      EXPECT_EQ(step.clusters, step.shape.max_active_clusters);
    } else {
      EXPECT_GT(step.blocked_sms.size(), 132u / 16);
      EXPECT_LT(step.blocked_sms.size(), 132u / 4);
    }
    for (const int sm : step.blocked_sms) {
      ASSERT_TRUE(sm >= 0 && sm < 132) << sm;
      ever_held[sm] = true;
    }
    if (step.shape.cluster_size == 16 && step.shape.blocks_per_sm == 1) {
      grids_of_largest.insert(step.clusters);
    }
  }
  EXPECT_EQ(std::count(ever_held.begin(), ever_held.end(), false), 0) << "every SM held once";
  EXPECT_GE(grids_of_largest.size(), 3u) << "the grid varies";
  EXPECT_TRUE(GpcLaunchSchedule(132, {}, 8).empty());
  EXPECT_TRUE(GpcLaunchSchedule(0, shapes, 8).empty());
}

TEST(SmallestClusterSizeTest, AtOneBlockPerSm) {
  EXPECT_EQ(SmallestClusterSize({{16, 1, 7}, {4, 1, 30}, {2, 2, 130}}), 4);
  EXPECT_EQ(SmallestClusterSize({{16, 2, 7}}), 0);
  EXPECT_EQ(SmallestClusterSize({}), 0);
}

}  // namespace
}  // namespace dissect
