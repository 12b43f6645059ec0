// The l2_sm_map method (l2_map_plan.h) replayed on a simulated L2 that
// keeps near copies of far lines (near_copy_l2_model.h), one launch per SM
// in turn as the experiment runs them. The method must see both
// partitions; the method before it (a warm load, then the same line chased
// again and again) sees one, which is what the model is for.
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/near_copy_l2_model.h"
#include "experiments/sharing/l2_map/l2_map_host.h"
#include "experiments/sharing/l2_map/l2_map_plan.h"
#include "experiments/sharing/l2_map/l2_partitions.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using Matrix = std::vector<std::vector<double>>;

constexpr uint64_t kLinesBase = 0x10000000;
constexpr uint64_t kSweepBase = 0x40000000;
constexpr int kSms = 8;
constexpr int kLines = 64;
constexpr int kLaps = 3;
// The cost of the clock reads around any interval, which the reduction
// takes off again.
constexpr double kClockCycles = 30;

NearCopyL2Options Options() {
  NearCopyL2Options o;
  o.sm_count = kSms;
  o.partition_lines = 512;  // 64 KiB a partition, 128 KiB of L2
  return o;
}

uint64_t L2Bytes(const NearCopyL2Options& o) {
  return 2 * o.partition_lines * NearCopyL2Model::kLineBytes;
}

std::string Summary(const L2PartitionMap& map) {
  std::ostringstream out;
  out << "inferred " << map.partitions << " partition(s): near " << map.near_cycles << ", far "
      << map.far_cycles << ", far - near " << map.far_minus_near_cycles << " cycles";
  return out.str();
}

struct Replayed {
  Matrix first_touch;
  Matrix retouch;
};

Replayed Replay(NearCopyL2Model& model, const L2MapPlan& plan) {
  Replayed r;
  const size_t n = plan.line_offsets.size() * static_cast<size_t>(plan.laps);
  for (int sm = 0; sm < kSms; ++sm) {
    L2MapLapCycles raw;
    raw.empty.assign(n, kClockCycles);
    raw.first_touch.assign(n, 0);
    raw.retouch.assign(n, 0);
    for (const L2MapAccess& a : L2MapAccesses(plan, kLinesBase, kSweepBase)) {
      const double cycles = model.Load(sm, a.address);
      if (a.load == L2MapLoad::kSweep) continue;
      const size_t k = static_cast<size_t>(a.lap) * plan.line_offsets.size() + a.line;
      (a.load == L2MapLoad::kFirstTouch ? raw.first_touch : raw.retouch)[k] = kClockCycles + cycles;
    }
    const L2MapLineCycles lines =
        ReduceL2MapLaps(raw, static_cast<int>(plan.line_offsets.size()), plan.laps);
    r.first_touch.push_back(lines.first_touch);
    r.retouch.push_back(lines.retouch);
  }
  return r;
}

// The method before this one: per line a warm load, then `hops` timed
// loads of the same line; per SM and line the mean of the timed loads.
Matrix ReplayRepeatedHops(NearCopyL2Model& model, const std::vector<uint64_t>& offsets, int hops) {
  Matrix m(kSms, std::vector<double>(offsets.size(), 0));
  for (int sm = 0; sm < kSms; ++sm) {
    for (size_t l = 0; l < offsets.size(); ++l) {
      model.Load(sm, kLinesBase + offsets[l]);
      for (int h = 0; h < hops; ++h) m[sm][l] += model.Load(sm, kLinesBase + offsets[l]) / hops;
    }
  }
  return m;
}

// Whether each line shares line 0's partition, as inferred and as homed.
void ExpectPartitionsFollowHomes(const L2PartitionMap& map, const std::vector<uint64_t>& offsets) {
  std::vector<bool> same_home;
  std::vector<bool> same_partition;
  const int home0 = NearCopyL2Model::HomePartition(kLinesBase + offsets[0]);
  for (size_t l = 0; l < offsets.size(); ++l) {
    same_home.push_back(NearCopyL2Model::HomePartition(kLinesBase + offsets[l]) == home0);
    same_partition.push_back(map.partition_of_line[l] == map.partition_of_line[0]);
  }
  EXPECT_EQ(same_partition, same_home);
}

TEST(L2MapMethodTest, RepeatedHopsOfOneLineSeeOnlyTheNearPartition) {
  const NearCopyL2Options o = Options();
  NearCopyL2Model model(o);
  const auto map =
      InferL2Partitions(ReplayRepeatedHops(model, L2MapLineOffsets(kLines, kL2MapPageBytes), 64));
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 1) << Summary(*map);
  EXPECT_NEAR(map->far_minus_near_cycles, 0, 1) << Summary(*map);
}

TEST(L2MapMethodTest, FirstTouchesAfterTheSweepSeeBothPartitions) {
  const NearCopyL2Options o = Options();
  NearCopyL2Model model(o);
  const L2MapPlan plan = MakeL2MapPlan(kLines, kLaps, L2Bytes(o), 75);
  const Replayed r = Replay(model, plan);
  const auto map = InferL2Partitions(r.first_touch);
  ASSERT_TRUE(map.ok()) << map.status();
  std::cout << "first touches: " << Summary(*map) << "\n";
  EXPECT_EQ(map->partitions, 2) << Summary(*map);
  EXPECT_NEAR(map->near_cycles, o.near_cycles, 1) << Summary(*map);
  EXPECT_NEAR(map->far_minus_near_cycles, o.far_cycles - o.near_cycles, 1) << Summary(*map);
  ExpectPartitionsFollowHomes(*map, plan.line_offsets);
  // The two halves of the SMs are near opposite partitions.
  for (int sm = 0; sm < kSms; ++sm) {
    EXPECT_EQ(map->near_partition_of_sm[sm] == map->near_partition_of_sm[0],
              model.NearPartition(sm) == model.NearPartition(0))
        << "SM " << sm;
  }
  // The re-touch after each first touch is a near hit, homed near or not.
  for (const std::vector<double>& row : r.retouch) {
    for (double c : row) EXPECT_DOUBLE_EQ(c, o.near_cycles);
  }
}

TEST(L2MapMethodTest, ASweepThatFitsInOnePartitionLeavesTheCopies) {
  const NearCopyL2Options o = Options();
  NearCopyL2Model model(o);
  const Replayed r = Replay(model, MakeL2MapPlan(kLines, kLaps, L2Bytes(o), 25));
  const auto map = InferL2Partitions(r.first_touch);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->partitions, 1) << Summary(*map);
}

TEST(L2MapPlanTest, SweepsWholeBlockTripsOfTheL2Fraction) {
  const L2MapPlan plan = MakeL2MapPlan(4, 2, 50 * 1000 * 1000, 75);
  EXPECT_EQ(plan.sweep_bytes, 37500000u / kL2MapSweepGrainBytes * kL2MapSweepGrainBytes);
  EXPECT_EQ(plan.line_offsets, L2MapLineOffsets(4, kL2MapPageBytes));
  EXPECT_EQ(plan.laps, 2);
}

TEST(L2MapPlanTest, EachLapSweepsThenTouchesEveryLineTwice) {
  L2MapPlan plan;
  plan.line_offsets = {0, 4096 + 896};
  plan.sweep_bytes = 64;
  plan.laps = 2;
  const std::vector<L2MapAccess> a = L2MapAccesses(plan, 1000, 5000);
  ASSERT_EQ(a.size(), 2u * (2 + 4));
  EXPECT_EQ(a[0].address, 5000u);
  EXPECT_EQ(a[1].address, 5032u);
  EXPECT_EQ(a[0].load, L2MapLoad::kSweep);
  EXPECT_EQ(a[2].address, 1000u);
  EXPECT_EQ(a[2].load, L2MapLoad::kFirstTouch);
  EXPECT_EQ(a[3].load, L2MapLoad::kRetouch);
  EXPECT_EQ(a[4].address, 1000u + 4096 + 896);
  EXPECT_EQ(a[4].load, L2MapLoad::kFirstTouch);
  EXPECT_EQ(a[4].line, 1);
  EXPECT_EQ(a[4].lap, 0);
  EXPECT_EQ(a[5].address, 1000u + 4096 + 896 + kL2MapRetouchOffset);
  EXPECT_EQ(a[5].load, L2MapLoad::kRetouch);
  EXPECT_EQ(a[6].load, L2MapLoad::kSweep);
  EXPECT_EQ(a[8].lap, 1);
}

TEST(L2MapPlanTest, RingImageChainsTheLinesInLapOrder) {
  const uint64_t base = 0x7f0000000000;
  const std::vector<uint64_t> offsets = L2MapLineOffsets(3, kL2MapPageBytes);
  const std::vector<unsigned long long> image =
      L2MapRingImage(base, offsets, 3 * kL2MapPageBytes / 8);
  int nonzero = 0;
  for (unsigned long long w : image) nonzero += w != 0;
  EXPECT_EQ(nonzero, 6);
  for (size_t i = 0; i < offsets.size(); ++i) {
    const uint64_t next = base + offsets[(i + 1) % offsets.size()];
    EXPECT_EQ(image[offsets[i] / 8], next);
    EXPECT_EQ(image[(offsets[i] + kL2MapRetouchOffset) / 8], next);
  }
}

TEST(L2MapPlanTest, ReductionIsTheMedianOverLapsLessTheEmptyInterval) {
  L2MapLapCycles raw;
  // 2 lines x 3 laps, index lap * 2 + line.
  raw.empty = {20, 30, 20, 30, 20, 30};
  raw.first_touch = {300, 530, 320, 900, 310, 540};
  raw.retouch = {300, 330, 300, 330, 900, 330};
  const L2MapLineCycles c = ReduceL2MapLaps(raw, 2, 3);
  EXPECT_EQ(c.first_touch, (std::vector<double>{290, 510}));
  EXPECT_EQ(c.retouch, (std::vector<double>{280, 300}));
  EXPECT_TRUE(ReduceL2MapLaps(raw, 2, 2).first_touch.empty());
  EXPECT_TRUE(ReduceL2MapLaps(raw, 4, 2).first_touch.empty());
}

}  // namespace
}  // namespace dissect
