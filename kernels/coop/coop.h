// Host interface of the cluster-cooperative layer kernels
// (kernels/coop/coop.cu): a direct 3 x 3 convolution (stride 1, pad 1) and
// a GEMV, float32 NCHW, each from one templated source in two flavours:
//   tiled: every block stages the whole input tile it needs in its own
//          shared memory (no cluster);
//   coop:  the blocks of a thread-block cluster of S compute different
//          outputs (filters, rows) of the same input tile; each stages a
//          disjoint 1/S slice of it from global memory and copies the other
//          slices from its peers' shared memory (DSM: mapa +
//          ld.shared::cluster) between two cluster barriers.
// Results equal kernels/layers' ConvKernel and GemvKernel bit for bit (the
// same _rn operations in the same order). Each flavour also has a traced
// instantiation that records every global load's 128-byte line
// (kernels/line_trace.cuh); the timed ones carry no tracing.
#ifndef DISSECT_KERNELS_COOP_COOP_H_
#define DISSECT_KERNELS_COOP_COOP_H_

#include <cuda_runtime_api.h>

#include "kernels/line_trace.cuh"

namespace dissect::coop {

enum class CoopKernel { kConv3x3, kGemv };
enum class CoopMode { kTiled, kCoop };

// conv3x3: x is N x C x H x W, weights K x C x 3 x 3, y N x K x H x W.
// gemv: x is N x C, weights K x C, y N x K (h and w unused).
struct CoopDims {
  int n = 1, c = 1, h = 1, w = 1, k = 1;
};

struct CoopArgs {
  CoopKernel kernel = CoopKernel::kConv3x3;
  CoopMode mode = CoopMode::kTiled;
  CoopDims dims;
  const float* x = nullptr;
  const float* weights = nullptr;
  float* y = nullptr;
  // Blocks per cluster (coop only; tiled needs 1).
  int cluster_size = 1;
  // Dynamic shared memory per block, never read or written: the kernels'
  // shared memory is all static, and this pads each block so that no other
  // block fits its SM (cluster ranks on one SM would share the tile
  // without DSM). Above 48 KiB the kernel needs
  // cudaFuncAttributeMaxDynamicSharedMemorySize first.
  size_t dynamic_shared_bytes = 0;
  // Non-null: launch the traced instantiation, recording into *trace (the
  // struct is passed by value; its bitmaps are device memory).
  const LineTrace* trace = nullptr;
};

// The __global__ function a launch of (kernel, mode, traced) runs, for
// attributes and cluster occupancy (CheckClusterLaunch).
const void* KernelFunction(CoopKernel kernel, CoopMode mode, bool traced);

// Launches the kernel: cudaErrorInvalidValue for a null tensor, a size
// below 1, a grid dimension beyond the CUDA limits, or a cluster size that
// is not 1 for tiled or not a power of two in 1..16 for coop. Nothing but
// the launch (and cudaGetLastError), so that it can be timed.
cudaError_t Launch(const CoopArgs& args, cudaStream_t stream);

}  // namespace dissect::coop

#endif  // DISSECT_KERNELS_COOP_COOP_H_
