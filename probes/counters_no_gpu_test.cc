// Setting counters up on a machine without a GPU fails with the "no GPU"
// cause instead of crashing. Skipped where a GPU is visible.
#include <cuda_runtime_api.h>

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

}  // namespace
}  // namespace dissect
