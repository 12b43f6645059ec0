// Question: what fraction of the theoretical DRAM bandwidth does an
//           elementwise ReLU layer reach?
// Timed:    out = max(in, 0) over a float32 tensor, out of place, as a user
//           would write it: 16-byte vector loads and stores, each thread
//           issuing 4 independent loads (64 B) before their stores, a grid
//           of the resident blocks (found once per point, outside the timed
//           launches), the n % 4 tail element by element. CUDA events around
//           each launch. "hot" launches back to back; "cold" flushes L2
//           before each sample. Bandwidth counts bytes read plus bytes
//           written (2 × tensor bytes). Every output element is checked on
//           the host.
// Expected: tensors much larger than L2 run near the DRAM ceiling (>= 80% of
//           theoretical on H100 at 1 GiB, about what memory_bandwidth's copy
//           reaches) in both modes; tensors whose input and output fit in L2
//           exceed the DRAM ceiling when hot. Tiny tensors measure launch
//           latency, not bandwidth.
// Could be confused with: host time inside the event pair:
//           //probes:event_timer_test (GuardKeepsHostSleepOutOfTheSamples, a
//           simulated queue) and, on a GPU, relu_bandwidth_activity_gpu_test
//           (CUPTI kernel time within 5 % of the events at 1 GiB). The
//           compiler's work for the hardware's (fewer or narrower loads in
//           flight than stated): //experiments:bandwidth_sass_test
//           (ReluIssuesFourLoadsBeforeItsStores: 4 LDG.128 before 4 STG.128
//           per tile) and //experiments:kernels_ptx_test. Cold rows paying
//           the flush's write-backs: //probes:event_timer_gpu_test
//           (ColdFlushGpuTest, GPU). L2 for DRAM: at 1 GiB
//           relu_bandwidth_counters_gpu_test (GPU) checks that DRAM reads
//           and writes are each 0.9-1.1 GiB. Not yet ruled out by a test:
//           hot rows whose input and output fit in L2 (the 16 MiB default:
//           32 MiB against H100's 50 MB) report L2 bandwidth under
//           dram_peak_pct with nothing on the row saying so; a fixture test
//           of an "L2-resident" label (as cuBLASLt's hot rows are read)
//           would.
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/harness/experiment.h"
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
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel([&](cudaStream_t s) { return LaunchRelu(in.get(), out.get(), n, blocks, s); },
                     cache));
  DISSECT_RETURN_IF_ERROR(CheckOutput(out.get(), n));
  const double peak = ctx.device().DramPeakGbps();
  std::vector<double> gbps, pct;
  for (double t : ms) {
    const double bw = 2.0 * static_cast<double>(bytes) / (t * 1e-3) / 1e9;
    gbps.push_back(bw);
    pct.push_back(100.0 * bw / peak);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bandwidth_gbps", std::move(gbps)));
  return ctx.AddSamples("dram_peak_pct", std::move(pct));
}

DISSECT_EXPERIMENT(relu_bandwidth)
    .Question("What fraction of theoretical DRAM bandwidth does an elementwise ReLU reach?")
    .AddAxis(IntAxis("bytes", "B", {16 << 20, 256 << 20, 1 << 30},
                     "tensor size (input; the output is as large); any multiple of 4"))
    .AddAxis(StringAxis("timing", {"hot", "cold"}, {},
                        "hot: back-to-back launches; cold: L2 flushed before each"))
    .AddMetric("bandwidth_gbps", "GB/s", "(bytes read + bytes written) / time")
    .AddMetric("dram_peak_pct", "%", "bandwidth / (2 x memory clock x bus width)")
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect
