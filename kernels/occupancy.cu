// See occupancy.h.
#include <algorithm>

#include "kernels/occupancy.h"

namespace dissect {

cudaError_t ResidentBlocksOnDevice(const void* kernel, int threads, int* blocks) {
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  int sms = 0;
  e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return e;
  int per_sm = 0;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
  if (e != cudaSuccess) return e;
  *blocks = sms * std::max(per_sm, 1);
  return cudaSuccess;
}

}  // namespace dissect
