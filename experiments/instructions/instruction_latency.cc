// Question: how many cycles does one instruction take from its operands to
//           its result, for the common arithmetic, logic, conversion,
//           warp-level and atomic instructions, and how many cycles apart
//           are back-to-back clock reads?
// Timed:    one thread of one block (one warp for the warp-level ops: shfl,
//           vote, match, redux; lane l starts at seed + l; 8 warps for
//           bar_sync and a cluster of 2 one-warp blocks for barrier_cluster,
//           whose steps pass no value: each barrier releases no warp before
//           all have reached it) runs a dependent chain of one op
//           (kernels/instruction_ops.cuh: one inline-PTX instruction per
//           step, x = op(x, a, b), x the previous step's result, the seed
//           and operands kernel arguments), 64 untimed steps and then two
//           timed segments of chain_length and 2 x chain_length steps in the
//           chase's timed core (kernels/timed_chase.cuh) at 128 steps a
//           loop trip (kInstructionUnroll): %clock64 is read
//           after the step before the segment has returned and after the
//           segment's last step has returned. latency_cycles is the slope
//           over the two segments and overhead_cycles the intercept (the
//           clock reads' and the loop's fixed cost), ReduceChaseTimings.
//           Every launch's final value is checked against a CPU model of
//           the same chain (instruction_models.h) before anything is
//           recorded.
// Expected: about 4 cycles for FFMA, FADD, FMUL, IMAD, IADD3, LOP3 and SHF
//           on Volta through Hopper; a few more for HFMA2, POPC and FLO;
//           DFMA about 8 on GPUs with full-rate FP64 (V100, A100, H100) and
//           more on the others; some tens for the special-function unit
//           (MUFU; mufu_sin adds its FMUL.RZ), the conversions (the f16
//           and bf16 rows time a round trip, two instructions) and the
//           warp-level ops (vote_ballot with its ISETP, redux_add with the
//           move from its uniform register); atomics on the thread's own
//           word (add: x = the word, the word += x; cas: x = the word, the
//           word = a where it equaled x) some tens of cycles in shared
//           memory and some hundreds in global memory (L2).
//           contention=warp runs the atomic chain on a warp whose 32 lanes
//           share the word (every chain starts at 0 and adds or swaps in
//           0, so the CPU check stays exact whatever order the hardware
//           serves the lanes in; the row's note says so); contention=all is
//           skipped with the reason (instruction_throughput measures it). bar_sync: some tens of
//           cycles per barrier; barrier_cluster (arrive.relaxed + wait on a cluster of 2 blocks of
//           a warp, sm_90 and newer) more. Neither has a throughput row.
//           vote_all: x = a if no lane's x is a, else b (ISETP.NE.U32.AND +
//           VOTE.ALL + SEL a step). clock is no operand-to-result latency:
//           a %clock read takes no input, so its steps are back-to-back
//           reads (CS2R.32, or S2UR / CS2UR.32 into a uniform register,
//           half each) that depend on nothing before them, each XORed into
//           the oldest of 8 accumulators (one LOP3.LUT per two reads;
//           ptxas drops a read nobody uses) in the same timed core, and its
//           latency_cycles is the interval between back-to-back reads: what
//           one read adds to the next one's value (Jia et al.'s clock
//           overhead), the folds' issue slots included (the row's note says
//           so). Its end value holds clock values and is not modelled: the
//           check refuses the value with every read lost, and a second
//           segment no longer than the first.
// Could be confused with: the compiler's work for the hardware's (a folded
//           chain, a step that is a sequence, a step that reads a constant
//           instead of the previous result): //experiments/instructions:
//           sass_test checks, for every architecture built (sm_80 to
//           sm_120), that each timed loop holds exactly 128
//           steps of the row's sass_sequence, each reading the previous
//           step's result with nothing in between, and
//           instruction_sass_checks_test shows that check failing on a
//           folded and a broken chain and on loops of 16 steps; the CPU
//           model check fails a launch whose chain ended elsewhere
//           (instruction_models_test proves the models on hand-computed
//           values and the shared-word chains on a host emulation of the
//           lanes in any order). The loop's own instructions (counter,
//           compare, branch, and the branch's refetch) sit between one
//           trip's last step and the next trip's first, and their count
//           grows with chain_length, so the slope carries their cost once
//           per trip: with 16 steps a trip the H100 gave FFMA 4.69 cycles
//           and IADD3 4.44 (about 11 and 7 cycles a trip above 4-cycle
//           ops); at 128 steps a trip that is at most ~11 / 128 = 0.09
//           cycles per step (less beside long-latency ops, which hide it).
//           The clock reads' fixed cost is the intercept. A throttled clock
//           cannot move latency_cycles (SM cycles).
#include "experiments/chase_common.h"
#include "experiments/framework/experiment.h"
#include "experiments/instructions/instruction_models.h"
#include "kernels/instruction_ops.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

absl::Status Validate(const Point& point) {
  DISSECT_RETURN_IF_ERROR(ValidateContention(point.Str("op"), point.Str("contention")));
  const int64_t length = point.Int("chain_length");
  if (length < 1 || length % kInstructionUnroll != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("chain_length must be a positive multiple of ", kInstructionUnroll, " (got ",
                     length, "): the timed loop runs ", kInstructionUnroll, " steps a trip"));
  }
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const InstructionOpInfo info, FindInstructionOp(ctx.Str("op")));
  DISSECT_RETURN_IF_ERROR(LatencyContentionMeasured(ctx.Str("contention")));
  const int cc = ctx.device().cc_major * 10 + ctx.device().cc_minor;
  if (cc < info.min_compute_capability) {
    return Skipped(UnmetNeed({info.min_compute_capability, 0, info.needs}, cc));
  }
  const auto chain_length = static_cast<uint64_t>(ctx.Int("chain_length"));
  const int launches = ctx.timing().warmup + ctx.timing().samples;
  DISSECT_ASSIGN_OR_RETURN(auto d_out, DeviceBuffer<ChaseTiming>::Allocate(ctx.LaunchSlots()));
  InstructionLatencyArgs args;
  args.op = info.op;
  args.operands = info.operands;
  args.chain_length = chain_length;
  args.setup.contention = ParseContention(ctx.Str("contention"));
  if (args.setup.contention == Contention::kWarp) {
    // The warp's 32 lanes share the word; every chain starts at 0 and adds
    // or swaps in 0, so their values do not depend on the hardware's order.
    args.operands = SharedWordOperands(args.operands);
    args.setup.seed_stride = 0;
    ctx.AddNote(
        "contention=warp: 32 lanes on one word, every chain starts at 0 and adds or "
        "swaps in 0");
  }
  DISSECT_ASSIGN_OR_RETURN(auto d_words, DeviceBuffer<uint32_t>::Allocate(kMaxLatencyThreads));
  args.words = d_words.get();
  int launch = 0;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                                 [&](cudaStream_t stream) {
                                   args.out = d_out.get() + ctx.LaunchSlot(launch++);
                                   return LaunchInstructionLatency(args, stream);
                                 },
                                 CacheState::kHot)
                              .status());
  std::vector<ChaseTiming> results(launches);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(results.data(), d_out.get(),
                                          launches * sizeof(ChaseTiming), cudaMemcpyDeviceToHost));
  // Verification: every launch ran the chain the CPU model runs (the same
  // chain each launch: the model runs once).
  const uint64_t steps = kInstructionWarmupOps + ChaseLoadsPerLaunch(chain_length);
  const unsigned long long want =
      ModelChain(info.op, args.operands, args.operands.seed, steps, 0, args.setup.seed_stride);
  for (int i = 0; i < launches; ++i) {
    DISSECT_RETURN_IF_ERROR(
        CheckModelValue(info, want, steps, results[i].sink, absl::StrCat("launch ", i)));
    // A chain whose value cannot be modelled (clock) still took longer over
    // twice the steps.
    if (info.unpredictable) {
      DISSECT_RETURN_IF_ERROR(CheckSegmentsGrow(results[i], absl::StrCat("launch ", i)));
    }
  }
  results.erase(results.begin(), results.begin() + ctx.timing().warmup);
  DISSECT_ASSIGN_OR_RETURN(
      ChaseLatencySamples samples,
      ReduceChaseTimings(results, chain_length, ctx.SmClockMhz(),
                         static_cast<double>(ctx.device().sm_clock_max_khz) / 1e3));
  ctx.AddNote(SassSequenceNote(info));
  if (info.quantity != nullptr) ctx.AddNote(info.quantity);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("latency_cycles", std::move(samples.cycles_per_load)));
  return ctx.AddSamples("overhead_cycles", std::move(samples.overhead_cycles));
}

DISSECT_EXPERIMENT(instruction_latency)
    .Question("How many cycles does one instruction take from its operands to its result?")
    .AddAxis(InstructionOpAxis())
    .AddAxis(IntAxis("chain_length", "ops", {1024},
                     "dependent ops of the first timed segment (the second has twice as many); a "
                     "multiple of 128 (the ops a trip)"))
    .AddAxis(ContentionAxis())
    .AddMetric("latency_cycles", "cycles/op",
               "slope of %clock64 cycles over the two segments' dependent ops")
    .AddMetric("overhead_cycles", "cycles",
               "intercept of that fit: the fixed cost of one timed segment")
    .Validate(Validate)
    .Headline("latency_cycles")
    .Run(Run);

}  // namespace
}  // namespace dissect
