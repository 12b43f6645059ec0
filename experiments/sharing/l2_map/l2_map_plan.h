// The l2_sm_map method as data: which loads one launch issues, in which
// order, and which of them are timed. kernels/l2_map follows this plan (its
// arguments come from it: L2MapKernelArgs); l2_map_method_test replays the
// same plan on a simulated L2 with near copies (near_copy_l2_model.h), so
// the method, not only its arithmetic, is tested without a GPU.
//
// One launch measures one SM. It repeats `laps` times:
//  1. the sweep: every 32-byte sector of a separate buffer of sweep_bytes
//     (more than one L2 partition, less than the whole L2) is loaded once,
//     L2-only, by the whole block; none of it is timed. Its lines homed in
//     the far partition are copied into the SM's near partition and push
//     out the copies the measured lines left there (the previous lap's, or
//     another SM's launch);
//  2. the lap: for each measured line in ring order, three timed intervals
//     of one thread: an empty one (the fixed cost of the clock reads and
//     the wait), the first touch of the line (near if the line is homed in
//     the SM's near partition, far otherwise: no copy is left), and a
//     re-touch of the same sector (now always near: what the old method
//     timed). Each line holds the address of the next one, so each timed
//     load is addressed by the previous lap step's result.
#ifndef DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_PLAN_H_
#define DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_PLAN_H_

#include <cstdint>
#include <vector>

#include "kernels/l2_map/l2_map.h"

namespace dissect {

struct L2MapPlan {
  // Byte offsets of the measured lines in their buffer, in lap order.
  std::vector<uint64_t> line_offsets;
  uint64_t sweep_bytes = 0;  // a multiple of kL2MapSweepGrainBytes
  int laps = 0;
};

// lines measured lines (L2MapLineOffsets, one per kL2MapPageBytes page),
// `laps` laps, and a sweep of sweep_percent % of l2_bytes rounded down to
// a multiple of kL2MapSweepGrainBytes (64 KiB: whole trips of the block).
L2MapPlan MakeL2MapPlan(int lines, int laps, uint64_t l2_bytes, int sweep_percent);

enum class L2MapLoad { kSweep, kFirstTouch, kRetouch };

struct L2MapAccess {
  uint64_t address = 0;
  L2MapLoad load = L2MapLoad::kSweep;
  int lap = -1;   // timed loads only
  int line = -1;  // timed loads only: the position in the lap
};

// The loads of one launch in the plan's order: per lap, the sweep's sectors
// in address order (in the kernel, many threads issue them at once; any
// order pushes out a least-recently-used copy as long as the sweep is long
// enough), then each line's first touch and re-touch. The empty interval
// loads nothing and is not listed.
std::vector<L2MapAccess> L2MapAccesses(const L2MapPlan& plan, uint64_t lines_base,
                                       uint64_t sweep_base);

// The words of the measured lines' buffer of `words` words at device
// address `base`: the word at each line offset and the one
// kL2MapRetouchOffset after it hold the address of the next line in lap
// order (the last line: the first), every other word is 0.
std::vector<unsigned long long> L2MapRingImage(uint64_t base, const std::vector<uint64_t>& offsets,
                                               uint64_t words);

// One launch's raw clock deltas, each indexed lap * lines + line.
struct L2MapLapCycles {
  std::vector<double> empty;
  std::vector<double> first_touch;
  std::vector<double> retouch;
};

// Per line: the median over laps of first touch (or re-touch) minus the
// same step's empty interval. Empty if the sizes do not match lines x laps.
struct L2MapLineCycles {
  std::vector<double> first_touch;
  std::vector<double> retouch;
};
L2MapLineCycles ReduceL2MapLaps(const L2MapLapCycles& raw, int lines, int laps);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_PLAN_H_
