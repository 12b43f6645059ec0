// Tiled attention with the online softmax (kernels/attention/attention.h).
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/attention/attention.h"

namespace dissect::attention {
namespace {

constexpr int kThreads = kWarps * 32;
// K rows in shared memory are 65 words (130 halves) apart, so that lane j
// reading word p of row j hits bank (j + p) % 32: conflict-free.
constexpr int kKStrideWords = kHeadDim / 2 + 1;
constexpr int kVStrideWords = kHeadDim / 2;
constexpr float kLog2e = 1.4426950408889634f;

__device__ float WarpMax(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(~0u, x, offset));
  return x;
}

__device__ float WarpSum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(~0u, x, offset);
  return x;
}

// One function of about 130 lines: the shared tiles and the online
// softmax's running maximum and sum are live across every step of a key tile,
// so the steps share most of their state. Inlined helpers would compile to
// the same machine code (the SASS test counts the inner loop's FFMA), but
// such a split must first be checked on a GPU against the CPU reference.
__global__ void __launch_bounds__(kThreads)
    AttentionKernel(const __half* __restrict__ q, const __half* __restrict__ k,
                    const __half* __restrict__ v, __half* __restrict__ o, int queries, int keys,
                    int causal, float scale_log2) {
  __shared__ __align__(16) __half2 k_tile[kKeyTile * kKStrideWords];
  __shared__ __align__(16) __half2 v_tile[kKeyTile * kVStrideWords];
  __shared__ __align__(16) float q_rows[kRowsPerBlock][kHeadDim];
  __shared__ __align__(16) float p_rows[kRowsPerBlock][kKeyTile];

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int64_t head = blockIdx.y;  // batch × heads + head
  const int first_query = blockIdx.x * kRowsPerBlock;
  const __half* q_head = q + head * queries * kHeadDim;
  const __half* k_head = k + head * keys * kHeadDim;
  const __half* v_head = v + head * keys * kHeadDim;

  // The block's query rows, scaled by log2(e) / sqrt(d), as float.
  for (int i = threadIdx.x; i < kRowsPerBlock * kHeadDim; i += kThreads) {
    const int row = i / kHeadDim, col = i % kHeadDim;
    const int query = first_query + row;
    q_rows[row][col] =
        query < queries ? __half2float(q_head[int64_t{query} * kHeadDim + col]) * scale_log2 : 0.f;
  }

  // Query i sees keys 0 .. i + offset when causal.
  const int offset = keys - queries;
  int key_end = keys;
  if (causal) key_end = min(keys, first_query + kRowsPerBlock - 1 + offset + 1);

  float m[kRowsPerWarp], l[kRowsPerWarp], acc[kRowsPerWarp][4];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.f;
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[r][c] = 0.f;
  }

  const bool active = first_query + warp * kRowsPerWarp < queries;
  for (int tile = 0; tile < key_end; tile += kKeyTile) {
    __syncthreads();  // the previous tile is consumed (and q_rows written)
    // 16-byte global loads; rows past the end are zeros.
    for (int i = threadIdx.x; i < kKeyTile * kHeadDim / 8; i += kThreads) {
      const int row = i / (kHeadDim / 8), chunk = i % (kHeadDim / 8);
      uint4 kv = make_uint4(0, 0, 0, 0), vv = make_uint4(0, 0, 0, 0);
      if (tile + row < keys) {
        const int64_t at = int64_t{tile + row} * kHeadDim + chunk * 8;
        kv = *reinterpret_cast<const uint4*>(k_head + at);
        vv = *reinterpret_cast<const uint4*>(v_head + at);
      }
      const uint32_t kw[4] = {kv.x, kv.y, kv.z, kv.w};
      uint32_t* k_dst = reinterpret_cast<uint32_t*>(k_tile) + row * kKStrideWords + chunk * 4;
#pragma unroll
      for (int w = 0; w < 4; ++w) k_dst[w] = kw[w];
      *reinterpret_cast<uint4*>(reinterpret_cast<uint32_t*>(v_tile) + row * kVStrideWords +
                                chunk * 4) = vv;
    }
    __syncthreads();
    // A warp whose rows all lie past the last query (decode: warps 1..3)
    // only helps to load the tiles.
    if (!active) continue;

    // Scores of keys lane and lane + 32 against the warp's rows.
    float s[kRowsPerWarp][2];
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) s[r][0] = s[r][1] = 0.f;
    const float(*my_q)[kHeadDim] = q_rows + warp * kRowsPerWarp;
#pragma unroll 4
    for (int p = 0; p < kHeadDim / 2; ++p) {
      const float2 k0 = __half22float2(k_tile[lane * kKStrideWords + p]);
      const float2 k1 = __half22float2(k_tile[(lane + 32) * kKStrideWords + p]);
#pragma unroll
      for (int r = 0; r < kRowsPerWarp; ++r) {
        const float2 qv = *reinterpret_cast<const float2*>(&my_q[r][2 * p]);
        s[r][0] = fmaf(qv.x, k0.x, s[r][0]);
        s[r][0] = fmaf(qv.y, k0.y, s[r][0]);
        s[r][1] = fmaf(qv.x, k1.x, s[r][1]);
        s[r][1] = fmaf(qv.y, k1.y, s[r][1]);
      }
    }

    // Online softmax (base 2: the scores carry log2(e)).
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      const int query = first_query + warp * kRowsPerWarp + r;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int key = tile + lane + 32 * h;
        if (key >= keys || (causal && key > query + offset)) s[r][h] = -INFINITY;
      }
      const float m_new = fmaxf(m[r], WarpMax(fmaxf(s[r][0], s[r][1])));
      const float base = m_new == -INFINITY ? 0.f : m_new;
      const float alpha = exp2f(m[r] - base);
      const float p0 = exp2f(s[r][0] - base), p1 = exp2f(s[r][1] - base);
      m[r] = m_new;
      l[r] = l[r] * alpha + p0 + p1;
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[r][c] *= alpha;
      p_rows[warp * kRowsPerWarp + r][lane] = p0;
      p_rows[warp * kRowsPerWarp + r][lane + 32] = p1;
    }
    __syncwarp();

    // PV: lane owns output columns 4·lane .. 4·lane + 3.
#pragma unroll 4
    for (int j = 0; j < kKeyTile; ++j) {
      const uint2 raw = *reinterpret_cast<const uint2*>(reinterpret_cast<const uint32_t*>(v_tile) +
                                                        j * kVStrideWords + 2 * lane);
      const float2 v01 = __half22float2(*reinterpret_cast<const __half2*>(&raw.x));
      const float2 v23 = __half22float2(*reinterpret_cast<const __half2*>(&raw.y));
#pragma unroll
      for (int r = 0; r < kRowsPerWarp; ++r) {
        const float pr = p_rows[warp * kRowsPerWarp + r][j];
        acc[r][0] = fmaf(pr, v01.x, acc[r][0]);
        acc[r][1] = fmaf(pr, v01.y, acc[r][1]);
        acc[r][2] = fmaf(pr, v23.x, acc[r][2]);
        acc[r][3] = fmaf(pr, v23.y, acc[r][3]);
      }
    }
    __syncwarp();
  }

#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int query = first_query + warp * kRowsPerWarp + r;
    if (query >= queries) continue;
    const float inv = 1.f / WarpSum(l[r]);
    __half2* out = reinterpret_cast<__half2*>(o + (head * queries + query) * kHeadDim) + 2 * lane;
    out[0] = __floats2half2_rn(acc[r][0] * inv, acc[r][1] * inv);
    out[1] = __floats2half2_rn(acc[r][2] * inv, acc[r][3] * inv);
  }
}

// splitmix64 of (seed, i): a counter-based hash, no state between elements.
__device__ uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void FillSignedKernel(__half* dst, size_t n, float amplitude, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const float unit = static_cast<float>(Mix(seed * 0x100000001b3ull + i) >> 40) * 0x1p-24f;
    dst[i] = __float2half_rn((2.f * unit - 1.f) * amplitude);
  }
}

}  // namespace

cudaError_t LaunchFillSigned(__half* dst, size_t n, float amplitude, uint64_t seed,
                             cudaStream_t stream) {
  if (dst == nullptr || n == 0) return cudaErrorInvalidValue;
  const size_t blocks = std::min<size_t>((n + 255) / 256, 65536);
  FillSignedKernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(dst, n, amplitude, seed);
  return cudaGetLastError();
}

cudaError_t LaunchAttention(const AttentionArgs& args, cudaStream_t stream) {
  const AttentionShape& s = args.shape;
  if (s.head_dim != kHeadDim || s.batch <= 0 || s.heads <= 0 || s.queries <= 0 || s.keys <= 0 ||
      s.queries > INT32_MAX / kHeadDim || s.keys > INT32_MAX / kHeadDim ||
      s.batch * s.heads > 65535 || args.q == nullptr || args.k == nullptr || args.v == nullptr ||
      args.o == nullptr) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid(static_cast<unsigned>((s.queries + kRowsPerBlock - 1) / kRowsPerBlock),
                  static_cast<unsigned>(s.batch * s.heads));
  const float scale_log2 = kLog2e / sqrtf(static_cast<float>(kHeadDim));
  AttentionKernel<<<grid, kThreads, 0, stream>>>(
      args.q, args.k, args.v, args.o, static_cast<int>(s.queries), static_cast<int>(s.keys),
      s.causal ? 1 : 0, scale_log2);
  return cudaGetLastError();
}

}  // namespace dissect::attention
