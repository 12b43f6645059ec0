// Sparsity statistics of an NCHW float32 activation tensor, as
// integer counts (the CPU reference here and the GPU kernels in
// kernels/sparsity compute the same counts, so they compare exactly) and the
// fractions and per-channel figures derived from them.
//
// An element is zero when it compares equal to 0.0f (+0 and -0; NaN is not).
// Definitions, all at each (n, h, w) along C unless said otherwise:
//   warp vector: channels 32g .. 32g+31 (the last, shorter when C is not a
//                multiple of 32, is a vector too); zero when all are zero.
//   tile:        a 16 x 16 tile of the implicit-GEMM matrix [C x (N*H*W)]
//                (row c, column (n*H + h)*W + w); edge tiles are partial and
//                count as tiles; zero when every element it holds is zero.
//   4-group:     channels 4g .. 4g+3; 2:4-compatible when it has at most 2
//                nonzeros (a full group: >= 2 zeros; a last, shorter group is
//                padded with zeros to 4).
//   channel:     its zero fraction over N, H and W; dead when all zero.
#ifndef DISSECT_PROBES_SPARSITY_STATS_H_
#define DISSECT_PROBES_SPARSITY_STATS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "probes/sparsity/tensor_dims.h"

namespace dissect::sparsity {

constexpr int64_t kWarpVector = 32;
constexpr int64_t kTile = 16;
constexpr int64_t kGroup = 4;

// Number of warp vectors, tiles and 4-groups of a tensor of `dims`.
int64_t WarpVectorCount(const Dims& dims);
int64_t TileCount(const Dims& dims);
int64_t GroupCount(const Dims& dims);

struct SparsityCounts {
  Dims dims;
  int64_t zeros = 0;
  int64_t zero_warp_vectors = 0;
  int64_t zero_tiles = 0;
  int64_t two_four_groups = 0;
  // Zeros of each channel over N * H * W elements.
  std::vector<int64_t> channel_zeros;

  bool operator==(const SparsityCounts& o) const {
    return dims == o.dims && zeros == o.zeros && zero_warp_vectors == o.zero_warp_vectors &&
           zero_tiles == o.zero_tiles && two_four_groups == o.two_four_groups &&
           channel_zeros == o.channel_zeros;
  }
};

// The CPU reference. InvalidArgument when a dimension is below 1 or the
// data does not hold dims.elements() values.
absl::StatusOr<SparsityCounts> CountSparsity(const Dims& dims, absl::Span<const float> nchw);

// The figures of one layer, from its counts.
struct LayerSparsity {
  int64_t elements = 0;
  double zero_fraction = 0;
  double warp_zero_fraction = 0;
  double tile_zero_fraction = 0;
  double two_four_fraction = 0;
  double dead_channel_fraction = 0;
  // Per-channel zero fractions, ascending.
  std::vector<double> channel_sparsity;
  double channel_min = 0;
  // The middle value (mean of the two middle ones for an even count).
  double channel_median = 0;
  double channel_max = 0;
};

LayerSparsity Summarize(const SparsityCounts& counts);

// A description of the first difference between two count sets ("" when
// they are equal), for the GPU-versus-CPU check.
std::string DescribeDifference(const SparsityCounts& expected, const SparsityCounts& actual);

}  // namespace dissect::sparsity

#endif  // DISSECT_PROBES_SPARSITY_STATS_H_
