// Host side of the l2_sm_map experiment without a GPU: axis checks, which
// SMs a point measures, the check of the near first touches against the
// re-touches and the flattening of the inferred map into the row's
// vectors. The method's access plan is l2_map_plan.h.
#ifndef DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_HOST_H_
#define DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_HOST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "experiments/sharing/l2_map/l2_partitions.h"

namespace dissect {

// One measured line per page of this size (L2MapLineOffsets).
inline constexpr uint64_t kL2MapPageBytes = 4096;
inline constexpr int64_t kL2MapMaxLines = 4096;
inline constexpr int64_t kL2MapMaxLaps = 64;
// The sweep must exceed one partition of a two-partition L2 (50 %) and stay
// clearly below the whole L2, so that the lines' homes are not pushed out.
inline constexpr int64_t kL2MapMinSweepPercent = 51;
inline constexpr int64_t kL2MapMaxSweepPercent = 90;

// InvalidArgument unless 1 <= lines <= kL2MapMaxLines, 1 <= laps <=
// kL2MapMaxLaps, sweep_percent is within [kL2MapMinSweepPercent,
// kL2MapMaxSweepPercent] and sm_stride >= 1.
absl::Status ValidateL2MapAxes(int64_t lines, int64_t laps, int64_t sweep_percent,
                               int64_t sm_stride);

// SMs 0, sm_stride, 2 x sm_stride, ... below sm_count.
std::vector<int> L2MapTargetSms(int sm_count, int64_t sm_stride);

// Near first touches more than this many cycles above the re-touches are
// not near L2 hits (see L2MapRetouchNote).
inline constexpr double kL2MapRetouchToleranceCycles = 40;

// The mean of the finite values of a [sm][line] matrix; NaN if none.
double MeanFinite(const std::vector<std::vector<double>>& rows);

// "" when near_cycles (the first touches of near-homed lines) is within
// kL2MapRetouchToleranceCycles of retouch_cycles (near hits by
// construction), else a note for the row: the sweep may have pushed lines
// out of L2, and "near" would then be DRAM.
std::string L2MapRetouchNote(double near_cycles, double retouch_cycles);

// A [sm][line] matrix row after row (index sm * lines + line).
std::vector<double> Flatten(const std::vector<std::vector<double>>& rows);

// The row's vectors from an inferred map: partition_of_line (index line),
// sm_partition_cycles (index sm * partitions + p, NaN for unmeasured SMs)
// and near_partition_of_sm (index sm, NaN for unmeasured SMs).
struct L2MapVectors {
  std::vector<double> partition_of_line;
  std::vector<double> sm_partition_cycles;
  std::vector<double> near_partition_of_sm;
};
L2MapVectors MapVectors(const L2PartitionMap& map);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_HOST_H_
