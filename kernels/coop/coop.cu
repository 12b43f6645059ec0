// Cluster-cooperative conv3x3 and GEMV (see coop.h), written once and
// instantiated per flavour: kCoop (tiled or cluster-cooperative staging of
// the input tile) x kTraced (RecordLine on every global load, or nothing).
// The arithmetic is kernels/layers/layers.cu's ConvKernel and GemvKernel
// operation for operation: conv sums c, then r, then s with
// __fmaf_rn(x, w, acc) and skips taps outside the image; gemv's lane l sums
// c = l, l + 32, ... with __fmaf_rn(W, x, acc), then a xor butterfly of
// __fadd_rn. Staging changes where an input value is read from, never which
// value or in what order it is summed.
#include <climits>
#include <cstdint>

#include "kernels/cluster.cuh"
#include "kernels/cluster_launch.h"
#include "kernels/coop/coop.h"
#include "kernels/coop/coop_tiling.h"
#include "kernels/line_trace.cuh"

namespace dissect::coop {
namespace {

__device__ __forceinline__ float4 LoadCluster4(uint32_t address) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#if __CUDA_ARCH__ >= 900
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address)
               : "memory");
#else
  __trap();
#endif
  return v;
}

// A global load, traced in the traced instantiations only.
template <bool kTraced>
__device__ __forceinline__ float LoadGlobal(const float* p, const LineTrace& trace) {
  if constexpr (kTraced) RecordLine(trace, p);
  return *p;
}

// Stages `units` units of kUnitElements elements into tile[0 ..
// units x kUnitElements); load(e) reads element e from global memory. The
// caller has synchronized the block since its last read of `tile`. tiled:
// the block loads every unit. coop: the block loads its slice (SliceOf),
// the cluster synchronizes, the block copies each peer's slice from the
// peer's shared memory (16 B at a time), and the cluster synchronizes
// again, so that no block overwrites (or exits with) a slice that a peer
// still reads. On return the whole tile is in `tile`, visible to the block.
template <bool kCoop, int kUnitElements, typename LoadFn>
__device__ __forceinline__ void StageTile(float* tile, int units, LoadFn load) {
  static_assert(kUnitElements % 4 == 0, "slices are copied as float4");
  if constexpr (!kCoop) {
    const int elements = units * kUnitElements;
    for (int e = threadIdx.x; e < elements; e += kCoopThreads) tile[e] = load(e);
    __syncthreads();
  } else {
    const int parts = static_cast<int>(ClusterBlocks());
    const int rank = static_cast<int>(ClusterRank());
    const Range own = SliceElements(units, kUnitElements, parts, rank);
    for (int e = own.begin + threadIdx.x; e < own.end; e += kCoopThreads) tile[e] = load(e);
    ClusterSync();
    const uint32_t local = SharedCtaAddress(tile);
    float4* tile4 = reinterpret_cast<float4*>(tile);
    for (int step = 1; step < parts; ++step) {
      // Staggered, so that the peers do not all read rank 0 first.
      const int from = (rank + step) % parts;
      const Range r = SliceElements(units, kUnitElements, parts, from);
      const uint32_t remote = MapToRank(local, static_cast<uint32_t>(from));
      for (int v = r.begin / 4 + threadIdx.x; v < r.end / 4; v += kCoopThreads) {
        tile4[v] = LoadCluster4(remote + static_cast<uint32_t>(v) * sizeof(float4));
      }
    }
    ClusterSync();
  }
}

template <bool kCoop, bool kTraced>
__global__ void __launch_bounds__(kCoopThreads)
    Conv3x3Kernel(const float* x, const float* weights, float* y, CoopDims d, LineTrace trace) {
  constexpr int kTaps = 9;
  constexpr int kFilterElements = kConvFilterElements;
  __shared__ __align__(16) float tile[kConvTileElements];
  __shared__ float filters[kFilterElements];
  static_assert(sizeof(tile) + sizeof(filters) == kConvStaticSharedBytes,
                "the host's one-block-per-SM test assumes this static shared memory");
  // Clusters exist from sm_90 on: below, the coop flavour is a stub that
  // the host never launches (cluster_coop skips its points there).
  if constexpr (kCoop && !DISSECT_CLUSTERS_BUILT) {
    __trap();
    return;
  }
  if constexpr (kTraced) RecordBlockSm(trace);
  const int t = threadIdx.x;
  const int spatial = blockIdx.y;
  const int k0 = blockIdx.x * kConvFiltersPerBlock;
  const int p = ConvOutRow(spatial, t, d.w), q = ConvOutCol(spatial, t, d.w);
  const size_t plane = static_cast<size_t>(d.h) * d.w;
  const float* image = x + blockIdx.z * d.c * plane;
  float acc[kConvFiltersPerBlock];
#pragma unroll
  for (int f = 0; f < kConvFiltersPerBlock; ++f) acc[f] = 0.0f;
  for (int c0 = 0; c0 < d.c; c0 += kConvChunkChannels) {
    const int channels = min(kConvChunkChannels, d.c - c0);
    __syncthreads();  // the previous chunk's tile and filters are read
    for (int i = t; i < kFilterElements; i += kCoopThreads) {
      const int f = i / (kConvChunkChannels * kTaps), cc = i / kTaps % kConvChunkChannels;
      filters[i] =
          k0 + f < d.k && cc < channels
              ? LoadGlobal<kTraced>(
                    weights + (static_cast<size_t>(k0 + f) * d.c + c0 + cc) * kTaps + i % kTaps,
                    trace)
              : 0.0f;
    }
    StageTile<kCoop, kConvUnitElements>(tile, channels, [&](int e) {
      const ConvSource s = ConvTileSource(e, c0, spatial, d.h, d.w);
      return s.inside ? LoadGlobal<kTraced>(image + s.c * plane + s.ih * d.w + s.iw, trace) : 0.0f;
    });
    for (int cc = 0; cc < channels; ++cc) {
      const float* in = tile + cc * kConvUnitElements;
      const float* w = filters + cc * kTaps;
#pragma unroll
      for (int r = 0; r < 3; ++r) {
        const int ih = p - 1 + r;
        if (ih < 0 || ih >= d.h) continue;
#pragma unroll
        for (int s = 0; s < 3; ++s) {
          const int iw = q - 1 + s;
          if (iw < 0 || iw >= d.w) continue;
          const float v = in[ConvTapElement(t, r, s)];
#pragma unroll
          for (int f = 0; f < kConvFiltersPerBlock; ++f) {
            acc[f] = __fmaf_rn(v, w[f * kConvChunkChannels * kTaps + r * 3 + s], acc[f]);
          }
        }
      }
    }
  }
  if (p >= d.h || q >= d.w) return;
#pragma unroll
  for (int f = 0; f < kConvFiltersPerBlock; ++f) {
    if (k0 + f < d.k) {
      y[(static_cast<size_t>(blockIdx.z) * d.k + k0 + f) * plane + p * d.w + q] = acc[f];
    }
  }
}

// Elements per gemv staging unit (one float4 of x).
constexpr int kGemvUnitElements = 4;

template <bool kCoop, bool kTraced>
__global__ void __launch_bounds__(kCoopThreads)
    GemvKernel(const float* x, const float* weights, float* y, CoopDims d, LineTrace trace) {
  __shared__ __align__(16) float tile[kGemvChunk];
  static_assert(sizeof(tile) == kGemvStaticSharedBytes,
                "the host's one-block-per-SM test assumes this static shared memory");
  // Clusters exist from sm_90 on: below, the coop flavour is a stub that
  // the host never launches (cluster_coop skips its points there).
  if constexpr (kCoop && !DISSECT_CLUSTERS_BUILT) {
    __trap();
    return;
  }
  if constexpr (kTraced) RecordBlockSm(trace);
  const int lane = threadIdx.x % 32;
  const int k0 = blockIdx.x * kGemvRowsPerBlock + threadIdx.x / 32 * kGemvRowsPerWarp;
  const float* in = x + static_cast<size_t>(blockIdx.y) * d.c;
  float acc[kGemvRowsPerWarp];
#pragma unroll
  for (int i = 0; i < kGemvRowsPerWarp; ++i) acc[i] = 0.0f;
  for (int c0 = 0; c0 < d.c; c0 += kGemvChunk) {
    const int len = min(kGemvChunk, d.c - c0);
    __syncthreads();  // the previous chunk's tile is read
    StageTile<kCoop, kGemvUnitElements>(tile, CeilDiv(len, kGemvUnitElements), [&](int e) {
      return e < len ? LoadGlobal<kTraced>(in + c0 + e, trace) : 0.0f;
    });
    // c0 is a multiple of 32, so lane l still sums c = l, l + 32, ...
    for (int c = lane; c < len; c += 32) {
      const float v = tile[c];
#pragma unroll
      for (int i = 0; i < kGemvRowsPerWarp; ++i) {
        if (k0 + i < d.k) {
          acc[i] = __fmaf_rn(
              LoadGlobal<kTraced>(weights + static_cast<size_t>(k0 + i) * d.c + c0 + c, trace), v,
              acc[i]);
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kGemvRowsPerWarp; ++i) {
    for (int offset = 16; offset > 0; offset /= 2) {
      acc[i] = __fadd_rn(acc[i], __shfl_xor_sync(0xffffffffu, acc[i], offset));
    }
    if (lane == 0 && k0 + i < d.k) y[static_cast<size_t>(blockIdx.y) * d.k + k0 + i] = acc[i];
  }
}

using KernelFn = void (*)(const float*, const float*, float*, CoopDims, LineTrace);

KernelFn Select(CoopKernel kernel, CoopMode mode, bool traced) {
  const bool coop = mode == CoopMode::kCoop;
  if (kernel == CoopKernel::kConv3x3) {
    if (coop) return traced ? Conv3x3Kernel<true, true> : Conv3x3Kernel<true, false>;
    return traced ? Conv3x3Kernel<false, true> : Conv3x3Kernel<false, false>;
  }
  if (coop) return traced ? GemvKernel<true, true> : GemvKernel<true, false>;
  return traced ? GemvKernel<false, true> : GemvKernel<false, false>;
}

bool ValidClusterSize(CoopMode mode, int size) {
  if (mode == CoopMode::kTiled) return size == 1;
  return size >= 1 && size <= 16 && (size & (size - 1)) == 0;
}

}  // namespace

const void* KernelFunction(CoopKernel kernel, CoopMode mode, bool traced) {
  return reinterpret_cast<const void*>(Select(kernel, mode, traced));
}

cudaError_t Launch(const CoopArgs& a, cudaStream_t stream) {
  const CoopDims& d = a.dims;
  if (a.x == nullptr || a.weights == nullptr || a.y == nullptr || d.n < 1 || d.c < 1 || d.h < 1 ||
      d.w < 1 || d.k < 1 || !ValidClusterSize(a.mode, a.cluster_size)) {
    return cudaErrorInvalidValue;
  }
  const Grid3 g = a.kernel == CoopKernel::kConv3x3 ? ConvGrid(d.n, d.h, d.w, d.k, a.cluster_size)
                                                   : GemvGrid(d.n, d.k, a.cluster_size);
  if (g.y > 65535 || g.z > 65535) return cudaErrorInvalidValue;
  const ClusterLaunchConfig launch(dim3(g.x, g.y, g.z), kCoopThreads, a.dynamic_shared_bytes,
                                   a.mode == CoopMode::kCoop ? a.cluster_size : 0, stream);
  const LineTrace trace = a.trace != nullptr ? *a.trace : LineTrace{};
  const cudaError_t e = cudaLaunchKernelEx(
      launch.config(), Select(a.kernel, a.mode, a.trace != nullptr), a.x, a.weights, a.y, d, trace);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

}  // namespace dissect::coop
