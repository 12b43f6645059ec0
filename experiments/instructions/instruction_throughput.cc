// Question: how many results per clock does one SM deliver for the common
//           arithmetic, logic, conversion, warp-level and atomic
//           instructions, and how many clock reads?
// Timed:    every SM holds warps_per_sm warps (blocks of 4 warps, one grid
//           of SMs x warps_per_sm / 4 blocks; a point whose blocks do not
//           all fit at once is skipped), each thread runs `chains`
//           independent chains of the op (kernels/instruction_ops.cuh, the
//           latency experiment's functors), one untimed step each and then
//           4096 timed steps each, interleaved. Lane 0 of each warp reads
//           %clock64 around the timed loop (after the chain values are
//           ready, after the last step has returned) and records its SM;
//           per SM, the span from its warps' first start to their last stop
//           over the warp instructions they issued gives cycles per warp
//           instruction (the median over SMs, CyclesPerInstruction), and
//           results_per_clock_per_sm = 32 lanes / that: ops x lanes /
//           (cycles x SMs) for SMs that ran alike. An HFMA2 lane result is
//           one fp16 pair. After the timed launches, the final values of
//           the first and the last thread's chains are checked against the
//           CPU model (instruction_models.h).
// Expected: the architecture's rate per SM for the op (the CUDA C++
//           Programming Guide's table of arithmetic instruction
//           throughput): 128 results per clock for FFMA, FADD and FMUL on
//           Volta through Hopper, 64 for the 32-bit integer ops and for
//           DFMA on A100 and H100 (far fewer on GPUs without full-rate
//           FP64), 16 for MUFU, POPC, FLO and the conversions; warp-level
//           ops (a lane result each) at most 32. clock counts %clock reads
//           (each independent of the others, XORed in turn into 8
//           accumulators, one LOP3.LUT per two reads: the row's note says
//           so), at most ~85 per clock (4 schedulers x 32 lanes x the 2/3
//           of the issue slots the reads take). With one
//           chain, enough warps per scheduler hide the op's latency; fewer
//           warps need more chains. f2f_f16 runs one chain per thread only
//           (ptxas converts two chains' values with one F2FP.PACK_AB).
//           Atomics: contention=none gives each chain a word of its own,
//           warp one word per warp and chain, all one word (the grid's in
//           global memory, the block's in shared memory); where lanes share
//           a word every chain starts at 0 and adds or swaps in 0, so that
//           its values do not depend on the order the hardware serves the
//           lanes (the row's note says so) and the CPU check stays exact.
//           The more lanes share a word, the fewer results per clock.
// Could be confused with: the compiler's work for the hardware's:
//           //experiments/instructions:sass_test checks, for every
//           architecture built (sm_80 to sm_120), that the
//           timed loop holds exactly 128 x chains steps of the sass_sequence
//           in `chains` dependent chains; the CPU model check fails a
//           launch whose chains ended elsewhere. The loop's counter,
//           compare and branch (five instructions a trip on sm_90a: a
//           64-bit increment and compare, the branch) take issue slots from
//           the ops: with 16 x 4 steps a trip the H100's FFMA reached 118.1
//           of 128 results per clock (5 / 69 of the slots would be 7 %); at
//           128 x chains steps a trip they take 5 / (128 x chains + 5): 3.8 %
//           with one chain, 1 % with four. Uneven blocks per SM: each
//           SM's rate comes from its own warps' span, and the median over
//           SMs is reported. Warps starting at different times: the span
//           runs from the first start to the last stop, which only lowers
//           the rate, by the start skew over 4096 x chains steps. A
//           throttled clock cannot move SM cycles.
#include <utility>
#include <vector>

#include "experiments/framework/experiment.h"
#include "experiments/instructions/instruction_models.h"
#include "experiments/tensor/probe_timing.h"
#include "kernels/instruction_ops.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

// Timed steps per chain.
constexpr uint64_t kIterations = 4096;
constexpr int kWarpsPerBlock = kThroughputBlockThreads / 32;

absl::Status Validate(const Point& point) {
  DISSECT_RETURN_IF_ERROR(ValidateContention(point.Str("op"), point.Str("contention")));
  const int64_t chains = point.Int("chains");
  bool built = false;
  for (const int c : kThroughputChains) built = built || c == chains;
  if (!built) {
    return absl::InvalidArgumentError(
        absl::StrCat("chains must be 1, 2, 4 or 8 (got ", chains, ")"));
  }
  const int64_t warps = point.Int("warps_per_sm");
  if (warps < kWarpsPerBlock || warps % kWarpsPerBlock != 0) {
    return absl::InvalidArgumentError(absl::StrCat("warps_per_sm must be a positive multiple of ",
                                                   kWarpsPerBlock, " (got ", warps, ")"));
  }
  return absl::OkStatus();
}

// Checks the first and the last thread's chains against the CPU model (from
// the operands and seed stride `args` ran with).
absl::Status CheckChains(const InstructionOpInfo& info, const InstructionThroughputArgs& args,
                         const DeviceBuffer<unsigned long long>& sink) {
  std::vector<unsigned long long> values(sink.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(values.data(), sink.get(), sink.bytes(), cudaMemcpyDeviceToHost));
  const uint64_t threads = values.size() / args.chains;
  for (const uint64_t t : {uint64_t{0}, threads - 1}) {
    for (int c = 0; c < args.chains; ++c) {
      const uint64_t index = t * args.chains + c;
      DISSECT_RETURN_IF_ERROR(
          CheckAgainstModel(info, args.operands, args.operands.seed + index * args.seed_stride,
                            kIterations + 1, values[index], absl::StrCat("thread ", t, " chain ", c),
                            static_cast<int>(t % 32), args.chains * args.seed_stride));
    }
  }
  return absl::OkStatus();
}

// results_per_clock_per_sm of each timed launch: `records` holds `warps`
// records per launch slot, the timed launches after the warm-up ones.
absl::StatusOr<std::vector<double>> Rates(const PointContext& ctx,
                                          const std::vector<WarpTiming>& records, int warps,
                                          size_t samples, int chains) {
  std::vector<double> rates;
  for (size_t i = 0; i < samples; ++i) {
    const absl::Span<const WarpTiming> row =
        absl::MakeConstSpan(records).subspan((ctx.timing().warmup + i) * warps, warps);
    DISSECT_ASSIGN_OR_RETURN(const double cycles,
                             CyclesPerInstruction(row, static_cast<int64_t>(kIterations) * chains));
    rates.push_back(32.0 / cycles);
  }
  return rates;
}

// Where lanes share an atomic's word, every chain starts at 0 and adds or
// swaps in 0, so that its values do not depend on the hardware's order and
// the CPU check stays exact.
void ApplyContention(PointContext& ctx, InstructionThroughputArgs& args) {
  args.contention = ParseContention(ctx.Str("contention"));
  if (args.contention == Contention::kNone) return;
  args.operands = SharedWordOperands(args.operands);
  args.seed_stride = 0;
  ctx.AddNote(absl::StrCat("contention=", ctx.Str("contention"),
                           ": every chain starts at 0 and adds or swaps in 0"));
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const InstructionOpInfo info, FindInstructionOp(ctx.Str("op")));
  if (info.no_throughput_reason != nullptr) return Skipped(info.no_throughput_reason);
  const int chains = static_cast<int>(ctx.Int("chains"));
  if (chains > 1 && info.one_chain_reason != nullptr) {
    return Skipped(absl::StrCat("chains=", chains, ": ", info.one_chain_reason));
  }
  const int blocks_per_sm = static_cast<int>(ctx.Int("warps_per_sm")) / kWarpsPerBlock;
  int fit = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(ThroughputBlocksPerSm(info.op, chains, &fit));
  if (fit < blocks_per_sm) {
    return Skipped(absl::StrCat(ctx.Int("warps_per_sm"), " warps per SM need ", blocks_per_sm,
                                " blocks of ", kWarpsPerBlock, " warps; ", fit,
                                " fit on one SM at once"));
  }
  InstructionThroughputArgs args;
  args.op = info.op;
  args.operands = info.operands;
  args.chains = chains;
  args.iterations = kIterations;
  args.blocks = ctx.device().sm_count * blocks_per_sm;
  ApplyContention(ctx, args);
  const int warps = args.blocks * kWarpsPerBlock;
  DISSECT_ASSIGN_OR_RETURN(auto d_timing,
                           DeviceBuffer<WarpTiming>::Allocate(ctx.LaunchSlots() * warps));
  DISSECT_ASSIGN_OR_RETURN(auto d_sink, DeviceBuffer<unsigned long long>::Allocate(
                                            static_cast<size_t>(warps) * 32 * chains));
  args.sink = d_sink.get();
  DISSECT_ASSIGN_OR_RETURN(
      auto d_words, DeviceBuffer<uint32_t>::Allocate(static_cast<size_t>(warps) * 32 * chains));
  args.words = d_words.get();
  int launch = 0;
  DISSECT_ASSIGN_OR_RETURN(const std::vector<double> ms,
                           ctx.TimeKernel(
                               [&](cudaStream_t stream) {
                                 args.timing = d_timing.get() + ctx.LaunchSlot(launch++) * warps;
                                 return LaunchInstructionThroughput(args, stream);
                               },
                               CacheState::kHot));
  DISSECT_RETURN_IF_ERROR(CheckChains(info, args, d_sink));
  std::vector<WarpTiming> records(d_timing.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(records.data(), d_timing.get(), d_timing.bytes(), cudaMemcpyDeviceToHost));
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> rates,
                           Rates(ctx, records, warps, ms.size(), chains));
  ctx.AddNote(SassSequenceNote(info));
  if (info.quantity != nullptr) ctx.AddNote(info.quantity);
  return ctx.AddSamples("results_per_clock_per_sm", std::move(rates));
}

DISSECT_EXPERIMENT(instruction_throughput)
    .Question("How many results per clock does one SM deliver for each instruction?")
    .AddAxis(InstructionOpAxis())
    .AddAxis(IntAxis("chains", "chains", {1, 4}, "independent chains per thread: 1, 2, 4 or 8"))
    .AddAxis(IntAxis("warps_per_sm", "warps", {64},
                     "resident warps per SM (blocks of 4 warps); points that do not fit are "
                     "skipped"))
    .AddAxis(ContentionAxis())
    .AddMetric("results_per_clock_per_sm", "results/clk/SM",
               "warp-lane results per SM clock: ops x 32 lanes / (SM cycles), the median over "
               "SMs of each SM's warps' %clock64 span")
    .Validate(Validate)
    .Headline("results_per_clock_per_sm")
    .Run(Run);

}  // namespace
}  // namespace dissect
