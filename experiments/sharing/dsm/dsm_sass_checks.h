// Checks of the machine code (SASS) of the DSM kernels (kernels/dsm/dsm.cu).
// Each returns the problems it found, one line each, so that tests can
// expect none on the kernels as built (dsm_sass_test) and some on broken
// listings (dsm_sass_checks_test).
#ifndef DISSECT_EXPERIMENTS_SHARING_DSM_DSM_SASS_CHECKS_H_
#define DISSECT_EXPERIMENTS_SHARING_DSM_DSM_SASS_CHECKS_H_

#include <string>
#include <vector>

#include "probes/sass_inspect.h"

namespace dissect {

// DsmChase `f` of a path whose hop is `op` (LD for dsm_peer: a generic
// LD.E.64 of a 64-bit shared-window address; LDS for shared_local; LDG for
// l2):
// - exactly kChaseSegments innermost timed loops hold `op`, each with
//   exactly kChaseUnroll of it and no other load;
// - each hop is the load alone: its address registers are the previous
//   hop's result as loaded (all of a 64-bit address: the previous load is
//   as wide), and no instruction between two hops writes them: no copy, no
//   pairing with the shared window's upper word, no arithmetic (each would
//   add its latency to every hop);
// - no PRMT (what mapa.shared::cluster becomes) inside a timed loop, and at
//   least one before the first (`expect_mapa`: the peer is mapped outside);
// - the clock read after each timed loop waits for its last load (an
//   instruction reads that load's result first).
std::vector<std::string> DsmChaseProblems(const SassFunction& f, const std::string& op,
                                          bool expect_mapa);

// DsmStream `f` whose 16-byte load is `op` (LD or LDS, with modifier 128):
// the innermost loop with the most of them holds exactly `unroll` and lies
// inside another loop (the passes), so ptxas did not hoist the loads out of
// the pass loop; the loop holds no other load.
std::vector<std::string> DsmStreamProblems(const SassFunction& f, const std::string& op,
                                           int unroll);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_DSM_DSM_SASS_CHECKS_H_
