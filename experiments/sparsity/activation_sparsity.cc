// Question: how sparse are a CNN's activations, layer by layer and channel
//           by channel, and how much sparsity does FATReLU thresholding
//           (y = x if x > T else 0; Kurtz et al. 2020) add? The structured
//           figures (all-zero 32-channel vectors, 16 x 16 implicit-GEMM
//           tiles, 2:4-compatible 4-channel groups, dead channels) say how
//           much of it a sparse kernel could exploit.
// Timed:    synthetic_weights and fatrelu: one forward pass of the built-in
//           network (experiments/workloads/forward: He-initialised conv weights,
//           calibrated BN, synthetic images; cuDNN), hot, CUDA events, with
//           no statistics in it; the statistics come from one more pass with
//           the GPU count kernels (kernels/sparsity) run after every ReLU or
//           FATReLU output. The first layer of the first point measured is
//           also copied back and counted on the CPU (probes/sparsity/stats.h);
//           a difference is an error. npy_dumps: nothing on the GPU; the row
//           time is the host time of the CPU statistics over all dumps (one
//           sample, .npy reading excluded).
// Expected: with ReLU about half of each He-initialised layer's activations
//           are zero (BN centres the pre-activations), with little structure:
//           warp_zero_fraction and tile_zero_fraction near 0 and
//           two_four_fraction near 0.7 (the chance of >= 2 zeros in 4 at
//           p = 0.5); FATReLU raises zero_fraction with T (about the normal
//           CDF of T), and the structured fractions only at large T. Trained
//           networks (npy_dumps) are sparser in deep layers and have dead
//           channels; synthetic weights cannot show that.
// Could be confused with: zeros the count kernels invent or miss
//           (unwritten elements, a partial last vector or tile):
//           //probes/sparsity:stats_test defines every figure on small
//           tensors by hand (partial warp vectors and tiles, 2:4 padding),
//           and //experiments/sparsity:device_stats_gpu_test (GPU) checks
//           the GPU counts equal those exactly; each run also counts the
//           first layer on the CPU and fails on a difference. A wrong
//           threshold or source for the row: sparsity_rows_test (skip rules,
//           threshold parsing, row assembly). The network's sparsity for a
//           trained one's: synthetic He-init weights decide the figures
//           (said above); only npy_dumps measure a trained network. The
//           statistics' cost in the row time: the timed pass runs no count
//           kernel (by construction; no test).
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/workloads/forward/cached_pass.h"
#include "experiments/workloads/forward/forward_pass.h"
#include "experiments/workloads/forward/network.h"
#include "experiments/framework/experiment.h"
#include "experiments/sparsity/device_stats.h"
#include "experiments/sparsity/sparsity_rows.h"
#include "experiments/workloads/inputs/npy.h"
#include "gflags/gflags.h"
#include "probes/cuda_status.h"
#include "probes/sparsity/stats.h"

DEFINE_string(activations, "",
              "npy_dumps: a .npy activation dump or a folder of them (one layer per file, named "
              "by the file stem, in natural order: layer9 before layer10)");
DEFINE_string(activation_layout, "NCHW",
              "npy_dumps: the order of 4-dimensional dumps, NCHW or NHWC (2-dimensional dumps "
              "are N x features)");
DEFINE_string(activation_dtype, "auto",
              "npy_dumps: auto (the .npy descr: <f4, <f2 or bfloat16) or bfloat16 (also read "
              "2-byte raw '<V2' dumps, as numpy.save writes ml_dtypes/jax bfloat16, as bfloat16)");

namespace dissect::sparsity {
namespace {

constexpr uint64_t kWeightSeed = 0x5ba25e;

// The dumps of --activations, checked once (headers only) by Validate.
struct NpyInput {
  std::vector<NpyFile> files;
  NpyOptions options;
};

absl::StatusOr<NpyInput> CheckActivationsFlag() {
  NpyInput input;
  DISSECT_ASSIGN_OR_RETURN(input.options.layout, ParseLayout(FLAGS_activation_layout));
  if (FLAGS_activation_dtype != "auto" && FLAGS_activation_dtype != "bfloat16") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--activation_dtype must be auto or bfloat16 (got '", FLAGS_activation_dtype, "')"));
  }
  input.options.void2_as_bfloat16 = FLAGS_activation_dtype == "bfloat16";
  if (FLAGS_activations.empty()) return input;
  DISSECT_ASSIGN_OR_RETURN(input.files, ListNpyFiles(FLAGS_activations));
  for (const NpyFile& f : input.files) {
    if (absl::Status s = CheckLayerName(f.layer); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(f.path, ": ", s.message()));
    }
    DISSECT_RETURN_IF_ERROR(ReadNpyHeader(f.path, input.options).status());
  }
  return input;
}

// Filled by the first Validate call.
std::optional<absl::StatusOr<NpyInput>>& Input() {
  static auto* input = new std::optional<absl::StatusOr<NpyInput>>;
  return *input;
}

// The network value of the first npy_dumps point validated (the sweep
// visits points in the order it validates them).
std::string& NpyNetwork() {
  static auto* network = new std::string;
  return *network;
}

// Whether a point of another source than npy_dumps was validated before.
bool& SawOtherSource() {
  static bool saw = false;
  return saw;
}

absl::Status Validate(const Point& p) {
  if (!Input().has_value()) Input() = CheckActivationsFlag();
  if (!Input()->ok()) return Input()->status();
  const int64_t batch = p.Int("batch");
  if (batch < 1 || batch > 256) {
    return absl::InvalidArgumentError(absl::StrCat("batch must be in 1..256 (got ", batch, ")"));
  }
  if (p.Str("activation_source") == kNpyDumps && NpyNetwork().empty()) {
    // activation_source is the outermost axis, so the first point validated
    // carries the first source asked for: npy_dumps alone or first is a run
    // of the dumps, which needs them; after another source (the default
    // order) its points are skipped.
    if (FLAGS_activations.empty() && !SawOtherSource()) {
      return absl::InvalidArgumentError(
          "activation_source=npy_dumps needs --activations=PATH (a .npy file or a folder of "
          "them)");
    }
    NpyNetwork() = p.Str("network");
  }
  if (p.Str("activation_source") != kNpyDumps) SawOtherSource() = true;
  return ParseThreshold(p.Str("threshold")).status();
}

absl::Status EmitRow(PointContext& ctx, const std::vector<LayerCounts>& layers) {
  DISSECT_ASSIGN_OR_RETURN(SparsityRow row, MakeRow(layers));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("layers", {row.layers}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("mean_zero_fraction", {row.mean_zero_fraction}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("overall_zero_fraction", {row.overall_zero_fraction}));
  for (auto& [name, values] : row.vectors) {
    DISSECT_RETURN_IF_ERROR(ctx.SetVector(name, std::move(values)));
  }
  ctx.AddNote(absl::StrCat("activation_source=", ctx.Str("activation_source")));
  ctx.AddNote(std::move(row.layers_note));
  return absl::OkStatus();
}

absl::Status RunNpy(PointContext& ctx, const NpyInput& input) {
  std::vector<LayerCounts> layers;
  double stats_ms = 0;
  for (const NpyFile& f : input.files) {
    DISSECT_ASSIGN_OR_RETURN(Activation act, ReadNpy(f.path, input.options));
    const auto start = std::chrono::steady_clock::now();
    DISSECT_ASSIGN_OR_RETURN(SparsityCounts counts, CountSparsity(act.dims, act.nchw));
    stats_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    layers.push_back({f.layer, std::move(counts)});
  }
  ctx.RecordTimeSamples({stats_ms});
  return EmitRow(ctx, layers);
}

// Counts one layer on the host, for the check of the GPU counts.
absl::StatusOr<SparsityCounts> CountOnHost(const float* device_data, const Dims& dims,
                                           cudaStream_t stream) {
  std::vector<float> host(dims.elements());
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(
      host.data(), device_data, host.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return CountSparsity(dims, host);
}

absl::Status RunForward(PointContext& ctx, float threshold) {
  DISSECT_ASSIGN_OR_RETURN(
      forward::ForwardPass * pass,
      forward::CachedForwardPass(ctx, ctx.Str("network"), forward::NetworkPart::kFeatures,
                                 static_cast<int>(ctx.Int("batch")), kWeightSeed));
  static bool checked = false;
  DeviceSparsityCounter counter;
  std::vector<LayerCounts> layers;
  DISSECT_RETURN_IF_ERROR(pass->Run(
      threshold,
      [&](const std::string& layer, const float* data, forward::TensorDims d) -> absl::Status {
        const Dims dims{d.n, d.c, d.h, d.w};
        DISSECT_ASSIGN_OR_RETURN(SparsityCounts counts, counter.Count(data, dims, ctx.stream()));
        if (!checked) {
          DISSECT_ASSIGN_OR_RETURN(const SparsityCounts cpu, CountOnHost(data, dims, ctx.stream()));
          if (const std::string diff = DescribeDifference(cpu, counts); !diff.empty()) {
            return absl::InternalError(absl::StrCat(
                "GPU sparsity counts differ from the CPU reference on layer ", layer, ": ", diff));
          }
          checked = true;
        }
        layers.push_back({layer, std::move(counts)});
        return absl::OkStatus();
      }));
  absl::Status run_status;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                                 [&](cudaStream_t) {
                                   run_status.Update(pass->Run(threshold, {}));
                                   return run_status.ok() ? cudaSuccess : cudaErrorUnknown;
                                 },
                                 CacheState::kHot)
                              .status());
  DISSECT_RETURN_IF_ERROR(run_status);
  return EmitRow(ctx, layers);
}

absl::Status Run(PointContext& ctx) {
  const std::string& source = ctx.Str("activation_source");
  DISSECT_ASSIGN_OR_RETURN(const float threshold, ParseThreshold(ctx.Str("threshold")));
  const NpyInput& input = **Input();
  if (const std::string reason =
          SkipReason(source, ctx.Str("network"), NpyNetwork(), threshold, !input.files.empty());
      !reason.empty()) {
    return Skipped(reason);
  }
  if (source == kNpyDumps) return RunNpy(ctx, input);
  return RunForward(ctx, threshold);
}

constexpr char kFraction[] = "fraction";

DISSECT_EXPERIMENT(activation_sparsity)
    .Question(
        "How sparse are a CNN's activations layer by layer and channel by channel, how much "
        "does FATReLU thresholding add, and how much of it is structured (zero 32-channel "
        "vectors, zero 16x16 tiles, 2:4 groups, dead channels)?")
    .AddAxis(StringAxis("activation_source", ActivationSourceNames(), {},
                        "synthetic_weights: the built-in forward pass with ReLU; fatrelu: the "
                        "same with FATReLU at `threshold`; npy_dumps: the --activations dumps "
                        "(asked for alone or first, it needs --activations; after another "
                        "source without it, its points are skipped)"))
    .AddAxis(StringAxis("network", forward::BuiltinNetworkNames(), {},
                        "the built-in network (npy_dumps runs at the first value only, the "
                        "rest skipped: \"npy dumps have no network\")"))
    .AddAxis(StringAxis("threshold", ThresholdChoices(), DefaultThresholds(),
                        "FATReLU threshold T (y = x if x > T else 0): synthetic_weights and "
                        "npy_dumps run at 0 only, fatrelu above 0 only, the rest skipped"))
    .AddAxis(IntAxis("batch", "images", {1}, "images per forward pass (1..256)"))
    .AddMetric("layers", "layers", "activation layers in the pass (or .npy files)")
    .AddMetric("mean_zero_fraction", kFraction, "mean over layers of each layer's zero fraction")
    .AddMetric("overall_zero_fraction", kFraction, "zeros / elements over all layers")
    .AddVector("zero_fraction", kFraction, "layer", "zero elements / elements")
    .AddVector("warp_zero_fraction", kFraction, "layer",
               "all-zero 32-channel vectors at one (n, h, w) / vectors")
    .AddVector("tile_zero_fraction", kFraction, "layer",
               "all-zero 16x16 tiles of the [C x N*H*W] implicit-GEMM matrix / tiles")
    .AddVector("two_four_fraction", kFraction, "layer",
               "4-channel groups with at most 2 nonzeros (2:4-compatible) / groups")
    .AddVector("dead_channel_fraction", kFraction, "layer",
               "channels zero over the whole batch / channels")
    .AddVector("channel_min", kFraction, "layer", "lowest per-channel zero fraction")
    .AddVector("channel_median", kFraction, "layer", "median per-channel zero fraction")
    .AddVector("channel_max", kFraction, "layer", "highest per-channel zero fraction")
    .AddVector("channel_sparsity", kFraction, "channel_offset[l]+rank",
               "each layer's per-channel zero fractions, ascending, layers concatenated")
    .AddVector("channel_offset", "-", "layer", "index of layer l's first channel_sparsity entry")
    .AddFlag("activations")
    .AddFlag("activation_layout")
    .AddFlag("activation_dtype")
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect::sparsity
