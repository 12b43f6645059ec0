// Question: how close does our simple tiled attention kernel (kernels/
//           attention: fp16 in and out, FP32 FFMA on the CUDA cores, no
//           tensor cores) come to the roofline of this GPU, in LLM prefill
//           (causal, Q = K = context) and in decode (one query per sequence
//           against a KV cache of `context` tokens)?
// Timed:    one launch of LaunchAttention on Q, K, V, O of Llama-2-7B's
//           attention (head dim 128, `heads` heads), CUDA events
//           (ctx.TimeKernel), hot by default (cold: L2 flushed before each
//           sample). Before timing, sampled output rows (batch, head,
//           query) are checked against a CPU reference in double
//           (attention_reference.h); a row off by more than 1e-2 of its
//           largest value fails the point.
// Expected: decode's arithmetic intensity is about 1 FLOP/B at every
//           context (each K/V element is used once per query): memory-bound,
//           its GB/s should approach the DRAM bandwidth at large batch ×
//           context (small batches leave SMs idle: one block per head), and
//           may exceed it where beyond_2x_l2 is 0 (L2's GB/s, not DRAM's).
//           Prefill's intensity grows with the context (about context / 4
//           FLOP/B causal): compute-bound, capped by the FP32 FMA pipe (not
//           the tensor pipe), well below cuBLASLt's fp16 TFLOP/s.
// Could be confused with: the compiler's work for the hardware's (tensor
//           cores, global loads or spills in the inner loops):
//           //experiments/attention:attention_sass_test (QK^T and PV loops are
//           64 FFMA on LDS per trip, no global load inside, no local
//           memory). A wrong output that runs faster: the sampled rows
//           against the double reference on the run, whose arithmetic
//           //experiments/attention:attention_reference_test checks by hand.
//           Host time inside the event pair: //probes:event_timer_test.
//           L2 for DRAM: a (hot decode) point whose Q, K, V and O fit twice
//           in L2 is served from it, so its bandwidth_gbps can exceed what DRAM gives.
//           Such a row follows the 2 x L2 rule (experiments/framework/
//           l2_residency.h): working_set_bytes (= bytes), beyond_2x_l2 0 and
//           an "L2-resident" label note (//experiments/framework:
//           l2_residency_test), and the roofline places it apart, not against
//           the DRAM roof (//analysis/papers/roofline:roofline_test,
//           L2ResidentAttentionIsNotJudgedAgainstTheDramRoof). Cold rows
//           under 2 x L2 count too: L2 is write-back, O stays in it.
#include "kernels/attention/attention.h"

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/attention/attention_reference.h"
#include "experiments/framework/experiment.h"
#include "experiments/framework/l2_residency.h"
#include "kernels/attention/attention_shape.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/event_timer.h"

namespace dissect::attention {
namespace {

constexpr double kMaxRelError = 1e-2;
constexpr int kCheckedRows = 6;
constexpr int64_t kMaxContext = 65536;
constexpr int64_t kMaxBatch = 64;
constexpr int64_t kMaxHeads = 128;
// Q carries a larger amplitude than K and V so that the softmax is peaked
// (score standard deviation about 1.3), not nearly uniform.
constexpr float kQueryAmplitude = 4.f;
constexpr float kKvAmplitude = 1.f;
// Launches per timed sample: enough for about 2^30 compulsory bytes.
constexpr double kBytesPerSample = 1073741824.0;
constexpr int kMaxLaunchesPerSample = 64;

AttentionShape ShapeOf(const Point& p) {
  AttentionShape s;
  const bool prefill = p.Str("phase") == "prefill";
  s.batch = p.Int("batch");
  s.heads = p.Int("heads");
  s.keys = p.Int("context");
  s.queries = prefill ? s.keys : 1;
  s.head_dim = kHeadDim;
  s.causal = prefill;
  return s;
}

absl::Status Validate(const Point& p) {
  const int64_t context = p.Int("context"), batch = p.Int("batch"), heads = p.Int("heads");
  if (context < 1 || context > kMaxContext) {
    return absl::InvalidArgumentError(
        absl::StrCat("context must be in 1..", kMaxContext, " tokens (got ", context, ")"));
  }
  if (batch < 1 || batch > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be in 1..", kMaxBatch, " (got ", batch, ")"));
  }
  if (heads < 1 || heads > kMaxHeads) {
    return absl::InvalidArgumentError(
        absl::StrCat("heads must be in 1..", kMaxHeads, " (got ", heads, ")"));
  }
  return absl::OkStatus();
}

// The (batch·heads + head, query) rows checked: the first and last query of
// the first and last head, and a few in between.
std::vector<std::pair<int64_t, int64_t>> CheckedRows(const AttentionShape& s) {
  const int64_t heads = s.batch * s.heads;
  std::vector<std::pair<int64_t, int64_t>> rows;
  for (int i = 0; i < kCheckedRows; ++i) {
    const int64_t head = i == 0 ? 0 : (heads - 1) * i / (kCheckedRows - 1);
    const int64_t query = i % 2 == 0 ? (s.queries - 1) * i / (kCheckedRows - 1) : s.queries - 1;
    rows.push_back({head, query});
  }
  return rows;
}

absl::StatusOr<std::vector<float>> CopyHalves(const __half* src, size_t n) {
  std::vector<__half> raw(n);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(raw.data(), src, n * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = __half2float(raw[i]);
  return out;
}

// Checks the sampled rows of O against the CPU; returns the largest error.
absl::StatusOr<double> Check(const AttentionShape& s, const AttentionArgs& args) {
  double worst = 0;
  const int64_t d = s.head_dim;
  for (const auto& [head, query] : CheckedRows(s)) {
    DISSECT_ASSIGN_OR_RETURN(std::vector<float> q,
                             CopyHalves(args.q + (head * s.queries + query) * d, d));
    DISSECT_ASSIGN_OR_RETURN(std::vector<float> k,
                             CopyHalves(args.k + head * s.keys * d, s.keys * d));
    DISSECT_ASSIGN_OR_RETURN(std::vector<float> v,
                             CopyHalves(args.v + head * s.keys * d, s.keys * d));
    DISSECT_ASSIGN_OR_RETURN(std::vector<float> o,
                             CopyHalves(args.o + (head * s.queries + query) * d, d));
    const int64_t seen = s.causal ? query + (s.keys - s.queries) + 1 : s.keys;
    DISSECT_ASSIGN_OR_RETURN(const std::vector<double> want, ReferenceRow(q, k, v, seen));
    DISSECT_ASSIGN_OR_RETURN(const double err, MaxRelativeError(o, want));
    if (!(err <= kMaxRelError)) {
      return absl::InternalError(absl::StrCat("output row (head ", head, ", query ", query,
                                              ") is off the CPU reference by ", err, " (bound ",
                                              kMaxRelError, ")"));
    }
    worst = std::max(worst, err);
  }
  return worst;
}

absl::Status Run(PointContext& ctx) {
  const AttentionShape s = ShapeOf(ctx.point());
  const size_t q_elems = static_cast<size_t>(s.batch * s.heads * s.queries * s.head_dim);
  const size_t kv_elems = static_cast<size_t>(s.batch * s.heads * s.keys * s.head_dim);
  const size_t need = sizeof(__half) * (2 * q_elems + 2 * kv_elems);
  size_t free_bytes = 0, total_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (need + (size_t{256} << 20) > free_bytes) {
    return Skipped(absl::StrCat("needs ", need >> 20, " MiB, ", free_bytes >> 20, " MiB free"));
  }
  DISSECT_ASSIGN_OR_RETURN(auto q, DeviceBuffer<__half>::Allocate(q_elems));
  DISSECT_ASSIGN_OR_RETURN(auto k, DeviceBuffer<__half>::Allocate(kv_elems));
  DISSECT_ASSIGN_OR_RETURN(auto v, DeviceBuffer<__half>::Allocate(kv_elems));
  DISSECT_ASSIGN_OR_RETURN(auto o, DeviceBuffer<__half>::Allocate(q_elems));
  cudaStream_t stream = ctx.stream();
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchFillSigned(q.get(), q_elems, kQueryAmplitude, 1, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchFillSigned(k.get(), kv_elems, kKvAmplitude, 2, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchFillSigned(v.get(), kv_elems, kKvAmplitude, 3, stream));
  // An output that is never written must not pass the check by chance.
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(o.get(), 0xff, o.bytes(), stream));
  const AttentionArgs args{q.get(), k.get(), v.get(), o.get(), s};

  DISSECT_CUDA_RETURN_IF_ERROR(LaunchAttention(args, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  DISSECT_ASSIGN_OR_RETURN(const double error, Check(s, args));

  const double flops = AttentionFlops(s);
  const double bytes = AttentionBytes(s);
  const int launches = static_cast<int>(
      std::clamp(std::ceil(kBytesPerSample / bytes), 1.0, double{kMaxLaunchesPerSample}));
  DISSECT_ASSIGN_OR_RETURN(const CacheState cache, ParseCacheState(ctx.Str("cache")));
  DISSECT_ASSIGN_OR_RETURN(
      const std::vector<double> ms,
      ctx.TimeKernel([&](cudaStream_t st) { return LaunchAttention(args, st); }, cache, launches));
  std::vector<double> tflops, gbps;
  for (double t : ms) {
    tflops.push_back(flops / (t * 1e-3) / 1e12);
    gbps.push_back(bytes / (t * 1e-3) / 1e9);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("flops", {flops}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bytes", {bytes}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("arithmetic_intensity", {flops / bytes}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("tflops", std::move(tflops)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bandwidth_gbps", std::move(gbps)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("max_rel_error", {error}));
  DISSECT_RETURN_IF_ERROR(AddL2Residency(ctx, bytes).status());
  ctx.AddNote("kernel=ours_fp32_ffma_no_tensor_cores");
  return absl::OkStatus();
}

DISSECT_EXPERIMENT(attention)
    .Question(
        "How close does a simple tiled fp16 attention kernel (FP32 FFMA, no tensor cores) come "
        "to this GPU's roofline in LLM prefill and decode?")
    .AddAxis(StringAxis("phase", {"prefill", "decode"}, {},
                        "prefill: causal, queries = keys = context; decode: one query per "
                        "sequence against `context` cached keys"))
    .AddAxis(IntAxis("context", "tokens", {512, 1024, 2048, 4096, 8192},
                     "keys (and prefill queries) per sequence, 1..65536"))
    .AddAxis(IntAxis("batch", "sequences", {1},
                     "sequences, 1..64 (decode: try 1,8,32,64; the paper catalog's prefill "
                     "uses 1)"))
    .AddAxis(IntAxis("heads", "heads", {32}, "attention heads of head dim 128 (Llama-2-7B: 32)"))
    .AddAxis(StringAxis("cache", {"hot", "cold"}, {"hot"},
                        "hot: back to back (K/V that fit stay in L2); cold: L2 flushed before "
                        "each sample"))
    .AddMetric("flops", "FLOP", "4·B·H·Q·K·d (causal prefill: half of it)")
    .AddMetric("bytes", "B", "compulsory traffic: Q, K, V read and O written once, fp16")
    .AddMetric("arithmetic_intensity", "FLOP/B", "flops / bytes")
    .AddMetric("tflops", "TFLOP/s", "flops / event time per launch")
    .AddMetric("bandwidth_gbps", "GB/s", "bytes / event time per launch")
    .AddMetric("max_rel_error", "fraction",
               "largest error of the sampled output rows against the CPU reference, relative "
               "to the row's largest value (bound 1e-2)")
    .AddMetrics(L2ResidencyMetrics(
        "Q, K, V and O once each (= bytes); under 2 x device_l2_bytes bandwidth_gbps is L2's, "
        "not DRAM's"))
    .Validate(Validate)
    .Headline("tflops")
    .Run(Run);

}  // namespace
}  // namespace dissect::attention
