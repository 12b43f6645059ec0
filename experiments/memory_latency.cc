// Question: what is the load-to-use latency of each level of the memory
//           hierarchy (shared, L1, L2, DRAM) and of the read-only, texture
//           and constant paths, and where are the capacity steps?
// Timed:    one thread chases a chain of dependent loads; the path axis picks
//           the load (ld.shared, ld.global.ca, ld.global.cg, ld.global.nc,
//           tex.1d, ld.const) of one kernel template. On the global paths
//           the chain holds 64-bit device addresses, so every hop is one
//           load addressed by the previous load's result (as on the other
//           paths: no address arithmetic between loads). One lap of warm-up
//           loads (at most 2^20) precedes two timed segments of `loads` and
//           2 x `loads` loads; %clock64 is read around each, after the
//           previous load has returned and after the segment's last load has
//           returned. cycles_per_load is the slope of cycles over the two
//           segments, overhead_cycles the intercept (the fixed cost of a
//           segment). ns come from cycles at the SM clock measured in-kernel
//           (%clock64 / %globaltimer over the segments, when they last
//           >= 50 us), else the NVML clock (clock_source says which).
// Expected: plateaus separated by steps at each capacity: global_ca steps up
//           at the L1 capacity (about 200-240 KiB on H100) and again at the
//           L2 capacity (about 50 MB) to DRAM; global_cg has no L1 plateau;
//           random order defeats prefetching. Past the TLB reach random
//           order also misses the TLB on most loads, so the DRAM latency is
//           read from order=page_local at >= 1 GiB (random within each 2 MiB
//           page, one TLB miss per page).
// TLB sweep: a TLB effect is only a TLB effect if nothing else changes
//           between the points, and the distinct lines decide what else
//           does: a chain of footprint/stride lines that fits the L2 hits it
//           after the warm-up lap, whatever its footprint. A stride sweep at
//           one footprint changes exactly that (2 GiB at 4 KiB: 524,288
//           lines, beyond H100's 409,600; at 8 KiB and up: L2 hits), while
//           random order already spreads the loads over every page at every
//           stride, so it moves L2 residency and not the TLB miss rate. The
//           sweep therefore holds footprint, stride and order fixed (2 GiB at
//           2 KiB: 1,048,576 lines, 2.6x H100's L2 and 3.2x A100's, so every
//           load misses the L2 at every point) and varies group_pages from 1
//           to all 1,024 pages: the chase moves at random among G pages at a
//           time, so its TLB working set is G pages (G x 2 MiB of reach) and
//           its lines, pages and L2 reuse distance (one lap) are the same at
//           every G. Latency stays at the DRAM latency while G pages fit the
//           TLB's reach and rises by the miss penalty beyond it; the report
//           (analysis/README.md, memory hierarchy rule 9) classifies rows by
//           their distinct lines and pages, not by footprint.
// Could be confused with: L1 hits for L2 on global_cg:
//           //experiments:kernels_ptx_test checks the PTX load is
//           ld.global.cg, and //experiments:chase_sass_test
//           (GlobalPathsLoadWithTheirCacheOperator) that ptxas kept it L2-only
//           (LDG .STRONG.GPU; global_ca .STRONG.SM, ldg .CONSTANT). The
//           compiler's work for the hardware's (address arithmetic, hoisted
//           or extra loads in a hop) and clocks that do not wait for the
//           chase: chase_sass_test, every path. Fixed cost for latency:
//           //experiments:chase_common_test (slope of two segments).
//           The L1 of another carveout for memory_bandwidth's L1: every
//           path but shared asks for the largest L1 (ChaseCarveout, as the
//           stream kernels do), recorded as context l1_carveout
//           (//experiments:bad_input_test checks --help declares it); the
//           report uses this L1 capacity on bandwidth plateaus only at the
//           same l1_carveout (//analysis/sections:memory_hierarchy_test,
//           L1CapacityOfAnotherCarveoutDoesNotClassifyBandwidth). Prefetching and TLB misses for cache latency: random and
//           page_local orders, whose cycles
//           //experiments/workloads/inputs:pointer_chain_test
//           checks (one cycle over every slot, not strided; page_local
//           enters each 2 MiB page once). The far L2 partition for DRAM:
//           on A100 and Hopper a far line read by an SM is copied into its
//           near partition, so the L2 plateau up to about half the L2 is
//           near-L2 latency and the step there is the far partition, still
//           L2 (gpu-benches' GH200 chase in ../shared/data/peers: ~280
//           cycles to 26 MiB, ~460-530 from 33 MiB, ~620-680 past 65 MiB).
//           The report calls a level DRAM only where it reaches beyond 2x
//           device_l2_bytes: //analysis/sections:peers_hierarchy_test reads that
//           GH200 curve as near 270-290, far 480-520 and DRAM 600-700
//           cycles, and //analysis/sections:memory_hierarchy_test
//           (TwoL2LevelsAreNearAndFarWithTheirRanges) a curve of its shape.
//           DRAM row-buffer hits for TLB hits in the TLB sweep: a small
//           group keeps the loads within a few MiB, where more of them may
//           hit an open DRAM row (page_local's DRAM point shares this); the
//           report's 10% threshold is meant to lie above that, unmeasured.
//           Not yet ruled out by a test: whether the far plateau is all far
//           hits or an average over near-homed and far lines (a mean cannot
//           say; latency_trace's per-access levels at 32 MiB can), and that
//           the 1 GiB page_local point is DRAM on the device: its GPU test
//           (memory_latency_dram_gpu_test, 200-3000 cycles) cannot tell L2
//           from DRAM. A counters variant (cupti/dram_bytes_read about 32 B
//           per timed load at 1 GiB) would.
#include "experiments/chase_common.h"
#include "experiments/framework/experiment.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const ChasePath path, ParseChasePath(ctx.Str("path")));
  DISSECT_ASSIGN_OR_RETURN(const ChainOrder order, ParseChainOrder(ctx.Str("order")));
  return MeasureChaseLatency(ctx, path, ctx.Int("footprint_bytes"), ctx.Int("stride_bytes"), order,
                             static_cast<uint64_t>(ctx.Int("loads")), ctx.Int("group_pages"));
}

DISSECT_EXPERIMENT(memory_latency)
    .Question(
        "What is the load latency of each memory level and path, and where are the "
        "capacity steps?")
    .AddAxis(StringAxis("path", ChasePathNames(), {},
                        "shared=ld.shared, global_ca=ld.global.ca (L1+L2), global_cg="
                        "ld.global.cg (L2), ldg=ld.global.nc, tex=tex1Dfetch, const=ld.const; "
                        "the global paths chase 64-bit pointers"))
    .AddAxis(IntAxis("footprint_bytes", "B", ParseIntValues("1KiB:256MiB:*2").value(),
                     "bytes the chain spans (sweep to at least 4x L2; the DRAM point: "
                     ">= 1 GiB with order=page_local)"))
    .AddAxis(IntAxis("stride_bytes", "B", {128},
                     "distance between chain slots (4 B..4 MiB; a multiple of 8 on the "
                     "global paths)"))
    .AddAxis(StringAxis("order", ChainOrderNames(), {"random"},
                        "slot visiting order: address order, a random cycle, or page_local "
                        "(random within each 2 MiB page, page by page: one TLB miss a page)"))
    .AddAxis(IntAxis("group_pages", "pages", {1},
                     "page_local only: the 2 MiB pages visited together (random within each "
                     "group of this many consecutive pages, group by group): the chase's TLB "
                     "working set; 1 = page by page, >= the pages = random order"))
    .AddAxis(IntAxis("loads", "loads", {4096},
                     "loads of the first timed segment (the second has twice as many); a "
                     "multiple of 16"))
    .AddMetrics(ChaseLatencyMetrics())
    // What the L1-reading paths ask for (ChaseCarveout); the shared path
    // asks for max_shared instead, which only its shared-memory chain sees.
    .AddContext(kL1CarveoutKey, L1CarveoutName(ChaseCarveout(ChasePath::kGlobalCa)))
    .Validate(ValidateChasePoint)
    .Headline("cycles_per_load")
    .Run(Run);

}  // namespace
}  // namespace dissect
