#include "experiments/sharing/l2_map/l2_map_host.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(ValidateL2MapAxesTest, AcceptsTheDefaultsAndRejectsNonsense) {
  EXPECT_TRUE(ValidateL2MapAxes(64, 64, 1).ok());
  EXPECT_TRUE(ValidateL2MapAxes(1, 16, 132).ok());
  EXPECT_TRUE(ValidateL2MapAxes(kL2MapMaxLines, kL2MapMaxHops, 1).ok());
  for (auto [lines, hops, stride] :
       std::vector<std::tuple<int64_t, int64_t, int64_t>>{{0, 64, 1},
                                                          {-1, 64, 1},
                                                          {kL2MapMaxLines + 1, 64, 1},
                                                          {64, 0, 1},
                                                          {64, 24, 1},
                                                          {64, -16, 1},
                                                          {64, kL2MapMaxHops + 16, 1},
                                                          {64, 64, 0},
                                                          {64, 64, -2}}) {
    EXPECT_EQ(ValidateL2MapAxes(lines, hops, stride).code(), absl::StatusCode::kInvalidArgument)
        << lines << " " << hops << " " << stride;
  }
}

TEST(L2MapTargetSmsTest, EveryStrideThSm) {
  EXPECT_EQ(L2MapTargetSms(5, 1), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(L2MapTargetSms(132, 40), (std::vector<int>{0, 40, 80, 120}));
  EXPECT_EQ(L2MapTargetSms(4, 8), (std::vector<int>{0}));
  EXPECT_TRUE(L2MapTargetSms(4, 0).empty());
}

TEST(SelfPointingImageTest, EachLineHoldsItsOwnAddress) {
  const uint64_t base = 0x7f0000000000;
  const std::vector<uint64_t> offsets = L2MapLineOffsets(3, kL2MapPageBytes);
  const std::vector<unsigned long long> image =
      SelfPointingImage(base, offsets, 3 * kL2MapPageBytes / 8);
  ASSERT_EQ(image.size(), 3 * kL2MapPageBytes / 8);
  int nonzero = 0;
  for (size_t w = 0; w < image.size(); ++w) {
    if (image[w] == 0) continue;
    ++nonzero;
    EXPECT_EQ(image[w], base + 8 * w);
  }
  EXPECT_EQ(nonzero, 3);
  for (uint64_t o : offsets) EXPECT_EQ(image[o / 8], base + o);
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
