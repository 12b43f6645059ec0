// Question: what does sharing an input tile across the blocks of a
//           thread-block cluster through distributed shared memory (DSM)
//           save a layer kernel, against blocks that each load the whole
//           tile, and against the plain layer kernel?
// Timed:    one launch of a direct 3 x 3 convolution (stride 1, pad 1) or a
//           GEMV (fc layer) on a layer of configs/layers/cnn_layers.json at
//           `batch` images, hot (back to back), CUDA events around each
//           launch: `layer` = kernels/layers' default build (grid-stride,
//           every operand from global memory through L1); `tiled` =
//           kernels/coop without clusters (each block stages the whole input
//           tile it needs in its shared memory, chunk by chunk); `coop` =
//           kernels/coop in clusters of `cluster_size` blocks that compute
//           different filters (conv) or rows (gemv) of the same tile, each
//           staging a 1/S slice from global memory and copying the others
//           from its peers' shared memory between two cluster barriers.
//           Every output is checked against the CPU reference
//           (experiments/workloads/layers/reference.h) bit for bit before timing.
//           speedup_vs_layer divides the layer kernel's median time, timed
//           in the same process for the same shape, by the row's. The line
//           figures come from one more launch of the variant's traced build
//           (kernels/coop's kTraced instantiation, kernels/layers' `trace`
//           variant), never timed.
// Occupancy: tiled and coop run one block (8 warps) per SM. Their shared
//           memory is static (24064 B conv, 8192 B gemv), so without more
//           four or five 256-thread blocks would fit an H100 SM (registers:
//           46 to 58 a thread in the timed builds under nvcc 13.0; threads
//           alone allow eight), and ranks of a cluster could then share
//           one. Every tiled and coop launch, timed or
//           traced, adds the opt-in maximum less the static size as dynamic
//           shared memory that nothing reads (CoopLaunchSharedBytes), which
//           also leaves L1 only what the 227 KiB of shared memory does not
//           take. Tiled gets the same padding as coop, so that the two
//           differ in how the tile is staged and in nothing else: coop
//           against tiled is the DSM question. The layer kernel keeps its
//           own full occupancy (blocks_per_sm in its row, up to 8 on an
//           H100) and carveout: it is the kernel as one would run it, so
//           speedup_vs_layer of tiled and coop also carries the cost of
//           running one block per SM, and is not what DSM buys.
// Expected: coop loads each tile line from L2 once per cluster instead of
//           once per block, so l2_sectors_read falls about S-fold for the
//           input of conv layers with many filters (the input tile is most
//           of the traffic there); whether time falls depends on whether the
//           conv was bound by L2 traffic and on the cost of the two cluster
//           barriers per chunk (each compiles to MEMBAR.ALL.GPU + L1
//           invalidate, CCTL.IVALL, on sm_90a). GEMV streams W (K x C) once
//           and shares only x (C), so coop should barely differ from tiled
//           there: a null result, not a bug. duplicated_fraction (how much
//           of what SMs loaded another SM loaded too) should fall with S
//           for conv. Differences below speedup_spread are noise. With 8
//           warps per SM, tiled and coop keep fewer loads in flight than
//           the layer kernel at full occupancy, so speedup_vs_layer should
//           read lower than it would at full occupancy, most for the
//           load-bound GEMV (an estimate, not measured). A cluster of 16 at
//           one block per SM needs 16 SMs of one GPC: few fit at once
//           (max_active_clusters) or the point is skipped.
// Could be confused with: the compiler's work for the hardware's (a coop
//           build that does not copy through DSM, or a tiled compute loop
//           that still reads global memory): //experiments/sharing/coop:
//           coop_sass_test (cluster barriers and LD.E.128 peer copies in the
//           coop flavours only, conv's FFMA loop reads LDS only, gemv one
//           weight LDG per FFMA) and coop_ptx_test; a tile loaded twice or
//           not at all: coop_tiling_test (a cluster loads every tile element
//           exactly once); tracing cost in the timed flavours: coop_sass_test
//           and coop_ptx_test (atomics in traced flavours only); a wrong
//           output: the bit-for-bit check against the CPU reference (run,
//           not a CPU test). speedup_vs_layer's ratio: coop_host_test. The
//           same SM for a peer SM (ranks of a cluster on one SM share the
//           tile without DSM): coop_host_test's
//           EveryTiledAndCoopBlockHasAnSmToItself checks the launch's shared
//           memory (CoopLaunchSharedBytes) against the occupancy
//           calculator's shared-memory rule on H100 and A100 limits (without
//           the padding, 9 conv or 25 gemv blocks fit an H100 SM by shared
//           memory); at run time a point is skipped, with the reason, where
//           cudaOccupancyMaxActiveBlocksPerMultiprocessor says more than one
//           block fits (CheckOneBlockPerSm). Each coop row in clusters
//           of 2 or more also records peer_same_sm_fraction from the %smid
//           of every block of its traced launch (ClusterSameSmFraction,
//           coop_host_test), noted when above 0; the GPU test
//           :cluster_coop_coop_gpu_test expects 0. Layer, tiled and
//           clusters of 1 have no peer: NaN, with a note (ReportCoopRow,
//           coop_row_test). The timed launch's placement is not observed,
//           only the traced one's, with the same padding.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/experiment.h"
#include "experiments/sharing/cluster_support.h"
#include "experiments/sharing/coop/coop_host.h"
#include "experiments/sharing/duplication/trace_plan.h"
#include "experiments/workloads/layers/device_tensors.h"
#include "experiments/workloads/layers/layer_config.h"
#include "experiments/workloads/layers/point_launch.h"
#include "experiments/workloads/layers/reference.h"
#include "experiments/workloads/layers/workload.h"
#include "kernels/coop/coop.h"
#include "kernels/coop/coop_tiling.h"
#include "kernels/layers/layers.h"
#include "kernels/line_trace.cuh"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/duplication/line_bitmap.h"

namespace dissect::coop {
namespace {

using l1_bypass::LayerShape;
using l1_bypass::Workload;

constexpr uint64_t kInputSeed = 0xc0095eed;
// Host multiply-adds one reference check may spend (a sample of the outputs
// beyond it; reference.h).
constexpr double kCheckWork = 1 << 24;
constexpr size_t kMemorySlackBytes = size_t{64} << 20;

// What the points of one (kernel, layer, batch) share: inputs on host and
// device, and the layer kernel's time samples once measured.
struct ShapeCache : l1_bypass::CachedShape {
  std::vector<double> layer_ms;
};

absl::StatusOr<const layers::CompiledVariant*> LayerBuild(bool traced) {
  for (const layers::CompiledVariant& v : layers::CompiledLayerVariants()) {
    if (traced ? v.traced : std::string_view(v.name) == "default") return &v;
  }
  return absl::NotFoundError(traced ? "no traced build of the layer kernels is linked"
                                    : "no default build of the layer kernels is linked");
}

// Poisons the output (0xff.. is a NaN), runs `launch` once and checks the
// output against the CPU reference.
template <typename LaunchFn>
absl::Status RunAndCheck(PointContext& ctx, ShapeCache& shape, const LaunchFn& launch) {
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(shape.device.y.get(), 0xff, shape.device.y.bytes(), ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(launch(ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(std::vector<float> y, l1_bypass::DownloadOutput(shape.device));
  return l1_bypass::CheckAgainstReference(shape.wl, shape.host, y, kCheckWork);
}

// Device bitmaps for one traced launch over the input and the weights.
struct TraceBuffers {
  LineTrace trace;
  DeviceBuffer<uint32_t> bitmaps;
  LineBitmaps host;
};

absl::StatusOr<TraceBuffers> PrepareTrace(const DeviceInfo& device, const ShapeCache& shape) {
  const auto traced = [](const char* name, const DeviceBuffer<float>& b) {
    return TracedTensor{name, reinterpret_cast<uint64_t>(b.get()), b.bytes()};
  };
  // %smid may exceed the SM count (disabled units leave gaps); loads from
  // SMs past the slots are not recorded. The bitmaps' size is bounded by
  // the device memory check below.
  DISSECT_ASSIGN_OR_RETURN(
      const TracePlan plan,
      PlanTrace({traced("x", shape.device.x), traced("weights", shape.device.weights)},
                std::max(256, 2 * device.sm_count), std::numeric_limits<uint64_t>::max()));
  LineTrace trace = plan.trace;
  DISSECT_ASSIGN_OR_RETURN(LineBitmaps host,
                           LineBitmaps::Create(trace.sm_slots, trace.words_per_sm));
  DISSECT_RETURN_IF_ERROR(l1_bypass::CheckDeviceMemory(host.bytes(), kMemorySlackBytes));
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<uint32_t> bitmaps,
                           DeviceBuffer<uint32_t>::Allocate(host.bytes() / sizeof(uint32_t)));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemset(bitmaps.get(), 0, bitmaps.bytes()));
  // cudaMemset may return early; the traced launch goes to another stream.
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  trace.bitmaps = bitmaps.get();
  return TraceBuffers{trace, std::move(bitmaps), std::move(host)};
}

// Reduces the traced launch's bitmaps to the row's line figures.
absl::StatusOr<DuplicationStats> ReadTrace(PointContext& ctx, TraceBuffers& t) {
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(t.host.data(), t.bitmaps.get(), t.host.bytes(), cudaMemcpyDeviceToHost));
  DuplicationStats stats = ComputeDuplication(t.host, {});
  if (!stats.defined()) return absl::InternalError("the traced launch recorded no line");
  return stats;
}

absl::Status RunLayer(PointContext& ctx, ShapeCache& shape) {
  DISSECT_ASSIGN_OR_RETURN(const layers::CompiledVariant* build, LayerBuild(false));
  DISSECT_ASSIGN_OR_RETURN(
      l1_bypass::PreparedLaunch launch,
      l1_bypass::PreparedLaunch::Prepare(*build->kernels, shape.device.Args(shape.wl), 100,
                                         ctx.device().sm_count));
  const auto run = [&launch](cudaStream_t s) { return launch.Launch(s); };
  DISSECT_RETURN_IF_ERROR(RunAndCheck(ctx, shape, run));
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> ms, ctx.TimeKernel(run, CacheState::kHot));
  shape.layer_ms = ms;
  CoopRowFigures row;
  row.variant = kVariantLayer;
  DISSECT_ASSIGN_OR_RETURN(row.speedup, SpeedupOver(ms, ms));
  row.blocks_per_sm = launch.blocks_per_sm();

  // The line figures from the `trace` build, on the timed build's grid.
  DISSECT_ASSIGN_OR_RETURN(const layers::CompiledVariant* traced, LayerBuild(true));
  DISSECT_ASSIGN_OR_RETURN(TraceBuffers t, PrepareTrace(ctx.device(), shape));
  // set_trace copies into constant memory and may return before the copy
  // lands: the device is synchronized before the launch, and the launch
  // finishes before the trace is cleared.
  DISSECT_CUDA_RETURN_IF_ERROR(traced->kernels->set_trace(&t.trace));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  const cudaError_t launched = traced->kernels->launch(launch.args(), ctx.stream());
  const cudaError_t finished = cudaStreamSynchronize(ctx.stream());
  const cudaError_t cleared = traced->kernels->set_trace(nullptr);
  DISSECT_CUDA_RETURN_IF_ERROR(launched);
  DISSECT_CUDA_RETURN_IF_ERROR(finished);
  DISSECT_CUDA_RETURN_IF_ERROR(cleared);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  DISSECT_ASSIGN_OR_RETURN(row.lines, ReadTrace(ctx, t));
  return ReportCoopRow(ctx, row);
}

// How a tiled or coop point launches its timed and traced builds: each
// padded to one block per SM (CoopLaunchSharedBytes), and the clusters of
// the timed coop build that fit at once.
struct CoopLaunchPlan {
  size_t timed_shared_bytes = 0;
  size_t traced_shared_bytes = 0;
  int max_active_clusters = 0;
};

// Host work before timing: sets each build's attributes and refuses
// (Skipped) a point where the runtime would still fit two blocks on an SM.
absl::StatusOr<CoopLaunchPlan> PlanCoopLaunches(const DeviceInfo& device, CoopKernel kernel,
                                                CoopMode mode, int cluster_size) {
  CoopLaunchPlan plan;
  for (bool traced : {false, true}) {
    const void* fn = KernelFunction(kernel, mode, traced);
    DISSECT_ASSIGN_OR_RETURN(const SmSharedMemory sm, QuerySmSharedMemory(device.index, fn));
    const absl::StatusOr<size_t> shared = CoopLaunchSharedBytes(sm);
    if (!shared.ok()) return Skipped(shared.status().message());
    if (mode == CoopMode::kCoop) {
      DISSECT_ASSIGN_OR_RETURN(const ClusterFit fit,
                               CheckClusterLaunch(device, fn, cluster_size, kCoopThreads, *shared));
      if (!traced) plan.max_active_clusters = fit.max_active_clusters;
    }
    DISSECT_RETURN_IF_ERROR(CheckOneBlockPerSm(fn, kCoopThreads, *shared));
    (traced ? plan.traced_shared_bytes : plan.timed_shared_bytes) = *shared;
  }
  return plan;
}

// Into `row`: the line figures from one launch of the traced build of
// `traced`'s flavour over `blocks` blocks and, for coop, the %smid each
// block ran on.
absl::Status TraceCoop(PointContext& ctx, ShapeCache& shape, CoopArgs traced, int64_t blocks,
                       CoopRowFigures& row) {
  DISSECT_ASSIGN_OR_RETURN(TraceBuffers t, PrepareTrace(ctx.device(), shape));
  const bool coop = traced.mode == CoopMode::kCoop;
  DeviceBuffer<int> block_sm;
  if (coop) {
    DISSECT_ASSIGN_OR_RETURN(block_sm, DeviceBuffer<int>::Allocate(static_cast<size_t>(blocks)));
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(block_sm.get(), 0xff, block_sm.bytes(), ctx.stream()));
    t.trace.block_sm = block_sm.get();
  }
  traced.trace = &t.trace;
  DISSECT_CUDA_RETURN_IF_ERROR(Launch(traced, ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(row.lines, ReadTrace(ctx, t));  // after the launch finished
  if (!coop) return absl::OkStatus();
  row.block_sm.resize(static_cast<size_t>(blocks));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(row.block_sm.data(), block_sm.get(), block_sm.bytes(), cudaMemcpyDeviceToHost));
  return absl::OkStatus();
}

absl::Status RunCoop(PointContext& ctx, ShapeCache& shape, CoopKernel kernel, CoopMode mode,
                     int cluster_size, const Grid3& grid) {
  DISSECT_ASSIGN_OR_RETURN(const CoopLaunchPlan plan,
                           PlanCoopLaunches(ctx.device(), kernel, mode, cluster_size));
  CoopArgs args;
  args.kernel = kernel;
  args.mode = mode;
  args.dims = CoopDimsOf(shape.wl.dims);
  args.x = shape.device.x.get();
  args.weights = shape.device.weights.get();
  args.y = shape.device.y.get();
  args.cluster_size = cluster_size;
  args.dynamic_shared_bytes = plan.timed_shared_bytes;
  const auto run = [&args](cudaStream_t s) { return Launch(args, s); };
  DISSECT_RETURN_IF_ERROR(RunAndCheck(ctx, shape, run));

  // The layer kernel's samples for the ratio: from its own row when that ran
  // first for this shape, else timed now (this row's TimeKernel follows and
  // its samples are the row's).
  if (shape.layer_ms.empty()) {
    DISSECT_ASSIGN_OR_RETURN(const layers::CompiledVariant* build, LayerBuild(false));
    DISSECT_ASSIGN_OR_RETURN(
        l1_bypass::PreparedLaunch layer,
        l1_bypass::PreparedLaunch::Prepare(*build->kernels, shape.device.Args(shape.wl), 100,
                                           ctx.device().sm_count));
    DISSECT_ASSIGN_OR_RETURN(
        shape.layer_ms,
        ctx.TimeKernel([&layer](cudaStream_t s) { return layer.Launch(s); }, CacheState::kHot));
    ctx.AddNote("layer kernel timed in this row for speedup_vs_layer");
  }
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> ms, ctx.TimeKernel(run, CacheState::kHot));
  CoopRowFigures row;
  row.variant = mode == CoopMode::kCoop ? kVariantCoop : kVariantTiled;
  row.cluster_size = cluster_size;
  DISSECT_ASSIGN_OR_RETURN(row.speedup, SpeedupOver(shape.layer_ms, ms));
  row.max_active_clusters = plan.max_active_clusters;
  row.blocks_per_sm = 1;

  CoopArgs traced = args;
  traced.dynamic_shared_bytes = plan.traced_shared_bytes;
  DISSECT_RETURN_IF_ERROR(TraceCoop(ctx, shape, traced, int64_t{grid.x} * grid.y * grid.z, row));
  return ReportCoopRow(ctx, row);
}

absl::Status Validate(const Point& p) {
  if (const auto& layers = l1_bypass::EmbeddedLayers(); !layers.ok()) return layers.status();
  return ValidatePoint(p.Int("batch"), p.Int("cluster_size"));
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const CoopKernel kernel, ParseCoopKernel(ctx.Str("kernel")));
  DISSECT_ASSIGN_OR_RETURN(const LayerShape* layer, l1_bypass::FindEmbeddedLayer(ctx.Str("layer")));
  if (std::string reason = NotApplicable(kernel, *layer); !reason.empty()) return Skipped(reason);
  const std::string& variant = ctx.Str("variant");
  const int cluster_size = static_cast<int>(ctx.Int("cluster_size"));
  DISSECT_RETURN_IF_ERROR(CheckVariantClusterSize(variant, cluster_size));
  if (variant == kVariantCoop) DISSECT_RETURN_IF_ERROR(ClustersSupported(ctx.device()));

  LayerShape batched = *layer;
  batched.n = static_cast<int>(ctx.Int("batch"));
  const Workload wl = l1_bypass::MakeWorkload(LayerKernelOf(kernel), batched, 0);
  const Grid3 grid = kernel == CoopKernel::kConv3x3
                         ? ConvGrid(wl.dims.n, wl.dims.h, wl.dims.w, wl.dims.k, cluster_size)
                         : GemvGrid(wl.dims.n, wl.dims.k, cluster_size);
  if (grid.y > 65535 || grid.z > 65535) {
    return Skipped(absl::StrCat("the grid (", grid.x, ", ", grid.y, ", ", grid.z,
                                ") exceeds the CUDA limit of 65535 blocks in y and z"));
  }
  DISSECT_ASSIGN_OR_RETURN(
      ShapeCache * shape, l1_bypass::PrepareCachedShape<ShapeCache>(
                              wl, absl::StrCat(ctx.Str("kernel"), "/", layer->name, "/", batched.n),
                              kInputSeed, kMemorySlackBytes));
  if (variant == kVariantLayer) return RunLayer(ctx, *shape);
  return RunCoop(ctx, *shape, kernel, variant == kVariantCoop ? CoopMode::kCoop : CoopMode::kTiled,
                 cluster_size, grid);
}

std::vector<int64_t> ClusterSizeDefaults() {
  return std::vector<int64_t>(std::begin(kClusterSizes), std::end(kClusterSizes));
}

DISSECT_EXPERIMENT(cluster_coop)
    .Question(
        "What does sharing an input tile across a thread-block cluster through distributed "
        "shared memory save a conv3x3 or GEMV layer, against per-block tiles and the plain "
        "layer kernel?")
    .AddAxis(StringAxis("kernel", CoopKernelNames(), {},
                        "conv3x3: direct 3 x 3 convolution, stride 1, pad 1 (the blocks of a "
                        "cluster split the filters); gemv: fc layer as matrix-vector (the "
                        "blocks of a cluster split the rows)"))
    .AddAxis(StringAxis("layer", l1_bypass::EmbeddedLayerNames(),
                        {"resnet50.res3b_branch2b", "resnet50.res5b_branch2b", "vgg16.conv3_1",
                         "resnet50.fc1000", "vgg16.fc8"},
                        "a layer of configs/layers/cnn_layers.json; conv3x3 runs the 3 x 3 "
                        "stride-1 pad-1 conv layers, gemv the fc layers, others are skipped"))
    .AddAxis(IntAxis("batch", "images", {1, 8}, "images per launch: the layer's n"))
    .AddAxis(IntAxis("cluster_size", "blocks", ClusterSizeDefaults(),
                     "blocks per cluster (coop only; 16 needs the non-portable opt-in). layer "
                     "and tiled run at 1 and are skipped (\"<variant> does not use clusters\") "
                     "at every other size"))
    .AddAxis(StringAxis("variant", VariantNames(), {},
                        "layer: kernels/layers' default build (the baseline); tiled: each "
                        "block stages its whole input tile in shared memory; coop: each block "
                        "of a cluster stages a 1/cluster_size slice and reads the rest from "
                        "its peers through DSM"))
    .AddMetrics(CoopMetrics())
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect::coop
