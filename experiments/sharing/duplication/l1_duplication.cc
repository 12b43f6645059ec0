// Question: how much of the data a layer kernel loads through L1 is loaded
//           by more than one SM (so held in several L1s at once), and how
//           much of that duplication stays within a GPC or crosses GPCs?
// Timed:    the `default` build of a layer kernel (kernels/layers: stream,
//           gather, stencil, conv, maxpool, gemv, softmax) on a layer of
//           configs/layers/cnn_layers.json at `batch` images, grid at 100 %
//           occupancy (l1_bypass's PreparedLaunch), CUDA events, hot; with
//           --metrics=l1_hit_rate the harness adds the CUPTI L1 hit ratio of
//           the same kernel in the same run. Then, untimed for the row, the
//           `trace` build (the same source with DISSECT_TRACE_LINES: every
//           global load also marks its 128-byte line in the loading SM's
//           bitmap, kernels/line_trace.cuh) runs once with the default
//           build's grid over the same inputs; trace_ms is its event time
//           (ptxas does not unroll the traced loops and every load does a
//           bitmap read, so it is many times slower: it is never the row's
//           time). Its output must equal the default build's bit for bit,
//           and the default's the CPU reference. The bitmaps (inputs x,
//           weights, index; the output is only written) reduce on the host
//           (probes/duplication) to lines_touched, the per-SM line counts,
//           replication = sum over SMs of their lines / distinct lines, and
//           duplicated_fraction = 1 - 1 / replication, overall, within GPCs
//           and across GPCs. The GPC map comes once per process from
//           thread-block cluster placement (MeasureGpcMap, needs cc 9.0;
//           without it the GPC metrics are NaN and the row says why).
//           What else could produce the numbers: the traced launch's blocks
//           land on SMs as the scheduler places them in that launch, not in
//           the timed ones (a grid-stride grid at full occupancy places one
//           wave alike each time, so the figures should repeat within a few
//           percent); a line marked by an SM was loaded by it, but L1 may
//           have evicted it before another load, so replication bounds the
//           L1 copies from above; sms_used below the SM count means the
//           grid did not reach every SM.
// Could be confused with: tracing overhead in the timed row:
//           //experiments/sharing/duplication:trace_ptx_test and
//           trace_sass_test (no timed build holds an atomic or an SM-id
//           read). Lines an SM did not load, or loads that were not traced:
//           trace_sass_test (every data LDG of the trace build has its
//           REDG.E.OR record in its own loop) and //probes/duplication:
//           line_bitmap_test (ComputeDuplication by hand: disjoint and
//           identical SMs, unmapped SMs kept apart). The same SM for another
//           SM: SMs are told apart by %smid (trace_plan_test sizes the
//           bitmaps by the highest SM id). The GPC split inherits
//           gpc_topology's map: an always-identical placement would split
//           GPCs and move duplication from within to across; the map's
//           launches vary the placement on purpose (a blocker holds chosen
//           SMs), which gpc_schedule_test shows recovers the exact map on a
//           simulated deterministic scheduler, and SMs left in groups too
//           small to be a GPC get no GPC (each its own unit, named in the
//           row's note). Not yet ruled out by a test: the traced launch's
//           placement for the timed one's.
// Expected: replication near 1 for stream and gather (each element read
//           once: only lines split between two blocks on different SMs are
//           shared); near 1 + (halo lines / lines per SM) for stencil and
//           maxpool; conv shares its whole weight tensor and the input rows
//           of neighbouring output tiles, so replication grows towards the
//           SM count for small layers (every SM loads all weights); gemv
//           shares x with every SM (high replication of x, none of W);
//           softmax's rows are per block (near 1). Within-GPC and
//           across-GPC replication multiply to the total; with blocks
//           spread round-robin over GPCs most duplication is across GPCs.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/framework/experiment.h"
#include "experiments/sharing/duplication/trace_plan.h"
#include "experiments/sharing/topology/gpc_measure.h"
#include "experiments/workloads/layers/device_tensors.h"
#include "experiments/workloads/layers/layer_config.h"
#include "experiments/workloads/layers/point_launch.h"
#include "experiments/workloads/layers/reference.h"
#include "experiments/workloads/layers/workload.h"
#include "kernels/layers/layers.h"
#include "kernels/line_trace.cuh"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/duplication/line_bitmap.h"
#include "experiments/sharing/topology/gpc_map.h"
#include "experiments/sharing/topology/gpc_schedule.h"

namespace dissect {
namespace {

using l1_bypass::DeviceTensors;
using l1_bypass::LayerShape;
using l1_bypass::PreparedLaunch;
using l1_bypass::Workload;
using layers::CompiledVariant;
using layers::LayerKernel;

constexpr uint64_t kInputSeed = 0x11b7a5;  // l1_bypass's, so that inputs match
constexpr double kCheckWork = 1 << 24;     // host multiply-adds of the reference check
constexpr size_t kMemorySlackBytes = size_t{64} << 20;
constexpr int64_t kMaxBatch = 1024;
// Device (and host) memory the line bitmaps may take.
constexpr uint64_t kMaxBitmapBytes = uint64_t{1} << 30;
// Launches of the GPC probe (MeasureGpcMap), once per process: as many as
// gpc_topology's default, since fewer leave GPCs split (gpc_schedule.h).
constexpr int kGpcLaunches = kGpcDefaultLaunches;
// SM ids beyond this are taken for garbage (kMaxSmId of
// experiments/sharing/topology/gpc_map.h).
constexpr int kMaxSmSlots = kMaxSmId + 1;

absl::Status Validate(const Point& p) {
  if (const auto& layers = l1_bypass::EmbeddedLayers(); !layers.ok()) return layers.status();
  const int64_t batch = p.Int("batch");
  if (batch < 1 || batch > kMaxBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be in 1..", kMaxBatch, " (got ", batch, ")"));
  }
  return absl::OkStatus();
}

// The linked `default` build (traced false) or the line-tracing build.
absl::StatusOr<const CompiledVariant*> FindBuild(bool traced) {
  for (const CompiledVariant& v : layers::CompiledLayerVariants()) {
    if (traced ? v.traced && v.kernels->set_trace != nullptr : std::string(v.name) == "default") {
      return &v;
    }
  }
  return absl::InternalError(traced ? "no trace build linked" : "no default build linked");
}

// The GPC map, measured on first use; an empty map with the reason where
// the device has none (no clusters).
struct GpcMapResult {
  std::vector<int> gpc_of_sm;
  std::string note;
};

absl::StatusOr<GpcMapResult> GpcMapOnce(const DeviceInfo& device, cudaStream_t stream) {
  static std::optional<absl::StatusOr<GpcMapResult>>* cached =
      new std::optional<absl::StatusOr<GpcMapResult>>;
  if (!cached->has_value()) {
    const absl::StatusOr<GpcMap> map = MeasureGpcMap(device, stream, kGpcLaunches);
    if (map.ok()) {
      GpcMapResult r{map->gpc_of_sm, ""};
      std::vector<std::string> findings;
      if (map->inconsistent_sms > 0) {
        findings.push_back(absl::StrCat(map->inconsistent_sms, " inconsistent SMs"));
      }
      // Unresolved SMs have GPC -1: each counts as a unit of its own in the
      // within/across split, as an unmapped SM does.
      if (map->unresolved_sms > 0) {
        findings.push_back(absl::StrCat(map->unresolved_sms,
                                        " unresolved SMs (no GPC, each its own unit)"));
      }
      if (!findings.empty()) r.note = absl::StrCat("GPC map: ", absl::StrJoin(findings, ", "));
      *cached = r;
    } else if (IsSkipped(map.status())) {
      *cached = GpcMapResult{{}, absl::StrCat("no GPC map: ", map.status().message())};
    } else {
      *cached = map.status();
    }
  }
  return **cached;
}

// One traced launch of `args` (its grid as given) over `plan`'s regions
// with sm_slots bitmap rows: the bitmaps and every block's SM, and the
// launch's event time. The caller poisons the output first. Leaves the
// trace build's LineTrace cleared.
struct TraceRun {
  std::vector<uint32_t> words;
  std::vector<int> block_sm;
  double ms = 0;
};

absl::StatusOr<TraceRun> RunTraced(const layers::VariantKernels& kernels,
                                   const layers::LayerArgs& args, TracePlan plan,
                                   cudaStream_t stream) {
  const size_t words = plan.bitmap_bytes / sizeof(uint32_t);
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<uint32_t> bitmaps, DeviceBuffer<uint32_t>::Allocate(words));
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<int> block_sm,
                           DeviceBuffer<int>::Allocate(static_cast<size_t>(args.blocks)));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(bitmaps.get(), 0, bitmaps.bytes(), stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(block_sm.get(), 0xff, block_sm.bytes(), stream));
  plan.trace.bitmaps = bitmaps.get();
  plan.trace.block_sm = block_sm.get();
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  DISSECT_CUDA_RETURN_IF_ERROR(kernels.set_trace(&plan.trace));
  // set_trace copies on the legacy default stream and may return before the
  // copy lands; the launch must see it.
  DISSECT_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  cudaEvent_t start = nullptr, stop = nullptr;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaEventCreate(&start));
  cudaError_t e = cudaEventCreate(&stop);
  if (e == cudaSuccess) e = cudaEventRecord(start, stream);
  if (e == cudaSuccess) e = kernels.launch(args, stream);
  if (e == cudaSuccess) e = cudaEventRecord(stop, stream);
  if (e == cudaSuccess) e = cudaEventSynchronize(stop);
  float ms = 0;
  if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  const cudaError_t cleared = kernels.set_trace(nullptr);
  DISSECT_CUDA_RETURN_IF_ERROR(e);
  DISSECT_CUDA_RETURN_IF_ERROR(cleared);

  TraceRun run;
  run.ms = ms;
  run.words.resize(words);
  run.block_sm.resize(args.blocks);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(run.words.data(), bitmaps.get(), bitmaps.bytes(), cudaMemcpyDeviceToHost));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(run.block_sm.data(), block_sm.get(), block_sm.bytes(), cudaMemcpyDeviceToHost));
  return run;
}

absl::Status AddOne(PointContext& ctx, absl::string_view metric, double value) {
  return ctx.AddSamples(metric, {value});
}

// The tensors a trace covers: their bases in `t`, or without device
// tensors yet (t null) disjoint made-up bases of the same alignment
// (cudaMalloc aligns to 256 B), which give the same line counts.
std::vector<TracedTensor> TracedTensors(const Workload& wl, const DeviceTensors* t) {
  const auto base = [t](const void* p) {
    return t == nullptr ? uint64_t{0} : reinterpret_cast<uint64_t>(p);
  };
  const uint64_t gap = uint64_t{1} << 40;
  return std::vector<TracedTensor>{
      {"x", t ? base(t->x.get()) : 1 * gap, wl.x_elements * sizeof(float)},
      {"weights", t ? base(t->weights.get()) : 2 * gap, wl.weight_elements * sizeof(float)},
      {"index", t ? base(t->index.get()) : 3 * gap, wl.index_elements * sizeof(int32_t)},
  };
}

// The traced launch of `args` over `plan`, output poisoned first. %smid may
// exceed the SM count (PTX does not promise contiguous ids): loads of such
// SMs were not recorded, so it traces again with room for them (`plan`
// widened, and a note).
absl::StatusOr<TraceRun> TraceAllSms(PointContext& ctx, const layers::VariantKernels& kernels,
                                     const layers::LayerArgs& args, const Workload& wl,
                                     DeviceTensors& device, TracePlan& plan) {
  const int sm_count = ctx.device().sm_count;
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(device.y.get(), 0xff, device.y.bytes(), ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(TraceRun run, RunTraced(kernels, args, plan, ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(const int slots_needed, SmSlotsNeeded(run.block_sm));
  if (slots_needed <= plan.trace.sm_slots) return run;
  if (slots_needed > kMaxSmSlots) {
    return absl::InternalError(absl::StrCat("a block ran on SM id ", slots_needed - 1));
  }
  ctx.AddNote(absl::StrCat("SM ids up to ", slots_needed - 1, " (", sm_count, " SMs)"));
  absl::StatusOr<TracePlan> wider =
      PlanTrace(TracedTensors(wl, &device), slots_needed, kMaxBitmapBytes);
  if (absl::IsResourceExhausted(wider.status())) return Skipped(wider.status().message());
  DISSECT_RETURN_IF_ERROR(wider.status());
  plan = *std::move(wider);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(device.y.get(), 0xff, device.y.bytes(), ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(run, RunTraced(kernels, args, plan, ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(const int again, SmSlotsNeeded(run.block_sm));
  if (again > plan.trace.sm_slots) {
    return absl::InternalError("SM ids of the traced launch changed between two runs");
  }
  return run;
}

// The point's notes and samples from the traced lines (`s`), the plan, the
// timed launch and its times `ms`.
absl::Status ReportDuplication(PointContext& ctx, const DuplicationStats& s, const TracePlan& plan,
                               const PreparedLaunch& launch, const TraceRun& run,
                               const std::vector<double>& ms) {
  if (!s.unmapped_sms.empty()) {
    ctx.AddNote(absl::StrCat(s.unmapped_sms.size(), " SMs with lines have no GPC (SM ",
                             absl::StrJoin(s.unmapped_sms, " "), ")"));
  }
  if (!s.defined()) ctx.AddNote("no line touched: ratios undefined");
  ctx.AddNote(absl::StrCat("traced: ", absl::StrJoin(plan.region_names, " "), " (",
                           plan.traced_bytes, " B)"));

  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "lines_touched", static_cast<double>(s.lines_touched)));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "sm_lines_sum", static_cast<double>(s.sm_lines_sum)));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "replication", s.replication));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "duplicated_fraction", s.duplicated_fraction));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "gpc_replication", s.gpc_replication));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "gpc_duplicated_fraction", s.gpc_duplicated_fraction));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "cross_gpc_replication", s.cross_gpc_replication));
  DISSECT_RETURN_IF_ERROR(
      AddOne(ctx, "cross_gpc_duplicated_fraction", s.cross_gpc_duplicated_fraction));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "sms_used", s.sms_used));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "gpcs_used", s.gpcs_used));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "traced_bytes", static_cast<double>(plan.traced_bytes)));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "blocks_per_sm", launch.blocks_per_sm()));
  DISSECT_RETURN_IF_ERROR(AddOne(ctx, "trace_ms", run.ms));
  std::vector<double> us;
  for (double t : ms) us.push_back(t * 1e3);
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("kernel_us", std::move(us)));
  return ctx.SetVector("sm_lines", std::vector<double>(s.sm_lines.begin(), s.sm_lines.end()));
}


absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const LayerKernel kernel, l1_bypass::ParseKernel(ctx.Str("kernel")));
  DISSECT_ASSIGN_OR_RETURN(const LayerShape* layer, l1_bypass::FindEmbeddedLayer(ctx.Str("layer")));
  if (std::string reason = l1_bypass::NotApplicable(kernel, *layer); !reason.empty()) {
    return Skipped(reason);
  }
  LayerShape batched = *layer;
  batched.n = static_cast<int>(ctx.Int("batch"));
  const Workload wl = l1_bypass::MakeWorkload(kernel, batched, 0);
  if (kernel == LayerKernel::kGather && wl.x_elements > size_t{INT32_MAX}) {
    return Skipped(
        absl::StrCat("gather indexes are int32; the input has ", wl.x_elements, " elements"));
  }
  DISSECT_ASSIGN_OR_RETURN(const CompiledVariant* timed, FindBuild(false));
  DISSECT_ASSIGN_OR_RETURN(const CompiledVariant* traced, FindBuild(true));
  const int sm_count = ctx.device().sm_count;

  // The size guard, before anything is allocated: bitmaps for sm_count SMs
  // (more if SM ids exceed it, see below).
  absl::StatusOr<TracePlan> sized =
      PlanTrace(TracedTensors(wl, nullptr), sm_count, kMaxBitmapBytes);
  if (absl::IsResourceExhausted(sized.status())) return Skipped(sized.status().message());
  DISSECT_RETURN_IF_ERROR(sized.status());
  DISSECT_RETURN_IF_ERROR(l1_bypass::CheckDeviceMemory(
      static_cast<size_t>(wl.BytesMoved()) + sized->bitmap_bytes, kMemorySlackBytes));

  // The GPC probe first, before this point's buffers exist.
  DISSECT_ASSIGN_OR_RETURN(const GpcMapResult gpc, GpcMapOnce(ctx.device(), ctx.stream()));
  if (!gpc.note.empty()) ctx.AddNote(gpc.note);

  const l1_bypass::HostTensors host = l1_bypass::MakeInputs(wl, kInputSeed);
  DISSECT_ASSIGN_OR_RETURN(DeviceTensors device, l1_bypass::UploadTensors(wl, host));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(device.y.get(), 0xff, device.y.bytes(), ctx.stream()));

  // Timed: the default build, all host work before the events.
  DISSECT_ASSIGN_OR_RETURN(
      const PreparedLaunch launch,
      PreparedLaunch::Prepare(*timed->kernels, device.Args(wl), 100, sm_count));
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> ms,
      ctx.TimeKernel([&launch](cudaStream_t s) { return launch.Launch(s); }, CacheState::kHot));
  DISSECT_ASSIGN_OR_RETURN(const std::vector<float> y_timed, l1_bypass::DownloadOutput(device));
  DISSECT_RETURN_IF_ERROR(l1_bypass::CheckAgainstReference(wl, host, y_timed, kCheckWork));

  // Traced: the trace build with the same grid (its own occupancy may be
  // lower: then the grid runs in more than one wave, which the note says).
  DISSECT_ASSIGN_OR_RETURN(const PreparedLaunch trace_launch,
                           PreparedLaunch::Prepare(*traced->kernels, launch.args(), 100, sm_count));
  if (trace_launch.blocks_per_sm() < launch.blocks_per_sm()) {
    ctx.AddNote(absl::StrCat("trace build fits ", trace_launch.blocks_per_sm(),
                             " blocks per SM against ", launch.blocks_per_sm(),
                             ": the traced grid runs in more than one wave"));
  }
  DISSECT_ASSIGN_OR_RETURN(TracePlan plan,
                           PlanTrace(TracedTensors(wl, &device), sm_count, kMaxBitmapBytes));
  DISSECT_ASSIGN_OR_RETURN(
      const TraceRun run, TraceAllSms(ctx, *traced->kernels, launch.args(), wl, device, plan));
  DISSECT_ASSIGN_OR_RETURN(const std::vector<float> y_traced, l1_bypass::DownloadOutput(device));
  DISSECT_RETURN_IF_ERROR(l1_bypass::CheckIdentical(y_traced, y_timed, "the default build"));

  DISSECT_ASSIGN_OR_RETURN(LineBitmaps bitmaps,
                           LineBitmaps::Create(plan.trace.sm_slots, plan.trace.words_per_sm));
  std::copy(run.words.begin(), run.words.end(), bitmaps.data());
  const DuplicationStats s = ComputeDuplication(bitmaps, gpc.gpc_of_sm);
  return ReportDuplication(ctx, s, plan, launch, run, ms);
}

DISSECT_EXPERIMENT(l1_duplication)
    .Question(
        "How much of the data a layer kernel loads is loaded by more than one SM (held in "
        "several L1s), and how much of it within a GPC or across GPCs?")
    .AddAxis(StringAxis("kernel", l1_bypass::KernelNames(), {},
                        "stream, gather, stencil, conv, maxpool, gemv, softmax (kernels/layers; "
                        "kernels that do not fit a layer's type are skipped)"))
    .AddAxis(StringAxis("layer", l1_bypass::EmbeddedLayerNames(),
                        {"vgg16.conv3_1", "vgg16.pool1", "vgg16.fc6", "resnet50.conv1",
                         "resnet50.pool1", "resnet50.res3b_branch2b", "resnet50.res5b_branch2b",
                         "resnet50.fc1000"},
                        "a layer of configs/layers/cnn_layers.json"))
    .AddAxis(IntAxis("batch", "images", {1}, "images per launch: the layer's n"))
    .AddMetric("lines_touched", "lines", "distinct 128-byte lines loaded by any SM")
    .AddMetric("sm_lines_sum", "lines", "sum over SMs of the lines each SM loaded")
    .AddMetric("replication", "x", "sm_lines_sum / lines_touched: SMs per loaded line")
    .AddMetric("duplicated_fraction", "fraction",
               "1 - lines_touched / sm_lines_sum: share of per-SM line loads another SM also "
               "made")
    .AddMetric("gpc_replication", "x",
               "within GPCs: sm_lines_sum / sum over GPCs of their distinct lines (NaN "
               "without a GPC map)")
    .AddMetric("gpc_duplicated_fraction", "fraction", "within GPCs: 1 - 1 / gpc_replication")
    .AddMetric("cross_gpc_replication", "x",
               "across GPCs: sum over GPCs of their distinct lines / lines_touched; "
               "replication = gpc_replication x cross_gpc_replication")
    .AddMetric("cross_gpc_duplicated_fraction", "fraction",
               "across GPCs: 1 - 1 / cross_gpc_replication")
    .AddMetric("sms_used", "SMs", "SMs that loaded at least one traced line")
    .AddMetric("gpcs_used", "GPCs", "GPCs whose SMs loaded a traced line (0 without a map)")
    .AddMetric("traced_bytes", "B", "bytes of the traced inputs (x, weights, index)")
    .AddMetric("blocks_per_sm", "blocks", "grid blocks per SM (100 % occupancy)")
    .AddMetric("trace_ms", "ms", "event time of the one traced launch (not the row's time)")
    .AddMetric("kernel_us", "us", "event time of one launch of the default build")
    .AddVector("sm_lines", "lines", "sm", "lines each SM slot (%smid) loaded")
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect
