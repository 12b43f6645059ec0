// The instruction experiments' ops on the host: each `op` axis value's
// kernel op, its operands, the SASS sequence one chain step compiles to,
// and a CPU model of its chain, against which the experiments check every
// launch's final value (a folded or mis-emitted chain ends elsewhere).
#ifndef DISSECT_EXPERIMENTS_INSTRUCTIONS_INSTRUCTION_MODELS_H_
#define DISSECT_EXPERIMENTS_INSTRUCTIONS_INSTRUCTION_MODELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/axes.h"
#include "kernels/instruction_ops.h"

namespace dissect {

struct InstructionOpInfo {
  const char* name;  // the `op` axis value: "ffma"
  InstructionOp op;
  // What one chain step is in SASS on every architecture built (sm_80 to
  // sm_120), as the SASS test checks it:
  // "FFMA", "HFMA2 | HFMA2.MMA" (ptxas alternates the two forms).
  const char* sass_sequence;
  InstructionOperands operands;
  // How closely the device's final value must match the model's: 0 for
  // bit-exact ops; a relative tolerance for the approximate MUFU ops, whose
  // model is the exact function rounded to f32 at every step;
  // kFiniteOnly where the chain is chaotic (mufu_lg2: log2|x| has no stable
  // fixed point), so only a finite end value is checked.
  double tolerance = 0;
  // Set for an op whose independent chains ptxas merges into shared
  // instructions: throughput runs one chain per thread only, and other
  // `chains` values are skipped with this reason.
  const char* one_chain_reason = nullptr;
  // False where no value passes between steps (bar_sync: the barrier itself
  // orders them): the SASS test then checks the count of steps alone.
  bool value_chain = true;
  // Set for an op without a throughput row, with the reason its points are
  // skipped.
  const char* no_throughput_reason = nullptr;
  // The compute capability the op needs (90: thread-block clusters), 0 for
  // none; its latency points are skipped with the reason on older GPUs, and
  // its kernel is a stub in their code.
  int min_compute_capability = 0;
  // What needs it, for the framework's skip reason ("needs compute
  // capability 9.0 or newer for barrier.cluster ...; this GPU is 8.0").
  const char* needs = nullptr;
  // Set where the row is not one instruction's operand-to-result latency
  // (clock: a read takes no operand), saying what it is; a note of its own
  // on every row of the op.
  const char* quantity = nullptr;
  // Set where the chain's end value is not predictable (clock: it holds
  // clock values): CheckAgainstModel then refuses only the value the chain
  // ends at if every step is lost (ModelChain's, each read giving 0).
  bool unpredictable = false;
};

inline constexpr double kFiniteOnly = -1;

// Every op the kernels implement, in the `op` axis's order.
const std::vector<InstructionOpInfo>& InstructionOps();

// The `op` axis values.
std::vector<std::string> InstructionOpNames();

// The `op` axis and the `contention` axis (ContentionNames()), as both
// instruction experiments declare them.
AxisSpec InstructionOpAxis();
AxisSpec ContentionAxis();

// The op named `name`; InvalidArgument naming the ops for an unknown one.
absl::StatusOr<InstructionOpInfo> FindInstructionOp(absl::string_view name);

// The row note "sass_sequence: FFMA".
std::string SassSequenceNote(const InstructionOpInfo& info);

// One chain step of `op` on the host, on bit patterns (the low 32 bits for
// 32-bit ops), bit-exact with the device's instruction for the operands
// InstructionOps() uses (IEEE round to nearest even; fp16 through an exact
// double product).
unsigned long long ModelStep(InstructionOp op, unsigned long long x, unsigned long long a,
                             unsigned long long b);

// Whether `op` is a warp-level op (all 32 lanes run the chain together).
bool IsWarpOp(InstructionOp op);

// Whether `op` is an atomic (its chain runs on a word of memory as well).
bool IsAtomicOp(InstructionOp op);

// The chain's value after `steps` steps from `start`. For the clock op, the
// value with every read giving 0 (the seed's fold; ClockFold). For a
// warp-level op,
// lane `lane`'s value, the lanes of its warp starting at start + (i - lane)
// x lane_stride (i = 0..31); thread ops ignore lane and lane_stride.
unsigned long long ModelChain(InstructionOp op, const InstructionOperands& operands,
                              unsigned long long start, uint64_t steps, int lane = 0,
                              uint64_t lane_stride = 1);

// OK if `device` matches ModelChain(info.op, operands, ...) within `info`'s
// tolerance; else InternalError naming `what` and both values. `operands`
// are those the kernel ran with (info.operands, or SharedWordOperands').
absl::Status CheckAgainstModel(const InstructionOpInfo& info, const InstructionOperands& operands,
                               unsigned long long start, uint64_t steps,
                               unsigned long long device, absl::string_view what, int lane = 0,
                               uint64_t lane_stride = 1);

// The same check against ModelChain's value `want` for a chain of `steps`
// steps, computed once for many launches of one chain.
absl::Status CheckModelValue(const InstructionOpInfo& info, unsigned long long want,
                             uint64_t steps, unsigned long long device, absl::string_view what);

// OK if the second latency segment (twice the steps) took more cycles than
// the first and the first more than 0; else InternalError naming `what`.
// The check left for a chain whose end value cannot be modelled (clock).
absl::Status CheckSegmentsGrow(const ChaseTiming& timing, absl::string_view what);

// The operands an atomic's chains run with where lanes share its word
// (contention warp or all): every chain starts at 0 and adds or swaps in 0
// (seed, a and the seed stride 0), so that no lane's values depend on the
// order the hardware serves the lanes in: each atomic reads 0 and leaves
// 0, and every chain ends at 0.
InstructionOperands SharedWordOperands(const InstructionOperands& operands);

// The `contention` axis: which values exist, and the check that refuses a
// value other than "none" for an op that is not an atomic.
std::vector<std::string> ContentionNames();
absl::Status ValidateContention(absl::string_view op, absl::string_view contention);

// OK for the contentions the latency experiment measures (none, warp);
// a Skipped status with the reason for all.
absl::Status LatencyContentionMeasured(absl::string_view contention);

// The kernels' Contention for an axis value (ContentionNames()).
Contention ParseContention(absl::string_view contention);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_INSTRUCTIONS_INSTRUCTION_MODELS_H_
