// The sparsity counts of probes/sparsity/stats.h computed on the GPU
// (kernels/sparsity) for tensors already in device memory.
#ifndef DISSECT_EXPERIMENTS_SPARSITY_DEVICE_STATS_H_
#define DISSECT_EXPERIMENTS_SPARSITY_DEVICE_STATS_H_

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"
#include "probes/device_buffer.h"
#include "probes/sparsity/stats.h"
#include "probes/sparsity/tensor_dims.h"

namespace dissect::sparsity {

// Owns the device counters, grown to the largest channel count seen.
class DeviceSparsityCounter {
 public:
  // Counts the NCHW float32 tensor `x` (device memory) on `stream` and
  // waits for the result (synchronizes the stream).
  absl::StatusOr<SparsityCounts> Count(const float* x, const Dims& dims, cudaStream_t stream);

 private:
  DeviceBuffer<unsigned long long> totals_;
  DeviceBuffer<unsigned long long> channel_zeros_;
};

}  // namespace dissect::sparsity

#endif  // DISSECT_EXPERIMENTS_SPARSITY_DEVICE_STATS_H_
