// Tests for probes/stats.
#include "probes/stats.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(SummarizeTest, OddCountMedianIsMiddle) {
  auto s = Summarize({5, 1, 3});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->min, 1);
  EXPECT_EQ(s->median, 3);
  EXPECT_EQ(s->max, 5);
  EXPECT_EQ(s->count, 3u);
  EXPECT_DOUBLE_EQ(s->spread, 4.0 / 3.0);
}

TEST(SummarizeTest, EvenCountMedianIsMeanOfMiddleTwo) {
  auto s = Summarize({4, 1, 10, 2});
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->median, 3.0);
  EXPECT_DOUBLE_EQ(s->spread, 9.0 / 3.0);
}

TEST(SummarizeTest, SingleSampleHasNoSpread) {
  auto s = Summarize({7.5});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->median, 7.5);
  EXPECT_EQ(s->spread, 0);
}

TEST(SummarizeTest, ZeroMedianGivesZeroSpread) {
  auto s = Summarize({0, 0, 0});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->spread, 0);
}

TEST(SummarizeTest, RejectsEmptyAndNonFinite) {
  EXPECT_FALSE(Summarize({}).ok());
  EXPECT_FALSE(Summarize({1, std::numeric_limits<double>::quiet_NaN()}).ok());
  EXPECT_FALSE(Summarize({std::numeric_limits<double>::infinity()}).ok());
}

}  // namespace
}  // namespace dissect
