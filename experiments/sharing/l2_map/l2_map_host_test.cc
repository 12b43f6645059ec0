#include "experiments/sharing/l2_map/l2_map_host.h"

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(ValidateL2MapAxesTest, AcceptsTheDefaultsAndRejectsNonsense) {
  EXPECT_TRUE(ValidateL2MapAxes(64, 5, 75, 1).ok());
  EXPECT_TRUE(ValidateL2MapAxes(1, 1, kL2MapMinSweepPercent, 132).ok());
  EXPECT_TRUE(ValidateL2MapAxes(kL2MapMaxLines, kL2MapMaxLaps, kL2MapMaxSweepPercent, 1).ok());
  for (auto [lines, laps, sweep, stride] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>>{
           {0, 5, 75, 1},
           {-1, 5, 75, 1},
           {kL2MapMaxLines + 1, 5, 75, 1},
           {64, 0, 75, 1},
           {64, kL2MapMaxLaps + 1, 75, 1},
           {64, 5, 50, 1},  // fits in one partition: the copies survive
           {64, 5, kL2MapMaxSweepPercent + 1, 1},
           {64, 5, 75, 0},
           {64, 5, 75, -2}}) {
    EXPECT_EQ(ValidateL2MapAxes(lines, laps, sweep, stride).code(),
              absl::StatusCode::kInvalidArgument)
        << lines << " " << laps << " " << sweep << " " << stride;
  }
}

TEST(L2MapTargetSmsTest, EveryStrideThSm) {
  EXPECT_EQ(L2MapTargetSms(5, 1), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(L2MapTargetSms(132, 40), (std::vector<int>{0, 40, 80, 120}));
  EXPECT_EQ(L2MapTargetSms(4, 8), (std::vector<int>{0}));
  EXPECT_TRUE(L2MapTargetSms(4, 0).empty());
}

TEST(MeanFiniteTest, SkipsNaNRows) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_DOUBLE_EQ(MeanFinite({{280, 300}, {nan, nan}, {290, nan}}), 290);
  EXPECT_TRUE(std::isnan(MeanFinite({{nan}})));
}

TEST(L2MapRetouchNoteTest, NamesNearFirstTouchesThatAreNotNearHits) {
  EXPECT_EQ(L2MapRetouchNote(285, 280), "");
  EXPECT_EQ(L2MapRetouchNote(280 + kL2MapRetouchToleranceCycles, 280), "");
  const std::string note = L2MapRetouchNote(650, 280);
  EXPECT_NE(note.find("not near L2 hits"), std::string::npos) << note;
  EXPECT_NE(note.find("DRAM"), std::string::npos) << note;
  EXPECT_EQ(L2MapRetouchNote(std::numeric_limits<double>::quiet_NaN(), 280), "");
}

TEST(MapVectorsTest, FlattensRowMajorAndMarksUnmeasuredSmsNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  L2PartitionMap map;
  map.partitions = 2;
  map.partition_of_line = {0, 1, 1};
  map.sm_partition_cycles = {{250, 450}, {nan, nan}, {460, 255}};
  map.near_partition_of_sm = {0, -1, 1};
  const L2MapVectors v = MapVectors(map);
  EXPECT_EQ(v.partition_of_line, (std::vector<double>{0, 1, 1}));
  ASSERT_EQ(v.sm_partition_cycles.size(), 6u);
  EXPECT_EQ(v.sm_partition_cycles[0], 250);
  EXPECT_EQ(v.sm_partition_cycles[1], 450);
  EXPECT_TRUE(std::isnan(v.sm_partition_cycles[2]));
  EXPECT_EQ(v.sm_partition_cycles[4], 460);
  EXPECT_EQ(v.sm_partition_cycles[5], 255);
  ASSERT_EQ(v.near_partition_of_sm.size(), 3u);
  EXPECT_EQ(v.near_partition_of_sm[0], 0);
  EXPECT_TRUE(std::isnan(v.near_partition_of_sm[1]));
  EXPECT_EQ(v.near_partition_of_sm[2], 1);
  EXPECT_EQ(Flatten({{1, 2}, {3, 4}}), (std::vector<double>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace dissect
