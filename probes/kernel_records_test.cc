#include "probes/kernel_records.h"

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

KernelRecord Make(const std::string& name, uint64_t start_ns, uint64_t end_ns,
                  uint32_t correlation_id = 0) {
  KernelRecord r;
  r.name = name;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.correlation_id = correlation_id;
  return r;
}

std::vector<uint32_t> Correlations(const std::vector<KernelRecord>& records) {
  std::vector<uint32_t> out;
  for (const KernelRecord& r : records) out.push_back(r.correlation_id);
  return out;
}

TEST(KernelRecordTest, DurationInMilliseconds) {
  EXPECT_DOUBLE_EQ(Make("k", 1000, 51'001'000).duration_ms(), 51.0);
  EXPECT_DOUBLE_EQ(Make("k", 5, 6).duration_ms(), 1e-6);
  EXPECT_EQ(Make("k", 7, 7).duration_ms(), 0);
  EXPECT_EQ(Make("k", 9, 3).duration_ms(), 0);  // never negative
}

TEST(DemangleKernelNameTest, DemanglesCxxNames) {
  EXPECT_EQ(DemangleKernelName("_Z10SpinKernelmPm"),
            "SpinKernel(unsigned long, unsigned long*)");
  EXPECT_EQ(DemangleKernelName("_ZN7dissect12_GLOBAL__N_110SpinKernelEmPm"),
            "dissect::(anonymous namespace)::SpinKernel(unsigned long, "
            "unsigned long*)");
}

TEST(DemangleKernelNameTest, KeepsOtherNames) {
  EXPECT_EQ(DemangleKernelName("relu_kernel"), "relu_kernel");  // extern "C"
  EXPECT_EQ(DemangleKernelName("_Z_not_a_name("), "_Z_not_a_name(");
  EXPECT_EQ(DemangleKernelName(""), "");
  // Already demangled (CUPTI can be asked to demangle itself).
  EXPECT_EQ(DemangleKernelName("SpinKernel(unsigned long)"),
            "SpinKernel(unsigned long)");
}

TEST(KernelRecordCollectorTest, TakeSortsByStartAndForgets) {
  KernelRecordCollector collector;
  collector.Add(Make("b", 300, 400, 3));
  collector.Add(Make("a", 100, 200, 1));
  collector.Add(Make("c", 300, 350, 2));  // same start: correlation id order
  absl::StatusOr<std::vector<KernelRecord>> taken = collector.Take();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_THAT(Correlations(*taken), ElementsAre(1, 2, 3));
  taken = collector.Take();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_TRUE(taken->empty());
}

TEST(KernelRecordCollectorTest, UntimedRecordsFailTheTake) {
  KernelRecordCollector collector;
  collector.Add(Make("ok", 100, 200));
  collector.Add(Make("no start", 0, 200));
  collector.Add(Make("no end", 100, 0));
  collector.Add(Make("backwards", 300, 200));
  absl::StatusOr<std::vector<KernelRecord>> taken = collector.Take();
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(taken.status().message(),
              HasSubstr("3 kernel record(s) came without valid timestamps"));
  EXPECT_THAT(taken.status().message(), HasSubstr("the 1 complete record"));
  // The failure forgets the period: the next Take starts clean.
  collector.Add(Make("later", 500, 600));
  taken = collector.Take();
  ASSERT_TRUE(taken.ok()) << taken.status();
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].name, "later");
}

TEST(KernelRecordCollectorTest, DroppedRecordsFailTheTake) {
  KernelRecordCollector collector;
  collector.Add(Make("ok", 100, 200));
  collector.AddDropped(0);
  ASSERT_TRUE(collector.Take().ok());
  collector.AddDropped(5);
  collector.AddDropped(2);
  absl::StatusOr<std::vector<KernelRecord>> taken = collector.Take();
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(taken.status().message(),
              HasSubstr("CUPTI dropped 7 activity record(s)"));
  EXPECT_TRUE(collector.Take().ok());
}

TEST(KernelRecordCollectorTest, FirstErrorWins) {
  KernelRecordCollector collector;
  collector.Add(Make("ok", 100, 200));
  collector.AddError(absl::OkStatus());  // ignored
  collector.AddError(absl::InvalidArgumentError("first"));
  collector.AddError(absl::InternalError("second"));
  collector.AddDropped(1);
  absl::StatusOr<std::vector<KernelRecord>> taken = collector.Take();
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status(), absl::InvalidArgumentError("first"));
  EXPECT_TRUE(collector.Take().ok());
}

TEST(KernelRecordCollectorTest, ResetForgetsEverything) {
  KernelRecordCollector collector;
  collector.Add(Make("ok", 100, 200));
  collector.Add(Make("untimed", 0, 0));
  collector.AddDropped(3);
  collector.AddError(absl::InternalError("x"));
  collector.Reset();
  absl::StatusOr<std::vector<KernelRecord>> taken = collector.Take();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_TRUE(taken->empty());
}

TEST(KernelRecordCollectorTest, ConcurrentAdds) {
  KernelRecordCollector collector;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&collector, t] {
      for (int i = 0; i < 1000; ++i) {
        const uint64_t start = 1 + static_cast<uint64_t>(i) * 4 + t;
        collector.Add(Make("k", start, start + 10));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  absl::StatusOr<std::vector<KernelRecord>> taken = collector.Take();
  ASSERT_TRUE(taken.ok()) << taken.status();
  ASSERT_EQ(taken->size(), 4000u);
  for (size_t i = 1; i < taken->size(); ++i) {
    EXPECT_LT((*taken)[i - 1].start_ns, (*taken)[i].start_ns);
  }
}

TEST(KernelSelectionTest, MatchingAndDurations) {
  const std::vector<KernelRecord> records = {
      Make("dissect::ReluKernel(float const*, float*, unsigned long)", 0 + 1,
           2'000'001, 1),
      Make("dissect::FillUniformKernel(float*)", 10, 20, 2),
      Make("dissect::ReluKernel(float const*, float*, unsigned long)",
           5'000'000, 8'000'000, 3)};
  EXPECT_THAT(Correlations(MatchingKernels(records, "ReluKernel")),
              ElementsAre(1, 3));
  EXPECT_THAT(Correlations(MatchingKernels(records, "")), ElementsAre(1, 2, 3));
  EXPECT_TRUE(MatchingKernels(records, "Gemm").empty());
  EXPECT_THAT(KernelDurationsMs(records, "ReluKernel"),
              ElementsAre(DoubleNear(2.0, 1e-12), DoubleNear(3.0, 1e-12)));
}

TEST(LaunchSpansMsTest, OneKernelPerLaunch) {
  absl::StatusOr<std::vector<double>> spans = LaunchSpansMs(
      {Make("k", 1'000'000, 3'000'000), Make("k", 5'000'000, 6'500'000)}, 2);
  ASSERT_TRUE(spans.ok()) << spans.status();
  EXPECT_THAT(*spans,
              ElementsAre(DoubleNear(2.0, 1e-12), DoubleNear(1.5, 1e-12)));
}

TEST(LaunchSpansMsTest, SeveralKernelsPerLaunchSpanFirstStartToLastEnd) {
  // Two launches of two kernels each; the second kernel of launch 1 ends
  // before the first (concurrent kernels).
  absl::StatusOr<std::vector<double>> spans = LaunchSpansMs(
      {Make("a", 1'000'000, 4'000'000), Make("b", 2'000'000, 3'000'000),
       Make("a", 10'000'000, 11'000'000), Make("b", 11'000'000, 12'500'000)},
      2);
  ASSERT_TRUE(spans.ok()) << spans.status();
  EXPECT_THAT(*spans,
              ElementsAre(DoubleNear(3.0, 1e-12), DoubleNear(2.5, 1e-12)));
}

TEST(LaunchSpansMsTest, UnevenSplitFails) {
  const std::vector<KernelRecord> three = {Make("k", 1, 2), Make("k", 3, 4),
                                           Make("k", 5, 6)};
  EXPECT_EQ(LaunchSpansMs(three, 2).status(),
            absl::InvalidArgumentError(
                "3 kernel record(s) cannot be split evenly into 2 launch(es)"));
  EXPECT_FALSE(LaunchSpansMs(three, 0).ok());
  EXPECT_FALSE(LaunchSpansMs({}, 1).ok());
}

TEST(SummarizeKernelDurationsTest, SummarizesMatchingRecords) {
  const std::vector<KernelRecord> records = {
      Make("Spin", 0 + 1, 50'000'001), Make("Other", 1, 1'000'000'000),
      Make("Spin", 100'000'000, 152'000'000),
      Make("Spin", 200'000'000, 251'000'000)};
  absl::StatusOr<KernelDurationSummary> s =
      SummarizeKernelDurations(records, "Spin");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->count, 3u);
  EXPECT_NEAR(s->total_ms, 153.0, 1e-9);
  EXPECT_NEAR(s->min_ms, 50.0, 1e-9);
  EXPECT_NEAR(s->median_ms, 51.0, 1e-9);
  EXPECT_NEAR(s->max_ms, 52.0, 1e-9);
}

TEST(SummarizeKernelDurationsTest, NoMatchNamesTheKernelsSeen) {
  absl::StatusOr<KernelDurationSummary> s = SummarizeKernelDurations(
      {Make("B", 1, 2), Make("A", 1, 2), Make("A", 3, 4)}, "Spin");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.status().message(),
            "no kernel record whose name contains 'Spin' among 3 record(s) "
            "(kernels: A, B)");
  s = SummarizeKernelDurations({}, "Spin");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "no kernel record whose name contains 'Spin' among 0 record(s)");
}

TEST(AgreementPercentTest, SignedPercentOfEventTiming) {
  EXPECT_DOUBLE_EQ(AgreementPercent(100, 100), 0);
  EXPECT_DOUBLE_EQ(AgreementPercent(98, 100), -2);
  EXPECT_DOUBLE_EQ(AgreementPercent(51.5, 50), 3);
  EXPECT_TRUE(std::isnan(AgreementPercent(1, 0)));
  EXPECT_TRUE(std::isnan(AgreementPercent(1, -1)));
  EXPECT_TRUE(std::isnan(AgreementPercent(std::nan(""), 1)));
  EXPECT_TRUE(std::isnan(AgreementPercent(1, HUGE_VAL)));
}

TEST(CheckAgreementTest, PassesWithinTolerance) {
  absl::StatusOr<std::vector<double>> pct =
      CheckAgreement({49.9, 50.0, 51.4}, {50.0, 50.5, 50.0}, 3);
  ASSERT_TRUE(pct.ok()) << pct.status();
  EXPECT_THAT(*pct,
              ElementsAre(DoubleNear(-0.2, 1e-9), DoubleNear(-0.990099, 1e-6),
                          DoubleNear(2.8, 1e-9)));
}

TEST(CheckAgreementTest, FailsOnTheFirstPairOutside) {
  absl::StatusOr<std::vector<double>> pct =
      CheckAgreement({50, 45, 60}, {50, 50, 50}, 3);
  ASSERT_FALSE(pct.ok());
  EXPECT_EQ(pct.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(pct.status().message(),
            "launch 1: CUPTI activity 45 ms vs CUDA events 50 ms differ by "
            "-10%, more than 3%");
}

TEST(CheckAgreementTest, FailsOnBadInput) {
  EXPECT_EQ(CheckAgreement({1, 2}, {1}, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckAgreement({}, {}, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A NaN never agrees.
  EXPECT_EQ(CheckAgreement({1}, {0}, 3).status().code(),
            absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace dissect
