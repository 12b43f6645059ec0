#include "experiments/sparsity/device_stats.h"

#include <vector>

#include "kernels/sparsity/stats.h"
#include "probes/cuda_status.h"

namespace dissect::sparsity {

absl::StatusOr<SparsityCounts> DeviceSparsityCounter::Count(const float* x, const Dims& dims,
                                                            cudaStream_t stream) {
  if (totals_.size() < kSparsityTotals) {
    DISSECT_ASSIGN_OR_RETURN(totals_, DeviceBuffer<unsigned long long>::Allocate(kSparsityTotals));
  }
  if (channel_zeros_.size() < static_cast<size_t>(dims.c)) {
    DISSECT_ASSIGN_OR_RETURN(channel_zeros_, DeviceBuffer<unsigned long long>::Allocate(dims.c));
  }
  SparsityCountArgs args;
  args.x = x;
  args.n = dims.n;
  args.c = dims.c;
  args.h = dims.h;
  args.w = dims.w;
  args.totals = totals_.get();
  args.channel_zeros = channel_zeros_.get();
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchSparsityCounts(args, stream));
  std::vector<unsigned long long> totals(kSparsityTotals), channels(dims.c);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(totals.data(), totals_.get(),
                                               totals.size() * sizeof(totals[0]),
                                               cudaMemcpyDeviceToHost, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(channels.data(), channel_zeros_.get(),
                                               channels.size() * sizeof(channels[0]),
                                               cudaMemcpyDeviceToHost, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  SparsityCounts counts;
  counts.dims = dims;
  counts.zeros = static_cast<int64_t>(totals[kTotalZeros]);
  counts.zero_warp_vectors = static_cast<int64_t>(totals[kTotalZeroWarpVectors]);
  counts.zero_tiles = static_cast<int64_t>(totals[kTotalZeroTiles]);
  counts.two_four_groups = static_cast<int64_t>(totals[kTotalTwoFourGroups]);
  counts.channel_zeros.assign(channels.begin(), channels.end());
  return counts;
}

}  // namespace dissect::sparsity
