#include "experiments/sharing/duplication/trace_plan.h"

#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(PlanTraceTest, RegionsNumberLinesOnFromEachOther) {
  // x: 1000 B from an aligned base: 8 lines; weights: 200 B starting 64 B
  // into a line: bytes 64..263 of its first line, i.e. 3 lines; index:
  // empty, left out.
  const absl::StatusOr<TracePlan> plan =
      PlanTrace({{"x", 0x10000, 1000}, {"weights", 0x20040, 200}, {"index", 0x30000, 0}}, 4,
                uint64_t{1} << 30);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->trace.region_count, 2);
  EXPECT_EQ(plan->region_names, (std::vector<std::string>{"x", "weights"}));
  EXPECT_EQ(plan->trace.regions[0].base, 0x10000u);
  EXPECT_EQ(plan->trace.regions[0].bytes, 1000u);
  EXPECT_EQ(plan->trace.regions[0].first_line, 0u);
  EXPECT_EQ(plan->trace.regions[1].base, 0x20040u);
  EXPECT_EQ(plan->trace.regions[1].first_line, 8u);
  EXPECT_EQ(plan->lines, 11u);
  EXPECT_EQ(plan->traced_bytes, 1200u);
  EXPECT_EQ(plan->trace.words_per_sm, 1u);
  EXPECT_EQ(plan->trace.sm_slots, 4);
  EXPECT_EQ(plan->bitmap_bytes, 16u);
  EXPECT_EQ(plan->trace.bitmaps, nullptr);
  EXPECT_EQ(plan->trace.block_sm, nullptr);
}

TEST(PlanTraceTest, BitmapSizeGuard) {
  // 33 lines: 2 words per SM, 132 SMs: 1056 B.
  const std::vector<TracedTensor> x = {{"x", 0, 33 * 128}};
  const absl::StatusOr<TracePlan> fits = PlanTrace(x, 132, 1056);
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(fits->bitmap_bytes, 1056u);
  const absl::StatusOr<TracePlan> over = PlanTrace(x, 132, 1055);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(over.status().message().find("above the 1055 B limit"), std::string::npos)
      << over.status();
}

TEST(PlanTraceTest, RejectsBadInput) {
  EXPECT_EQ(PlanTrace({{"x", 0, 128}}, 0, 1 << 20).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanTrace({{"x", 0, 0}}, 4, 1 << 20).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanTrace({}, 4, 1 << 20).status().code(), absl::StatusCode::kInvalidArgument);
  const absl::StatusOr<TracePlan> overlap =
      PlanTrace({{"x", 0, 256}, {"weights", 128, 256}}, 4, 1 << 20);
  EXPECT_EQ(overlap.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(overlap.status().message(), "traced tensors x and weights overlap");
  // Adjacent is fine.
  EXPECT_TRUE(PlanTrace({{"x", 0, 256}, {"weights", 256, 256}}, 4, 1 << 20).ok());
  std::vector<TracedTensor> many;
  for (int i = 0; i <= kMaxTraceRegions; ++i) many.push_back({"t", uint64_t(i) * 1024, 128});
  EXPECT_EQ(PlanTrace(many, 4, 1 << 20).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SmSlotsNeededTest, HighestSmPlusOne) {
  EXPECT_EQ(*SmSlotsNeeded({0, 3, 1, 3}), 4);
  EXPECT_EQ(*SmSlotsNeeded({141}), 142);
  EXPECT_EQ(SmSlotsNeeded({}).status().code(), absl::StatusCode::kInternal);
  const absl::StatusOr<int> missing = SmSlotsNeeded({0, -1, 2});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(missing.status().message().find("block 1"), std::string::npos);
}

}  // namespace
}  // namespace dissect
