// Infers L2 partitions from an SM-to-line latency matrix (the SM-to-L2
// map of the intergroup-sharing probe): cycles[sm][line] is the L2-hit latency SM `sm` saw for line
// `line`. Lines served by the same L2 partition share a latency signature
// across SMs (near from some SMs, far from others); the number of
// partitions is not assumed.
//
// Method (CPU only, deterministic):
//  1. SM rows holding a NaN (unmeasured SMs) are dropped. Each line is the
//     vector of its latencies over the remaining M SMs. Vectors are not
//     centered: a partition that is uniformly slower from every SM is still
//     a partition.
//  2. Outlier lines are set aside: a line whose distance to its m-th
//     nearest line (m = min_cluster_lines - 1) exceeds outlier_factor x the
//     median of that distance over all lines. They take no part in the
//     clustering nor in the means, and are given the partition of the
//     nearest centre afterwards.
//  3. For k = 1..max_partitions, k-means (Lloyd) from a farthest-point
//     initialisation (first centre: the line farthest from the mean of all
//     lines; each next: the line farthest from its nearest centre; ties to
//     the lower line index).
//  4. Separation of a clustering: distances are RMS per SM,
//     ||a - b|| / sqrt(M), in cycles. noise = the pooled within-cluster RMS
//     per SM (sqrt of the sum of squared distances of lines to their centre
//     over lines x M). k is valid when every cluster holds at least
//     min_cluster_lines lines and every pair of centres is more than
//     max(separation_factor x noise, min_gap_cycles) apart. k = 1 is always
//     valid. The answer is the largest valid k.
//  5. Partitions are numbered by their lowest line index (partition 0 holds
//     the first non-outlier line). Per SM: the mean latency of each
//     partition's lines (non-outliers), its near partition (lowest mean)
//     and far partition (highest mean).
#ifndef DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_PARTITIONS_H_
#define DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_PARTITIONS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect {

struct L2PartitionOptions {
  int max_partitions = 4;
  // Centres must be more than this many pooled noise RMS apart ...
  double separation_factor = 4.0;
  // ... and more than this many cycles (RMS per SM) apart.
  double min_gap_cycles = 5.0;
  // A cluster needs at least max(min_cluster_lines, ceil(min_cluster_fraction
  // x lines)) lines.
  int min_cluster_lines = 2;
  double min_cluster_fraction = 0.05;
  // A line whose m-th-nearest-line distance exceeds this many times the
  // median of that distance is an outlier.
  double outlier_factor = 3.0;
};

struct L2PartitionMap {
  int partitions = 0;
  int sms_measured = 0;
  // [line]: the line's partition (outliers included, by nearest centre).
  std::vector<int> partition_of_line;
  // Lines set aside as outliers (line indices, ascending).
  std::vector<int> outlier_lines;
  // [partition]: non-outlier lines in the partition.
  std::vector<int> partition_sizes;
  // [sm][partition]: mean latency of the partition's non-outlier lines; NaN
  // for unmeasured SMs.
  std::vector<std::vector<double>> sm_partition_cycles;
  // [sm]: the partition with the lowest mean (-1 for unmeasured SMs), and
  // that mean and the highest mean (NaN for unmeasured SMs).
  std::vector<int> near_partition_of_sm;
  std::vector<double> near_cycles_of_sm;
  std::vector<double> far_cycles_of_sm;
  // Means over measured SMs of near_cycles_of_sm and far_cycles_of_sm (with
  // one partition, far equals near), and their difference.
  double near_cycles = 0;
  double far_cycles = 0;
  double far_minus_near_cycles = 0;
  // Spread over measured SMs of near_cycles_of_sm.
  double near_min_cycles = 0;
  double near_max_cycles = 0;
  double near_stdev_cycles = 0;
  // Pooled within-partition RMS per SM (noise) and the smallest distance
  // between two partition centres (RMS per SM; 0 with one partition).
  double noise_cycles = 0;
  double separation_cycles = 0;
};

// InvalidArgument when the matrix is empty, ragged, or has no SM row
// without a NaN.
absl::StatusOr<L2PartitionMap> InferL2Partitions(const std::vector<std::vector<double>>& cycles,
                                                 const L2PartitionOptions& options = {});

// Byte offsets of `lines` lines in a buffer, one line per `page_bytes` page
// over consecutive pages, the line's position inside its page varied (line
// i at page i, 128-byte slot (i * 7) mod (page_bytes / 128)), so that the
// lines differ in low and high address bits and spread over L2 slices and
// partitions. page_bytes must be a positive multiple of 128.
std::vector<uint64_t> L2MapLineOffsets(int lines, uint64_t page_bytes);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_L2_MAP_L2_PARTITIONS_H_
