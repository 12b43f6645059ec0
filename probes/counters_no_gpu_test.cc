// Setting counters up on a machine without a GPU fails with the "no GPU"
// cause instead of crashing (skipped where a GPU is visible), and requested
// metrics map onto a chip's names, or are skipped with the catalog's reason,
// without a GPU or CUPTI.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "probes/counters.h"
#include "probes/cupti_status.h"
#include "probes/metric_catalog.h"

namespace dissect {
namespace {

TEST(CuptiCountersTest, NoGpuIsClassified) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    GTEST_SKIP() << "a GPU is visible; this test covers its absence";
  }
  auto metrics = MetricCatalog::Embedded().Resolve("dram");
  ASSERT_TRUE(metrics.ok());
  auto counters = CuptiCounters::Create(0, *metrics);
  ASSERT_FALSE(counters.ok());
  EXPECT_EQ(CounterCauseOf(counters.status()), CounterCause::kNoGpu)
      << counters.status();
  EXPECT_NE(counters.status().message().find("no usable GPU"),
            absl::string_view::npos)
      << counters.status();
}

TEST(CuptiCountersTest, NoMetricsIsAnError) {
  EXPECT_EQ(CuptiCounters::Create(0, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

std::vector<std::string> SkippedNames(const ChipCounterPlan& plan) {
  std::vector<std::string> names;
  for (const SkippedCounter& s : plan.skipped) names.push_back(s.name);
  return names;
}

TEST(PlanCountersTest, AmpereSkipsTheHopperOnlyStallWithItsReason) {
  auto metrics =
      MetricCatalog::Embedded().Resolve("dram_bytes_read,stall_gmma,ipc");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  auto plan = PlanCounters(*metrics, "GA100");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->perfworks,
            (std::vector<std::string>{"dram__bytes_read.sum",
                                      "sm__inst_executed.avg.per_cycle_active"}));
  ASSERT_EQ(SkippedNames(*plan), std::vector<std::string>{"stall_gmma"});
  EXPECT_NE(plan->skipped[0].reason.find("Hopper-only"), std::string::npos)
      << plan->skipped[0].reason;
}

TEST(PlanCountersTest, GeForceBlackwellReadsDramUnderItsOwnName) {
  auto metrics = MetricCatalog::Embedded().Resolve("dram");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  auto plan = PlanCounters(*metrics, "GB202");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->perfworks,
            (std::vector<std::string>{"dram__bytes_op_read.sum",
                                      "dram__bytes_op_write.sum"}));
  EXPECT_TRUE(plan->skipped.empty());
}

TEST(PlanCountersTest, EveryCatalogChipPlansGroupAll) {
  const MetricCatalog& catalog = MetricCatalog::Embedded();
  auto all = catalog.Resolve("all");
  ASSERT_TRUE(all.ok()) << all.status();
  for (const auto& [chip, unused] : catalog.chips()) {
    auto plan = PlanCounters(*all, chip);
    ASSERT_TRUE(plan.ok()) << chip << ": " << plan.status();
    EXPECT_EQ(plan->collected.size() + plan->skipped.size(), all->size())
        << chip;
  }
}

TEST(PlanCountersTest, AChipOutsideTheCatalogIsUnknownChip) {
  auto metrics = MetricCatalog::Embedded().Resolve("dram");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  auto plan = PlanCounters(*metrics, "GV100");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(CounterCauseOf(plan.status()), CounterCause::kUnknownChip);
  EXPECT_NE(plan.status().message().find("chip GV100 is not in the metric "
                                         "catalog"),
            absl::string_view::npos)
      << plan.status();
}

TEST(PlanCountersTest, NothingLeftToCollectNamesEachReason) {
  auto metrics = MetricCatalog::Embedded().Resolve("stall_gmma,stall_imc_miss");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  auto plan = PlanCounters(*metrics, "GB100");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(CounterCauseOf(plan.status()), CounterCause::kUnknownChip);
  const std::string message(plan.status().message());
  EXPECT_NE(message.find("none of the requested metrics exists on chip GB100: "
                         "stall_gmma: "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("; stall_imc_miss: "), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace
}  // namespace dissect
