// CPU tests of the pointer-chase host side: the fit of cycles against loop
// length (its slope is free of the fixed per-launch offset), the choice of
// SM clock, and point validation.
#include "experiments/chase_common.h"

#include <optional>
#include <vector>

#include "gtest/gtest.h"

namespace dissect {
namespace {

constexpr uint64_t kLoads = 4096;

// One launch: segment s takes overhead + cycles_per_load * (kLoads << s)
// cycles; the two segments take span_ns.
ChaseTiming Launch(double cycles_per_load, double overhead, uint64_t span_ns) {
  ChaseTiming t{};
  for (int s = 0; s < kChaseSegments; ++s) {
    t.cycles[s] = static_cast<unsigned long long>(overhead + cycles_per_load * (kLoads << s));
  }
  t.span_cycles = t.cycles[0] + t.cycles[1];
  t.span_ns = span_ns;
  return t;
}

TEST(ReduceChaseTimingsTest, SlopeIsCyclesPerLoadAndInterceptTheOverhead) {
  // 600 cycles of fixed cost: cycles / loads would read 30.15, not 30.
  const std::vector<ChaseTiming> timings = {Launch(30, 600, 1'000'000), Launch(31, 500, 1'000'000)};
  absl::StatusOr<ChaseLatencySamples> s = ReduceChaseTimings(timings, kLoads, std::nullopt, 0);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->cycles_per_load.size(), 2u);
  EXPECT_DOUBLE_EQ(s->cycles_per_load[0], 30);
  EXPECT_DOUBLE_EQ(s->cycles_per_load[1], 31);
  EXPECT_DOUBLE_EQ(s->overhead_cycles[0], 600);
  EXPECT_DOUBLE_EQ(s->overhead_cycles[1], 500);
}

TEST(ReduceChaseTimingsTest, ClockFromTheTimersWhenTheSpanIsLongEnough) {
  ChaseTiming t = Launch(30, 0, 0);
  t.span_cycles = 198'000'000;
  t.span_ns = 100'000'000;  // 1980 MHz
  absl::StatusOr<ChaseLatencySamples> s = ReduceChaseTimings({t}, kLoads, 1500.0, 2000);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->clock_source, ChaseClockSource::kTimers);
  ASSERT_EQ(s->clock_mhz.size(), 1u);
  EXPECT_DOUBLE_EQ(s->clock_mhz[0], 1980);
  EXPECT_DOUBLE_EQ(s->ns_per_load[0], 30 * 1e3 / 1980);
}

TEST(ReduceChaseTimingsTest, ChaseShorterThanATimerTickUsesTheNvmlClock) {
  // span_ns 0: shorter than one %globaltimer tick; 20 us: too short to trust.
  const std::vector<ChaseTiming> timings = {Launch(30, 100, 0), Launch(30, 100, 20'000)};
  absl::StatusOr<ChaseLatencySamples> s = ReduceChaseTimings(timings, kLoads, 1500.0, 1980);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->clock_source, ChaseClockSource::kNvml);
  EXPECT_EQ(s->clock_mhz, std::vector<double>{1500});
  EXPECT_DOUBLE_EQ(s->ns_per_load[0], 20);
  EXPECT_DOUBLE_EQ(s->ns_per_load[1], 20);
}

TEST(ReduceChaseTimingsTest, WithoutNvmlTheRatedClockIsUsedAndSaid) {
  absl::StatusOr<ChaseLatencySamples> s =
      ReduceChaseTimings({Launch(30, 100, 0)}, kLoads, std::nullopt, 1980);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->clock_source, ChaseClockSource::kRated);
  EXPECT_EQ(s->clock_mhz, std::vector<double>{1980});
}

TEST(ReduceChaseTimingsTest, ShortLaunchesTakeTheMedianOfTheLongOnes) {
  ChaseTiming long_launch = Launch(40, 0, 0);
  long_launch.span_cycles = 2'000'000;
  long_launch.span_ns = 1'000'000;  // 2000 MHz
  const std::vector<ChaseTiming> timings = {long_launch, Launch(40, 0, 10)};
  absl::StatusOr<ChaseLatencySamples> s = ReduceChaseTimings(timings, kLoads, 1000.0, 1000);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->clock_source, ChaseClockSource::kTimers);
  EXPECT_EQ(s->clock_mhz, std::vector<double>{2000});
  EXPECT_DOUBLE_EQ(s->ns_per_load[0], 20);
  EXPECT_DOUBLE_EQ(s->ns_per_load[1], 20);
}

TEST(ReduceChaseTimingsTest, NothingToReduceIsAnError) {
  EXPECT_FALSE(ReduceChaseTimings({}, kLoads, 1500.0, 1980).ok());
  EXPECT_FALSE(ReduceChaseTimings({Launch(30, 0, 0)}, 0, 1500.0, 1980).ok());
}

TEST(TraceWarmupLoadsTest, WarmIsOneFullLapColdIsNone) {
  EXPECT_EQ(TraceWarmupLoads(4096, /*warm=*/true).value(), 4096u);
  EXPECT_EQ(TraceWarmupLoads(4096, /*warm=*/false).value(), 0u);
  EXPECT_EQ(TraceWarmupLoads(kMaxWarmupLoads + 1, /*warm=*/false).value(), 0u);
  EXPECT_TRUE(dissect::IsSkipped(TraceWarmupLoads(kMaxWarmupLoads + 1, /*warm=*/true).status()));
}

TEST(ChaseLoadsPerLaunchTest, SumsTheSegments) { EXPECT_EQ(ChaseLoadsPerLaunch(4096), 12288u); }

Point MakePoint(const std::string& path, int64_t stride, int64_t loads) {
  Point p;
  p.Add("path", path);
  p.Add("footprint_bytes", int64_t{1} << 20);
  p.Add("stride_bytes", stride);
  p.Add("loads", loads);
  return p;
}

TEST(ValidateChasePointTest, GlobalPathsNeedEightByteSlots) {
  EXPECT_TRUE(ValidateChasePoint(MakePoint("global_cg", 8, 16)).ok());
  EXPECT_TRUE(ValidateChasePoint(MakePoint("shared", 4, 16)).ok());
  EXPECT_TRUE(ValidateChasePoint(MakePoint("tex", 4, 16)).ok());
  const absl::Status s = ValidateChasePoint(MakePoint("ldg", 4, 16));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("multiple of 8 on path ldg"), std::string::npos) << s;
}

TEST(ValidateChasePointTest, LoadsAreAPositiveMultipleOfTheUnroll) {
  EXPECT_TRUE(ValidateChasePoint(MakePoint("shared", 128, 4096)).ok());
  EXPECT_FALSE(ValidateChasePoint(MakePoint("shared", 128, 0)).ok());
  EXPECT_FALSE(ValidateChasePoint(MakePoint("shared", 128, 1000)).ok());
}

TEST(ValidateChasePointTest, PageGroupsOnlyInPageLocalOrder) {
  Point p = MakePoint("global_cg", 2048, 16);
  p.Add("order", std::string("page_local"));
  p.Add("group_pages", int64_t{64});
  EXPECT_TRUE(ValidateChasePoint(p).ok());
  Point random = MakePoint("global_cg", 2048, 16);
  random.Add("order", std::string("random"));
  random.Add("group_pages", int64_t{64});
  EXPECT_FALSE(ValidateChasePoint(random).ok());
  random = MakePoint("global_cg", 2048, 16);
  random.Add("order", std::string("random"));
  random.Add("group_pages", int64_t{1});  // the default: no claim
  EXPECT_TRUE(ValidateChasePoint(random).ok());
  Point zero = MakePoint("global_cg", 2048, 16);
  zero.Add("order", std::string("page_local"));
  zero.Add("group_pages", int64_t{0});
  EXPECT_FALSE(ValidateChasePoint(zero).ok());
}

}  // namespace
}  // namespace dissect
