// Question: what is the load-to-use latency of shared memory on this GPU?
// Timed:    one thread of one block chases a chain of dependent 32-bit loads
//           (ld.shared) through dynamic shared memory; %clock64 and
//           %globaltimer are read in-kernel around the timed loads, so launch
//           overhead is excluded. Events time each launch for the row's time.
// Expected: flat across footprint, stride and order (shared memory is not a
//           cache: no capacity or line effects); a few tens of cycles on
//           Volta through Hopper (about 30 on H100). Points whose footprint
//           exceeds the per-block opt-in shared memory are skipped.
#include "experiments/chase_common.h"
#include "experiments/harness/experiment.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const ChainOrder order, ParseChainOrder(ctx.Str("order")));
  return MeasureChaseLatency(ctx, ChasePath::kShared, ctx.Int("footprint_bytes"),
                             ctx.Int("stride_bytes"), order,
                             static_cast<uint64_t>(ctx.Int("loads")));
}

DISSECT_EXPERIMENT(shared_latency)
    .Question("What is the load-to-use latency of shared memory?")
    .AddAxis(IntAxis("footprint_bytes", "B", {4 << 10, 32 << 10, 128 << 10},
                     "bytes the chain spans in shared memory"))
    .AddAxis(IntAxis("stride_bytes", "B", {4, 128}, "distance between chain slots"))
    .AddAxis(StringAxis("order", {"strided", "random"}, {},
                        "slot visiting order: address order or a random cycle"))
    .AddAxis(IntAxis("loads", "loads", {1 << 18}, "timed dependent loads per launch"))
    .AddMetric("cycles_per_load", "cycles/load", "%clock64 delta / timed loads")
    .AddMetric("ns_per_load", "ns/load", "%globaltimer delta / timed loads")
    .AddMetric("clock_mhz", "MHz", "SM clock implied by the two timers")
    .Validate(ValidateChasePoint)
    .Run(Run);

}  // namespace
}  // namespace dissect
