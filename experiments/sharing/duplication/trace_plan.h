// The host plan of one traced launch (l1_duplication): which
// tensors are traced as LineTrace regions, how many lines they span, and
// what the per-SM bitmaps cost; and the check of the blocks' SM ids that
// the traced launch wrote back. CPU only (no CUDA), so that it is tested
// here.
#ifndef DISSECT_EXPERIMENTS_SHARING_DUPLICATION_TRACE_PLAN_H_
#define DISSECT_EXPERIMENTS_SHARING_DUPLICATION_TRACE_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/line_trace.cuh"

namespace dissect {

// A tensor the kernel loads: [base, base + bytes) of device memory.
struct TracedTensor {
  std::string name;  // "x", "weights", "index"
  uint64_t base = 0;
  uint64_t bytes = 0;
};

struct TracePlan {
  // Regions, words_per_sm and sm_slots filled; bitmaps and block_sm null
  // (the experiment points them at device memory).
  LineTrace trace;
  std::vector<std::string> region_names;
  uint64_t lines = 0;         // lines of all regions together
  uint64_t traced_bytes = 0;  // bytes of all regions together
  uint64_t bitmap_bytes = 0;  // sm_slots x words_per_sm x 4
};

// One region per tensor with bytes > 0, in order, numbered on from the
// previous region's last line (RegionLines). InvalidArgument for sm_slots <
// 1, no tensor with bytes, more than kMaxTraceRegions of them, or
// overlapping tensors (a line would count twice); ResourceExhausted when
// the bitmaps would exceed max_bitmap_bytes.
absl::StatusOr<TracePlan> PlanTrace(const std::vector<TracedTensor>& tensors, int sm_slots,
                                    uint64_t max_bitmap_bytes);

// The SM slots that hold every block's SM: the highest id in `block_sm`
// (RecordBlockSm's output) + 1. Internal error for a block that recorded
// no SM (a negative id: the traced launch did not run it) or for no block.
absl::StatusOr<int> SmSlotsNeeded(const std::vector<int>& block_sm);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_DUPLICATION_TRACE_PLAN_H_
