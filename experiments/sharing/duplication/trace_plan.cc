// The host plan of one traced launch (see trace_plan.h).
#include "experiments/sharing/duplication/trace_plan.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "probes/duplication/line_bitmap.h"

namespace dissect {

absl::StatusOr<TracePlan> PlanTrace(const std::vector<TracedTensor>& tensors, int sm_slots,
                                    uint64_t max_bitmap_bytes) {
  if (sm_slots < 1) {
    return absl::InvalidArgumentError(absl::StrCat("sm_slots must be >= 1 (got ", sm_slots, ")"));
  }
  TracePlan plan;
  for (const TracedTensor& t : tensors) {
    if (t.bytes == 0) continue;
    if (plan.trace.region_count == kMaxTraceRegions) {
      return absl::InvalidArgumentError(
          absl::StrCat("more than ", kMaxTraceRegions, " traced tensors"));
    }
    for (int r = 0; r < plan.trace.region_count; ++r) {
      const TraceRegion& g = plan.trace.regions[r];
      if (t.base < g.base + g.bytes && g.base < t.base + t.bytes) {
        return absl::InvalidArgumentError(
            absl::StrCat("traced tensors ", plan.region_names[r], " and ", t.name, " overlap"));
      }
    }
    TraceRegion& region = plan.trace.regions[plan.trace.region_count++];
    region.base = t.base;
    region.bytes = t.bytes;
    region.first_line = plan.lines;
    plan.lines += RegionLines(t.base, t.bytes);
    plan.traced_bytes += t.bytes;
    plan.region_names.push_back(t.name);
  }
  if (plan.trace.region_count == 0) return absl::InvalidArgumentError("no tensor to trace");
  plan.trace.words_per_sm = WordsForLines(plan.lines);
  plan.trace.sm_slots = sm_slots;
  const uint64_t row_bytes = plan.trace.words_per_sm * sizeof(uint32_t);
  if (row_bytes > max_bitmap_bytes / static_cast<uint64_t>(sm_slots)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the line bitmaps would take ", sm_slots, " SMs x ", row_bytes, " B (", plan.lines,
        " lines of ", plan.traced_bytes, " B traced), above the ", max_bitmap_bytes, " B limit"));
  }
  plan.bitmap_bytes = row_bytes * sm_slots;
  return plan;
}

absl::StatusOr<int> SmSlotsNeeded(const std::vector<int>& block_sm) {
  if (block_sm.empty()) return absl::InternalError("the traced launch had no block");
  int highest = -1;
  for (size_t b = 0; b < block_sm.size(); ++b) {
    if (block_sm[b] < 0) {
      return absl::InternalError(
          absl::StrCat("block ", b, " of the traced launch recorded no SM (did it run?)"));
    }
    highest = std::max(highest, block_sm[b]);
  }
  return highest + 1;
}

}  // namespace dissect
