// Checks of the machine code (SASS) of the SM-to-L2 map kernel
// (kernels/l2_map/l2_map.cu). Each problem is one line, so that a test can
// expect none on the kernel as built (l2_map_sass_test) and some on
// deliberately broken variants and on the kernel before the first-touch
// method (l2_map_sass_checks_test).
#ifndef DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_SASS_CHECKS_H_
#define DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_SASS_CHECKS_H_

#include <string>
#include <vector>

#include "probes/sass_inspect.h"

namespace dissect {

// L2MapKernel `f`:
// - its lap loop (the innermost loop that reads the clock) reads the clock
//   6 times, as 3 intervals: the empty one holds no load, the first touch
//   and the re-touch exactly one LDG each, and the loop no other load;
// - both LDGs are L2-only (LDG...STRONG.GPU, what ld.global.cg becomes; an
//   L1-cached re-touch would time L1) and 64-bit, the re-touch at
//   kL2MapRetouchOffset after the first touch's address (the same sector);
// - both are addressed by the re-touch's result, loop-carried, and no other
//   instruction in the loop writes that register pair (one dependent load
//   per hop, nothing else in the chain);
// - inside a timed interval nothing but its load and one instruction that
//   reads the load's result (the wait), and the interval's closing clock
//   read waits for the load.
std::vector<std::string> L2MapKernelProblems(const SassFunction& f);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_SASS_CHECKS_H_
