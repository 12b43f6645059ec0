#include "experiments/sharing/l2_map/l2_partitions.h"

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace dissect {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using Matrix = std::vector<std::vector<double>>;

// Lines' true groups: a fixed scramble of `groups` labels, renumbered in
// order of first appearance (partitions are numbered by their lowest line).
std::vector<int> Groups(int lines, int groups) {
  std::vector<int> g(lines);
  std::vector<int> renumber(groups, -1);
  int next = 0;
  for (int l = 0; l < lines; ++l) {
    int& r = renumber[(l * 5 + l / 3) % groups];
    if (r < 0) r = next++;
    g[l] = r;
  }
  return g;
}

std::vector<int> Sizes(const std::vector<int>& groups, int count) {
  std::vector<int> sizes(count, 0);
  for (int g : groups) ++sizes[g];
  return sizes;
}

// cycles[s][l] = latency(s, group of l) + N(0, noise).
template <typename Latency>
Matrix Synthetic(int sms, const std::vector<int>& group, double noise, Latency latency,
                 unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0, noise);
  Matrix m(sms, std::vector<double>(group.size()));
  for (int s = 0; s < sms; ++s) {
    for (size_t l = 0; l < group.size(); ++l) m[s][l] = latency(s, group[l]) + n(rng);
  }
  return m;
}

TEST(InferL2PartitionsTest, TwoPartitionsWithA200CycleGap) {
  const std::vector<int> truth = Groups(64, 2);
  const Matrix m = Synthetic(132, truth, 10, [](int, int g) { return g == 0 ? 250.0 : 450.0; });
  auto map = InferL2Partitions(m);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 2);
  EXPECT_EQ(map->partition_of_line, truth);
  EXPECT_TRUE(map->outlier_lines.empty());
  EXPECT_EQ(map->sms_measured, 132);
  EXPECT_NEAR(map->near_cycles, 250, 5);
  EXPECT_NEAR(map->far_cycles, 450, 5);
  EXPECT_NEAR(map->far_minus_near_cycles, 200, 5);
  EXPECT_EQ(map->partition_sizes, Sizes(truth, 2));
  for (int s = 0; s < 132; ++s) EXPECT_EQ(map->near_partition_of_sm[s], 0) << s;
}

TEST(InferL2PartitionsTest, PureNoiseIsOnePartition) {
  const std::vector<int> truth(64, 0);
  const Matrix m = Synthetic(132, truth, 10, [](int, int) { return 300.0; });
  auto map = InferL2Partitions(m);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 1);
  EXPECT_EQ(map->partition_of_line, truth);
  EXPECT_DOUBLE_EQ(map->far_cycles, map->near_cycles);
  EXPECT_DOUBLE_EQ(map->far_minus_near_cycles, 0);
  EXPECT_DOUBLE_EQ(map->separation_cycles, 0);
  EXPECT_NEAR(map->noise_cycles, 10, 1);
}

TEST(InferL2PartitionsTest, ThreeGroups) {
  const std::vector<int> truth = Groups(60, 3);
  // Each group is nearest to a third of the SMs.
  const Matrix m = Synthetic(120, truth, 8, [](int s, int g) {
    return (s * 3 / 120) == g ? 240.0 : 240.0 + 60 * (g + 1);
  });
  auto map = InferL2Partitions(m);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 3);
  EXPECT_EQ(map->partition_of_line, truth);
  for (int s = 0; s < 120; ++s) EXPECT_EQ(map->near_partition_of_sm[s], s * 3 / 120) << s;
}

// Hopper: half the SMs are near partition 0, the other half near 1.
TEST(InferL2PartitionsTest, HalfTheSmsNearEachPartition) {
  const std::vector<int> truth = Groups(64, 2);
  const Matrix m = Synthetic(132, truth, 12, [](int s, int g) {
    const int near = s < 66 ? 0 : 1;
    return (g == near ? 260.0 : 460.0) + (s % 7);  // a small per-SM offset
  });
  auto map = InferL2Partitions(m);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 2);
  EXPECT_EQ(map->partition_of_line, truth);
  for (int s = 0; s < 132; ++s) {
    EXPECT_EQ(map->near_partition_of_sm[s], s < 66 ? 0 : 1) << s;
    EXPECT_NEAR(map->sm_partition_cycles[s][s < 66 ? 1 : 0] - map->near_cycles_of_sm[s], 200, 12);
  }
  EXPECT_NEAR(map->far_minus_near_cycles, 200, 5);
  EXPECT_LT(map->near_max_cycles - map->near_min_cycles, 20);
  EXPECT_GT(map->near_max_cycles - map->near_min_cycles, 3);
  EXPECT_GT(map->separation_cycles, 150);
}

TEST(InferL2PartitionsTest, FewSmsStillFindTwoPartitions) {
  const std::vector<int> truth = Groups(64, 2);
  const Matrix m = Synthetic(
      3, truth, 10, [](int s, int g) { return g == s % 2 ? 250.0 : 450.0; }, 7);
  auto map = InferL2Partitions(m);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 2);
  EXPECT_EQ(map->partition_of_line, truth);
}

TEST(InferL2PartitionsTest, NoisyOutlierLineIsSetAsideAndAssignedToItsNearestPartition) {
  const std::vector<int> truth = Groups(64, 2);
  Matrix m =
      Synthetic(132, truth, 10, [](int s, int g) { return g == (s < 66 ? 0 : 1) ? 250.0 : 450.0; });
  // Line 9 (group 1): its own pattern plus a large noise and a 400-cycle offset.
  std::mt19937 rng(99);
  std::normal_distribution<double> wild(0, 120);
  for (int s = 0; s < 132; ++s) m[s][9] += 400 + wild(rng);
  auto map = InferL2Partitions(m);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 2);
  EXPECT_EQ(map->outlier_lines, (std::vector<int>{9}));
  EXPECT_EQ(map->partition_of_line, truth);
  EXPECT_EQ(map->partition_sizes[0] + map->partition_sizes[1], 63);
  // The outlier does not enter the means.
  EXPECT_NEAR(map->far_cycles, 450, 5);
}

TEST(InferL2PartitionsTest, NanRowsAreIgnored) {
  const std::vector<int> truth = Groups(64, 2);
  Matrix m = Synthetic(16, truth, 10, [](int s, int g) { return g == s % 2 ? 250.0 : 450.0; });
  for (double& v : m[3]) v = kNaN;
  m[10][5] = kNaN;
  auto map = InferL2Partitions(m);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->sms_measured, 14);
  EXPECT_EQ(map->partitions, 2);
  EXPECT_EQ(map->partition_of_line, truth);
  EXPECT_EQ(map->near_partition_of_sm[3], -1);
  EXPECT_EQ(map->near_partition_of_sm[10], -1);
  EXPECT_TRUE(std::isnan(map->near_cycles_of_sm[3]));
  EXPECT_TRUE(std::isnan(map->sm_partition_cycles[10][0]));
  EXPECT_EQ(map->near_partition_of_sm[4], 0);
  EXPECT_EQ(map->near_partition_of_sm[5], 1);
  EXPECT_NEAR(map->near_cycles, 250, 5);
}

TEST(InferL2PartitionsTest, BadMatricesAreInvalidArgument) {
  EXPECT_EQ(InferL2Partitions({}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(InferL2Partitions({{}}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(InferL2Partitions({{1, 2}, {1}}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(InferL2Partitions({{kNaN, 2}, {1, kNaN}}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(InferL2PartitionsTest, IdenticalLinesAreOnePartition) {
  auto map = InferL2Partitions(Matrix(4, std::vector<double>(8, 300.0)));
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 1);
  EXPECT_DOUBLE_EQ(map->near_cycles, 300);
}

TEST(L2MapLineOffsetsTest, OneLinePerPageAtVariedAlignedSlots) {
  const std::vector<uint64_t> offsets = L2MapLineOffsets(64, 4096);
  ASSERT_EQ(offsets.size(), 64u);
  std::set<uint64_t> slots;
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(offsets[i] / 4096, static_cast<uint64_t>(i));
    EXPECT_EQ(offsets[i] % 128, 0u);
    slots.insert(offsets[i] % 4096);
  }
  EXPECT_EQ(slots.size(), 32u);  // every 128-byte slot of a page is used
  EXPECT_TRUE(L2MapLineOffsets(0, 4096).empty());
}

}  // namespace
}  // namespace dissect
