// Tests for SegmentCurve on synthetic curves with known steps.

#include "analysis/sections/changepoint.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * kKiB;

// Footprints 1 KiB .. 192 MiB: powers of two and 1.5x powers of two.
std::vector<double> Footprints() {
  std::vector<double> xs;
  for (double p = kKiB; p <= 128 * kMiB; p *= 2) {
    xs.push_back(p);
    xs.push_back(1.5 * p);
  }
  return xs;
}

std::vector<CurvePoint> MakeCurve(const std::vector<double>& xs,
                                  const std::function<double(double)>& y) {
  std::vector<CurvePoint> points;
  for (double x : xs) points.push_back({x, y(x)});
  return points;
}

// The three-level latency curve of the task: 33 cycles up to 256 KiB, 260 up
// to 48 MiB, 600 beyond.
double ThreeLevels(double x) {
  if (x <= 256 * kKiB) return 33;
  if (x <= 48 * kMiB) return 260;
  return 600;
}

// Deterministic multiplicative noise, uniform in [1 - amplitude,
// 1 + amplitude] (a 64-bit LCG, so the same on every platform).
class Noise {
 public:
  explicit Noise(double amplitude) : amplitude_(amplitude) {}
  double operator()() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(state_ >> 11) * 0x1.0p-53;
    return 1 + amplitude_ * (2 * u - 1);
  }

 private:
  double amplitude_;
  uint64_t state_ = 12345;
};

size_t IndexOf(const std::vector<CurvePoint>& points, double x) {
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].x == x) return i;
  }
  return points.size();
}

void ExpectThreeLevelSteps(const Segmentation& s) {
  ASSERT_EQ(s.plateaus.size(), 3u);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.plateaus[0].x_first, 1 * kKiB);
  EXPECT_EQ(s.plateaus[0].x_last, 256 * kKiB);
  EXPECT_EQ(s.plateaus[1].x_first, 384 * kKiB);
  EXPECT_EQ(s.plateaus[1].x_last, 48 * kMiB);
  EXPECT_EQ(s.plateaus[2].x_first, 64 * kMiB);
  EXPECT_EQ(s.plateaus[2].x_last, 192 * kMiB);
  EXPECT_EQ(s.steps[0].x_before, 256 * kKiB);
  EXPECT_EQ(s.steps[0].x_after, 384 * kKiB);
  EXPECT_EQ(s.steps[1].x_before, 48 * kMiB);
  EXPECT_EQ(s.steps[1].x_after, 64 * kMiB);
}

TEST(SegmentCurveTest, CleanThreeLevels) {
  const std::vector<CurvePoint> points = MakeCurve(Footprints(), ThreeLevels);
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ExpectThreeLevelSteps(*s);
  EXPECT_DOUBLE_EQ(s->plateaus[0].level, 33);
  EXPECT_DOUBLE_EQ(s->plateaus[1].level, 260);
  EXPECT_DOUBLE_EQ(s->plateaus[2].level, 600);
  EXPECT_DOUBLE_EQ(s->steps[0].relative_jump, 260.0 / 33 - 1);
  EXPECT_DOUBLE_EQ(s->steps[1].relative_jump, 600.0 / 260 - 1);
  EXPECT_THAT(s->outliers, IsEmpty());
  EXPECT_THAT(s->transitions, IsEmpty());
  EXPECT_EQ(s->plateaus[0].first, 0u);
  EXPECT_EQ(s->plateaus[2].last, points.size() - 1);
}

TEST(SegmentCurveTest, NoisyThreeLevels) {
  Noise noise(0.05);
  const std::vector<CurvePoint> points = MakeCurve(
      Footprints(), [&](double x) { return ThreeLevels(x) * noise(); });
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ExpectThreeLevelSteps(*s);
  EXPECT_NEAR(s->plateaus[0].level, 33, 33 * 0.05);
  EXPECT_NEAR(s->plateaus[1].level, 260, 260 * 0.05);
  EXPECT_NEAR(s->plateaus[2].level, 600, 600 * 0.05);
  EXPECT_THAT(s->outliers, IsEmpty());
  EXPECT_THAT(s->transitions, IsEmpty());
}

TEST(SegmentCurveTest, SingleSpikeIsAnOutlierNotAPlateau) {
  std::vector<CurvePoint> points = MakeCurve(Footprints(), ThreeLevels);
  const size_t spike = IndexOf(points, 4 * kMiB);  // inside the 260 plateau
  ASSERT_LT(spike, points.size());
  points[spike].y = 2000;
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ExpectThreeLevelSteps(*s);
  EXPECT_THAT(s->outliers, ElementsAre(spike));
  EXPECT_DOUBLE_EQ(s->plateaus[1].level, 260);
}

TEST(SegmentCurveTest, SpikeNextToTheFirstPointKeepsThePlateauWhole) {
  // Without the spike rule the first point would be cut off as a one-point
  // run and the plateau would start at the third point.
  std::vector<CurvePoint> points = MakeCurve(Footprints(), ThreeLevels);
  points[1].y = 500;
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ExpectThreeLevelSteps(*s);
  EXPECT_EQ(s->plateaus[0].first, 0u);
  EXPECT_THAT(s->outliers, ElementsAre(1u));
  EXPECT_THAT(s->transitions, IsEmpty());
}

TEST(SegmentCurveTest, DownwardSpikeIsAnOutlierToo) {
  std::vector<CurvePoint> points = MakeCurve(Footprints(), ThreeLevels);
  const size_t dip = IndexOf(points, 16 * kKiB);  // inside the 33 plateau
  points[dip].y = 3;
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ExpectThreeLevelSteps(*s);
  EXPECT_THAT(s->outliers, ElementsAre(dip));
}

TEST(SegmentCurveTest, FlatCurveIsOnePlateau) {
  const std::vector<CurvePoint> points =
      MakeCurve(Footprints(), [](double) { return 29.0; });
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->plateaus.size(), 1u);
  EXPECT_THAT(s->steps, IsEmpty());
  EXPECT_EQ(s->plateaus[0].first, 0u);
  EXPECT_EQ(s->plateaus[0].last, points.size() - 1);
  EXPECT_DOUBLE_EQ(s->plateaus[0].level, 29);
}

TEST(SegmentCurveTest, NoisyFlatCurveIsOnePlateau) {
  Noise noise(0.06);
  const std::vector<CurvePoint> points =
      MakeCurve(Footprints(), [&](double) { return 29.0 * noise(); });
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->plateaus.size(), 1u);
  EXPECT_THAT(s->steps, IsEmpty());
}

TEST(SegmentCurveTest, SinglePointIsOnePlateau) {
  absl::StatusOr<Segmentation> s = SegmentCurve({{4096, 29}});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->plateaus.size(), 1u);
  EXPECT_EQ(s->plateaus[0].points, 1u);
}

TEST(SegmentCurveTest, StepsSmallerThanTheMinimumAreIgnored) {
  // 8% up at 1 MiB: below min_relative_step (15%).
  const std::vector<CurvePoint> points = MakeCurve(
      Footprints(), [](double x) { return x <= 1 * kMiB ? 100.0 : 108.0; });
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->plateaus.size(), 1u);
  ChangepointOptions fine;
  fine.min_relative_step = 0.05;
  s = SegmentCurve(points, fine);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->steps.size(), 1u);
  EXPECT_EQ(s->steps[0].x_before, 1 * kMiB);
  EXPECT_EQ(s->steps[0].x_after, 1.5 * kMiB);
}

TEST(SegmentCurveTest, PartialHitPointIsATransition) {
  // A random chase just past the capacity hits partly: one point between the
  // two levels belongs to neither plateau.
  const std::vector<CurvePoint> points = MakeCurve(Footprints(), [](double x) {
    if (x <= 256 * kKiB) return 33.0;
    if (x <= 384 * kKiB) return 150.0;
    return 260.0;
  });
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->steps.size(), 1u);
  EXPECT_EQ(s->steps[0].x_before, 256 * kKiB);
  EXPECT_EQ(s->steps[0].x_after, 512 * kKiB);
  EXPECT_THAT(s->transitions, ElementsAre(IndexOf(points, 384 * kKiB)));
  EXPECT_THAT(s->outliers, IsEmpty());
}

TEST(SegmentCurveTest, DownwardStepsHaveNegativeJumps) {
  // A bandwidth-like curve: high for small footprints, lower beyond.
  const std::vector<CurvePoint> points = MakeCurve(Footprints(), [](double x) {
    if (x <= 16 * kMiB) return 12000.0;
    if (x <= 48 * kMiB) return 5000.0;
    return 3000.0;
  });
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->steps.size(), 2u);
  EXPECT_EQ(s->steps[0].x_before, 16 * kMiB);
  EXPECT_EQ(s->steps[0].x_after, 24 * kMiB);
  EXPECT_DOUBLE_EQ(s->steps[0].relative_jump, 5000.0 / 12000 - 1);
  EXPECT_EQ(s->steps[1].x_before, 48 * kMiB);
  EXPECT_EQ(s->steps[1].x_after, 64 * kMiB);
}

TEST(SegmentCurveTest, ShortCurveOfMostlyStepsKeepsItsPlateaus) {
  // Most neighbour differences are steps (a ramp, then three levels); they
  // must not be taken for noise, which would raise the penalty until the
  // whole curve is one segment.
  const std::vector<CurvePoint> points = {{1, 500},    {2, 1000},   {4, 2000},
                                          {8, 4000},   {16, 10000}, {32, 10000},
                                          {64, 10000}, {128, 6000}, {256, 6000},
                                          {512, 2700}, {1024, 2700}};
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->plateaus.size(), 3u);
  EXPECT_THAT(s->transitions, ElementsAre(0u, 1u, 2u, 3u));
  ASSERT_EQ(s->steps.size(), 2u);
  EXPECT_EQ(s->steps[0].x_before, 64);
  EXPECT_EQ(s->steps[0].x_after, 128);
  EXPECT_EQ(s->steps[1].x_before, 256);
  EXPECT_EQ(s->steps[1].x_after, 512);
}

TEST(SegmentCurveTest, ShortRunAtTheEndIsATransition) {
  const std::vector<CurvePoint> points = {
      {1, 30}, {2, 30}, {4, 30}, {8, 30}, {16, 300}};
  absl::StatusOr<Segmentation> s = SegmentCurve(points);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->plateaus.size(), 1u);
  EXPECT_THAT(s->steps, IsEmpty());
  EXPECT_THAT(s->transitions, ElementsAre(4u));
}

TEST(SegmentCurveTest, RejectsBadInput) {
  EXPECT_FALSE(SegmentCurve({}).ok());
  EXPECT_FALSE(SegmentCurve({{2, 1}, {1, 1}}).ok());
  EXPECT_FALSE(SegmentCurve({{1, 1}, {1, 1}}).ok());
  EXPECT_FALSE(SegmentCurve({{1, 0}}).ok());
  EXPECT_FALSE(SegmentCurve({{1, -3}}).ok());
  EXPECT_FALSE(
      SegmentCurve({{1, std::numeric_limits<double>::quiet_NaN()}}).ok());
  EXPECT_FALSE(SegmentCurve({{HUGE_VAL, 1}}).ok());
  ChangepointOptions bad;
  bad.min_relative_step = 0;
  EXPECT_FALSE(SegmentCurve({{1, 1}}, bad).ok());
}

}  // namespace
}  // namespace dissect::analysis
