// Question: which layer-shaped kernels gain from bypassing L1, and by how
//           much: the whole kernel built with -Xptxas -dlcm=cg, every load
//           with a cache operator (.ca/.cg/.cs/.lu/.cv) or an L1 eviction
//           hint (L1::no_allocate/evict_first/evict_last), or an L2 access-
//           policy window (persisting or streaming) over the input?
// Timed:    one launch of a layer kernel (stream, gather, stencil, conv,
//           maxpool, gemv, softmax) on a layer of configs/layers/
//           cnn_layers.json at `batch` images (1, 8, 32 by default, so that
//           inputs range from a few KB, inside L1, through L2 to 411 MB,
//           far beyond it), optionally resized to `working_set_bytes` of
//           input, with a grid of occupancy_pct of the kernel's resident
//           blocks per SM; CUDA events around each launch, hot (back to
//           back) or cold (L2 flushed; under l2_persist, persisting lines
//           reset to normal first, which the flush alone cannot evict).
//           dram_peak_pct counts dram_bytes_counted: bytes_moved hot; cold,
//           the reads and the output beyond one L2 (the rest can still be
//           dirty in L2 at the end event; probes/event_timer.h,
//           CountedDramBytes). All host work of a point (carveout,
//           occupancy query, allocation, L2 window) happens before timing
//           (point_launch.h): the timed callback only launches. Every
//           variant is the same source built differently
//           (kernels/layers/BUILD); the output of every point is checked
//           against a CPU reference (all outputs, or a sample of them that
//           costs at most kCheckWork host multiply-adds, e.g. at batch 32)
//           and must equal the first variant's output of the same shape bit
//           for bit (every element).
//           Some variants run the same machine code as another
//           (variant_aliases.h, kept true by a SASS test): on sm_90a cg and
//           dlcm_cg are both LDG.E.STRONG.GPU, cs and evict_first both
//           LDG.E.EF; l2_persist and l2_stream run the default build under
//           an L2 access-policy window. Twins are measured like the rest.
// Expected: streaming kernels (stream, gather, softmax on large rows) gain a
//           few percent from bypassing or evict-first once the input is far
//           larger than L1, because nothing they load is reused; kernels
//           with neighbour reuse (stencil, conv, maxpool) lose when L1 is
//           bypassed (cg, cv, dlcm_cg, no_allocate), most at small working
//           sets where the reused data fits L1; gemv's vector x is reused
//           by every row, so it loses once x no longer fits L1 when it is
//           bypassed. The L2 window matters only when the input fits L2.
//           DRAM effects show only at the larger batches (VGG conv1_2,
//           pool1 and ResNet pool1 move over 2 x a 50 MiB L2 at batch 8 or
//           32: beyond_2x_l2 1).
//           Twins differ only by noise; differences smaller than the row
//           spread are noise.
// Could be confused with: the compiler's work for the hardware's (a
//           variant whose flag or qualifier ptxas dropped or mapped onto
//           another's instruction): //experiments/l1_bypass:layers_sass_test
//           (every LDG carries the variant's cache modifier; dlcm_cg changes
//           the default's loads and nothing else), layers_ptx_test (the PTX
//           differs from the default only in the load qualifier) and
//           variant_aliases_sass_test (variants with identical loads are
//           exactly the declared twins). Host work (carveout, occupancy
//           query, L2 window) inside the event pair:
//           //experiments/workloads/layers:point_launch_test (fake kernels: the
//           timed callback only launches). A wrong output for a faster one:
//           //experiments/workloads/layers:reference_test (the CPU reference and
//           the bit-for-bit check catch one wrong element). L2 for DRAM:
//           a row whose bytes_moved (every tensor once: its working set) is
//           under 2 x device_l2_bytes is L2-resident, hot or cold (cold
//           reads the input from DRAM, but the output stays dirty in the
//           write-back L2): dram_peak_pct NaN, beyond_2x_l2 0 and an
//           "L2-resident" label note (experiments/framework/l2_residency.h;
//           most batch-1 rows, and stream on VGG conv3_1 even at batch 32:
//           98 MiB, over 1 x but under 2 x a 50 MiB L2).
//           Tests: //experiments/framework:l2_residency_test (the 2 x L2
//           rule, the NaN, the counters and the label),
//           //experiments/l1_bypass:bad_input_test (--help declares
//           beyond_2x_l2), l1_bypass_gpu_test (GPU: every row carries it),
//           //analysis/plots:l1_bypass_test (L2ResidentRowsShowNoPercentOfTheDramPeak:
//           the report shows "L2-resident", not a %, in the generic table
//           and in the speedup section's working-set cell). Cold rows
//           beyond 2 x L2 crediting DRAM with output still dirty in L2
//           after the end event: //probes:event_timer_test
//           (ColdDramBytesTest; the row's label names the bytes counted).
//           A cold l2_persist row reading a persisting input from L2 (the
//           flush cannot evict persisting lines):
//           //experiments/workloads/layers:l2_window_test (cold under a persisting
//           window resets the lines, and the flush does whenever a set-aside
//           exists, which such a window always makes); on a GPU, nothing
//           yet. Launch and event overhead in short cold samples (one
//           launch per flush; hot rows also time one launch per sample
//           here): cold rows under 40 us say so in their label
//           (//probes:event_timer_test, ShortSampleTest).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/framework/experiment.h"
#include "experiments/framework/l2_residency.h"
#include "experiments/l1_bypass/variant_aliases.h"
#include "experiments/workloads/layers/device_tensors.h"
#include "experiments/workloads/layers/l2_window.h"
#include "experiments/workloads/layers/layer_config.h"
#include "experiments/workloads/layers/point_launch.h"
#include "experiments/workloads/layers/reference.h"
#include "experiments/workloads/layers/workload.h"
#include "kernels/layers/layers.h"
#include "probes/cuda_status.h"

namespace dissect::l1_bypass {
namespace {

using layers::CompiledVariant;
using layers::LayerKernel;

constexpr uint64_t kInputSeed = 0x11b7a5;
// Host multiply-adds one reference check may spend (well under a second).
constexpr double kCheckWork = 1 << 24;
// Device memory left free beyond the tensors.
constexpr size_t kMemorySlackBytes = size_t{64} << 20;
constexpr int64_t kMaxWorkingSetBytes = int64_t{2} << 30;
constexpr int64_t kMaxBatch = 1024;

// Variants that are a runtime setting on top of a build (which one:
// variant_aliases.h).
struct RuntimeVariant {
  const char* name;
  L2Policy policy;
};
constexpr RuntimeVariant kRuntimeVariants[] = {
    {"l2_persist", L2Policy::kPersisting},
    {"l2_stream", L2Policy::kStreaming},
};

// The timed builds and the runtime variants; never the line-tracing build
// (CompiledVariant::traced), whose loads run tracing code.
std::vector<std::string> VariantNames() {
  std::vector<std::string> names;
  for (const CompiledVariant& v : layers::CompiledLayerVariants()) {
    if (!v.traced) names.push_back(v.name);
  }
  for (const RuntimeVariant& v : kRuntimeVariants) names.push_back(v.name);
  return names;
}

// The --help sentence on the variants with the same machine code, from
// variant_aliases.h.
std::string SameCodeHelp() {
  std::vector<std::string> twins, runtime;
  for (const SameCode& s : kSameCode) {
    if (std::string_view(s.runtime_setting).empty()) {
      twins.push_back(absl::StrCat(s.variant, " = ", s.same_code_as, " (", s.loads, ")"));
    } else {
      runtime.push_back(
          absl::StrCat(s.variant, ": the ", s.same_code_as, " build with an ", s.runtime_setting));
    }
  }
  return absl::StrCat("Same machine code (checked in SASS): ", absl::StrJoin(twins, ", "), "; ",
                      absl::StrJoin(runtime, "; "));
}

// The build whose kernels a variant runs, and its L2 window if any.
struct ResolvedVariant {
  const CompiledVariant* build = nullptr;
  std::optional<L2Policy> l2;
};

absl::StatusOr<ResolvedVariant> ResolveVariant(const std::string& name) {
  for (const CompiledVariant& v : layers::CompiledLayerVariants()) {
    if (name == v.name && !v.traced) return ResolvedVariant{&v, std::nullopt};
  }
  for (const RuntimeVariant& v : kRuntimeVariants) {
    if (name != v.name) continue;
    const SameCode* same = FindSameCode(name);
    for (const CompiledVariant& build : layers::CompiledLayerVariants()) {
      if (same != nullptr && std::string_view(build.name) == same->same_code_as) {
        return ResolvedVariant{&build, v.policy};
      }
    }
    return absl::InternalError(absl::StrCat("no build linked for ", name));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown variant '", name, "'"));
}

absl::Status Validate(const Point& p) {
  if (const auto& layers = EmbeddedLayers(); !layers.ok()) return layers.status();
  const int64_t ws = p.Int("working_set_bytes");
  if (ws != 0 && (ws < 64 || ws > kMaxWorkingSetBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "working_set_bytes must be 0 (the layer as configured) or 64 B .. 2 GiB (got ", ws, ")"));
  }
  const int64_t batch = p.Int("batch");
  if (batch < 1 || batch > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be in 1..", kMaxBatch, " (got ", batch, ")"));
  }
  const int64_t pct = p.Int("occupancy_pct");
  if (pct < 1 || pct > 100) {
    return absl::InvalidArgumentError(
        absl::StrCat("occupancy_pct must be in 1..100 (got ", pct, ")"));
  }
  return absl::OkStatus();
}

// What the points of one (kernel, layer, batch, working set) share: the inputs on
// host and device, and the first output measured, which every later variant
// must reproduce bit for bit. Points run with `variant` as the innermost
// axis, so consecutive points share it.
struct ShapeCache : CachedShape {
  std::vector<float> first_output;  // empty until one output passed the reference
  std::string first_variant;
};

// The output must match the CPU reference (first variant of a shape) or the
// first variant's output (every later one).
absl::Status CheckOutput(ShapeCache& shape, const std::string& variant) {
  DISSECT_ASSIGN_OR_RETURN(std::vector<float> y, DownloadOutput(shape.device));
  if (!shape.first_output.empty()) {
    return CheckIdentical(y, shape.first_output, shape.first_variant);
  }
  DISSECT_RETURN_IF_ERROR(CheckAgainstReference(shape.wl, shape.host, y, kCheckWork));
  shape.first_output = std::move(y);
  shape.first_variant = variant;
  return absl::OkStatus();
}

// The row's metrics and notes from the samples `ms` of one launch of `wl`.
absl::Status AddRowMetrics(PointContext& ctx, const Workload& wl, CacheState cache,
                           const std::vector<double>& ms, int blocks_per_sm) {
  const double bytes = static_cast<double>(wl.BytesMoved());
  const double written = static_cast<double>(wl.OutputBytes());
  const DramBytes dram = CountedDramBytes(cache, bytes - written, written, ctx.device().l2_bytes);
  std::vector<double> us, gbps, dram_gbps;
  for (double t : ms) {
    us.push_back(t * 1e3);
    gbps.push_back(bytes / (t * 1e-3) / 1e9);
    dram_gbps.push_back(dram.bytes / (t * 1e-3) / 1e9);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("kernel_us", std::move(us)));
  // bytes_moved is the working set (the axis working_set_bytes is the input
  // size asked for, so the counter keeps its own name here).
  DISSECT_RETURN_IF_ERROR(AddDramPeakPct(ctx, dram_gbps, bytes, "bytes_moved"));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("dram_bytes_counted", {dram.bytes}));
  if (BeyondTwiceL2(bytes, ctx.device().l2_bytes) && !dram.note.empty()) ctx.AddNote(dram.note);
  if (std::string note = ShortColdSampleNote(cache, ms); !note.empty()) ctx.AddNote(note);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bandwidth_gbps", std::move(gbps)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("input_bytes", {static_cast<double>(wl.InputBytes())}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("blocks_per_sm", {double(blocks_per_sm)}));
  return ctx.AddSamples("occupancy_pct_achieved", {100.0 * blocks_per_sm * layers::kLayerThreads /
                                                   ctx.device().max_threads_per_sm});
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const LayerKernel kernel, ParseKernel(ctx.Str("kernel")));
  DISSECT_ASSIGN_OR_RETURN(const LayerShape* layer, FindEmbeddedLayer(ctx.Str("layer")));
  if (std::string reason = NotApplicable(kernel, *layer); !reason.empty()) {
    return Skipped(reason);
  }
  const std::string& variant_name = ctx.Str("variant");
  DISSECT_ASSIGN_OR_RETURN(const ResolvedVariant variant, ResolveVariant(variant_name));
  const int cc = ctx.device().cc_major * 10 + ctx.device().cc_minor;
  if (cc < LoadOpMinComputeCapability(variant.build->load_op)) {
    return Skipped(absl::StrCat(variant_name, " needs compute capability ",
                                LoadOpMinComputeCapability(variant.build->load_op) / 10,
                                ".0 or newer"));
  }
  // The row says which build it ran and what its loads are, so that the file
  // describes itself (the analysis reads only this) even where another
  // build's alias table differs.
  if (const SameCode* same = FindSameCode(variant_name); same != nullptr) {
    ctx.AddNote(SameCodeNote(*same));
  }
  DISSECT_ASSIGN_OR_RETURN(const CacheState cache, ParseCacheState(ctx.Str("timing")));

  LayerShape batched = *layer;
  batched.n = static_cast<int>(ctx.Int("batch"));
  const int64_t ws = ctx.Int("working_set_bytes");
  const Workload wl = MakeWorkload(kernel, batched, ws);
  if (kernel == LayerKernel::kGather && wl.x_elements > size_t{INT32_MAX}) {
    return Skipped(
        absl::StrCat("gather indexes are int32; the input has ", wl.x_elements, " elements"));
  }
  DISSECT_ASSIGN_OR_RETURN(
      ShapeCache * shape,
      PrepareCachedShape<ShapeCache>(
          wl, absl::StrCat(ctx.Str("kernel"), "/", layer->name, "/", batched.n, "/", ws),
          kInputSeed, kMemorySlackBytes));
  // Poison the output (0xff.. is a NaN) so that unwritten elements show.
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(shape->device.y.get(), 0xff, shape->device.y.bytes(), ctx.stream()));
  const layers::LayerArgs args = shape->device.Args(wl);

  // Every piece of host work before the timing; the callback only launches.
  PreparedLaunch::SettingFn window;
  if (variant.l2.has_value()) {
    window = [&ctx, shape, policy = *variant.l2] {
      return L2AccessWindow::Apply(ctx.stream(), shape->device.x.get(), shape->device.x.bytes(),
                                   policy);
    };
  }
  DISSECT_ASSIGN_OR_RETURN(PreparedLaunch launch,
                           PreparedLaunch::Prepare(*variant.build->kernels, args,
                                                   static_cast<int>(ctx.Int("occupancy_pct")),
                                                   ctx.device().sm_count, window));
  DISSECT_ASSIGN_OR_RETURN(const std::string cold_window, PrepareColdWindow(variant.l2, cache));
  if (!cold_window.empty()) ctx.AddNote(cold_window);
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel([&launch](cudaStream_t s) { return launch.Launch(s); }, cache));
  launch.Release();
  DISSECT_RETURN_IF_ERROR(CheckOutput(*shape, variant_name));
  return AddRowMetrics(ctx, wl, cache, ms, launch.blocks_per_sm());
}

DISSECT_EXPERIMENT(l1_bypass)
    .Question(
        "Which layer kernels gain from bypassing L1 (-dlcm=cg, cache operators, L1 eviction "
        "hints, an L2 access-policy window), and by how much?")
    .AddAxis(StringAxis("kernel", KernelNames(), {},
                        "stream: BN+ReLU over the input; gather: random permutation; "
                        "stencil: 5-point per plane; conv: direct; maxpool; gemv: fc as "
                        "matrix-vector; softmax: per row"))
    .AddAxis(StringAxis("layer", EmbeddedLayerNames(), {},
                        "a layer of configs/layers/cnn_layers.json (kernels that do not fit "
                        "a layer's type are skipped)"))
    .AddAxis(IntAxis("batch", "images", {1, 8, 32},
                     "images per launch: the layer's n (the config's layers are batch 1); "
                     "inputs span L1 (< 256 KB), L2 and DRAM (VGG conv1_2/pool1: 12.8 MB "
                     "at batch 1, 411 MB at 32)"))
    .AddAxis(IntAxis("working_set_bytes", "B", {0},
                     "0: the layer as configured (at `batch` images); > 0: the layer at "
                     "`batch` images resized so that its input has about this many bytes "
                     "(metric input_bytes says what it came to)"))
    .AddAxis(StringAxis("timing", {"hot", "cold"}, {"hot"},
                        "hot: back-to-back launches; cold: L2 flushed before each"))
    .AddAxis(IntAxis("occupancy_pct", "%", {25, 100},
                     "grid: this % of the blocks (256 threads) the kernel can keep resident "
                     "per SM, times the SMs"))
    .AddAxis(StringAxis("variant", VariantNames(), {},
                        absl::StrCat("default, dlcm_cg (-Xptxas -dlcm=cg), ca/cg/cs/lu/cv "
                                     "(__ldXX), no_allocate/evict_first/evict_last (L1:: "
                                     "hints), l2_persist/l2_stream (access-policy window over "
                                     "the input). ",
                                     SameCodeHelp())))
    .AddMetric("kernel_us", "us", "event time of one launch")
    .AddMetric("bandwidth_gbps", "GB/s",
               "bytes_moved / time: every tensor read once and the output written once")
    .AddMetric("dram_peak_pct", "%",
               "bandwidth / device_dram_peak_gbps; NaN when L2-resident (beyond_2x_l2 0)")
    .AddMetric("dram_bytes_counted", "B",
               "the bytes dram_peak_pct counts: hot, bytes_moved; cold, the reads and the "
               "writes beyond one L2 (the rest of the output may still be dirty in L2)")
    .AddMetric("input_bytes", "B", "bytes of the input tensor (what working_set_bytes asked for)")
    .AddMetric("bytes_moved", "B",
               "input + weights + index + output bytes: every distinct byte the launch "
               "touches, the working set that beyond_2x_l2 compares with 2 x L2")
    .AddMetric("blocks_per_sm", "blocks", "grid blocks per SM")
    .AddMetric("occupancy_pct_achieved", "%", "blocks_per_sm x 256 threads / the SM's thread limit")
    .AddMetrics({Beyond2xL2Metric()})
    .Validate(Validate)
    .Headline("kernel_us")
    .Run(Run);

}  // namespace
}  // namespace dissect::l1_bypass
