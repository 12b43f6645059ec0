#include "analysis/papers/conv_algos/micro_batch.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using ::testing::ElementsAre;

TEST(MicroBatchTest, KeepsTheWholeBatchWhenSplittingIsSlower) {
  // 128 at once: 10; 2 x 64: 12; 4 x 32: 16.
  const auto split = BestMicroBatchSplit({{32, 4.0}, {64, 6.0}, {128, 10.0}}, 128);
  ASSERT_TRUE(split.has_value());
  EXPECT_DOUBLE_EQ(split->time, 10.0);
  EXPECT_THAT(split->sizes, ElementsAre(128));
}

TEST(MicroBatchTest, SplitsWhenSmallerBatchesAreFaster) {
  // The full batch only has a slow algorithm that fits (30); 64 has a fast
  // one (8): 2 x 64 = 16 beats 30 and 4 x 32 = 4 x 5 = 20.
  const auto split = BestMicroBatchSplit({{32, 5.0}, {64, 8.0}, {128, 30.0}}, 128);
  ASSERT_TRUE(split.has_value());
  EXPECT_DOUBLE_EQ(split->time, 16.0);
  EXPECT_THAT(split->sizes, ElementsAre(64, 64));
}

TEST(MicroBatchTest, MixesSizes) {
  // 96 = 64 + 32 (7 + 3 = 10) beats 3 x 32 (9)? No: 9 < 10, so 3 x 32.
  auto split = BestMicroBatchSplit({{32, 3.0}, {64, 7.0}}, 96);
  ASSERT_TRUE(split.has_value());
  EXPECT_DOUBLE_EQ(split->time, 9.0);
  EXPECT_THAT(split->sizes, ElementsAre(32, 32, 32));
  // With 64 at 5: 64 + 32 = 8 beats 3 x 32 = 9.
  split = BestMicroBatchSplit({{32, 3.0}, {64, 5.0}}, 96);
  ASSERT_TRUE(split.has_value());
  EXPECT_DOUBLE_EQ(split->time, 8.0);
  EXPECT_THAT(split->sizes, ElementsAre(64, 32));
}

TEST(MicroBatchTest, TiesKeepFewerMicroBatches) {
  const auto split = BestMicroBatchSplit({{1, 1.0}, {2, 2.0}, {4, 4.0}}, 4);
  ASSERT_TRUE(split.has_value());
  EXPECT_DOUBLE_EQ(split->time, 4.0);
  EXPECT_THAT(split->sizes, ElementsAre(4));
}

TEST(MicroBatchTest, NoSplitWithoutMeasuredSizesThatSumToTheBatch) {
  EXPECT_FALSE(BestMicroBatchSplit({{8, 1.0}, {32, 2.0}}, 12).has_value());
  EXPECT_FALSE(BestMicroBatchSplit({}, 4).has_value());
  EXPECT_FALSE(BestMicroBatchSplit({{4, 1.0}}, 0).has_value());
  // Unmeasured (NaN) and non-positive times are not candidates.
  EXPECT_FALSE(BestMicroBatchSplit({{4, NAN}, {2, 0.0}}, 4).has_value());
}

}  // namespace
}  // namespace dissect::analysis::papers
