// Question: what fraction of the theoretical DRAM bandwidth does an
//           elementwise ReLU layer reach?
// Timed:    out = max(in, 0) over a float32 tensor, out of place, as a user
//           would write it: 16-byte vector loads and stores, each thread
//           issuing 4 independent loads (64 B) before their stores, a grid
//           of the resident blocks (found once per point, outside the timed
//           launches), the n % 4 tail element by element. CUDA events around
//           each sample. "hot" launches back to back, several per sample
//           when short (LaunchesPerSample, probes/event_timer.h: about 1 GiB
//           per sample, so 32 launches at 16 MiB, and the ~2 us of launch
//           and event overhead in a sample is spread over them); "cold"
//           flushes L2 before each sample and so times one launch per
//           sample: a flush cannot sit between two launches inside the
//           events, and cold rows whose samples are under 40 us say so in
//           their label (ShortColdSampleNote). bandwidth_gbps counts bytes
//           read plus bytes written (2 × tensor bytes); dram_peak_pct counts
//           dram_bytes_counted: the same hot, but cold only the input and the
//           output beyond one L2, since up to one L2 of output can still be
//           dirty in the write-back L2 at the end event (CountedDramBytes;
//           the label says so). Every output element is checked on the
//           host.
// Expected: tensors much larger than L2 run near the DRAM ceiling (>= 80% of
//           theoretical on H100 at 1 GiB, about what memory_bandwidth's copy
//           reaches) in both modes; tensors whose input and output fit in L2
//           exceed the DRAM ceiling when hot. Such rows are L2-resident (input
//           plus output under 2 x device_l2_bytes: the 16 MiB default, 32 MiB
//           against H100's 50 MiB, hot or cold): dram_peak_pct is NaN there,
//           beyond_2x_l2 is 0 and the label says L2-resident; bandwidth_gbps
//           stays. Tiny tensors measure launch latency, not bandwidth.
// Could be confused with: host time inside the event pair:
//           //probes:event_timer_test (GuardKeepsHostSleepOutOfTheSamples, a
//           simulated queue) and, on a GPU, relu_bandwidth_activity_gpu_test
//           (CUPTI kernel time within 5 % of the events at 1 GiB). The
//           compiler's work for the hardware's (fewer or narrower loads in
//           flight than stated): //experiments:bandwidth_sass_test
//           (ReluIssuesFourLoadsBeforeItsStores: 4 LDG.128 before 4 STG.128
//           per tile) and //experiments:kernels_ptx_test. Cold rows paying
//           the flush's write-backs: //probes:event_timer_gpu_test
//           (ColdFlushGpuTest, GPU). The fixed overhead of a sample for
//           bandwidth: hot samples hold about 1 GiB of launches
//           (//probes:event_timer_test, ShortSampleTest); cold ones cannot,
//           and are labelled when short (same test). Cold rows crediting
//           DRAM with output that is still dirty in L2 after the end event
//           (2 × bytes counted was 5-9 % high at 256 MiB, and cold could
//           beat hot): //probes:event_timer_test (ColdDramBytesTest: on a
//           line-level model of a write-back L2, read + written exceeds
//           what reached DRAM, dram_bytes_counted never does and is low by
//           at most one L2). L2 for DRAM: rows whose input and output
//           fit in L2 are L2-resident, hot and cold alike (a cold run reads
//           its input from DRAM but its output stays dirty in the write-back
//           L2, so half the bytes counted are L2 traffic). The 2 x L2 rule
//           and what such a row records, through the runner and writer:
//           //experiments/framework:l2_residency_test. That this experiment
//           declares working_set_bytes and beyond_2x_l2:
//           //experiments:bad_input_test (--help); that its rows carry them,
//           on a GPU: relu_bandwidth_gpu_test (256 MiB: beyond_2x_l2 1) and
//           relu_bandwidth_l2_resident_gpu_test (1 MiB: beyond_2x_l2 0, the
//           row written, not failed). That the report shows "L2-resident"
//           instead of a %: //analysis/sections:report_test
//           (DramPeakPctOfL2ResidentRowsReadsL2Resident, relu_bandwidth rows
//           hot and cold). Beyond 2 x L2, at 1 GiB
//           relu_bandwidth_counters_gpu_test (GPU) checks that DRAM reads
//           and writes are each 0.9-1.1 GiB.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/framework/l2_residency.h"
#include "kernels/elementwise.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

constexpr uint64_t kInputSeed = 0x12e1u;

absl::Status Validate(const Point& p) {
  const int64_t bytes = p.Int("bytes");
  if (bytes <= 0 || bytes % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bytes must be a positive multiple of 4 (got ", bytes, ")"));
  }
  return absl::OkStatus();
}

// Every output element must be ReLU of the generated input, bit for bit.
absl::Status CheckOutput(const float* d_out, size_t n) {
  std::vector<float> out(n);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) {
    const float x = FillUniformValue(kInputSeed, i, -1.0f, 1.0f);
    const float want = x > 0.0f ? x : 0.0f;
    if (!(out[i] == want)) {
      return absl::InternalError(
          absl::StrCat("wrong output at element ", i, ": ", out[i], ", expected ", want));
    }
  }
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const size_t bytes = static_cast<size_t>(ctx.Int("bytes"));
  const size_t n = bytes / sizeof(float);
  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (2 * bytes + 2 * static_cast<size_t>(ctx.device().l2_bytes) > free_bytes) {
    return Skipped(absl::StrCat("needs ", 2 * bytes,
                                " B of device memory plus the L2 "
                                "flush buffer; ",
                                free_bytes, " B free"));
  }
  DISSECT_ASSIGN_OR_RETURN(const CacheState cache, ParseCacheState(ctx.Str("timing")));
  DISSECT_ASSIGN_OR_RETURN(auto in, DeviceBuffer<float>::Allocate(n));
  DISSECT_ASSIGN_OR_RETURN(auto out, DeviceBuffer<float>::Allocate(n));
  DISSECT_CUDA_RETURN_IF_ERROR(
      LaunchFillUniform(in.get(), n, kInputSeed, -1.0f, 1.0f, ctx.stream()));
  // Poison the output (0xff.. is a NaN) so that unwritten elements show.
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out.get(), 0xff, bytes, ctx.stream()));
  // The grid is found once, here: the timed launch does nothing but launch.
  int blocks = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(ReluGridBlocks(n, &blocks));
  // Input and output, each read or written once: the bytes counted and the
  // working set alike.
  const double moved = 2.0 * static_cast<double>(bytes);
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel([&](cudaStream_t s) { return LaunchRelu(in.get(), out.get(), n, blocks, s); },
                     cache, LaunchesPerSample(cache, moved)));
  DISSECT_RETURN_IF_ERROR(CheckOutput(out.get(), n));
  // Of those, what surely reached DRAM by the end event (cold: not the
  // output still dirty in L2).
  const DramBytes dram = CountedDramBytes(cache, static_cast<double>(bytes),
                                          static_cast<double>(bytes), ctx.device().l2_bytes);
  std::vector<double> gbps, dram_gbps;
  for (double t : ms) {
    gbps.push_back(moved / (t * 1e-3) / 1e9);
    dram_gbps.push_back(dram.bytes / (t * 1e-3) / 1e9);
  }
  DISSECT_RETURN_IF_ERROR(AddDramPeakPct(ctx, dram_gbps, moved));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("dram_bytes_counted", {dram.bytes}));
  if (BeyondTwiceL2(moved, ctx.device().l2_bytes) && !dram.note.empty()) ctx.AddNote(dram.note);
  if (std::string note = ShortColdSampleNote(cache, ms); !note.empty()) ctx.AddNote(note);
  return ctx.AddSamples("bandwidth_gbps", std::move(gbps));
}

DISSECT_EXPERIMENT(relu_bandwidth)
    .Question("What fraction of theoretical DRAM bandwidth does an elementwise ReLU reach?")
    .AddAxis(IntAxis("bytes", "B", {16 << 20, 256 << 20, 1 << 30},
                     "tensor size (input; the output is as large); any multiple of 4"))
    .AddAxis(StringAxis("timing", {"hot", "cold"}, {},
                        "hot: back-to-back launches; cold: L2 flushed before each"))
    .AddMetric("bandwidth_gbps", "GB/s", "(bytes read + bytes written) / time")
    .AddMetric("dram_peak_pct", "%",
               "dram_bytes_counted / time / (2 x memory clock x bus width); NaN when "
               "L2-resident (beyond_2x_l2 0)")
    .AddMetric("dram_bytes_counted", "B",
               "the bytes dram_peak_pct counts: hot, 2 x bytes; cold, the input and the output "
               "beyond one L2 (the rest may still be dirty in L2 at the end event)")
    .AddMetrics(L2ResidencyMetrics("input + output bytes (2 x bytes)"))
    .Validate(Validate)
    .Headline("bandwidth_gbps")
    .Run(Run);

}  // namespace
}  // namespace dissect
