// The tiled grid-stride loop of the streaming kernels (kernels/bandwidth.cu,
// kernels/elementwise.cu): each thread issues kBatch independent loads
// before it uses any of them, so that kBatch accesses are in flight per
// thread, at immediate offsets from one address.
#ifndef DISSECT_KERNELS_TILED_STREAM_CUH_
#define DISSECT_KERNELS_TILED_STREAM_CUH_

#include <cuda_runtime_api.h>

#include <cstddef>

namespace dissect {

// Elements of one tile: kBatch per thread of a kThreads-thread block.
template <int kBatch, int kThreads>
inline constexpr size_t kTileElements = static_cast<size_t>(kBatch) * kThreads;

// Tiles over n elements (the last one partial if kTileElements does not
// divide n): the most blocks ForEachTileOfBlock can keep busy.
template <int kBatch, int kThreads>
__host__ __device__ constexpr size_t TileCount(size_t n) {
  return (n + kTileElements<kBatch, kThreads> - 1) / kTileElements<kBatch, kThreads>;
}

// One tile: the calling thread handles elements first + j * kThreads for
// j < kBatch (a warp touches 32 consecutive elements per access). Every
// fetch(i) (the load) comes before the first use(i, value) (the sum, the
// store). kGuard: the tile may run past n, so each element is checked.
template <typename T, int kBatch, int kThreads, bool kGuard, typename Fetch, typename Use>
__host__ __device__ __forceinline__ void StreamTile(size_t first, size_t n, Fetch& fetch,
                                                    Use& use) {
  T v[kBatch];
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    const size_t i = first + static_cast<size_t>(j) * kThreads;
    if (!kGuard || i < n) v[j] = fetch(i);
  }
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    const size_t i = first + static_cast<size_t>(j) * kThreads;
    if (!kGuard || i < n) use(i, v[j]);
  }
}

// Every tile of elements [0, n) that thread `thread` of block `block` (of
// `blocks`, kThreads threads each) owns: block b takes tiles b, b + G,
// b + 2G, ... (G = blocks), the same ones on every call, so a block
// re-reading a buffer finds its share in its SM's L1 if it fits. The
// partial tile at the end, if any, goes to the block whose turn it would
// be. Kernels pass blockIdx.x, gridDim.x and threadIdx.x (ForEachTileOfBlock);
// the host test passes its own.
template <typename T, int kBatch, int kThreads, typename Fetch, typename Use>
__host__ __device__ __forceinline__ void ForEachTile(size_t n, size_t block, size_t blocks,
                                                     size_t thread, Fetch&& fetch, Use&& use) {
  constexpr size_t kTile = kTileElements<kBatch, kThreads>;
  const size_t full_end = n / kTile * kTile;
  const size_t tile_stride = blocks * kTile;
  // One trip is one tile: kBatch accesses per thread, which the SASS tests
  // count; ptxas must not unroll it further.
#pragma unroll 1
  for (size_t i = block * kTile + thread; i < full_end; i += tile_stride) {
    StreamTile<T, kBatch, kThreads, false>(i, n, fetch, use);
  }
  if (full_end < n && block == (n / kTile) % blocks) {
    StreamTile<T, kBatch, kThreads, true>(full_end + thread, n, fetch, use);
  }
}

// The tile block `block` (of `blocks`) starts its roaming pass at, among
// `tiles` full tiles: the starts are spread evenly, so that at any moment
// the blocks stream different parts of the buffer and each line is read
// again by another block only after the grid has streamed about the whole
// buffer since (its reuse distance is the buffer, not one block's share).
__host__ __device__ constexpr size_t RoamingStartTile(size_t block, size_t blocks, size_t tiles) {
  return blocks == 0 ? 0 : block * tiles / blocks;
}

// Like ForEachTile, but every block streams every element of [0, n) once:
// the full tiles in order from RoamingStartTile, wrapping around, then the
// partial tile at the end, if any. An SM's footprint is then the whole
// buffer, not a 1/blocks share: beyond its L1, each pass reads from L2
// (or DRAM) however many SMs share the buffer.
template <typename T, int kBatch, int kThreads, typename Fetch, typename Use>
__host__ __device__ __forceinline__ void ForEachTileRoaming(size_t n, size_t block, size_t blocks,
                                                            size_t thread, Fetch&& fetch,
                                                            Use&& use) {
  constexpr size_t kTile = kTileElements<kBatch, kThreads>;
  const size_t full = n / kTile;
  const size_t full_end = full * kTile;
  size_t i = RoamingStartTile(block, blocks, full) * kTile + thread;
  // One trip is one tile, as in ForEachTile; the wrap is a compare and a
  // subtraction, no second loop.
#pragma unroll 1
  for (size_t k = 0; k < full; ++k) {
    StreamTile<T, kBatch, kThreads, false>(i, n, fetch, use);
    i += kTile;
    if (i >= full_end) i -= full_end;
  }
  if (full_end < n) StreamTile<T, kBatch, kThreads, true>(full_end + thread, n, fetch, use);
}

#ifdef __CUDACC__
// ForEachTile for the calling thread of a kThreads-thread block.
template <typename T, int kBatch, int kThreads, typename Fetch, typename Use>
__device__ __forceinline__ void ForEachTileOfBlock(size_t n, Fetch&& fetch, Use&& use) {
  ForEachTile<T, kBatch, kThreads>(n, blockIdx.x, gridDim.x, threadIdx.x, fetch, use);
}
#endif

}  // namespace dissect

#endif  // DISSECT_KERNELS_TILED_STREAM_CUH_
