#include "experiments/sharing/topology/gpc_map.h"

#include <algorithm>
#include <random>
#include <vector>

#include "experiments/sharing/topology/gpc_sim.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;

// One launch as the hardware would place it: in each GPC (of those in
// `gpcs`, all when empty), as many clusters of `cluster_size` as fit, on
// randomly chosen SMs of that GPC. Clusters are numbered across the launch.
LaunchRecord Simulate(const SimLayout& layout, int cluster_size, std::mt19937& rng,
                      const std::vector<int>& gpcs = {}) {
  LaunchRecord launch;
  int cluster = 0;
  for (size_t g = 0; g < layout.sms_of_gpc.size(); ++g) {
    if (!gpcs.empty() && std::find(gpcs.begin(), gpcs.end(), static_cast<int>(g)) == gpcs.end()) {
      continue;
    }
    std::vector<int> sms = layout.sms_of_gpc[g];
    std::shuffle(sms.begin(), sms.end(), rng);
    const int clusters = static_cast<int>(sms.size()) / cluster_size;
    for (int c = 0; c < clusters; ++c, ++cluster) {
      for (int r = 0; r < cluster_size; ++r) {
        launch.blocks.push_back({sms[c * cluster_size + r], cluster, r});
      }
    }
  }
  return launch;
}

std::vector<LaunchRecord> Alternating(const SimLayout& layout, int launches, std::mt19937& rng) {
  const int sizes[] = {16, 8, 4, 2};
  std::vector<LaunchRecord> records;
  for (int i = 0; i < launches; ++i) records.push_back(Simulate(layout, sizes[i % 4], rng));
  return records;
}

void ExpectSamePartition(const SimLayout& layout, const GpcMap& map) {
  std::string why;
  EXPECT_TRUE(SamePartition(layout, map, &why)) << why;
}

TEST(InferGpcMapTest, RecoversUnevenInterleavedLayout) {
  const SimLayout layout = H100LikeLayout();
  std::mt19937 rng(1);
  const GpcMap map = InferGpcMap(132, Alternating(layout, 32, rng));
  ExpectSamePartition(layout, map);
  EXPECT_EQ(map.gpc_count, 8);
  std::vector<int> sizes = map.gpc_sizes;
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<int>{12, 16, 16, 16, 18, 18, 18, 18}));
  EXPECT_EQ(map.inconsistent_sms, 0);
  EXPECT_EQ(map.unmapped_sms, 0);
  EXPECT_EQ(map.note, "");
}

TEST(InferGpcMapTest, NumbersGpcsByLowestSm) {
  const SimLayout layout = H100LikeLayout();
  std::mt19937 rng(2);
  const GpcMap map = InferGpcMap(132, Alternating(layout, 32, rng));
  ASSERT_EQ(map.gpc_count, 8);
  std::vector<int> lowest(8, -1);
  for (int sm = 131; sm >= 0; --sm) {
    const int g = map.gpc_of_sm[sm];
    ASSERT_TRUE(g >= 0 && g < 8) << "SM " << sm << " in GPC " << g;
    lowest[g] = sm;
  }
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(lowest[g], g) << "interleaved layout: GPC g's lowest SM is g";
  }
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(map.gpc_sizes[g], std::count(map.gpc_of_sm.begin(), map.gpc_of_sm.end(), g));
  }
}

TEST(InferGpcMapTest, PartialCoveragePerLaunch) {
  const SimLayout layout = H100LikeLayout();
  std::mt19937 rng(3);
  std::vector<LaunchRecord> records;
  // Each launch covers only three GPCs, with clusters of 8 (two SMs of an
  // 18-SM GPC idle each time).
  for (int i = 0; i < 32; ++i) {
    records.push_back(Simulate(layout, 8, rng, {i % 8, (i + 3) % 8, (i + 5) % 8}));
  }
  const GpcMap map = InferGpcMap(132, records);
  ExpectSamePartition(layout, map);
  EXPECT_EQ(map.gpc_count, 8);
  EXPECT_EQ(map.inconsistent_sms, 0);
  EXPECT_EQ(map.unmapped_sms, 0);
}

TEST(InferGpcMapTest, RogueObservationIsCountedAndDoesNotMergeGpcs) {
  const SimLayout layout = H100LikeLayout();
  std::mt19937 rng(4);
  std::vector<LaunchRecord> records = Alternating(layout, 32, rng);
  // Launch 0 (clusters of 16) leaves SMs of GPC 1 idle; one of them is
  // reported in a cluster of GPC 0, as a misread %smid would.
  LaunchRecord& launch = records[0];
  std::vector<bool> used(132, false);
  for (const BlockPlacement& b : launch.blocks) used[b.sm] = true;
  int rogue = -1;
  for (const int sm : layout.sms_of_gpc[1]) {
    if (!used[sm]) rogue = sm;
  }
  ASSERT_GE(rogue, 0);
  int gpc0_cluster = -1;
  for (const BlockPlacement& b : launch.blocks) {
    if (layout.true_gpc[b.sm] == 0) gpc0_cluster = b.cluster;
  }
  ASSERT_GE(gpc0_cluster, 0);
  launch.blocks.push_back({rogue, gpc0_cluster, 16});

  const GpcMap map = InferGpcMap(132, records);
  ExpectSamePartition(layout, map);
  EXPECT_EQ(map.gpc_count, 8);
  EXPECT_EQ(map.inconsistent_sms, 1);
  EXPECT_EQ(map.inconsistent_sm_ids, std::vector<int>{rogue});
  EXPECT_THAT(map.note, HasSubstr("1 SMs inconsistent"));
  EXPECT_THAT(map.note, HasSubstr(": " + std::to_string(rogue)));
  EXPECT_EQ(map.note.find(';'), std::string::npos);
}

TEST(InferGpcMapTest, TooFewLaunchesLeaveSmsUnmappedAndSaySo) {
  const SimLayout layout = H100LikeLayout();
  std::mt19937 rng(5);
  // Two launches over GPCs 0..3 only: GPCs 4..7 are never seen.
  std::vector<LaunchRecord> records;
  for (int i = 0; i < 2; ++i) records.push_back(Simulate(layout, 16, rng, {0, 1, 2, 3}));
  const GpcMap map = InferGpcMap(132, records);
  ExpectSamePartition(layout, map);
  for (int sm = 0; sm < 132; ++sm) {
    if (layout.true_gpc[sm] >= 4) {
      EXPECT_EQ(map.gpc_of_sm[sm], -1) << "SM " << sm;
    }
  }
  EXPECT_GE(map.unmapped_sms, 16 + 16 + 16 + 12);
  EXPECT_EQ(map.gpc_count, 4);
  EXPECT_THAT(map.note, HasSubstr("of 132 SMs never seen"));
}

TEST(InferGpcMapTest, SingleLaunchGroupsByClusterAndSaysUnconfirmed) {
  const SimLayout layout = InterleavedLayout({4, 4, 4});
  LaunchRecord launch;
  for (int g = 0; g < 3; ++g) {
    for (int r = 0; r < 4; ++r) launch.blocks.push_back({layout.sms_of_gpc[g][r], g, r});
  }
  const GpcMap map = InferGpcMap(12, {launch});
  ExpectSamePartition(layout, map);
  EXPECT_EQ(map.gpc_count, 3);
  EXPECT_THAT(map.note, HasSubstr("12 SMs seen in one launch only"));
}

TEST(InferGpcMapTest, RepeatedBadLinksMakeAnOversizedGroupThatIsNamed) {
  const SimLayout layout = InterleavedLayout({4, 4, 4, 4, 4});
  std::vector<LaunchRecord> records;
  for (int i = 0; i < 6; ++i) {
    LaunchRecord launch;
    for (int g = 0; g < 5; ++g) {
      for (int r = 0; r < 4; ++r) launch.blocks.push_back({layout.sms_of_gpc[g][r], g, r});
    }
    // Clusters 0, 1 and 2 share an SM id in two launches: GPCs 0..2 look
    // like one group of 12.
    if (i < 2) {
      launch.blocks.push_back({layout.sms_of_gpc[1][0], 0, 4});
      launch.blocks.push_back({layout.sms_of_gpc[2][0], 1, 4});
    }
    records.push_back(launch);
  }
  const GpcMap map = InferGpcMap(20, records);
  EXPECT_EQ(map.gpc_count, 3);
  EXPECT_EQ(map.gpc_sizes[0], 12);
  EXPECT_THAT(map.note, HasSubstr("GPC 0 has 12 SMs, more than twice the median group (4 SMs)"));
  EXPECT_THAT(map.note, HasSubstr("more blocks of a launch than the launch's blocks per SM"));
}

// A deterministic scheduler that always pairs the last 2 SMs of each
// 6-SM GPC apart from its cluster of 4: the pair is a consistent group of
// its own. A group of one TPC's SMs is never a GPC (without a floor too:
// the H100's singleton TPCs looked just like this), and below the smallest
// cluster size that fits (4 here) no group is.
TEST(InferGpcMapTest, GroupSmallerThanTheSmallestClusterIsUnresolved) {
  const SimLayout layout = InterleavedLayout({6, 6});
  LaunchRecord launch;
  int cluster = 0;
  for (const std::vector<int>& sms : layout.sms_of_gpc) {
    for (int r = 0; r < 4; ++r) launch.blocks.push_back({sms[r], cluster, r});
    ++cluster;
    for (int r = 0; r < 2; ++r) launch.blocks.push_back({sms[4 + r], cluster, r});
    ++cluster;
  }
  const std::vector<LaunchRecord> records = {launch, launch};

  std::vector<int> pairs = {layout.sms_of_gpc[0][4], layout.sms_of_gpc[0][5],
                            layout.sms_of_gpc[1][4], layout.sms_of_gpc[1][5]};
  std::sort(pairs.begin(), pairs.end());
  GpcMap map = InferGpcMap(12, records);
  EXPECT_EQ(map.gpc_count, 2) << "without a floor the pairs are still not GPCs";
  EXPECT_EQ(map.unresolved_sm_ids, pairs);
  EXPECT_EQ(map.single_tpc_sm_ids, pairs);
  EXPECT_EQ(map.group_sizes, (std::vector<int>{4, 4, 2, 2}));
  EXPECT_THAT(map.note, HasSubstr("4 SMs unresolved (GPC -1: in groups of fewer than 3 SMs"));
  EXPECT_THAT(map.note, HasSubstr("4 of them in groups of one TPC"));

  map = InferGpcMap(12, records, /*min_gpc_sms=*/5);
  EXPECT_EQ(map.gpc_count, 0);
  EXPECT_EQ(map.unresolved_sms, 12);
  EXPECT_EQ(map.single_tpc_sm_ids, pairs) << "groups of 4 are not of one TPC";

  map = InferGpcMap(12, records, /*min_gpc_sms=*/4);
  EXPECT_EQ(map.gpc_count, 2);
  EXPECT_EQ(map.gpc_sizes, (std::vector<int>{4, 4}));
  EXPECT_EQ(map.unresolved_sm_ids, pairs);
  EXPECT_EQ(map.unresolved_sms, 4);
  for (const int sm : pairs) EXPECT_EQ(map.gpc_of_sm[sm], -1) << "SM " << sm;
  EXPECT_EQ(map.unmapped_sms, 0);
  EXPECT_EQ(map.inconsistent_sms, 0);
  EXPECT_THAT(map.note, HasSubstr("4 SMs unresolved (GPC -1: in groups of fewer than 4 SMs"));
  EXPECT_EQ(map.note.find(';'), std::string::npos);
}

TEST(InferGpcMapTest, BlocksOnHeldSmsAndOverfullSmsAreNamed) {
  LaunchRecord launch;
  launch.blocks = {{0, 0, 0}, {0, 0, 1}, {1, 0, 2}, {1, 0, 3}, {2, 0, 4}, {2, 0, 5}};
  launch.blocks_per_sm = 2;
  GpcMap map = InferGpcMap(4, {launch, launch});
  EXPECT_EQ(map.note.find("blocks per SM"), std::string::npos) << map.note;
  EXPECT_EQ(map.note.find("blocker"), std::string::npos) << map.note;

  launch.blocks_per_sm = 1;
  launch.blocked_sms = {1, 3};
  map = InferGpcMap(4, {launch, launch});
  EXPECT_THAT(map.note, HasSubstr("6 times an SM ran more blocks of a launch than the launch's "
                                  "blocks per SM"));
  EXPECT_THAT(map.note, HasSubstr("4 blocks ran on SMs a blocker was to hold"));
  EXPECT_EQ(map.gpc_of_sm, (std::vector<int>{0, 0, 0, -1}));
}

TEST(InferGpcMapTest, BadInputIsIgnoredAndCounted) {
  LaunchRecord launch;
  launch.blocks = {{-1, -1, -1}, {0, 0, 0}, {1, 0, 1}, {2, 0, 2}, {99, 0, 3}};
  GpcMap map = InferGpcMap(4, {launch, launch});
  EXPECT_EQ(map.gpc_of_sm, (std::vector<int>{0, 0, 0, -1}));
  EXPECT_EQ(map.gpc_count, 1);
  EXPECT_THAT(map.note, HasSubstr("4 blocks with an SM id outside 0..3 ignored"));

  map = InferGpcMap(4, {});
  EXPECT_EQ(map.gpc_count, 0);
  EXPECT_EQ(map.gpc_of_sm, (std::vector<int>{-1, -1, -1, -1}));
  EXPECT_THAT(map.note, HasSubstr("no SM seen in 0 launches"));

  map = InferGpcMap(-3, {launch});
  EXPECT_TRUE(map.gpc_of_sm.empty());
}

TEST(SmIdBoundTest, GrowsToTheHighestPlausibleId) {
  LaunchRecord launch;
  launch.blocks = {{3, 0, 0}, {140, 0, 1}, {-1, 0, 2}, {kMaxSmId + 1, 0, 3}};
  EXPECT_EQ(SmIdBound(132, {launch}), 141);
  EXPECT_EQ(SmIdBound(200, {launch}), 200);
  EXPECT_EQ(SmIdBound(-5, {}), 0);
}

}  // namespace
}  // namespace dissect
