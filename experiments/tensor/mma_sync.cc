// Question: what latency and throughput does one warp-level tensor-core
//           instruction (mma.sync) reach, per form: m16n8k16 f16 -> f32/f16,
//           bf16 -> f32, m16n8k8 tf32 -> f32, m16n8k32 s8 -> s32 and fp8
//           (e4m3, e5m2) -> f32, and the 2:4 sparse mma.sp forms (sp_*:
//           m16n8k32 f16/bf16, m16n8k16 tf32, m16n8k64 s8/e4m3), with random
//           operands that never change, random operands that change every
//           instruction (as in a GEMM), and all-zero operands?
// Timed:    latency: one warp issues a dependent chain of 4096 mma.sync
//           (D += A·B, D the next C) between two %clock64 reads: cycles per
//           mma = span / 4096. Before the first read, one untimed step per
//           chain consumes the loaded fragments and the zeroed accumulators
//           (kUntimedSteps), so that neither lands in the timed region.
//           Throughput: every SM filled with warps (occupancy API), each
//           with 8 independent accumulators (2 for sp_e4m3_f32, which ptxas
//           expands into many registers), 1024 steps each; per SM, the
//           %clock64 span of all its warps over the mma it issued (median
//           over SMs) gives cycles per mma per SM; CUDA events around the
//           launch give TFLOP/s (TOP/s for s8), and
//           the longest per-SM %clock64 span over the event time the SM
//           clock during the launch (measured_sm_clock_mhz, a lower bound).
//           data=random: every step reads the warp's one A and B fragment;
//           data=random_cycling: each lane holds 4 fragments of different
//           random data in registers and step u of chain c reads fragment
//           (u + c) mod 4, so consecutive mma read different registers and
//           values, with no other instruction added to the loop (and one
//           untimed step per chain and fragment). Before timing, a launch
//           with 8 steps is checked element by element against a CPU
//           reference (exact for s8; e4m3/e5m2 into f32 against the model
//           of 14-bit fp8 accumulation that wgmma's check uses,
//           Fp8AccumulationBound, assumed to hold for mma.sync too; cycling:
//           the sum over the fragments).
// Expected: latency of some tens of cycles per dependent mma; throughput
//           approaching the architecture's dense tensor rate per SM
//           (configs/tensor/peaks.json) on Ampere; on Hopper mma.sync
//           reaches only part of the wgmma peak. Sparse forms count the
//           dense-equivalent FLOP (2·m·n·K) against the sparse rate (2x).
//           On cc 9.x and 10.x the e4m3/e5m2 and sp_e4m3 forms are skipped
//           with the reason (MmaSyncNative): sm_90 and sm_100 have no fp8
//           mma.sync; ptxas
//           emulates them with f16 HMMA and folds the loop's repeated
//           products, so their rows would be invented numbers. wgmma
//           carries Hopper's native fp8 path. Constant or zero operands may
//           run faster than changing ones only through power and clock
//           effects: on a power-capped GPU random_cycling rows should show a
//           clock (measured_sm_clock_mhz, the NVML clock) at or below the
//           random rows', and TFLOP/s lower by about as much.
// Could be confused with: the compiler's work for the hardware's (ptxas
//           folding repeated products, emulating a form, or leaving operand
//           loads or accumulator zeroing inside the timed region):
//           //experiments/tensor:sass_test checks per native form and mode
//           that the timed loop holds exactly chains x unroll HMMA/IMMA and
//           that nothing after the first clock read loads memory or writes
//           an accumulator, and that the skipped fp8 forms are still
//           emulated (no QMMA); //experiments/tensor:tensor_sass_checks_test
//           shows those checks failing on the folded and late-loading code
//           they were written for; //experiments/tensor:tensor_ptx_test the
//           chaining (one dependent chain vs independent accumulators);
//           //experiments/tensor:resource_usage_test no spills (local loads
//           in the loop). Zeros for random data, or a wrong product:
//           //experiments/tensor:tensor_elements_test (random operands use
//           mantissa bits; the output check rejects a missing step, other
//           data and zeros). A throttled clock: cycles are SM cycles;
//           TFLOP/s move with the clock, which measured_sm_clock_mhz
//           reports (//experiments/tensor:probe_timing_test,
//           MeasuredSmClockMhzTest) besides the harness's throttle flag
//           (//probes:nvml_clock_test). Constant operands for a GEMM's
//           power and clock: data=random feeds the multipliers the same
//           inputs at every mma, which draws less power than a GEMM, so a
//           power-capped GPU may hold a higher clock and report optimistic
//           TFLOP/s; data=random_cycling changes them every instruction,
//           and //experiments/tensor:sass_test checks that its timed loop
//           reads 4 distinct A/B register fragments and holds no
//           instruction the constant loop lacks (tensor_sass_checks_test
//           shows the fragment check failing on the constant loops,
//           testdata/constant_operands.sass); tensor_elements_test that the
//           fragments hold different data and the reference sums them.
//           Fewer warps for the cycling kernel (its fragments take
//           registers: f16_f32 throughput fits 4 blocks per SM instead of
//           5 by ptxas's count): warps_per_sm, beside the rates.
#include "kernels/tensor/mma_sync.h"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/tensor/probe_timing.h"
#include "experiments/tensor/tensor_elements.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

constexpr int kLatencyIterations = 4096;
constexpr int kThroughputIterations = 1024;
// The checked launch: two trips of the unrolled loop.
constexpr int kVerifyIterations = 2 * kMmaUnroll;

std::vector<std::string> FormNames() {
  std::vector<std::string> names;
  for (const MmaFormInfo& f : kMmaForms) names.push_back(f.name);
  return names;
}

const MmaFormInfo* FindForm(const std::string& name) {
  for (const MmaFormInfo& f : kMmaForms) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

struct Launch {
  MmaSyncArgs args;
  int warps = 0;
};

// Skipped where `form` has no native tensor-core instruction on sm_`arch`.
absl::Status RunsNatively(const MmaFormInfo& form, int arch) {
  if (arch < form.min_arch) {
    return Skipped(absl::StrCat(form.instruction, " needs sm_", form.min_arch,
                                " or later; this GPU is sm_", arch));
  }
  if (!MmaSyncNative(form, arch)) {
    return Skipped(absl::StrCat(
        form.instruction, " has no native form on sm_", arch,
        ": ptxas emulates it with f16 HMMA and folds the loop's repeated products, so the "
        "row would not measure the tensor core (on Hopper the wgmma experiment measures fp8)"));
  }
  return absl::OkStatus();
}

// The A, B (and sparse metadata) fragments on the device.
struct OperandBuffers {
  DeviceBuffer<uint32_t> a;
  DeviceBuffer<uint32_t> b;
  DeviceBuffer<uint32_t> metadata;
};

absl::StatusOr<OperandBuffers> UploadOperands(const MmaOperands& operands) {
  OperandBuffers b;
  DISSECT_ASSIGN_OR_RETURN(b.a, DeviceBuffer<uint32_t>::Allocate(operands.a.size()));
  DISSECT_ASSIGN_OR_RETURN(b.b, DeviceBuffer<uint32_t>::Allocate(operands.b.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(b.a.get(), operands.a.data(), b.a.bytes(), cudaMemcpyHostToDevice));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(b.b.get(), operands.b.data(), b.b.bytes(), cudaMemcpyHostToDevice));
  DISSECT_ASSIGN_OR_RETURN(b.metadata, DeviceBuffer<uint32_t>::Allocate(operands.metadata.size()));
  if (!operands.metadata.empty()) {
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(b.metadata.get(), operands.metadata.data(), b.metadata.bytes(), cudaMemcpyHostToDevice));
  }
  return b;
}

// The checked launch (timing slot 0) of `args`: Skipped when the binary has
// no code for the form, an error when an output differs from the host's.
absl::Status CheckedLaunch(PointContext& ctx, const MmaFormInfo& form, const MmaOperands& operands,
                           const ProbeData& data, int arch, int chains,
                           const DeviceBuffer<uint32_t>& d_out,
                           const DeviceBuffer<TensorTiming>& d_timing, MmaSyncArgs args) {
  const int warps = args.blocks * args.threads / 32;
  // The checked launch (timing slot 0).
  args.iterations = kVerifyIterations;
  args.timing = d_timing.get();
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchMmaSync(args, ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  std::vector<TensorTiming> check_timing(warps);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(check_timing.data(), d_timing.get(),
                                          check_timing.size() * sizeof(TensorTiming),
                                          cudaMemcpyDeviceToHost));
  if (!AllBuilt(check_timing)) {
    return Skipped(absl::StrCat("this binary has no code for ", form.instruction, " on sm_", arch,
                                "; rebuild with --cuda_archs=sm_", arch, arch == 90 ? "a" : ""));
  }
  std::vector<uint32_t> out(d_out.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(out.data(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost));
  DISSECT_RETURN_IF_ERROR(CheckMmaOutput(
      form, operands,
      static_cast<int64_t>(kVerifyIterations + UntimedSteps(data.operands)) * chains, out,
      chains));
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const MmaFormInfo& form = *FindForm(ctx.Str("form"));
  const TensorMode mode =
      ctx.Str("mode") == "latency" ? TensorMode::kLatency : TensorMode::kThroughput;
  const ProbeData& data = FindProbeData(ctx.Str("data"));
  const int arch = ctx.device().cc_major * 10 + ctx.device().cc_minor;
  DISSECT_RETURN_IF_ERROR(RunsNatively(form, arch));
  const MmaOperands operands =
      MakeMmaOperands(form, data.data, 0x5eed0000u + static_cast<uint64_t>(form.form),
                      OperandFragments(data.operands));
  DISSECT_ASSIGN_OR_RETURN(const OperandBuffers operand_buffers, UploadOperands(operands));

  Launch launch;
  launch.args.form = form.form;
  launch.args.mode = mode;
  launch.args.operands = data.operands;
  DISSECT_CUDA_RETURN_IF_ERROR(
      MmaSyncGrid(form.form, mode, data.operands, &launch.args.blocks, &launch.args.threads));
  launch.warps = launch.args.blocks * launch.args.threads / 32;
  const int chains = MmaSyncChains(form.form, mode);
  // Slot 0: the checked launch; then one per TimeKernel launch (counter
  // passes share the last).
  const int slots = 1 + ctx.LaunchSlots();
  DISSECT_ASSIGN_OR_RETURN(
      auto d_out,
      DeviceBuffer<uint32_t>::Allocate(static_cast<size_t>(launch.warps) * 32 * kMmaAccElements));
  DISSECT_ASSIGN_OR_RETURN(auto d_timing, DeviceBuffer<TensorTiming>::Allocate(
                                              static_cast<size_t>(slots) * launch.warps));
  launch.args.a = operand_buffers.a.get();
  launch.args.b = operand_buffers.b.get();
  launch.args.metadata = operand_buffers.metadata.get();
  launch.args.out = d_out.get();

  DISSECT_RETURN_IF_ERROR(
      CheckedLaunch(ctx, form, operands, data, arch, chains, d_out, d_timing, launch.args));

  const int iterations = mode == TensorMode::kLatency ? kLatencyIterations : kThroughputIterations;
  launch.args.iterations = iterations;
  int index = 0;
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel(
          [&](cudaStream_t stream) {
            launch.args.timing =
                d_timing.get() + static_cast<size_t>(1 + ctx.LaunchSlot(index++)) * launch.warps;
            return LaunchMmaSync(launch.args, stream);
          },
          CacheState::kHot));
  std::vector<TensorTiming> timing(d_timing.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(timing.data(), d_timing.get(), d_timing.bytes(), cudaMemcpyDeviceToHost));
  // The changing-operand kernel holds 4 fragments in registers and may fit
  // fewer warps per SM than the constant one: recorded beside the rates.
  const double warps_per_sm = mode == TensorMode::kLatency
                                  ? 1.0
                                  : static_cast<double>(launch.warps) / ctx.device().sm_count;
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("warps_per_sm", {warps_per_sm}));
  const double flops_per_mma = 2.0 * form.m * form.n * form.k;
  return AddProbeSamples(ctx, timing, launch.warps, static_cast<int64_t>(chains) * iterations,
                         flops_per_mma,
                         flops_per_mma * static_cast<double>(launch.warps) * chains * iterations,
                         ms, "cycles_per_mma");
}

DISSECT_EXPERIMENT(mma_sync)
    .Question(
        "What latency and throughput does each warp-level tensor-core instruction "
        "(mma.sync: f16, bf16, tf32, s8, e4m3, e5m2; 2:4 sparse mma.sp) reach, with "
        "constant random, changing random and zero operands?")
    .AddAxis(StringAxis("form", FormNames(), {},
                        "inputs_accumulator: f16_f32, f16_f16, bf16_f32 (m16n8k16), "
                        "tf32_f32 (m16n8k8), s8_s32, e4m3_f32, e5m2_f32 (m16n8k32); 2:4 "
                        "sparse mma.sp: sp_f16_f32, sp_bf16_f32 (k32), sp_tf32_f32 (k16), "
                        "sp_s8_s32, sp_e4m3_f32 (k64)"))
    .AddAxis(StringAxis("mode", {"latency", "throughput"}, {},
                        "latency: one warp, one dependent chain; throughput: full "
                        "occupancy, 8 independent accumulators per warp"))
    .AddAxis(StringAxis("data", ProbeDataNames(), {}, kProbeDataHelp))
    .AddMetric("cycles_per_mma", "cycles",
               "latency: %clock64 cycles per dependent mma of one warp; throughput: "
               "SM cycles per mma issued on that SM (median over SMs)")
    .AddMetric("flops_per_clk_per_sm", "FLOP/clk/SM",
               "2·m·n·k / cycles_per_mma (integer forms: operations; sparse forms: "
               "dense-equivalent k)")
    .AddMetric("tflops", "TFLOP/s",
               "2·m·n·k × mma of the launch / event time (integer forms: TOP/s)")
    .AddMetric("measured_sm_clock_mhz", "MHz",
               "longest per-SM %clock64 span of the launch / its event time: a lower "
               "bound on the SM clock while the loops ran (the event time also holds "
               "launch overhead and work outside the clock reads; latency rows, one "
               "short warp, read lowest)")
    .AddMetric("warps_per_sm", "warps",
               "resident warps per SM of the launch (latency: the one warp); "
               "random_cycling holds 4 fragments in registers and may fit fewer")
    .Headline("cycles_per_mma")
    .Run(Run);

}  // namespace
}  // namespace dissect
