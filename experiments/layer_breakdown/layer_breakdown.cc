// Question: where does a CNN's forward pass spend its time, op by op, and
//           what DRAM bandwidth does each op reach? (Jung et al., SysML 2019:
//           per-layer bandwidth of DenseNet, CONV vs BN/ReLU/concat/pooling;
//           Fathom, IISWC 2016: the share of time per op type.)
// Timed:    the built-in forward pass (experiments/workloads/forward, NetworkPart::kFull:
//           the features and the classifier; He-initialised synthetic
//           weights, calibrated BN, synthetic images; cuDNN, cuBLAS and our
//           copies), hot, batch images per pass. The row's time is the whole
//           pass (TimeKernel, CUDA events around it, guarded). Per op: the
//           same pass once per sample with a CUDA event recorded on the
//           pass's stream after every op, all of it queued behind a spin
//           kernel so that no host time falls between two events
//           (probes/event_timer.h's MarkedPassTimer: a sample whose first
//           event the device reached before the pass was queued is timed
//           again behind a longer guard, sized as TimeKernel's); op i's time
//           is event i to event i+1, the median, min and max over the samples.
//           The pass's output (softmax probabilities) is checked first:
//           finite, each image's summing to 1.
// Bytes:    op_bytes are compulsory DRAM bytes (float32): inputs read once,
//           output written once, weights or BN parameters read once
//           (forward::ComputeLayerCost). op_bytes / op_us is therefore a lower
//           bound of the op's real DRAM traffic rate: convs re-read tiles,
//           cuDNN may use workspaces; but caches also serve some of it, and
//           L2 may hold a small layer's input written by the op before, so a
//           small layer's "bandwidth" can exceed what DRAM gives.
// Expected: convs (and FC at batch 1, GEMV) take most of the time; at small
//           batch BN, ReLU, pooling and concat are short but memory bound,
//           reaching a large fraction of DRAM bandwidth on large maps, while
//           convs reach far less bandwidth (compute bound); DenseNet's
//           concats copy the growing block map every layer, so non-conv ops
//           take a larger share there than in VGG-16 or ResNet-50. Event
//           recording between ops adds about a microsecond per op, so the
//           ops' sum can exceed the uninstrumented pass.
// Could be confused with: host time between two ops' events: the row
//           time goes through TimeKernel, the per-op samples through
//           MarkedPassTimer, both on the same guard (NextGuardNs), which
//           //probes:event_timer_test checks on a simulated device queue
//           (MarkedPassTimesEachStepWithoutTheHostBetweenThem: 2 ms of host
//           work before each 10 us step, each step timed as 10 us; it fails
//           if an exposed pass is not timed again or no guard is queued).
//           L2 for DRAM: op_bytes are compulsory bytes, not measured DRAM
//           traffic, and no row prints a % of DRAM peak (see Bytes above);
//           a per-op DRAM counter would tell the two apart. Wrong FLOP or
//           byte counts: op_rows_test covers only the ops note and the
//           per-op summary; the counts come from forward::ComputeLayerCost,
//           and layer_breakdown_gpu_test (GPU) bounds AlexNet's total_flops
//           to 2.5e9-4e9 at batch 2.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/workloads/forward/cached_pass.h"
#include "experiments/workloads/forward/forward_pass.h"
#include "experiments/workloads/forward/network.h"
#include "experiments/framework/experiment.h"
#include "experiments/layer_breakdown/op_rows.h"
#include "probes/cuda_status.h"
#include "probes/event_timer.h"

namespace dissect::layer_breakdown {
namespace {

constexpr uint64_t kWeightSeed = 2019;
// The first guard spin before a per-op sample: a whole pass's host work
// (cuDNN and cuBLAS calls for every op), not one launch's. It grows to twice
// the pass's host time, up to kMaxGuardNs (200 ms), past which a pass is an
// error.
constexpr int64_t kFirstGuardNs = 20'000'000;
constexpr int kMaxBatch = 256;

// One pass, its last output copied back: every value finite and, when the
// network ends in softmax, each image's values summing to 1.
absl::Status CheckOutput(forward::ForwardPass& pass) {
  const forward::TensorDims dims = pass.OutputDims();
  std::vector<float> host(dims.elements());
  const size_t last = pass.network().layers.size();
  size_t seen = 0;
  DISSECT_RETURN_IF_ERROR(pass.Run(
      0,
      [&](const std::string&, const float* data, forward::TensorDims) -> absl::Status {
        if (++seen == last) {
          DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host.data(), data,
                                                       host.size() * sizeof(float),
                                                       cudaMemcpyDeviceToHost, pass.stream()));
        }
        return absl::OkStatus();
      },
      forward::Observe::kEveryLayer));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(pass.stream()));
  const bool softmax = pass.network().layers.back().op == forward::LayerOp::kSoftmax;
  const size_t per_image = host.size() / dims.n;
  for (int n = 0; n < dims.n; ++n) {
    double sum = 0;
    for (size_t i = 0; i < per_image; ++i) {
      const float v = host[n * per_image + i];
      if (!std::isfinite(v)) {
        return absl::InternalError(absl::StrCat("the pass's output is not finite (image ", n, ")"));
      }
      sum += v;
    }
    if (softmax && std::abs(sum - 1.0) > 1e-3) {
      return absl::InternalError(
          absl::StrCat("the softmax output of image ", n, " sums to ", sum, ", not 1"));
    }
  }
  return absl::OkStatus();
}

// One per-op sample: the op times in microseconds, each op marked by an
// event on the pass's stream, the whole pass queued behind the timer's guard.
absl::StatusOr<std::vector<double>> TimeOpsOnce(forward::ForwardPass& pass,
                                                MarkedPassTimer& timer) {
  const int ops = static_cast<int>(pass.network().layers.size());
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> ms, timer.Time(ops, [&](const MarkFn& mark) {
    return pass.Run(
        0, [&](const std::string&, const float*, forward::TensorDims) { return mark(); },
        forward::Observe::kEveryLayer);
  }));
  for (double& t : ms) t *= 1e3;
  return ms;
}

absl::Status Validate(const Point& p) {
  const int64_t batch = p.Int("batch");
  if (batch < 1 || batch > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be in 1..", kMaxBatch, " (got ", batch, ")"));
  }
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const std::string& network = ctx.Str("network");
  const int batch = static_cast<int>(ctx.Int("batch"));
  DISSECT_ASSIGN_OR_RETURN(
      forward::ForwardPass * pass,
      forward::CachedForwardPass(ctx, network, forward::NetworkPart::kFull, batch, kWeightSeed));
  const forward::NetworkSpec& net = pass->network();
  DISSECT_ASSIGN_OR_RETURN(const std::string note, OpsNote(net));
  DISSECT_RETURN_IF_ERROR(CheckOutput(*pass));

  // The whole pass: the row's time.
  absl::Status run_status;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                                 [&](cudaStream_t) {
                                   run_status.Update(pass->Run(0, {}));
                                   return run_status.ok() ? cudaSuccess : cudaErrorUnknown;
                                 },
                                 CacheState::kHot)
                              .status());
  DISSECT_RETURN_IF_ERROR(run_status);

  // Per op.
  const size_t ops = net.layers.size();
  const std::unique_ptr<TimingQueue> queue = NewCudaTimingQueue(pass->stream());
  MarkedPassTimer timer(*queue, kFirstGuardNs);
  for (int w = 0; w < ctx.timing().warmup; ++w) {
    DISSECT_RETURN_IF_ERROR(TimeOpsOnce(*pass, timer).status());
  }
  std::vector<std::vector<double>> samples;
  std::vector<double> totals;
  for (int s = 0; s < ctx.timing().samples; ++s) {
    DISSECT_ASSIGN_OR_RETURN(std::vector<double> us, TimeOpsOnce(*pass, timer));
    double total = 0;
    for (double t : us) total += t;
    totals.push_back(total);
    samples.push_back(std::move(us));
  }
  DISSECT_ASSIGN_OR_RETURN(const OpTimes times, SummarizeOpTimes(samples));

  std::vector<double> bytes(ops);
  std::vector<double> flops(ops);
  double total_bytes = 0;
  double total_flops = 0;
  for (size_t i = 0; i < ops; ++i) {
    const forward::LayerCost cost = forward::ComputeLayerCost(net, static_cast<int>(i), batch);
    bytes[i] = cost.bytes;
    flops[i] = cost.flops;
    total_bytes += cost.bytes;
    total_flops += cost.flops;
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("total_us", totals));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("total_bytes", {total_bytes}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("total_flops", {total_flops}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("ops", {static_cast<double>(ops)}));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("op_us", times.median));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("op_us_min", times.min));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("op_us_max", times.max));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("op_bytes", bytes));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("op_flops", flops));
  ctx.AddNote(note);
  return absl::OkStatus();
}

DISSECT_EXPERIMENT(layer_breakdown)
    .Question(
        "Where does a CNN's forward pass spend its time op by op (conv, BN, ReLU, pooling, "
        "concat, add, FC, softmax), and what DRAM bandwidth does each op reach from its "
        "compulsory bytes?")
    .AddAxis(StringAxis("network", forward::AllBuiltinNetworkNames(), {},
                        "the built-in network, features and classifier (configs/networks)"))
    .AddAxis(IntAxis("batch", "images", {1, 16, 64}, "images per forward pass (1..256)"))
    .AddMetric("total_us", "us", "sum of the per-op times of one instrumented pass")
    .AddMetric("total_bytes", "B", "sum of op_bytes")
    .AddMetric("total_flops", "flop", "sum of op_flops")
    .AddMetric("ops", "ops", "ops in the pass (the length of every vector)")
    .AddVector("op_us", "us", "op", "median time of op i (event after op i-1 to event after op i)")
    .AddVector("op_us_min", "us", "op", "fastest sample of op i")
    .AddVector("op_us_max", "us", "op", "slowest sample of op i")
    .AddVector("op_bytes", "B", "op",
               "compulsory DRAM bytes of op i, float32: inputs + output + weights/parameters")
    .AddVector("op_flops", "flop", "op", "floating-point operations of op i (2 per multiply-add)")
    .Validate(Validate)
    .Headline("total_us")
    .Run(Run);

}  // namespace
}  // namespace dissect::layer_breakdown
