// Question: how is each single access served (after Mei & Chu's
//           fine-grained pointer chase)? From the per-access latencies it
//           infers the fill granularity (what one miss brings in) and the
//           near/far L2 partitions.
// Timed:    one thread chases the chain (64-bit device addresses on the
//           global paths, so strides are multiples of 8 B there) and reads
//           %clock around every one of kTraceLength accesses, storing the
//           loaded value to shared memory before the second read so the read
//           waits for the load. "cold" flushes L2 before each launch and
//           skips warm-up; "warm" first runs one full lap of the chain.
//           Untimed by the harness, once per point: the per-access cost of
//           that timing code (trace_overhead_cycles), the trace of a warm
//           16 KiB chain on the same path minus memory_latency's slope
//           latency of it (both see the same level; the slope has no fixed
//           cost in it).
// Expected: a cold strided walk with an 8 B stride misses once per fill:
//           miss_period_bytes is the fill granularity, a sector (32 B) where
//           a miss fills one sector of its line, the line (128 B) where it
//           fills the whole line: not the line size itself. Every level's
//           cycles lie trace_overhead_cycles (a few to ~15 cycles) above
//           the overhead-free slope latency of memory_latency; the report
//           subtracts it. A warm walk of global_cg that fits half
//           the L2 (4 MiB) shows one L2 level, the near partition: A100 and
//           Hopper copy a far partition's line into the reader's near one,
//           so after the warm lap every line is near. Beyond half the L2
//           (32 MiB on a 32-64 MiB L2; kTraceFootprints) one partition
//           cannot hold the near-homed lines and the copies together, the
//           copies of a lap are gone when the next lap comes back, and a
//           warm random walk shows two L2 levels, near and far (about half
//           the accesses each on a two-partition L2, if copies go least
//           recently used first).
// Could be confused with: the timing around one access for the access:
//           //experiments:chase_sass_test (TraceTimesOneLoadPerClockPair...)
//           checks exactly one load between each clock pair, its result
//           stored before the second read, and (with
//           GlobalPathsLoadWithTheirCacheOperator) that global_cg loads are
//           L2-only, not L1 hits; the levels still include the clock and
//           store overhead, which trace_overhead_cycles measures and the
//           report subtracts (//analysis/sections:memory_hierarchy_test,
//           TraceNearFarLessTheTimingOverhead). A sector for a line: the
//           miss period reduction is //experiments:latency_levels_test
//           (DominantMissDistanceTest, NearAndFarL2 on invented latencies).
//           The near partition for the far one:
//           //experiments:latency_trace_method_test replays this walk (the
//           chain, TraceWarmupLoads' lap, kTraceLength traced loads,
//           FindLatencyLevels) on a simulated L2 with near copies
//           (near_copy_l2_model.h) of A100's and H100's sizes: at 4 MiB one
//           level, at 32 MiB near and far. DRAM misses for the far
//           partition (near the L2's capacity, lines can leave the L2):
//           the model has no DRAM, so the report decides; its rule
//           (analysis/README.md, memory hierarchy rule 6) takes near and
//           far only from warm random rows between half and all of the L2
//           whose second level lies well below a DRAM latency measured
//           elsewhere, and //analysis/sections:memory_hierarchy_test
//           (TraceNearFar*) shows it leaving out a second level at DRAM
//           latency, one without a DRAM latency to compare, and one from a
//           walk that fits half the L2. Not yet ruled out by a test: what
//           the hardware does to copies under pressure (least recently
//           used or not, homes evicted for copies): the fractions of the
//           two levels at 32 MiB depend on it, and only a GPU run shows it;
//           that the overhead is the same at every level (it is measured on
//           the first level the path reaches; a slower load might overlap
//           the clock read differently).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/chase_common.h"
#include "experiments/framework/experiment.h"
#include "experiments/latency_levels.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

constexpr int kReportedLevels = 3;

// The chain the per-access timing overhead is measured on: a warm random
// walk this small stays in the first level its path reaches (shared
// memory, L1, L2 for global_cg, ...), so the trace and the slope see the
// same level. 16 KiB also fits the constant bank and the trace's shared
// memory beside the chain.
constexpr int64_t kOverheadFootprint = int64_t{16} << 10;
constexpr int64_t kOverheadStride = 128;
constexpr uint64_t kOverheadTimedLoads = 4096;  // a multiple of kChaseUnroll
constexpr int kOverheadLaunches = 3;

// The most populous level of one launch's trace.
double MainLevelCycles(const TraceRecord* trace) {
  std::vector<uint32_t> cycles(kTraceLength);
  for (int k = 0; k < kTraceLength; ++k) cycles[k] = trace[k].cycles;
  const std::vector<LatencyLevel> levels = FindLatencyLevels(cycles);
  const auto main = std::max_element(
      levels.begin(), levels.end(),
      [](const LatencyLevel& a, const LatencyLevel& b) { return a.fraction < b.fraction; });
  return main == levels.end() ? 0.0 : main->cycles;
}

// What the trace's levels include besides the load, per launch pair: the
// clock reads and the store that makes the second read wait. The trace of
// a warm chain that stays in one level, minus the latency of that chain by
// memory_latency's method (the slope over two timed segments, which leaves
// every fixed cost out): both chase the same loads of the same level, so
// the difference is the trace's own cost per access.
absl::StatusOr<std::vector<double>> TraceOverheadCycles(PointContext& ctx, ChasePath path) {
  DISSECT_ASSIGN_OR_RETURN(
      DeviceChain chain,
      DeviceChain::Create(ctx.device(), path, kOverheadFootprint, kOverheadStride,
                          ChainOrder::kRandom, kTraceSharedBytes, ctx.stream()));
  ChaseArgs args = chain.Args();
  DISSECT_ASSIGN_OR_RETURN(args.warmup_loads, TraceWarmupLoads(chain.slots(), /*warm=*/true));
  args.timed_loads = kOverheadTimedLoads;
  DISSECT_CUDA_RETURN_IF_ERROR(PrepareChaseTrace(args));
  DISSECT_CUDA_RETURN_IF_ERROR(PrepareChase(args));
  DISSECT_ASSIGN_OR_RETURN(auto d_trace, DeviceBuffer<TraceRecord>::Allocate(
                                             static_cast<size_t>(kOverheadLaunches) * kTraceLength));
  DISSECT_ASSIGN_OR_RETURN(auto d_timing, DeviceBuffer<ChaseTiming>::Allocate(kOverheadLaunches));
  for (int i = 0; i < kOverheadLaunches; ++i) {
    args.trace = d_trace.get() + static_cast<size_t>(i) * kTraceLength;
    args.out = d_timing.get() + i;
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchChaseTrace(args, ctx.stream()));
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchChase(args, ctx.stream()));
  }
  std::vector<TraceRecord> records(d_trace.size());
  std::vector<ChaseTiming> timings(kOverheadLaunches);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream()));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(records.data(), d_trace.get(), d_trace.bytes(), cudaMemcpyDeviceToHost));
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(timings.data(), d_timing.get(), d_timing.bytes(), cudaMemcpyDeviceToHost));
  DISSECT_ASSIGN_OR_RETURN(
      const ChaseLatencySamples slope,
      ReduceChaseTimings(timings, kOverheadTimedLoads, ctx.SmClockMhz(),
                         static_cast<double>(ctx.device().sm_clock_max_khz) / 1e3));
  std::vector<double> overhead;
  for (int i = 0; i < kOverheadLaunches; ++i) {
    overhead.push_back(MainLevelCycles(records.data() + static_cast<size_t>(i) * kTraceLength) -
                       slope.cycles_per_load[i]);
  }
  return overhead;
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const ChasePath path, ParseChasePath(ctx.Str("path")));
  DISSECT_ASSIGN_OR_RETURN(const ChainOrder order, ParseChainOrder(ctx.Str("order")));
  const CacheState state = ctx.Str("state") == "cold" ? CacheState::kCold : CacheState::kHot;
  DISSECT_ASSIGN_OR_RETURN(
      DeviceChain chain,
      DeviceChain::Create(ctx.device(), path, ctx.Int("footprint_bytes"), ctx.Int("stride_bytes"),
                          order, kTraceSharedBytes, ctx.stream()));
  ChaseArgs args = chain.Args();
  DISSECT_ASSIGN_OR_RETURN(args.warmup_loads,
                           TraceWarmupLoads(chain.slots(), state == CacheState::kHot));
  // Once per point, before anything is timed: the launches only launch.
  DISSECT_CUDA_RETURN_IF_ERROR(PrepareChaseTrace(args));
  const int launches = ctx.timing().warmup + ctx.timing().samples;
  DISSECT_ASSIGN_OR_RETURN(
      auto d_trace,
      DeviceBuffer<TraceRecord>::Allocate(static_cast<size_t>(ctx.LaunchSlots()) * kTraceLength));
  int launch = 0;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                                 [&](cudaStream_t stream) {
                                   args.trace =
                                       d_trace.get() + kTraceLength * ctx.LaunchSlot(launch++);
                                   return LaunchChaseTrace(args, stream);
                                 },
                                 state)
                              .status());
  std::vector<TraceRecord> records(d_trace.size());
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(records.data(), d_trace.get(), d_trace.bytes(), cudaMemcpyDeviceToHost));
  std::vector<std::vector<double>> level_cycles(kReportedLevels), level_fraction(kReportedLevels);
  std::vector<double> miss_period;
  for (int i = ctx.timing().warmup; i < launches; ++i) {
    const TraceRecord* trace = records.data() + static_cast<size_t>(i) * kTraceLength;
    std::vector<uint32_t> cycles(kTraceLength);
    std::vector<uint64_t> addresses(kTraceLength);
    uint64_t address = chain.ValueAfter(args.warmup_loads);
    for (int k = 0; k < kTraceLength; ++k) {
      // Each access loads the next address: check the walk against the host.
      const uint64_t expected = chain.ValueAfter(args.warmup_loads + k + 1);
      if (trace[k].loaded != expected) {
        return absl::InternalError(absl::StrCat("launch ", i, " access ", k, " loaded ",
                                                trace[k].loaded, ", expected ", expected));
      }
      addresses[k] = chain.ByteAddress(address);
      cycles[k] = trace[k].cycles;
      address = trace[k].loaded;
    }
    const std::vector<LatencyLevel> levels = FindLatencyLevels(cycles);
    for (int l = 0; l < kReportedLevels; ++l) {
      const bool present = l < static_cast<int>(levels.size());
      level_cycles[l].push_back(present ? levels[l].cycles : 0.0);
      level_fraction[l].push_back(present ? levels[l].fraction : 0.0);
    }
    miss_period.push_back(static_cast<double>(
        levels.size() > 1 ? DominantMissDistance(addresses, cycles, levels[0].max_cycles) : 0));
  }
  for (int l = 0; l < kReportedLevels; ++l) {
    DISSECT_RETURN_IF_ERROR(
        ctx.AddSamples(absl::StrCat("level", l + 1, "_cycles"), std::move(level_cycles[l])));
    DISSECT_RETURN_IF_ERROR(
        ctx.AddSamples(absl::StrCat("level", l + 1, "_fraction"), std::move(level_fraction[l])));
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("miss_period_bytes", std::move(miss_period)));
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> overhead, TraceOverheadCycles(ctx, path));
  return ctx.AddSamples("trace_overhead_cycles", std::move(overhead));
}

DISSECT_EXPERIMENT(latency_trace)
    .Question(
        "How is each single access served: which levels, line and sector sizes, L2 "
        "partitions?")
    .AddAxis(StringAxis("path", ChasePathNames(), {"global_ca", "global_cg"},
                        "which load the chase uses (see memory_latency)"))
    .AddAxis(IntAxis("footprint_bytes", "B",
                     std::vector<int64_t>(std::begin(kTraceFootprints), std::end(kTraceFootprints)),
                     "bytes the chain spans; near and far L2 need more than half the L2"))
    .AddAxis(IntAxis("stride_bytes", "B", {8, 128},
                     "distance between chain slots (a multiple of 8 on the global paths)"))
    .AddAxis(StringAxis("order", ChainOrderNames(), {"strided", "random"},
                        "slot visiting order: address order, a random cycle, or page_local "
                        "(random within each 2 MiB page, page by page)"))
    .AddAxis(StringAxis("state", {"cold", "warm"}, {},
                        "cold: L2 flushed, no warm-up; warm: one full lap first"))
    .AddMetric("level1_cycles", "cycles", "fastest latency level (includes timing overhead)")
    .AddMetric("level1_fraction", "fraction", "share of accesses in level 1")
    .AddMetric("level2_cycles", "cycles", "second level; 0 if absent")
    .AddMetric("level2_fraction", "fraction", "share in level 2; 0 if absent")
    .AddMetric("level3_cycles", "cycles", "third level; 0 if absent")
    .AddMetric("level3_fraction", "fraction", "share in level 3; 0 if absent")
    .AddMetric("miss_period_bytes", "B",
               "fill granularity: most frequent byte distance between accesses slower than "
               "level 1 (a cold walk misses once per fill: a sector or a line)")
    .AddMetric("trace_overhead_cycles", "cycles",
               "per-access timing overhead in every level's cycles: the trace of a warm 16 KiB "
               "chain on this path minus its slope latency (memory_latency's method)")
    .Validate(ValidateChasePoint)
    .Headline("level1_cycles")
    .Run(Run);

}  // namespace
}  // namespace dissect
