// Question: what is the load-to-use latency of shared memory on this GPU?
// Timed:    one thread of one block chases a chain of dependent 32-bit loads
//           (ld.shared, one LDS per hop addressed by the previous LDS's
//           result) through dynamic shared memory, in two timed segments of
//           `loads` and 2 x `loads` loads. %clock64 is read in-kernel around
//           each segment, after the previous load and the segment's last
//           load have returned, so launch overhead is excluded;
//           cycles_per_load is the slope over the two segments and
//           overhead_cycles the intercept. Events time each launch for the
//           row's time.
// Expected: flat across footprint, stride and order (shared memory is not a
//           cache: no capacity or line effects); a few tens of cycles on
//           Volta through Hopper (about 30 on H100). Points whose footprint
//           exceeds the per-block opt-in shared memory are skipped.
// Could be confused with: the compiler's work for the hardware's (address
//           arithmetic or a hoisted load between hops would add to or hide
//           the LDS latency): //experiments:chase_sass_test checks that each
//           timed trip holds exactly 16 LDS, each addressed by the previous
//           LDS's result with nothing writing the address in between, and
//           that both clock reads wait for the chase
//           (//experiments:kernels_ptx_test the same dependent chain in
//           PTX). The clock reads' and loop's fixed cost for latency:
//           //experiments:chase_common_test (ReduceChaseTimingsTest) takes
//           the slope over two lengths, not cycles / loads. A throttled
//           clock cannot move cycles_per_load (SM cycles); the ns figures
//           use the in-kernel clock, chase_common_test again. Bank
//           conflicts cannot arise: one thread loads.
#include "experiments/chase_common.h"
#include "experiments/framework/experiment.h"
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
    .AddAxis(IntAxis("loads", "loads", {1 << 18},
                     "loads of the first timed segment (the second has twice as many); a "
                     "multiple of 16"))
    .AddMetrics(ChaseLatencyMetrics())
    .Validate(ValidateChasePoint)
    .Headline("cycles_per_load")
    .Run(Run);

}  // namespace
}  // namespace dissect
