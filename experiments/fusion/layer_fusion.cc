// Question: what does fusing a layer's elementwise neighbours into one
//           kernel save against running them as separate kernels: conv+ReLU
//           (Dong & Kaeli, ICPE 2018), BN+ReLU, and BN+ReLU folded into the
//           next conv's input loads (Jung et al., SysML 2019)?
// Timed:    CUDA events around the whole pattern, cold by default (L2
//           flushed before each sample, so the input comes from DRAM) or hot
//           (back to back): fused = one kernel (kernels/fusion's templated
//           direct conv with an output ReLU or an input BN+ReLU, or the
//           BN+ReLU channel kernel); unfused = the kernels back to back
//           through an intermediate tensor (conv then kernels/elementwise's
//           ReLU; BN then ReLU; BN+ReLU then conv). Before timing, both forms
//           run once and their outputs must be bit-identical, and the point's
//           output must equal the CPU reference on a sample (all outputs
//           when small).
// Expected: fusion removes the intermediate's write and read
//           (compulsory_bytes falls by 2 x its size; DRAM traffic only
//           where beyond_2x_l2, L2 traffic elsewhere) and a launch. For
//           bn_relu (bandwidth-bound) unfused should take about
//           (4 x |x|) / (2 x |x|) = 2x the fused time; for conv_relu and
//           bn_relu_conv the direct conv is compute-bound, so the saving is
//           the intermediate's traffic (small beside the conv) and the
//           speedup near 1 (larger for 1x1 convs with few channels). A
//           speedup below speedup noise (kernel_us.spread) is no effect.
// Could be confused with:
//   - L2 for DRAM. L2 is write-back, and the intermediate is read back right
//     after it is written: unless the working set (input, parameters,
//     intermediate, output) is at least 2 x device_l2_bytes, the
//     intermediate never reaches DRAM, hot or cold (DenseNet-121 block 1 at
//     batch 1-8 fits an H100's 50 MiB L2). Each row records
//     working_set_bytes and beyond_2x_l2; below it dram_peak_pct is NaN and
//     the label says L2-resident (the rule every experiment shares,
//     experiments/framework/l2_residency.h), and the fusion_speedup generator
//     prints no % of the DRAM peak and no "DRAM bytes" for it. Cold (the
//     default) also keeps a hot run's L2-resident input out of the
//     DRAM-framed rows. Tests: //experiments/framework:l2_residency_test (the
//     rule, the NaN, the counters and the label), fusion_host_test
//     (DenseNetBlock1AtSmallBatchesIsL2Resident: this working set under the
//     rule), bad_input_test (every default point is cold),
//     analysis/papers/fusion:fusion_test
//     (RowsThatFitInL2AreL2ResidentNotAPercentOfDram).
//   - The compiler's work for the hardware's: a fused kernel that still
//     stores the intermediate, or a form whose work the compiler dropped,
//     would time something else. fusion_ptx_test and fusion_sass_test show
//     one store (of a max with 0) in the fused conv+ReLU and BN's fma+max on
//     every loaded input of the fused BN+ReLU+conv; the bit-identical and
//     CPU-reference checks before timing show both forms did all the work.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/fusion/fusion_host.h"
#include "experiments/framework/experiment.h"
#include "experiments/framework/l2_residency.h"
#include "experiments/workloads/layers/device_tensors.h"
#include "experiments/workloads/layers/reference.h"
#include "kernels/elementwise.h"
#include "kernels/fusion/fusion.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect::fusion {
namespace {

constexpr uint64_t kInputSeed = 0xf05e5eed;
// Host multiply-adds one reference check may spend (a sample beyond it).
constexpr double kCheckWork = 1 << 24;
constexpr size_t kMemorySlackBytes = size_t{64} << 20;

absl::Status ValidatePoint(const Point& point) {
  DISSECT_RETURN_IF_ERROR(ParsePattern(point.Str("pattern")).status());
  DISSECT_RETURN_IF_ERROR(ParseMode(point.Str("mode")).status());
  DISSECT_RETURN_IF_ERROR(FindFusionLayer(point.Str("layer")).status());
  if (point.Int("batch") < 1 || point.Int("batch") > 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch ", point.Int("batch"), " outside 1..256"));
  }
  return absl::OkStatus();
}

// One (pattern, layer, batch) on the device: the inputs (host and device),
// the intermediate and the output. Kept for the next point of the same key.
struct Shape {
  std::string key;
  Pattern pattern = Pattern::kConvRelu;
  ConvDims dims;
  HostInputs host;
  DeviceBuffer<float> x, weights, scale, shift, intermediate, y;
  int conv_blocks = 1, affine_blocks = 1, relu_blocks = 1;
};

template <typename T>
absl::Status Upload(const std::vector<T>& host, DeviceBuffer<T>& device) {
  DISSECT_ASSIGN_OR_RETURN(device, DeviceBuffer<T>::Allocate(host.size()));
  if (host.empty()) return absl::OkStatus();
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(device.get(), host.data(), device.bytes(), cudaMemcpyHostToDevice));
  return absl::OkStatus();
}

// A grid-stride grid: enough blocks of kFusionThreads to fill every SM, or
// fewer when there are fewer elements.
int GridBlocks(const DeviceInfo& device, size_t elements) {
  const size_t full = static_cast<size_t>(device.sm_count) *
                      std::max(1, device.max_threads_per_sm / kFusionThreads);
  const size_t needed = (elements + kFusionThreads - 1) / kFusionThreads;
  return static_cast<int>(std::max<size_t>(1, std::min(full, needed)));
}

absl::StatusOr<Shape*> PrepareShape(PointContext& ctx, Pattern pattern, const ConvDims& dims,
                                    const std::string& key) {
  static std::unique_ptr<Shape> cache;
  if (cache != nullptr && cache->key == key) return cache.get();
  cache.reset();
  const TensorSizes sizes = SizesOf(pattern, dims);
  const double bytes = CompulsoryBytes(pattern, Mode::kUnfused, dims);
  DISSECT_RETURN_IF_ERROR(
      l1_bypass::CheckDeviceMemory(static_cast<size_t>(bytes), kMemorySlackBytes));
  auto shape = std::make_unique<Shape>();
  shape->key = key;
  shape->pattern = pattern;
  shape->dims = dims;
  shape->host = MakeInputs(pattern, dims, kInputSeed);
  DISSECT_RETURN_IF_ERROR(Upload(shape->host.x, shape->x));
  DISSECT_RETURN_IF_ERROR(Upload(shape->host.weights, shape->weights));
  DISSECT_RETURN_IF_ERROR(Upload(shape->host.scale, shape->scale));
  DISSECT_RETURN_IF_ERROR(Upload(shape->host.shift, shape->shift));
  DISSECT_ASSIGN_OR_RETURN(shape->intermediate, DeviceBuffer<float>::Allocate(sizes.intermediate));
  DISSECT_ASSIGN_OR_RETURN(shape->y, DeviceBuffer<float>::Allocate(sizes.output));
  shape->conv_blocks = GridBlocks(ctx.device(), sizes.output);
  shape->affine_blocks = GridBlocks(ctx.device(), sizes.input);
  DISSECT_CUDA_RETURN_IF_ERROR(ReluGridBlocks(sizes.intermediate, &shape->relu_blocks));
  cache = std::move(shape);
  return cache.get();
}

// Launches the pattern in `mode` (one kernel, or the unfused kernels back to
// back). Nothing but launches, so that it can be timed.
cudaError_t LaunchPattern(const Shape& s, Mode mode, cudaStream_t stream) {
  const ConvDims& d = s.dims;
  const size_t hw = static_cast<size_t>(d.h) * d.w;
  float* tmp = s.intermediate.get();
  const bool fused = mode == Mode::kFused;
  cudaError_t first = cudaSuccess;
  switch (s.pattern) {
    case Pattern::kConvRelu:
      if (fused) {
        return LaunchConv(s.x.get(), s.weights.get(), nullptr, nullptr, s.y.get(), d,
                          InputOp::kIdentity, OutputOp::kRelu, s.conv_blocks, stream);
      }
      first = LaunchConv(s.x.get(), s.weights.get(), nullptr, nullptr, tmp, d, InputOp::kIdentity,
                         OutputOp::kIdentity, s.conv_blocks, stream);
      if (first != cudaSuccess) return first;
      return LaunchRelu(tmp, s.y.get(), s.intermediate.size(), s.relu_blocks, stream);
    case Pattern::kBnRelu:
      if (fused) {
        return LaunchChannelAffine(s.x.get(), s.scale.get(), s.shift.get(), s.y.get(), d.n, d.c, hw,
                                   true, s.affine_blocks, stream);
      }
      first = LaunchChannelAffine(s.x.get(), s.scale.get(), s.shift.get(), tmp, d.n, d.c, hw, false,
                                  s.affine_blocks, stream);
      if (first != cudaSuccess) return first;
      return LaunchRelu(tmp, s.y.get(), s.intermediate.size(), s.relu_blocks, stream);
    case Pattern::kBnReluConv:
      if (fused) {
        return LaunchConv(s.x.get(), s.weights.get(), s.scale.get(), s.shift.get(), s.y.get(), d,
                          InputOp::kBnRelu, OutputOp::kIdentity, s.conv_blocks, stream);
      }
      first = LaunchChannelAffine(s.x.get(), s.scale.get(), s.shift.get(), tmp, d.n, d.c, hw, true,
                                  s.affine_blocks, stream);
      if (first != cudaSuccess) return first;
      return LaunchConv(tmp, s.weights.get(), nullptr, nullptr, s.y.get(), d, InputOp::kIdentity,
                        OutputOp::kIdentity, s.conv_blocks, stream);
  }
  return cudaErrorInvalidValue;
}

// Poisons the output (0xff.. is a NaN), runs `mode` once and downloads y.
absl::StatusOr<std::vector<float>> RunOnce(const Shape& s, Mode mode, cudaStream_t stream) {
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(s.y.get(), 0xff, s.y.bytes(), stream));
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchPattern(s, mode, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  std::vector<float> y(s.y.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(y.data(), s.y.get(), s.y.bytes(), cudaMemcpyDeviceToHost));
  return y;
}

// The row's metrics from the samples `ms`. Data that stays in L2 gets no %
// of the DRAM peak (NaN) and an L2-resident note: see the top of this file.
absl::Status AddMetrics(PointContext& ctx, Pattern pattern, Mode mode, const ConvDims& dims,
                        const std::vector<double>& ms) {
  const double bytes = CompulsoryBytes(pattern, mode, dims);
  std::vector<double> us, gbps;
  for (double m : ms) {
    us.push_back(m * 1e3);
    gbps.push_back(bytes / (m * 1e-3) / 1e9);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("kernel_us", std::move(us)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("compulsory_bytes", {bytes}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples(
      "intermediate_bytes",
      {mode == Mode::kUnfused ? 2.0 * SizesOf(pattern, dims).intermediate * sizeof(float) : 0.0}));
  DISSECT_RETURN_IF_ERROR(AddDramPeakPct(ctx, gbps, WorkingSetBytes(pattern, dims)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bandwidth_gbps", std::move(gbps)));
  return ctx.AddSamples("kernels", {mode == Mode::kFused ? 1.0 : 2.0});
}

absl::Status RunPoint(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const Pattern pattern, ParsePattern(ctx.Str("pattern")));
  DISSECT_ASSIGN_OR_RETURN(const Mode mode, ParseMode(ctx.Str("mode")));
  DISSECT_ASSIGN_OR_RETURN(const FusionLayer layer, FindFusionLayer(ctx.Str("layer")));
  ConvDims dims = layer.dims;
  dims.n = static_cast<int>(ctx.Int("batch"));
  const std::string key = absl::StrCat(ctx.Str("pattern"), "/", layer.name, "/", dims.n);
  DISSECT_ASSIGN_OR_RETURN(Shape * shape, PrepareShape(ctx, pattern, dims, key));

  // Both forms once: bit-identical outputs, and this mode's against the CPU.
  const Mode other = mode == Mode::kFused ? Mode::kUnfused : Mode::kFused;
  DISSECT_ASSIGN_OR_RETURN(const std::vector<float> other_y, RunOnce(*shape, other, ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(const std::vector<float> y, RunOnce(*shape, mode, ctx.stream()));
  DISSECT_RETURN_IF_ERROR(
      l1_bypass::CheckIdentical(y, other_y, mode == Mode::kFused ? "unfused" : "fused"));
  DISSECT_RETURN_IF_ERROR(CheckAgainstReference(pattern, shape->host, dims, y, kCheckWork));

  const auto launch = [shape, mode](cudaStream_t stream) {
    return LaunchPattern(*shape, mode, stream);
  };
  DISSECT_ASSIGN_OR_RETURN(const CacheState cache, ParseCacheState(ctx.Str("cache")));
  DISSECT_ASSIGN_OR_RETURN(const std::vector<double> ms, ctx.TimeKernel(launch, cache));
  DISSECT_RETURN_IF_ERROR(AddMetrics(ctx, pattern, mode, dims, ms));
  ctx.AddNote("checked: bit-identical to the other mode, CPU reference on a sample");
  return absl::OkStatus();
}

}  // namespace

DISSECT_EXPERIMENT(layer_fusion)
    .Question(
        "What does fusing conv+ReLU, BN+ReLU or BN+ReLU+conv into one kernel save "
        "against separate kernels, in time and in memory traffic?")
    .AddAxis(StringAxis("pattern", PatternNames(), {},
                        "conv_relu: conv then ReLU; bn_relu: per-channel BN then ReLU on the "
                        "layer's input; bn_relu_conv: BN+ReLU then the layer's conv (DenseNet "
                        "order)"))
    .AddAxis(StringAxis("mode", ModeNames(), {},
                        "fused: one kernel; unfused: conv, ReLU / BN, ReLU / BN+ReLU, conv as "
                        "kernels back to back through an intermediate tensor"))
    .AddAxis(StringAxis("cache", {"hot", "cold"}, {"cold"},
                        "cold: L2 flushed before each sample (the input from DRAM); hot: back "
                        "to back (what fits stays in L2). Either way an intermediate whose "
                        "working set is under 2 x L2 stays in L2 (L2-resident)"))
    .AddAxis(StringAxis("layer", FusionLayerNames(),
                        {"alexnet.conv2", "vgg16.conv3_1", "resnet50.res3b_branch2b",
                         "densenet121.block1_1x1", "densenet121.block1_3x3"},
                        "a conv layer of configs/layers/cnn_layers.json, or a DenseNet-121 "
                        "shape (Huang et al. 2017): densenet121.block1_1x1 (224->128, 1x1, "
                        "56x56), block1_3x3 (128->32, 3x3), transition1 (256->128, 1x1), "
                        "block3_3x3 (128->32, 3x3, 14x14)"))
    .AddAxis(IntAxis("batch", "images", {1, 8}, "images per launch (1..256)"))
    .AddMetric("kernel_us", "us", "event time of the whole pattern (1 or 2 kernels)")
    .AddMetric("compulsory_bytes", "B",
               "bytes the pattern must move: input, parameters, output, plus the unfused "
               "intermediate written and read back (through DRAM only when beyond_2x_l2)")
    .AddMetric("intermediate_bytes", "B", "the intermediate's write + read (0 when fused)")
    .AddMetric("bandwidth_gbps", "GB/s", "compulsory_bytes / kernel time (1e9 B/s)")
    .AddMetric("dram_peak_pct", "%",
               "bandwidth_gbps / the device's theoretical DRAM peak; NaN when the data is "
               "L2-resident (beyond_2x_l2 0)")
    .AddMetric("kernels", "-", "kernels launched per pattern")
    .AddMetrics(L2ResidencyMetrics(
        "input, parameters, intermediate and output once each (the unfused form's "
        "footprint; the same in both rows of a point)"))
    .Validate(ValidatePoint)
    .Run(RunPoint);

}  // namespace dissect::fusion
