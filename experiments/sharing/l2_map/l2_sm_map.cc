// Question: how far is each SM from each L2 partition: which lines are near
//           and which far from which SMs, and what does the far side cost?
// Timed:    for each target SM (every sm_stride-th), one launch of
//           2 x sm_count one-warp blocks that each take an SM's worth of
//           shared memory; the first block on the target SM (%smid,
//           atomicCAS) measures, the others exit at once. One thread, for
//           each of `lines` lines (one per 4 KiB page, at varied 128-byte
//           slots in the page), loads the line once (warm, ld.global.cg),
//           waits for it, reads %clock64, chases `hops` dependent
//           ld.global.cg loads of that same line (the line holds its own
//           address: a hop is one LDG addressed by the previous LDG's
//           result, no address arithmetic; SASS-checked), waits for the last
//           one and reads %clock64 again: cycles = delta / hops, an L2 hit
//           latency (L1 bypassed). A launch whose block missed the target SM
//           is repeated (up to 8 tries); an SM never reached is NaN in the
//           matrix and named in the row's label. The sm_count x lines
//           matrix goes to probes/l2_map InferL2Partitions (lines grouped by
//           their latency vector over SMs, number of partitions inferred,
//           not assumed). The row's time is CUDA events around the launch
//           that targets SM 0 (TimeKernel: a 4-byte memset of the claim
//           word and the launch), i.e. one row of the map.
// Expected: on H100, two groups of lines (the two L2 partitions) whose
//           near/far roles flip between two halves of the SMs, so that
//           near_partition_of_sm splits the SMs in two; published
//           far - near gaps are large (often 100s of cycles) on top of a
//           near L2 hit of a few hundred cycles. These are expectations
//           from the literature, not measurements of this code. A GPU with
//           one uniform L2 reports partitions 1 and far_minus_near 0. What
//           else could give partitions 1 on H100: an L2 that copies a far
//           line into the near partition on first access would serve every
//           timed hop (after the warm load) from the near side; the map then
//           shows the latency of repeated accesses, not of the first one.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/harness/experiment.h"
#include "experiments/sharing/l2_map/l2_map_host.h"
#include "kernels/l2_map/l2_map.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/l2_map/l2_partitions.h"

namespace dissect {
namespace {

constexpr int kBlocksPerSm = 2;
constexpr int kMaxTries = 8;

absl::Status Validate(const Point& p) {
  return ValidateL2MapAxes(p.Int("lines"), p.Int("hops"), p.Int("sm_stride"));
}

struct MapBuffers {
  DeviceBuffer<unsigned long long> memory;  // the lines' pages
  DeviceBuffer<const unsigned long long*> table;
  DeviceBuffer<int> claimed;
  DeviceBuffer<unsigned long long> cycles;
  DeviceBuffer<unsigned long long> sink;
};

absl::StatusOr<MapBuffers> MakeBuffers(int lines, cudaStream_t stream) {
  MapBuffers b;
  const std::vector<uint64_t> offsets = L2MapLineOffsets(lines, kL2MapPageBytes);
  const uint64_t words = static_cast<uint64_t>(lines) * kL2MapPageBytes / 8;
  DISSECT_ASSIGN_OR_RETURN(b.memory, DeviceBuffer<unsigned long long>::Allocate(words));
  DISSECT_ASSIGN_OR_RETURN(b.table, DeviceBuffer<const unsigned long long*>::Allocate(lines));
  DISSECT_ASSIGN_OR_RETURN(b.claimed, DeviceBuffer<int>::Allocate(1));
  DISSECT_ASSIGN_OR_RETURN(b.cycles, DeviceBuffer<unsigned long long>::Allocate(lines));
  DISSECT_ASSIGN_OR_RETURN(b.sink, DeviceBuffer<unsigned long long>::Allocate(1));
  const uint64_t base = reinterpret_cast<uint64_t>(b.memory.get());
  const std::vector<unsigned long long> image = SelfPointingImage(base, offsets, words);
  std::vector<const unsigned long long*> table;
  for (uint64_t offset : offsets) table.push_back(b.memory.get() + offset / 8);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(b.memory.get(), image.data(), b.memory.bytes(),
                                               cudaMemcpyHostToDevice, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(b.table.get(), table.data(), b.table.bytes(),
                                               cudaMemcpyHostToDevice, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return b;
}

// Launches until a block lands on args.target_sm (at most kMaxTries);
// cycles per hop of each line, or an empty vector if the SM was never
// reached.
absl::StatusOr<std::vector<double>> MeasureSm(const L2MapArgs& args, const MapBuffers& b,
                                              int blocks, size_t shared_bytes,
                                              cudaStream_t stream) {
  std::vector<unsigned long long> raw(args.line_count);
  for (int t = 0; t < kMaxTries; ++t) {
    int claimed = 0;
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(b.claimed.get(), 0, sizeof(int), stream));
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchL2Map(args, blocks, shared_bytes, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(&claimed, b.claimed.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(raw.data(), b.cycles.get(), b.cycles.bytes(),
                                                 cudaMemcpyDeviceToHost, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    if (claimed != args.target_sm + 1) continue;
    std::vector<double> cycles;
    for (unsigned long long c : raw) cycles.push_back(static_cast<double>(c) / args.hops);
    return cycles;
  }
  return std::vector<double>{};
}

absl::Status Run(PointContext& ctx) {
  const int lines = static_cast<int>(ctx.Int("lines"));
  const int hops = static_cast<int>(ctx.Int("hops"));
  const DeviceInfo& device = ctx.device();
  const uint64_t footprint = static_cast<uint64_t>(lines) * kL2MapPageBytes;
  if (footprint > static_cast<uint64_t>(device.l2_bytes) / 2) {
    return Skipped(absl::StrCat(lines, " lines span ", footprint, " B, more than half the L2 (",
                                device.l2_bytes, " B): they would not all stay L2 hits"));
  }
  size_t shared_bytes = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(PrepareL2Map(device.index, &shared_bytes));
  DISSECT_ASSIGN_OR_RETURN(const MapBuffers b, MakeBuffers(lines, ctx.stream()));
  const int blocks = kBlocksPerSm * device.sm_count;
  L2MapArgs args;
  args.lines = b.table.get();
  args.line_count = lines;
  args.hops = hops;
  args.claimed = b.claimed.get();
  args.cycles = b.cycles.get();
  args.sink = b.sink.get();

  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> matrix(device.sm_count, std::vector<double>(lines, kNaN));
  std::vector<int> missed;
  for (int sm : L2MapTargetSms(device.sm_count, ctx.Int("sm_stride"))) {
    args.target_sm = sm;
    DISSECT_ASSIGN_OR_RETURN(std::vector<double> row,
                             MeasureSm(args, b, blocks, shared_bytes, ctx.stream()));
    if (row.empty()) {
      missed.push_back(sm);
    } else {
      matrix[sm] = std::move(row);
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

  DISSECT_ASSIGN_OR_RETURN(const L2PartitionMap map, InferL2Partitions(matrix));
  if (!map.outlier_lines.empty()) {
    ctx.AddNote(absl::StrCat("outlier lines ", absl::StrJoin(map.outlier_lines, ",")));
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

  const L2MapVectors v = MapVectors(map);
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("cycles", Flatten(matrix)));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("partition_of_line", v.partition_of_line));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("sm_partition_cycles", v.sm_partition_cycles));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("near_partition_of_sm", v.near_partition_of_sm));
  return absl::OkStatus();
}

DISSECT_EXPERIMENT(l2_sm_map)
    .Question(
        "How far is each SM from each L2 partition: which lines are near and which far, and "
        "what does the far side cost?")
    .AddAxis(IntAxis("lines", "lines", {64},
                     "lines measured, one per 4 KiB page at varied 128-byte slots"))
    .AddAxis(IntAxis("hops", "loads", {64},
                     "dependent ld.global.cg loads of a line per measurement; a multiple of 16"))
    .AddAxis(IntAxis("sm_stride", "SMs", {1},
                     "measure every n-th SM (1: all; larger for quick runs)"))
    .AddMetric("partitions", "partitions", "L2 partitions inferred from the lines' latencies")
    .AddMetric("near_cycles", "cycles", "mean over SMs of the SM's lowest partition mean")
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
    .AddVector("cycles", "cycles", "sm*lines+line",
               "L2-hit cycles per load, NaN for unmeasured SMs")
    .AddVector("partition_of_line", "-", "line", "inferred L2 partition of each line")
    .AddVector("sm_partition_cycles", "cycles", "sm*partitions+p",
               "mean latency of each partition's lines from each SM")
    .AddVector("near_partition_of_sm", "-", "sm", "each SM's lowest-latency partition")
    .Validate(Validate)
    .Run(Run);

}  // namespace
}  // namespace dissect
