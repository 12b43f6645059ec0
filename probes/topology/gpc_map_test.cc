#include "probes/topology/gpc_map.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::HasSubstr;

// A device layout: true_gpc[sm].
struct Layout {
  std::vector<int> true_gpc;
  std::vector<std::vector<int>> sms_of_gpc;
};

// SMs dealt round-robin to GPCs of the given sizes (skipping full ones), so
// that the numbering interleaves GPCs as on real parts.
Layout Interleaved(const std::vector<int>& sizes) {
  Layout layout;
  const int total = [&] {
    int t = 0;
    for (const int s : sizes) t += s;
    return t;
  }();
  layout.true_gpc.assign(total, -1);
  layout.sms_of_gpc.resize(sizes.size());
  size_t g = 0;
  for (int sm = 0; sm < total; ++sm) {
    while (static_cast<int>(layout.sms_of_gpc[g].size()) == sizes[g]) g = (g + 1) % sizes.size();
    layout.true_gpc[sm] = static_cast<int>(g);
    layout.sms_of_gpc[g].push_back(sm);
    g = (g + 1) % sizes.size();
  }
  return layout;
}

// H100 SXM5-like: 132 SMs in 8 GPCs of uneven size.
Layout H100Like() { return Interleaved({18, 18, 18, 18, 16, 16, 16, 12}); }

// One launch as the hardware would place it: in each GPC (of those in
// `gpcs`, all when empty), as many clusters of `cluster_size` as fit, on
// randomly chosen SMs of that GPC. Clusters are numbered across the launch.
LaunchRecord Simulate(const Layout& layout, int cluster_size, std::mt19937& rng,
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

std::vector<LaunchRecord> Alternating(const Layout& layout, int launches, std::mt19937& rng) {
  const int sizes[] = {16, 8, 4, 2};
  std::vector<LaunchRecord> records;
  for (int i = 0; i < launches; ++i) records.push_back(Simulate(layout, sizes[i % 4], rng));
  return records;
}

// Every mapped SM pair is in one inferred GPC exactly when it is in one true
// GPC.
void ExpectSamePartition(const Layout& layout, const GpcMap& map) {
  const int n = static_cast<int>(layout.true_gpc.size());
  ASSERT_EQ(map.gpc_of_sm.size(), layout.true_gpc.size());
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (map.gpc_of_sm[a] < 0 || map.gpc_of_sm[b] < 0) continue;
      EXPECT_EQ(map.gpc_of_sm[a] == map.gpc_of_sm[b], layout.true_gpc[a] == layout.true_gpc[b])
          << "SMs " << a << " and " << b;
    }
  }
}

TEST(InferGpcMapTest, RecoversUnevenInterleavedLayout) {
  const Layout layout = H100Like();
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
  const Layout layout = H100Like();
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
  const Layout layout = H100Like();
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
  const Layout layout = H100Like();
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
  const Layout layout = H100Like();
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
  const Layout layout = Interleaved({4, 4, 4});
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
  const Layout layout = Interleaved({4, 4, 4, 4, 4});
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
  EXPECT_THAT(map.note, HasSubstr("more than one block of a launch"));
}

TEST(InferGpcMapTest, BadInputIsIgnoredAndCounted) {
  LaunchRecord launch;
  launch.blocks = {{-1, -1, -1}, {0, 0, 0}, {1, 0, 1}, {99, 0, 2}};
  GpcMap map = InferGpcMap(4, {launch, launch});
  EXPECT_EQ(map.gpc_of_sm, (std::vector<int>{0, 0, -1, -1}));
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
