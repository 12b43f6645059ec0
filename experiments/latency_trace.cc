// Question: how is each single access served (after Mei & Chu's
//           fine-grained pointer chase)? From the per-access latencies it
//           infers line and sector sizes and the near/far L2 partitions.
// Timed:    one thread chases the chain (64-bit device addresses on the
//           global paths, so strides are multiples of 8 B there) and reads
//           %clock around every one of kTraceLength accesses, storing the
//           loaded value to shared memory before the second read so the read
//           waits for the load. "cold" flushes L2 before each launch and
//           skips warm-up; "warm" first runs one full lap of the chain.
// Expected: a cold strided walk with an 8 B stride misses once per line or
//           sector: miss_period_bytes is that size (32 B sectors, 128 B lines
//           on recent NVIDIA GPUs). A warm walk of global_cg that fits half
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
//           L2-only, not L1 hits; level1_cycles still includes the clock
//           and store overhead. A sector for a line: the miss period
//           reduction is //probes:latency_levels_test
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
//           elsewhere, and //analysis:memory_hierarchy_test
//           (TraceNearFar*) shows it leaving out a second level at DRAM
//           latency, one without a DRAM latency to compare, and one from a
//           walk that fits half the L2. Not yet ruled out by a test: what
//           the hardware does to copies under pressure (least recently
//           used or not, homes evicted for copies): the fractions of the
//           two levels at 32 MiB depend on it, and only a GPU run shows it.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/chase_common.h"
#include "experiments/harness/experiment.h"
#include "probes/cuda_status.h"
#include "probes/latency_levels.h"

namespace dissect {
namespace {

constexpr int kReportedLevels = 3;

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
  return ctx.AddSamples("miss_period_bytes", std::move(miss_period));
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
               "most frequent byte distance between accesses slower than level 1")
    .Validate(ValidateChasePoint)
    .Run(Run);

}  // namespace
}  // namespace dissect
