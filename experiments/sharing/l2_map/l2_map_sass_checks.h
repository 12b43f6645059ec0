// Checks of the machine code (SASS) of the SM-to-L2 map kernel
// (kernels/l2_map/l2_map.cu). Each problem is one line, so that a test can
// expect none on the kernel as built (l2_map_sass_test) and some on
// deliberately broken variants (l2_map_sass_checks_test).
#ifndef DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_SASS_CHECKS_H_
#define DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_SASS_CHECKS_H_

#include <string>
#include <vector>

#include "probes/sass_inspect.h"

namespace dissect {

// L2MapKernel `f`:
// - its timed loop (the innermost loop between clock reads holding LDGs)
//   holds exactly kL2MapUnroll LDGs and no other load;
// - every one is L2-only (LDG...STRONG.GPU, what ld.global.cg becomes) and
//   64-bit;
// - every hop is one LDG whose address register pair is the previous LDG's
//   destination (the loop's first: the last one's), and no other
//   instruction in the loop writes an LDG's address registers (no address
//   arithmetic between hops); at most kMaxLoopOverhead other instructions
//   (the trip counter, its compare, the branch);
// - the clock read before the loop waits for the (warm) load that produced
//   the loop's starting address, and the one after it for the last LDG.
inline constexpr int kMaxLoopOverhead = 4;
std::vector<std::string> L2MapKernelProblems(const SassFunction& f);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_SASS_CHECKS_H_
