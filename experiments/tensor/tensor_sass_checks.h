// SASS (machine code) checks of the tensor-core probe kernels, as statuses
// so that tests can show them failing on defective code (testdata/*.sass)
// as well as passing on the current archives (sass_test.cc).
#ifndef DISSECT_EXPERIMENTS_TENSOR_TENSOR_SASS_CHECKS_H_
#define DISSECT_EXPERIMENTS_TENSOR_TENSOR_SASS_CHECKS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "probes/sass_inspect.h"

namespace dissect {

// The SASS ops of tensor-core instructions (sparse forms carry .SP):
// mma.sync as HMMA / IMMA (QMMA: native fp8, sm_89), wgmma as HGMMA /
// IGMMA / QGMMA.
const std::vector<std::string>& TensorOps();

// The timed loop of `f`: among the innermost loops that lie between its
// first and last clock read, the one with the most tensor instructions.
// NotFound if there is none.
absl::StatusOr<SassLoop> TimedTensorLoop(const SassFunction& f);

// OK if the timed loop holds exactly `want` tensor instructions (chains ×
// steps per trip), or a multiple of `want` where `allow_multiple` (a loop
// ptxas unrolled further: every step is still timed, in fewer trips); else
// an error that lists the loop.
absl::Status CheckTimedTensorCount(const SassFunction& f, int want, bool allow_multiple = false);

// Checks the start of the timed region, where the first clock read must
// find the operands loaded and the accumulators set:
//  - no instruction after the first clock read and before the head of the
//    timed loop loads from memory (LDG, LDS, LDSM, LD, LDL: its latency
//    would land in the timed span; LDC reads of kernel parameters, whose
//    constant-cache line the kernel has already read, are allowed);
//  - none of them writes an accumulator: a register among the `acc_regs`
//    registers that start at the destination of each tensor instruction of
//    the loop (its D, which is its C). A write covers 2 registers for CS2R
//    and .64 opcodes, 4 for .128 ones, else 1;
//  - the loads issued before the first clock read have been waited for: a
//    tensor instruction (the untimed step, which reads the loaded
//    fragments) lies between the last such load and the clock read.
// OK if so; else an error naming the offending instructions.
absl::Status CheckTimedRegionStart(const SassFunction& f, int acc_regs);

// The distinct A/B operand sources of the timed loop's tensor
// instructions, each as text: for HMMA / IMMA / QMMA the A and B registers
// ("R4 R2"); for HGMMA / IGMMA / QGMMA with A from shared memory the one
// descriptor operand that names both tiles ("gdesc[UR8]"), with A from
// registers A's register and B's descriptor ("R40 gdesc[UR8]"). `.reuse`
// is dropped. NotFound if `f` has no timed tensor loop.
absl::StatusOr<std::vector<std::string>> TimedFragments(const SassFunction& f);

// OK if the timed loop's tensor instructions read at least `min_fragments`
// distinct A/B fragments (TimedFragments): different registers or
// descriptors, so that the multipliers' inputs change from one instruction
// to the next as in a GEMM. Else an error that lists the loop.
absl::Status CheckTimedFragments(const SassFunction& f, int min_fragments);

// OK if the timed loop of `cycling` holds no more instructions that are
// not tensor instructions (NOPs aside) than that of `constant`, the same
// kernel with one fragment: cycling the operands must not put address
// arithmetic or moves into the timed loop. Else an error listing both.
absl::Status CheckNoAddedLoopWork(const SassFunction& constant, const SassFunction& cycling);

// How many instructions of `f` have op `op`.
int CountOp(const SassFunction& f, const std::string& op);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_TENSOR_SASS_CHECKS_H_
