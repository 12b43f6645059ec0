#include "experiments/attention/attention_reference.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace dissect::attention {
namespace {

TEST(ReferenceRowTest, OneKeyReturnsItsValueRow) {
  const std::vector<float> q = {1, 2, 3, 4}, k = {5, 6, 7, 8}, v = {-1, 0.5, 2, 3};
  absl::StatusOr<std::vector<double>> out = ReferenceRow(q, k, v, 1);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, std::vector<double>({-1, 0.5, 2, 3}));
}

TEST(ReferenceRowTest, TwoKeysByHand) {
  // d = 4, scale 1/2: scores 0 and 1 -> weights 1/(1+e), e/(1+e).
  const std::vector<float> q = {1, 1, 0, 0}, k = {0, 0, 0, 0, 1, 1, 0, 0},
                           v = {1, 0, 0, 0, 0, 1, 0, 0};
  absl::StatusOr<std::vector<double>> out = ReferenceRow(q, k, v, 2);
  ASSERT_TRUE(out.ok()) << out.status();
  const double e = std::exp(1.0);
  EXPECT_NEAR((*out)[0], 1 / (1 + e), 1e-12);
  EXPECT_NEAR((*out)[1], e / (1 + e), 1e-12);
}

TEST(ReferenceRowTest, KeysSeenLimitsTheKeys) {
  // The causal cut: the second key (which would dominate) is not seen.
  const std::vector<float> q = {10, 0}, k = {0, 0, 10, 0}, v = {1, 1, 5, 5};
  absl::StatusOr<std::vector<double>> out = ReferenceRow(q, k, v, 1);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, std::vector<double>({1, 1}));
}

TEST(ReferenceRowTest, RejectsShortInputs) {
  const std::vector<float> q = {1, 1}, k = {1, 1}, v = {1, 1};
  EXPECT_FALSE(ReferenceRow(q, k, v, 2).ok());
  EXPECT_FALSE(ReferenceRow({}, k, v, 1).ok());
}

TEST(MaxRelativeErrorTest, ScalesByTheLargestReference) {
  absl::StatusOr<double> err = MaxRelativeError(std::vector<float>{1, 2.5}, {1.0, 2.0});
  ASSERT_TRUE(err.ok());
  EXPECT_DOUBLE_EQ(*err, 0.25);
  EXPECT_FALSE(MaxRelativeError(std::vector<float>{1}, {0.0}).ok());
  EXPECT_FALSE(MaxRelativeError(std::vector<float>{1, 2}, {1.0}).ok());
}

}  // namespace
}  // namespace dissect::attention
