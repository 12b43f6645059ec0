// Host side of the l2_sm_map experiment without a GPU: axis checks, which
// SMs a point measures, the self-pointing line image and the flattening of
// the inferred map into the row's vectors.
#ifndef DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_HOST_H_
#define DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_MAP_HOST_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "probes/l2_map/l2_partitions.h"

namespace dissect {

// One measured line per page of this size (L2MapLineOffsets).
inline constexpr uint64_t kL2MapPageBytes = 4096;
inline constexpr int64_t kL2MapMaxLines = 4096;
inline constexpr int64_t kL2MapMaxHops = 1 << 20;

// InvalidArgument unless 1 <= lines <= kL2MapMaxLines, hops is a positive
// multiple of kL2MapUnroll up to kL2MapMaxHops, and sm_stride >= 1.
absl::Status ValidateL2MapAxes(int64_t lines, int64_t hops, int64_t sm_stride);

// SMs 0, sm_stride, 2 x sm_stride, ... below sm_count.
std::vector<int> L2MapTargetSms(int sm_count, int64_t sm_stride);

// The 64-bit words of a buffer of `words` words at device address `base`
// in which the word at each of `offsets` (bytes, 8-aligned) holds its own
// device address and every other word is 0.
std::vector<unsigned long long> SelfPointingImage(uint64_t base,
                                                  const std::vector<uint64_t>& offsets,
                                                  uint64_t words);

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
