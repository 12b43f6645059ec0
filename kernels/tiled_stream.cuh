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

// std::gcd, which device code cannot call.
__host__ __device__ constexpr size_t GreatestCommonDivisor(size_t a, size_t b) {
  while (b != 0) {
    const size_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// How many tiles block `block` steps from one tile to its next, among
// `tiles` full tiles: 2 block + 1 (mod tiles), or the next number coprime
// to `tiles` (1 is), so that the walk visits every tile once. Blocks with
// different steps never walk in step. With one step for all (the buffer
// in order), the roaming reads of an H100 ran at up to 17.7 TB/s over
// 64 MiB, beyond its 50 MiB L2 and far above its L2 bandwidth, the same
// with ld.global.cg loads: blocks walking in step read each line close
// together in time, and most of those reads never cost the L2 a read. A
// test kernel that walked with these steps (ld.global.cg, 8 blocks of 256
// threads per SM, 32 B in flight per thread) read 8 MiB at 7.9 TB/s and
// 64 MiB at 6.0 on the same H100, where walking in order gave 15.8 and 17.5.
__host__ __device__ constexpr size_t RoamingStepTiles(size_t block, size_t tiles) {
  if (tiles <= 1) return 0;
  size_t step = (2 * block + 1) % tiles;
  while (GreatestCommonDivisor(step, tiles) != 1) step = (step + 1) % tiles;
  return step;
}

// Like ForEachTile, but every block streams every element of [0, n) once:
// the full tiles from RoamingStartTile on, `step_tiles` apart (kernels
// pass RoamingStepTiles(block, n / kTile), taken once before their pass
// loop: it divides, and with it inside that loop ptxas 13.0 reloaded the
// buffer's address for each load of a pass of the partial tile alone),
// wrapping around, then the partial tile at the end, if any. An SM's
// footprint is then the whole buffer, not a 1/blocks share: beyond its L1,
// each pass reads from L2 (or DRAM) however many SMs share the buffer.
template <typename T, int kBatch, int kThreads, typename Fetch, typename Use>
__host__ __device__ __forceinline__ void ForEachTileRoaming(size_t n, size_t block, size_t blocks,
                                                            size_t thread, size_t step_tiles,
                                                            Fetch&& fetch, Use&& use) {
  constexpr size_t kTile = kTileElements<kBatch, kThreads>;
  const size_t full = n / kTile;
  const size_t full_end = full * kTile;
  const size_t step = step_tiles * kTile;
  size_t i = RoamingStartTile(block, blocks, full) * kTile + thread;
  // One trip is one tile, as in ForEachTile; the wrap is a compare and a
  // subtraction (step < full_end), no second loop.
#pragma unroll 1
  for (size_t k = 0; k < full; ++k) {
    StreamTile<T, kBatch, kThreads, false>(i, n, fetch, use);
    i += step;
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
