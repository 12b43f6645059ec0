// Question: how far is each SM from each L2 partition: which lines are near
//           and which far from which SMs, and what does the far side cost?
// Timed:    for each target SM (every sm_stride-th), one launch of
//           2 x sm_count blocks of 256 threads that each take an SM's worth
//           of shared memory; the first block on the target SM (%smid,
//           atomicCAS) measures, the others exit at once. The measuring
//           block runs `laps` laps of the plan in l2_map_plan.h: the whole
//           block sweeps every 32-byte sector of a separate buffer of
//           sweep_percent % of the L2 (ld.global.cg, untimed), then one
//           thread walks the ring of `lines` lines (one per 4 KiB page, at
//           varied 128-byte slots; each holds the next one's address) and
//           for each line reads %clock64 around three intervals: an empty
//           one, the first touch (one ld.global.cg) and a re-touch of the
//           same sector (one ld.global.cg, 8 bytes on). Per SM and line:
//           the median over laps of first touch minus empty (re-touch
//           minus empty for the re-touch). A launch whose block missed the
//           target SM is repeated (up to 8 tries); an SM never reached is
//           NaN in the matrix and named in the row's label. The
//           sm_count x lines matrix of first touches goes to l2_partitions.h's
//           InferL2Partitions (lines grouped by their latency vector over
//           SMs, number of partitions inferred, not assumed). The row's
//           time is CUDA events around the launch that targets SM 0
//           (TimeKernel: a 4-byte memset of the claim word and the launch).
// Why first touches after a sweep: Hopper, like A100, keeps a copy of a
//           far line in the near partition once an SM has read it, so any
//           load of a line an SM has just read is a near hit, whichever
//           partition the line lives in. A chase of one line, as this
//           experiment did before, saw the near partition only
//           (far_minus_near ~ 0). The difference between the partitions
//           exists only for a line whose near copy is gone: the sweep,
//           more than one partition (half the L2) of other lines read from
//           the same SM, fills the SM's near partition with its own copies
//           and so pushes out those of the measured lines (whoever made
//           them: the previous lap or another SM's launch), while staying
//           below the whole L2 so that the lines themselves stay in L2.
//           Then the first touch of a line homed in the far partition goes
//           to the far partition. gpu-benches' single-thread chase on GH200
//           shows the same two levels by footprint (../shared/data/peers:
//           ~270-290 cycles up to ~26-30 MiB, ~480-520 beyond, DRAM from
//           ~60 MiB); the sweep gives them per line and per SM instead of
//           as an average over a footprint. Timing the single first touch
//           costs a fixed clock-read overhead, which the empty interval
//           measures and the row subtracts.
// Expected: on H100, two groups of lines (the two L2 partitions) and two
//           groups of SMs whose near/far roles are swapped, about 200
//           cycles apart (far_minus_near_cycles ~ 200; near ~ 250-300
//           cycles); re-touches ~ near for every line. These are
//           expectations from the literature and gpu-benches, not
//           measurements of this code. A GPU with one uniform L2 reports
//           partitions 1 and far_minus_near 0.
// Could be confused with:
//           - the near partition for the far one (a near copy serving the
//             far line): ruled out for the method by
//             :l2_map_method_test, which replays this plan on a simulated
//             L2 that keeps near copies (near_copy_l2_model.h) and finds
//             both partitions 200 cycles apart, while the old one-line
//             chase finds one, and a sweep that fits in one partition
//             finds one too (hence sweep_percent > 50). The model's copy
//             policy (LRU, copies give way to homes) is an assumption
//             about the hardware, not a measurement.
//           - L1 for L2, if the loads were cached in L1 (a re-touch would
//             then be an L1 hit): :l2_map_sass_test checks that every
//             timed load is LDG...STRONG.GPU (ld.global.cg, L2 only), one
//             per interval, addressed by the previous re-touch's result
//             with nothing else in the chain, and that each closing clock
//             read waits for its load; :l2_map_sass_checks_test shows the
//             checks failing on an L1-cached, a generic, an unwaited, an
//             indexed variant and on the old kernel.
//           - DRAM for near L2, if the sweep pushed the lines' homes out
//             of L2 (an L2 that evicted homes and copies alike): the row
//             compares near_cycles with retouch_cycles (near hits by
//             construction) and says so in its label when near is more
//             than kL2MapRetouchToleranceCycles above (l2_map_host_test);
//             not ruled out by a test on a GPU yet.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/framework/experiment.h"
#include "experiments/sharing/l2_map/l2_map_host.h"
#include "experiments/sharing/l2_map/l2_map_plan.h"
#include "experiments/sharing/l2_map/l2_partitions.h"
#include "kernels/l2_map/l2_map.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

constexpr int kBlocksPerSm = 2;
constexpr int kMaxTries = 8;

absl::Status Validate(const Point& p) {
  return ValidateL2MapAxes(p.Int("lines"), p.Int("laps"), p.Int("sweep_percent"),
                           p.Int("sm_stride"));
}

struct MapBuffers {
  DeviceBuffer<unsigned long long> memory;  // the lines' pages
  DeviceBuffer<unsigned long long> sweep;
  DeviceBuffer<int> claimed;
  DeviceBuffer<unsigned long long> empty;
  DeviceBuffer<unsigned long long> first_touch;
  DeviceBuffer<unsigned long long> retouch;
  DeviceBuffer<unsigned long long> sink;
};

absl::StatusOr<MapBuffers> MakeBuffers(const L2MapPlan& plan, cudaStream_t stream) {
  MapBuffers b;
  const uint64_t lines = plan.line_offsets.size();
  const uint64_t words = lines * kL2MapPageBytes / 8;
  const uint64_t timed = lines * static_cast<uint64_t>(plan.laps);
  DISSECT_ASSIGN_OR_RETURN(b.memory, DeviceBuffer<unsigned long long>::Allocate(words));
  DISSECT_ASSIGN_OR_RETURN(b.sweep,
                           DeviceBuffer<unsigned long long>::Allocate(plan.sweep_bytes / 8));
  DISSECT_ASSIGN_OR_RETURN(b.claimed, DeviceBuffer<int>::Allocate(1));
  DISSECT_ASSIGN_OR_RETURN(b.empty, DeviceBuffer<unsigned long long>::Allocate(timed));
  DISSECT_ASSIGN_OR_RETURN(b.first_touch, DeviceBuffer<unsigned long long>::Allocate(timed));
  DISSECT_ASSIGN_OR_RETURN(b.retouch, DeviceBuffer<unsigned long long>::Allocate(timed));
  DISSECT_ASSIGN_OR_RETURN(b.sink, DeviceBuffer<unsigned long long>::Allocate(1));
  const uint64_t base = reinterpret_cast<uint64_t>(b.memory.get());
  const std::vector<unsigned long long> image = L2MapRingImage(base, plan.line_offsets, words);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(b.memory.get(), image.data(), b.memory.bytes(),
                                               cudaMemcpyHostToDevice, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(b.sweep.get(), 0, b.sweep.bytes(), stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return b;
}

// The kernel's arguments for `plan` in `b` (target_sm left at 0).
L2MapArgs MakeArgs(const L2MapPlan& plan, const MapBuffers& b) {
  L2MapArgs args;
  args.first_line = reinterpret_cast<unsigned long long>(b.memory.get()) + plan.line_offsets[0];
  args.line_count = static_cast<int>(plan.line_offsets.size());
  args.laps = plan.laps;
  args.sweep = b.sweep.get();
  args.sweep_bytes = plan.sweep_bytes;
  args.claimed = b.claimed.get();
  args.empty_cycles = b.empty.get();
  args.first_touch_cycles = b.first_touch.get();
  args.retouch_cycles = b.retouch.get();
  args.sink = b.sink.get();
  return args;
}

std::vector<double> ToDouble(const std::vector<unsigned long long>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// Launches until a block lands on args.target_sm (at most kMaxTries); the
// SM's first-touch and re-touch cycles per line, or empty vectors if the
// SM was never reached.
absl::StatusOr<L2MapLineCycles> MeasureSm(const L2MapArgs& args, const MapBuffers& b, int blocks,
                                          size_t shared_bytes, cudaStream_t stream) {
  const size_t timed = static_cast<size_t>(args.line_count) * args.laps;
  std::vector<unsigned long long> empty(timed), first(timed), again(timed);
  for (int t = 0; t < kMaxTries; ++t) {
    int claimed = 0;
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(b.claimed.get(), 0, sizeof(int), stream));
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchL2Map(args, blocks, shared_bytes, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(&claimed, b.claimed.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    for (auto [host, device] : {std::pair{&empty, &b.empty}, std::pair{&first, &b.first_touch},
                                std::pair{&again, &b.retouch}}) {
      DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host->data(), device->get(), device->bytes(),
                                                   cudaMemcpyDeviceToHost, stream));
    }
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    if (claimed != args.target_sm + 1) continue;
    return ReduceL2MapLaps({ToDouble(empty), ToDouble(first), ToDouble(again)}, args.line_count,
                           args.laps);
  }
  return L2MapLineCycles{};
}

// The row: partitions inferred from the first-touch matrix, the re-touch
// check and the vectors.
absl::Status Report(PointContext& ctx, const L2MapPlan& plan,
                    const std::vector<std::vector<double>>& matrix,
                    const std::vector<std::vector<double>>& retouch) {
  DISSECT_ASSIGN_OR_RETURN(const L2PartitionMap map, InferL2Partitions(matrix));
  if (!map.outlier_lines.empty()) {
    ctx.AddNote(absl::StrCat("outlier lines ", absl::StrJoin(map.outlier_lines, ",")));
  }
  const double retouch_cycles = MeanFinite(retouch);
  if (std::string note = L2MapRetouchNote(map.near_cycles, retouch_cycles); !note.empty()) {
    ctx.AddNote(std::move(note));
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("partitions", {static_cast<double>(map.partitions)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("near_cycles", {map.near_cycles}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("far_cycles", {map.far_cycles}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("far_minus_near_cycles", {map.far_minus_near_cycles}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("near_spread_cycles", {map.near_max_cycles - map.near_min_cycles}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("sms_measured", {static_cast<double>(map.sms_measured)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("near_stdev_cycles", {map.near_stdev_cycles}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("noise_cycles", {map.noise_cycles}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("separation_cycles", {map.separation_cycles}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("outlier_lines", {static_cast<double>(map.outlier_lines.size())}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("retouch_cycles", {retouch_cycles}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("sweep_bytes", {static_cast<double>(plan.sweep_bytes)}));

  const L2MapVectors v = MapVectors(map);
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("cycles", Flatten(matrix)));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("partition_of_line", v.partition_of_line));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("sm_partition_cycles", v.sm_partition_cycles));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("near_partition_of_sm", v.near_partition_of_sm));
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  const int lines = static_cast<int>(ctx.Int("lines"));
  const DeviceInfo& device = ctx.device();
  const L2MapPlan plan = MakeL2MapPlan(lines, static_cast<int>(ctx.Int("laps")),
                                       static_cast<uint64_t>(device.l2_bytes),
                                       static_cast<int>(ctx.Int("sweep_percent")));
  const uint64_t footprint = static_cast<uint64_t>(lines) * kL2MapPageBytes;
  if (footprint > static_cast<uint64_t>(device.l2_bytes) / 2) {
    return Skipped(absl::StrCat(lines, " lines span ", footprint, " B, more than half the L2 (",
                                device.l2_bytes, " B): they would not all stay L2 hits"));
  }
  if (plan.sweep_bytes == 0) {
    return Skipped(absl::StrCat("an L2 of ", device.l2_bytes, " B leaves no sweep of whole ",
                                kL2MapSweepGrainBytes, "-byte trips"));
  }
  size_t shared_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(PrepareL2Map(device.index, &shared_bytes));
  DISSECT_ASSIGN_OR_RETURN(const MapBuffers b, MakeBuffers(plan, ctx.stream()));
  const int blocks = kBlocksPerSm * device.sm_count;
  L2MapArgs args = MakeArgs(plan, b);

  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> matrix(device.sm_count, std::vector<double>(lines, kNaN));
  std::vector<std::vector<double>> retouch = matrix;
  std::vector<int> missed;
  for (int sm : L2MapTargetSms(device.sm_count, ctx.Int("sm_stride"))) {
    args.target_sm = sm;
    DISSECT_ASSIGN_OR_RETURN(L2MapLineCycles row,
                             MeasureSm(args, b, blocks, shared_bytes, ctx.stream()));
    if (row.first_touch.empty()) {
      missed.push_back(sm);
    } else {
      matrix[sm] = std::move(row.first_touch);
      retouch[sm] = std::move(row.retouch);
    }
  }
  if (!missed.empty()) {
    ctx.AddNote(absl::StrCat("no block reached SM ", absl::StrJoin(missed, ","), " in ", kMaxTries,
                             " launches (NaN)"));
  }

  args.target_sm = 0;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                                 [&](cudaStream_t stream) {
                                   const cudaError_t e =
                                       cudaMemsetAsync(b.claimed.get(), 0, sizeof(int), stream);
                                   if (e != cudaSuccess) return e;
                                   return LaunchL2Map(args, blocks, shared_bytes, stream);
                                 },
                                 CacheState::kHot)
                              .status());

  return Report(ctx, plan, matrix, retouch);
}

DISSECT_EXPERIMENT(l2_sm_map)
    .Question(
        "How far is each SM from each L2 partition: which lines are near and which far, and "
        "what does the far side cost?")
    .AddAxis(IntAxis("lines", "lines", {64},
                     "lines measured, one per 4 KiB page at varied 128-byte slots"))
    .AddAxis(IntAxis("laps", "laps", {5},
                     "sweeps, each followed by one timed first touch and re-touch of every "
                     "line; the median over laps is kept"))
    .AddAxis(IntAxis("sweep_percent", "%", {75},
                     "the sweep that pushes out the lines' near copies, in % of the L2: more "
                     "than one partition (50), less than the whole"))
    .AddAxis(IntAxis("sm_stride", "SMs", {1},
                     "measure every n-th SM (1: all; larger for quick runs)"))
    .AddMetric("partitions", "partitions", "L2 partitions inferred from the lines' latencies")
    .AddMetric("near_cycles", "cycles",
               "mean over SMs of the SM's lowest partition mean (first touches)")
    .AddMetric("far_cycles", "cycles",
               "mean over SMs of the SM's highest partition mean (= near with one partition)")
    .AddMetric("far_minus_near_cycles", "cycles", "far_cycles - near_cycles")
    .AddMetric("near_spread_cycles", "cycles", "max - min over SMs of the SM's near mean")
    .AddMetric("sms_measured", "SMs", "SMs with a measured row")
    .AddMetric("near_stdev_cycles", "cycles", "standard deviation over SMs of the near mean")
    .AddMetric("noise_cycles", "cycles", "pooled within-partition RMS per SM")
    .AddMetric("separation_cycles", "cycles",
               "smallest RMS-per-SM distance between partition centres (0 with one)")
    .AddMetric("outlier_lines", "lines", "lines set aside as outliers (assigned by nearest centre)")
    .AddMetric("retouch_cycles", "cycles",
               "mean over SMs and lines of the re-touch right after a first touch: a near hit "
               "whatever the line's partition; near_cycles should match it")
    .AddMetric("sweep_bytes", "bytes", "the sweep before each lap")
    .AddVector("cycles", "cycles", "sm*lines+line",
               "first-touch L2 cycles (median over laps, clock overhead taken off), NaN for "
               "unmeasured SMs")
    .AddVector("partition_of_line", "-", "line", "inferred L2 partition of each line")
    .AddVector("sm_partition_cycles", "cycles", "sm*partitions+p",
               "mean latency of each partition's lines from each SM")
    .AddVector("near_partition_of_sm", "-", "sm", "each SM's lowest-latency partition")
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect
