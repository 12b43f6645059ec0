// Question: what latency and throughput do Hopper's warpgroup-level tensor
//           instructions (wgmma.mma_async m64nNk16 f16/bf16, m64nNk8 tf32,
//           m64nNk32 e4m3/e5m2/s8, and the 2:4 sparse wgmma.mma_async.sp
//           forms sp_*: k32 f16/bf16, k16 tf32, k64 e4m3/s8) reach as N
//           grows from 8 to 256, with A from shared memory (descriptor) or
//           from registers, and with random operands that never change,
//           random operands that change every instruction (as in a GEMM),
//           or all-zero operands?
// Timed:    latency: one warpgroup issues 1024 wgmma into one accumulator,
//           each committed and waited for, between two %clock64 reads:
//           cycles per wgmma = span / 1024. Throughput: every SM filled with
//           warpgroups (one per block), each streaming 2048 steps over up to
//           4 independent accumulators in commit groups of 4 steps with at
//           most one group in flight; per SM, the %clock64 span of its
//           warpgroups over the wgmma issued there (median over SMs); CUDA
//           events give TFLOP/s (TOP/s for s8), and the longest per-SM span
//           over the event time the SM clock during the launch
//           (measured_sm_clock_mhz, a lower bound). Every chain first runs
//           one untimed wgmma, committed and waited for, before the first
//           clock read (kUntimedSteps), so that the operand loads and the
//           accumulator zeroing stay out of the timed region. A launch of 8
//           steps is first checked against a CPU reference (every
//           accumulator element of every warpgroup; exact for s8; e4m3 and
//           e5m2 against a model of 14-bit fp8 accumulation, see Expected;
//           cycling: the sum over the fragments). data=random: every wgmma reads one
//           A tile (or A registers) and one B tile; data=random_cycling: 4
//           fragments, the windows 0, 8, 16 and 24 rows into A's and B's
//           shared-memory images of random data (WgmmaImageRows: each
//           window holds different values everywhere) and 4 sets of A
//           registers, step u of chain c reading fragment (u + c) mod 4
//           through its own descriptors, computed before the clock (one
//           untimed step per chain and fragment).
// Expected: throughput near the dense per-SM rate of configs/tensor/peaks.json
//           for large N (well above mma.sync's); small N bound by reading A
//           from shared memory, better with A in registers; latency growing
//           with N. Sparse forms count dense-equivalent FLOP against the 2:4
//           sparse rate. Constant or zero operands may beat changing ones
//           only through power and clock: random_cycling rows should show
//           an SM clock at or below the random rows'. fp8 (e4m3, e5m2)
//           into f32: results a little off the exact sum, since Hopper's
//           fp8 accumulation keeps about 14 bits (DeepSeek-V3 Technical
//           Report, arXiv:2412.19437, section 3.3.2 "Increasing
//           Accumulation Precision"): the check allows the error of
//           aligning each wgmma's products and accumulator to the largest
//           and truncating each to 14 significant bits
//           (Fp8AccumulationBound), a model that gives the H100's result
//           bit for bit.
// Could be confused with: the compiler's work for the hardware's (fewer
//           wgmma per trip than stated, operand loads or accumulator
//           zeroing after the first clock read): //experiments/tensor:
//           sass_test (WgmmaTimedLoops...: exactly chains x steps HGMMA/
//           IGMMA/QGMMA per trip, no memory load or accumulator write
//           between the first clock read and the loop) with
//           tensor_sass_checks_test showing the region check failing on
//           the late zeroing it was written for; tensor_ptx_test (the form
//           at every N from the requested A source, one commit group per
//           trip, zeroing before the first wgmma.fence); resource_usage_test
//           (no spills). Zeros for random data, or a wrong result:
//           //experiments/tensor:tensor_elements_test (MakeWgmmaOperands,
//           CheckWgmmaOutput rejects a missing step). fp8's reduced
//           accumulation precision for a wrong result, or the reverse:
//           tensor_elements_test Fp8AccumulationTest (the model reproduces
//           the H100's e4m3 n=256 value -82.140625 where the exact sum is
//           -82.364502, the bound accepts the model's output and rejects it
//           with a lost step or a flipped sign); the bound grows with the
//           square of a chain's steps, so it is evaluated per chain. A throttled clock:
//           cycles are SM cycles; TFLOP/s sit beside measured_sm_clock_mhz
//           (probe_timing_test) and the throttle flag. Constant operands
//           for a GEMM's power and clock: data=random feeds the tensor
//           cores the same tiles at every wgmma, which draws less power
//           than a GEMM, so a power-capped GPU may hold a higher clock and
//           report optimistic TFLOP/s; data=random_cycling changes them
//           every instruction, and //experiments/tensor:sass_test checks
//           that its timed loop reads 4 distinct descriptors (A registers
//           and descriptors with A from registers) and holds no
//           instruction the constant loop lacks (tensor_sass_checks_test
//           shows the check failing on the constant loops);
//           tensor_elements_test that the windows hold the data the
//           reference reads. Fewer warpgroups for the cycling kernel with
//           A from registers (4 A fragments take registers; at n = 256 it
//           uses 254): warps_per_sm, beside the rates.
#include "kernels/tensor/wgmma.h"

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

constexpr int kLatencyIterations = 1024;
constexpr int kThroughputIterations = 2048;
constexpr int kVerifyIterations = 2 * kWgmmaUnroll;

std::vector<std::string> FormNames() {
  std::vector<std::string> names;
  for (const WgmmaFormInfo& f : kWgmmaForms) names.push_back(f.name);
  return names;
}

const WgmmaFormInfo* FindForm(const std::string& name) {
  for (const WgmmaFormInfo& f : kWgmmaForms) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

absl::Status Validate(const Point& p) {
  for (int n : kWgmmaNs) {
    if (p.Int("n") == n) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("n must be one of 8, 16, 32, 64, 128, 256 (got ", p.Int("n"), ")"));
}

template <typename T>
absl::StatusOr<DeviceBuffer<T>> Upload(const std::vector<T>& host) {
  DISSECT_ASSIGN_OR_RETURN(auto buffer, DeviceBuffer<T>::Allocate(host.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(buffer.get(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice));
  return buffer;
}

// The checked launch (timing slot 0) of `args`: Skipped when the binary
// has no sm_90a code, an error when an output differs from the host's.
absl::Status CheckedLaunch(PointContext& ctx, const WgmmaFormInfo& form, int n,
                           const WgmmaOperands& operands, const ProbeData& data, int chains,
                           const DeviceBuffer<uint32_t>& d_out,
                           const DeviceBuffer<TensorTiming>& d_timing, WgmmaArgs args) {
  args.iterations = kVerifyIterations;
  args.timing = d_timing.get();
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchWgmma(args, ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  std::vector<TensorTiming> check_timing(args.blocks);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(check_timing.data(), d_timing.get(),
                                          check_timing.size() * sizeof(TensorTiming),
                                          cudaMemcpyDeviceToHost));
  if (!AllBuilt(check_timing)) {
    return Skipped("this binary has no sm_90a code; rebuild with --cuda_archs=sm_90a");
  }
  std::vector<uint32_t> out(d_out.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(out.data(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost));
  DISSECT_RETURN_IF_ERROR(CheckWgmmaOutput(
      form, n, operands,
      static_cast<int64_t>(kVerifyIterations + UntimedSteps(data.operands)) * chains, out,
      chains));
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const WgmmaFormInfo& form = *FindForm(ctx.Str("form"));
  const int n = static_cast<int>(ctx.Int("n"));
  const TensorMode mode =
      ctx.Str("mode") == "latency" ? TensorMode::kLatency : TensorMode::kThroughput;
  const ProbeData& data = FindProbeData(ctx.Str("data"));
  const WgmmaOperands operands =
      MakeWgmmaOperands(form, n, data.data, 0x5eed1000u + static_cast<uint64_t>(form.form),
                        OperandFragments(data.operands));
  DISSECT_ASSIGN_OR_RETURN(auto d_a_tile, Upload(operands.a_tile));
  DISSECT_ASSIGN_OR_RETURN(auto d_b_tile, Upload(operands.b_tile));
  DISSECT_ASSIGN_OR_RETURN(auto d_a_fragments, Upload(operands.a_fragments));
  DISSECT_ASSIGN_OR_RETURN(auto d_metadata, Upload(operands.metadata));

  WgmmaArgs args;
  args.form = form.form;
  args.n = n;
  args.a_from_registers = ctx.Str("a_source") == "registers";
  args.mode = mode;
  args.operands = data.operands;
  DISSECT_CUDA_RETURN_IF_ERROR(WgmmaGrid(args, &args.blocks));
  const int chains = WgmmaChains(mode, n);
  // Slot 0: the checked launch; then one per TimeKernel launch (counter
  // passes share the last).
  const int slots = 1 + ctx.LaunchSlots();
  DISSECT_ASSIGN_OR_RETURN(
      auto d_out,
      DeviceBuffer<uint32_t>::Allocate(static_cast<size_t>(args.blocks) * operands.product.size()));
  DISSECT_ASSIGN_OR_RETURN(auto d_timing, DeviceBuffer<TensorTiming>::Allocate(
                                              static_cast<size_t>(slots) * args.blocks));
  args.a_tile = d_a_tile.get();
  args.b_tile = d_b_tile.get();
  args.a_fragments = d_a_fragments.get();
  args.metadata = d_metadata.get();
  args.out = d_out.get();

  DISSECT_RETURN_IF_ERROR(
      CheckedLaunch(ctx, form, n, operands, data, chains, d_out, d_timing, args));

  const int iterations = mode == TensorMode::kLatency ? kLatencyIterations : kThroughputIterations;
  args.iterations = iterations;
  int index = 0;
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> ms,
                           ctx.TimeKernel(
                               [&](cudaStream_t stream) {
                                 args.timing =
                                     d_timing.get() +
                                     static_cast<size_t>(1 + ctx.LaunchSlot(index++)) * args.blocks;
                                 return LaunchWgmma(args, stream);
                               },
                               CacheState::kHot));
  std::vector<TensorTiming> timing(d_timing.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(timing.data(), d_timing.get(), d_timing.bytes(), cudaMemcpyDeviceToHost));
  // With A from registers the changing-operand kernel holds 4 A fragments
  // and may fit fewer warpgroups per SM: recorded beside the rates.
  const double warpgroups_per_sm =
      mode == TensorMode::kLatency ? 1.0
                                   : static_cast<double>(args.blocks) / ctx.device().sm_count;
  const double warps_per_sm = warpgroups_per_sm * (kWarpgroupThreads / 32);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("warps_per_sm", {warps_per_sm}));
  const double flops_per_wgmma = 2.0 * kWgmmaM * n * form.k;
  return AddProbeSamples(ctx, timing, args.blocks, static_cast<int64_t>(chains) * iterations,
                         flops_per_wgmma,
                         flops_per_wgmma * static_cast<double>(args.blocks) * chains * iterations,
                         ms, "cycles_per_wgmma");
}

DISSECT_EXPERIMENT(wgmma)
    .NeedsComputeCapability(90, "wgmma.mma_async (sm_90a code)", 90)
    .Question(
        "What latency and throughput do Hopper's warpgroup tensor instructions (wgmma: "
        "f16, bf16, tf32, e4m3, e5m2, s8, dense and 2:4 sparse) reach as N grows from 8 "
        "to 256, with A from shared memory or registers, on constant random, changing "
        "random and zero operands?")
    .AddAxis(StringAxis("form", FormNames(), {},
                        "inputs_accumulator: f16_f32, bf16_f32 (k16), tf32_f32 (k8), "
                        "e4m3_f32, e5m2_f32, s8_s32 (k32); 2:4 sparse: sp_f16_f32, "
                        "sp_bf16_f32 (k32), sp_tf32_f32 (k16), sp_e4m3_f32, sp_s8_s32 (k64)"))
    .AddAxis(IntAxis("n", "-", {8, 16, 32, 64, 128, 256}, "N of m64nNk*: 8 … 256"))
    .AddAxis(StringAxis("a_source", {"shared", "registers"}, {},
                        "A through a shared-memory descriptor or from registers (B always "
                        "from shared memory)"))
    .AddAxis(StringAxis("mode", {"latency", "throughput"}, {},
                        "latency: one warpgroup, every wgmma waited for; throughput: full "
                        "occupancy, up to 4 accumulators per warpgroup"))
    .AddAxis(StringAxis("data", ProbeDataNames(), {}, kProbeDataHelp))
    .AddMetric("cycles_per_wgmma", "cycles",
               "latency: %clock64 cycles per committed-and-waited wgmma; throughput: SM "
               "cycles per wgmma issued on that SM (median over SMs)")
    .AddMetric("flops_per_clk_per_sm", "FLOP/clk/SM",
               "2·64·N·K / cycles_per_wgmma (s8: operations)")
    .AddMetric("tflops", "TFLOP/s", "2·64·N·K × wgmma of the launch / event time (s8: TOP/s)")
    .AddMetric("measured_sm_clock_mhz", "MHz",
               "longest per-SM %clock64 span of the launch / its event time: a lower "
               "bound on the SM clock while the loops ran (the event time also holds "
               "launch overhead and work outside the clock reads; latency rows, one "
               "short warpgroup, read lowest)")
    .AddMetric("warps_per_sm", "warps",
               "resident warps per SM of the launch, 4 per warpgroup (latency: the one "
               "warpgroup); random_cycling with A from registers holds 4 A fragments and "
               "may fit fewer")
    .Validate(Validate)
    .Headline("cycles_per_wgmma")
    .Run(Run);

}  // namespace
}  // namespace dissect
