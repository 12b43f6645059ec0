// Checks of the machine code (SASS) of the pointer-chase kernels
// (kernels/pointer_chase.cu): each hop one load addressed by the previous
// load's result, and clocks that wait for the chase. Each returns the
// problems it found, one line each, so that a test can expect none on the
// kernels as built and some on the SASS from before the fix.
#ifndef DISSECT_EXPERIMENTS_CHASE_SASS_CHECKS_H_
#define DISSECT_EXPERIMENTS_CHASE_SASS_CHECKS_H_

#include <string>
#include <vector>

#include "kernels/pointer_chase.h"
#include "probes/sass_inspect.h"

namespace dissect {

// The fragment of a chase kernel's mangled name: kernel is "11ChaseKernel"
// or "16ChaseTraceKernel".
std::string Fragment(const char* kernel, ChasePath path);

// ChaseKernel `f` of the path whose load is `op` (LDS, LDG, TLD, LDC):
// - one innermost timed loop per segment (kChaseSegments) holds `op`, each
//   with exactly kChaseUnroll of it and no other load;
// - every hop is one load whose address register is the previous load's
//   destination (loop-carried), and no instruction between two loads
//   writes that address (or its upper half for a 64-bit address);
// - the end clock read after each loop waits for the last load (an
//   instruction reads its result first), and the start clock read before it
//   waits for the load that produced the value the loop starts from.
std::vector<std::string> ChaseKernelProblems(const SassFunction& f, const std::string& op);

// ChaseTraceKernel `f`: clock reads come in pairs, each pair around exactly
// one load (of `op`) whose result is read before the second read and whose
// address is read before the first; the timed loads form one chain.
std::vector<std::string> TraceKernelProblems(const SassFunction& f, const std::string& op);

// The cache operator of the global paths' timed loads, as ptxas emitted it:
// every LDG between the first and last clock read of `f` (ChaseKernel or
// ChaseTraceKernel of `path`) carries .STRONG.SM for global_ca (allocates
// in L1), .STRONG.GPU for global_cg (L2 only: a cg chase that hits L1 would
// report L1 latency as L2's) and .CONSTANT for ldg (the read-only path).
// No problems for the other paths, and none if `f` has no such LDG (the
// hop checks above count the loads).
std::vector<std::string> CacheOperatorProblems(const SassFunction& f, ChasePath path);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_CHASE_SASS_CHECKS_H_
