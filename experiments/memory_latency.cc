// Question: what is the load-to-use latency of each level of the memory
//           hierarchy (shared, L1, L2, DRAM) and of the read-only, texture
//           and constant paths, and where are the capacity steps?
// Timed:    one thread chases a chain of dependent 32-bit loads; the path
//           axis picks the load (ld.shared, ld.global.ca, ld.global.cg,
//           ld.global.nc, tex.1d, ld.const) of one kernel template. One lap
//           of warm-up loads (at most 2^20) precedes the timed loads; %clock64
//           and %globaltimer are read in-kernel around them.
// Expected: plateaus separated by steps at each capacity: global_ca steps up
//           at the L1 capacity (about 200-240 KiB on H100) and again at the
//           L2 capacity (about 50 MB) to DRAM; global_cg has no L1 plateau;
//           random order defeats prefetching; at very large strides TLB
//           misses raise latency beyond the DRAM plateau.
#include "experiments/chase_common.h"
#include "experiments/harness/experiment.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const ChasePath path, ParseChasePath(ctx.Str("path")));
  DISSECT_ASSIGN_OR_RETURN(const ChainOrder order, ParseChainOrder(ctx.Str("order")));
  return MeasureChaseLatency(ctx, path, ctx.Int("footprint_bytes"), ctx.Int("stride_bytes"),
                             order, static_cast<uint64_t>(ctx.Int("loads")));
}

DISSECT_EXPERIMENT(memory_latency)
    .Question("What is the load latency of each memory level and path, and where are the "
              "capacity steps?")
    .AddAxis(StringAxis("path", ChasePathNames(), {},
                        "shared=ld.shared, global_ca=ld.global.ca (L1+L2), global_cg="
                        "ld.global.cg (L2), ldg=ld.global.nc, tex=tex1Dfetch, const=ld.const"))
    .AddAxis(IntAxis("footprint_bytes", "B", ParseIntValues("1KiB:256MiB:*2").value(),
                     "bytes the chain spans (sweep to at least 4x L2)"))
    .AddAxis(IntAxis("stride_bytes", "B", {128}, "distance between chain slots (4 B..4 MiB)"))
    .AddAxis(StringAxis("order", {"strided", "random"}, {"random"},
                        "slot visiting order: address order or a random cycle"))
    .AddAxis(IntAxis("loads", "loads", {4096}, "timed dependent loads per launch"))
    .AddMetric("cycles_per_load", "cycles/load", "%clock64 delta / timed loads")
    .AddMetric("ns_per_load", "ns/load", "%globaltimer delta / timed loads")
    .AddMetric("clock_mhz", "MHz", "SM clock implied by the two timers")
    .Validate(ValidateChasePoint)
    .Run(Run);

}  // namespace
}  // namespace dissect
