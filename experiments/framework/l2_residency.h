// One rule for every experiment that frames a bandwidth as a % of the DRAM
// peak: data that stays in L2 gets no such %. A row whose working set (every
// distinct byte the timed launch touches) is under 2 x the device's L2 is
// L2-resident: its dram_peak_pct is NaN, it records `working_set_bytes` and
// `beyond_2x_l2` (0), and its label says "L2-resident". The analysis reads
// `beyond_2x_l2` and shows "L2-resident" instead of a % (analysis/SCHEMA.md).
//
// Why 2 x L2, and why cold rows too:
//   - Hot (back to back): whatever fits in L2 is served from it after the
//     first launch; L2's replacement is not strict LRU, so a working set a
//     little over 1 x L2 still largely hits. At 2 x the footprint streams.
//   - Cold (L2 flushed before each sample, probes/event_timer.h): the reads
//     do come from DRAM, but L2 is write-back. The flush leaves it full of
//     clean lines, so the timed kernel's stores evict those for free and its
//     output stays dirty in L2 past the end event: DRAM sees the reads only
//     (a cold 16 MiB ReLU reads 16 MiB from DRAM and writes 16 MiB into L2,
//     yet bandwidth counts 32 MiB). An intermediate written and read back
//     (layer fusion) never leaves L2 at all. So a cold row under 2 x L2 is a
//     mix of DRAM and L2 traffic, not a DRAM figure either.
//   - Beyond 2 x L2 at most one L2 of written data can still be in L2 when
//     the end event fires, at most half of the bytes counted, less the
//     larger the working set (a 1 GiB ReLU: DRAM sees the bytes within 10 %,
//     relu_bandwidth_counters_gpu_test).
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_L2_RESIDENCY_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_L2_RESIDENCY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/experiment.h"

namespace dissect {

inline constexpr char kWorkingSetBytesMetric[] = "working_set_bytes";
inline constexpr char kBeyond2xL2Metric[] = "beyond_2x_l2";
inline constexpr char kDramPeakPctMetric[] = "dram_peak_pct";

// Whether a working set is at least 2 x the device's L2 (`l2_bytes`; false
// when 0, unknown): only then may its bandwidth be read as DRAM's.
bool BeyondTwiceL2(double working_set_bytes, int64_t l2_bytes);

// The declaration of `beyond_2x_l2`, for an experiment that records its
// working set under a name of its own.
MetricSpec Beyond2xL2Metric();

// The declarations of `working_set_bytes` (its help says what the
// experiment counts in it) and `beyond_2x_l2`, for Experiment::AddMetrics.
std::vector<MetricSpec> L2ResidencyMetrics(absl::string_view working_set_help);

// Records one row's working set under `working_set_metric`, beyond_2x_l2
// (1 or 0) and below 2 x L2 the label note "L2-resident: ..."; returns
// whether the working set is beyond 2 x L2. For an experiment that prints
// no dram_peak_pct but whose bandwidth would be read as DRAM's (attention's
// bandwidth_gbps on the roofline's DRAM roof); AddDramPeakPct records it too.
absl::StatusOr<bool> AddL2Residency(PointContext& ctx, double working_set_bytes,
                                    absl::string_view working_set_metric = kWorkingSetBytesMetric);

// Records one row's DRAM framing: dram_peak_pct, 100 x each of `gbps` (GB/s) over
// the device's DRAM peak where the working set is beyond 2 x L2 (and the
// peak is known), else NaN; the working set under `working_set_metric`;
// beyond_2x_l2 (1 or 0); and below 2 x L2 the label note "L2-resident: ...".
// The experiment declares the three metrics. `working_set_metric` is
// `working_set_bytes` unless the experiment already records those bytes
// under a name of its own (l1_bypass: bytes_moved, since its axis
// working_set_bytes means the input size asked for).
absl::Status AddDramPeakPct(PointContext& ctx, const std::vector<double>& gbps,
                            double working_set_bytes,
                            absl::string_view working_set_metric = kWorkingSetBytesMetric);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_L2_RESIDENCY_H_
