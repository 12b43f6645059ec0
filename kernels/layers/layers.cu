// Layer-shaped kernels, written once against Load<kOp> (cache_load.cuh).
// This file is compiled once per cache variant: the build defines
// DISSECT_LOAD_OP (a LoadOp enumerator) and DISSECT_VARIANT_NS (a namespace
// unique to the variant, so that the variants link into one binary), and may
// add nvcc flags such as -Xptxas -dlcm=cg. See cuda_load_variants.
//
// Every global load goes through Ld(), so the variant decides the cache
// behaviour of all of them. Arithmetic uses the _rn intrinsics (no
// contraction) in a fixed order, so that a host reference can reproduce
// stream, gather, stencil, conv, max-pool and gemv bit for bit.
//
// The `trace` build also defines DISSECT_TRACE_LINES: then Ld() first
// records the loaded line (kernels/line_trace.cuh) and every block its SM
// (BeginBlock), into a LineTrace the host sets with set_trace. Other builds
// compile neither (no atomics, no %smid), so the timed variants carry no
// tracing code.
#include <cfloat>

#include "kernels/direct_conv.cuh"
#include "kernels/grid_stride.cuh"
#include "kernels/layers/cache_load.cuh"
#include "kernels/layers/layers.h"
#ifdef DISSECT_TRACE_LINES
#include "kernels/line_trace.cuh"
#endif

#if !defined(DISSECT_LOAD_OP) || !defined(DISSECT_VARIANT_NS)
#error "build layers.cu through cuda_load_variants (defines DISSECT_LOAD_OP, DISSECT_VARIANT_NS)"
#endif

namespace dissect::layers::DISSECT_VARIANT_NS {
namespace {

constexpr LoadOp kOp = LoadOp::DISSECT_LOAD_OP;

#ifdef DISSECT_TRACE_LINES
// Constant memory: read by every load, written only by SetTrace between
// launches, and out of reach of the bitmap atomics.
__constant__ LineTrace g_trace;
#endif

template <typename T>
__device__ __forceinline__ T Ld(const T* p) {
#ifdef DISSECT_TRACE_LINES
  RecordLine(g_trace, p);
#endif
  return Load<kOp>(p);
}

// Called first by every kernel: records the block's SM in a traced build,
// nothing otherwise.
__device__ __forceinline__ void BeginBlock() {
#ifdef DISSECT_TRACE_LINES
  RecordBlockSm(g_trace);
#endif
}

__global__ void __launch_bounds__(kLayerThreads)
    StreamKernel(const float* x, const float* scale_shift, float* y, LayerDims d) {
  BeginBlock();
  const uint32_t plane = static_cast<uint32_t>(d.h) * d.w;
  const size_t total = static_cast<size_t>(d.n) * d.c * plane;
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
    const uint32_t c = static_cast<uint32_t>(i / plane) % d.c;
    const float v = __fmaf_rn(Ld(x + i), Ld(scale_shift + c), Ld(scale_shift + d.c + c));
    y[i] = fmaxf(v, 0.0f);
  }
}

__global__ void __launch_bounds__(kLayerThreads)
    GatherKernel(const float* x, const int32_t* index, float* y, size_t total) {
  BeginBlock();
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
    y[i] = Ld(x + Ld(index + i));
  }
}

__global__ void __launch_bounds__(kLayerThreads)
    StencilKernel(const float* x, float* y, LayerDims d) {
  BeginBlock();
  const uint32_t plane = static_cast<uint32_t>(d.h) * d.w;
  const size_t total = static_cast<size_t>(d.n) * d.c * plane;
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
    const float* p = x + (i / plane) * plane;
    const uint32_t at = static_cast<uint32_t>(i % plane);
    const int row = static_cast<int>(at / d.w);
    const int col = static_cast<int>(at % d.w);
    const float up = row > 0 ? Ld(p + at - d.w) : 0.0f;
    const float down = row + 1 < d.h ? Ld(p + at + d.w) : 0.0f;
    const float left = col > 0 ? Ld(p + at - 1) : 0.0f;
    const float right = col + 1 < d.w ? Ld(p + at + 1) : 0.0f;
    const float around = __fadd_rn(__fadd_rn(__fadd_rn(up, down), left), right);
    y[i] = __fmaf_rn(kStencilNeighbour, around, __fmul_rn(kStencilCentre, Ld(p + at)));
  }
}

__global__ void __launch_bounds__(kLayerThreads)
    ConvKernel(const float* x, const float* weights, float* y, LayerDims d) {
  BeginBlock();
  const int out_h = d.OutH(), out_w = d.OutW();
  const size_t total = static_cast<size_t>(d.n) * d.k * out_h * out_w;
  const auto load = [](const float* p) { return Ld(p); };
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
    y[i] = DirectConvOutput(i, x, weights, d, load, DirectConvNoTransform{});
  }
}

__global__ void __launch_bounds__(kLayerThreads)
    MaxPoolKernel(const float* x, float* y, LayerDims d) {
  BeginBlock();
  const int out_h = d.OutH(), out_w = d.OutW();
  const size_t total = static_cast<size_t>(d.n) * d.c * out_h * out_w;
  for (size_t i = FirstThread(); i < total; i += GridThreads()) {
    const int q = static_cast<int>(i % out_w);
    const int p = static_cast<int>(i / out_w % out_h);
    const float* plane = x + i / (static_cast<size_t>(out_w) * out_h) * d.h * d.w;
    float m = -FLT_MAX;
    for (int r = 0; r < d.r; ++r) {
      const int ih = p * d.stride - d.pad + r;
      if (ih < 0 || ih >= d.h) continue;
      for (int s = 0; s < d.s; ++s) {
        const int iw = q * d.stride - d.pad + s;
        if (iw >= 0 && iw < d.w) m = fmaxf(m, Ld(plane + ih * d.w + iw));
      }
    }
    y[i] = m;
  }
}

// One warp per output: lane l sums c = l, l + 32, ...; then a butterfly.
__global__ void __launch_bounds__(kLayerThreads)
    GemvKernel(const float* x, const float* weights, float* y, LayerDims d) {
  BeginBlock();
  const int lane = threadIdx.x % 32;
  const size_t total = static_cast<size_t>(d.n) * d.k;
  for (size_t o = FirstThread() / 32; o < total; o += GridThreads() / 32) {
    const float* row = weights + (o % d.k) * d.c;
    const float* in = x + (o / d.k) * d.c;
    float acc = 0.0f;
    for (int c = lane; c < d.c; c += 32) acc = __fmaf_rn(Ld(row + c), Ld(in + c), acc);
    for (int offset = 16; offset > 0; offset /= 2) {
      acc = __fadd_rn(acc, __shfl_xor_sync(0xffffffffu, acc, offset));
    }
    if (lane == 0) y[o] = acc;
  }
}

// The reduction of one value per thread over the block (kLayerThreads).
template <typename Combine>
__device__ float BlockReduce(float v, float* scratch, Combine combine) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) scratch[warp] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < kLayerThreads / 32; ++w) v = combine(v, scratch[w]);
  __syncthreads();  // scratch is reused by the next reduction
  return v;
}

// One block per row; the row is read three times (max, sum, normalize), so
// a row that stays in L1 is reused.
__global__ void __launch_bounds__(kLayerThreads)
    SoftmaxKernel(const float* x, float* y, LayerDims d) {
  BeginBlock();
  __shared__ float scratch[kLayerThreads / 32];
  const size_t rows = static_cast<size_t>(d.n) * d.c * d.h;
  const auto max_of = [](float a, float b) { return fmaxf(a, b); };
  const auto sum_of = [](float a, float b) { return __fadd_rn(a, b); };
  for (size_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* in = x + row * d.w;
    float* out = y + row * d.w;
    float m = -FLT_MAX;
    for (int j = threadIdx.x; j < d.w; j += kLayerThreads) m = fmaxf(m, Ld(in + j));
    m = BlockReduce(m, scratch, max_of);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < d.w; j += kLayerThreads) {
      sum = __fadd_rn(sum, expf(Ld(in + j) - m));
    }
    const float inv = 1.0f / BlockReduce(sum, scratch, sum_of);
    for (int j = threadIdx.x; j < d.w; j += kLayerThreads) {
      out[j] = expf(Ld(in + j) - m) * inv;
    }
  }
}

// The kernel function of `kernel` (for attributes and occupancy).
const void* KernelFunction(LayerKernel kernel) {
  switch (kernel) {
    case LayerKernel::kStream:
      return reinterpret_cast<const void*>(StreamKernel);
    case LayerKernel::kGather:
      return reinterpret_cast<const void*>(GatherKernel);
    case LayerKernel::kStencil:
      return reinterpret_cast<const void*>(StencilKernel);
    case LayerKernel::kConv:
      return reinterpret_cast<const void*>(ConvKernel);
    case LayerKernel::kMaxPool:
      return reinterpret_cast<const void*>(MaxPoolKernel);
    case LayerKernel::kGemv:
      return reinterpret_cast<const void*>(GemvKernel);
    case LayerKernel::kSoftmax:
      return reinterpret_cast<const void*>(SoftmaxKernel);
  }
  return nullptr;
}

bool NeedsWeights(LayerKernel kernel) {
  return kernel == LayerKernel::kStream || kernel == LayerKernel::kConv ||
         kernel == LayerKernel::kGemv;
}

cudaError_t Launch(const LayerArgs& a, cudaStream_t stream) {
  const LayerDims& d = a.dims;
  if (a.x == nullptr || a.y == nullptr || a.blocks < 1 ||
      (NeedsWeights(a.kernel) && a.weights == nullptr) ||
      (a.kernel == LayerKernel::kGather && a.index == nullptr) || d.n < 1 || d.c < 1 || d.h < 1 ||
      d.w < 1 || d.k < 1 || d.r < 1 || d.s < 1 || d.stride < 1 || d.pad < 0) {
    return cudaErrorInvalidValue;
  }
  const bool windowed = a.kernel == LayerKernel::kConv || a.kernel == LayerKernel::kMaxPool;
  if (windowed && (d.OutH() < 1 || d.OutW() < 1)) return cudaErrorInvalidValue;
  const dim3 grid(a.blocks), block(kLayerThreads);
  switch (a.kernel) {
    case LayerKernel::kStream:
      StreamKernel<<<grid, block, 0, stream>>>(a.x, a.weights, a.y, d);
      break;
    case LayerKernel::kGather:
      GatherKernel<<<grid, block, 0, stream>>>(a.x, a.index, a.y,
                                               static_cast<size_t>(d.n) * d.c * d.h * d.w);
      break;
    case LayerKernel::kStencil:
      StencilKernel<<<grid, block, 0, stream>>>(a.x, a.y, d);
      break;
    case LayerKernel::kConv:
      ConvKernel<<<grid, block, 0, stream>>>(a.x, a.weights, a.y, d);
      break;
    case LayerKernel::kMaxPool:
      MaxPoolKernel<<<grid, block, 0, stream>>>(a.x, a.y, d);
      break;
    case LayerKernel::kGemv:
      GemvKernel<<<grid, block, 0, stream>>>(a.x, a.weights, a.y, d);
      break;
    case LayerKernel::kSoftmax:
      SoftmaxKernel<<<grid, block, 0, stream>>>(a.x, a.y, d);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t Prepare(LayerKernel kernel, int* max_blocks_per_sm) {
  const void* f = KernelFunction(kernel);
  if (f == nullptr || max_blocks_per_sm == nullptr) return cudaErrorInvalidValue;
  const cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutMaxL1);
  if (e != cudaSuccess) return e;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(max_blocks_per_sm, f, kLayerThreads, 0);
}

#ifdef DISSECT_TRACE_LINES
cudaError_t SetTrace(const LineTrace* trace) {
  const LineTrace none;
  return cudaMemcpyToSymbol(g_trace, trace != nullptr ? trace : &none, sizeof(LineTrace));
}
#endif

}  // namespace

// Found by the registry that cuda_load_variants generates.
#ifdef DISSECT_TRACE_LINES
extern const VariantKernels kVariantKernels = {Launch, Prepare, SetTrace};
#else
extern const VariantKernels kVariantKernels = {Launch, Prepare};
#endif

}  // namespace dissect::layers::DISSECT_VARIANT_NS
