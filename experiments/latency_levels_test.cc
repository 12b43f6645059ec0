// Tests for latency level clustering on synthetic traces with known levels.
#include "experiments/latency_levels.h"

#include <random>

#include "gtest/gtest.h"

namespace dissect {
namespace {

// n accesses around `center` with +-jitter noise.
void Append(std::vector<uint32_t>& v, int n, uint32_t center, uint32_t jitter,
            std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-static_cast<int>(jitter), static_cast<int>(jitter));
  for (int i = 0; i < n; ++i) v.push_back(center + d(rng));
}

TEST(LatencyLevelsTest, SingleLevel) {
  std::mt19937 rng(1);
  std::vector<uint32_t> v;
  Append(v, 1000, 33, 1, rng);
  auto levels = FindLatencyLevels(v);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_NEAR(levels[0].cycles, 33, 1);
  EXPECT_DOUBLE_EQ(levels[0].fraction, 1.0);
}

TEST(LatencyLevelsTest, NearAndFarL2) {
  std::mt19937 rng(2);
  std::vector<uint32_t> v;
  Append(v, 600, 260, 10, rng);
  Append(v, 400, 480, 15, rng);
  std::shuffle(v.begin(), v.end(), rng);
  auto levels = FindLatencyLevels(v);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_NEAR(levels[0].cycles, 260, 5);
  EXPECT_NEAR(levels[0].fraction, 0.6, 1e-9);
  EXPECT_NEAR(levels[1].cycles, 480, 5);
  EXPECT_LT(levels[0].max_cycles, 300u);
}

TEST(LatencyLevelsTest, RareOutliersAreDropped) {
  std::mt19937 rng(3);
  std::vector<uint32_t> v;
  Append(v, 995, 40, 2, rng);
  Append(v, 5, 5000, 100, rng);  // 0.5 %: interrupts
  auto levels = FindLatencyLevels(v);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_NEAR(levels[0].cycles, 40, 2);
  EXPECT_DOUBLE_EQ(levels[0].fraction, 1.0);
}

TEST(LatencyLevelsTest, CapsLevelsByMergingClosest) {
  std::mt19937 rng(4);
  std::vector<uint32_t> v;
  Append(v, 250, 30, 0, rng);
  Append(v, 250, 250, 0, rng);
  Append(v, 250, 300, 0, rng);   // closest to 250: merged with it
  Append(v, 250, 700, 0, rng);
  auto levels = FindLatencyLevels(v);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].cycles, 30);
  EXPECT_NEAR(levels[1].fraction, 0.5, 1e-9);
  EXPECT_EQ(levels[2].cycles, 700);
}

TEST(LatencyLevelsTest, EmptyInput) { EXPECT_TRUE(FindLatencyLevels({}).empty()); }

TEST(DominantMissDistanceTest, LineSizeFromStridedColdWalk) {
  // 4-byte stride walk: every 32nd access (128-byte line) misses.
  std::vector<uint64_t> addr;
  std::vector<uint32_t> cyc;
  for (int k = 0; k < 1024; ++k) {
    addr.push_back(4 * k);
    cyc.push_back(k % 32 == 0 ? 600 : 35);
  }
  EXPECT_EQ(DominantMissDistance(addr, cyc, 100), 128u);
  EXPECT_EQ(DominantMissDistance(addr, cyc, 1000), 0u);
}

}  // namespace
}  // namespace dissect
