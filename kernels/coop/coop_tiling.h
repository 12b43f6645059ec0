// Tiling of the cluster-cooperative layer kernels (kernels/coop/coop.cu),
// shared by the kernels and the host: which outputs a block computes, which
// input tile it needs, and which part of that tile each block of a
// thread-block cluster loads from global memory. Pure arithmetic, no CUDA
// calls, so that host unit tests check what the device runs.
//
// Both kernels stage an input tile in shared memory, chunk by chunk:
//   conv3x3: the tile of a chunk is kConvChunkChannels channels x
//            kConvHaloH x kConvHaloW input values (the block's 8 x 32
//            output pixels plus a one-pixel halo), channel-major; a unit is
//            one channel (kConvHaloH x kConvHaloW consecutive elements).
//   gemv:    the tile of a chunk is kGemvChunk consecutive elements of the
//            input vector x[n][*]; a unit is one element.
// `tiled` blocks load every unit of the tile themselves. In a cluster of S
// blocks (`coop`), block rank r loads the units SliceOf(units, S, r) and
// reads the others from its peers' shared memory (DSM).
#ifndef DISSECT_KERNELS_COOP_COOP_TILING_H_
#define DISSECT_KERNELS_COOP_COOP_TILING_H_

#if defined(__CUDACC__)
#define DISSECT_COOP_HD __host__ __device__
#else
#define DISSECT_COOP_HD
#endif

namespace dissect::coop {

// Threads of every block of both kernels.
inline constexpr int kCoopThreads = 256;

// conv3x3 (stride 1, pad 1): a block computes kConvTileH x kConvTileW
// output pixels (one per thread) of kConvFiltersPerBlock filters of one
// image.
inline constexpr int kConvTileH = 8;
inline constexpr int kConvTileW = 32;
inline constexpr int kConvHaloH = kConvTileH + 2;
inline constexpr int kConvHaloW = kConvTileW + 2;
inline constexpr int kConvUnitElements = kConvHaloH * kConvHaloW;
inline constexpr int kConvChunkChannels = 16;
inline constexpr int kConvTileElements = kConvChunkChannels * kConvUnitElements;
inline constexpr int kConvFiltersPerBlock = 4;
// A chunk's filter taps: kConvFiltersPerBlock x kConvChunkChannels x 3 x 3.
inline constexpr int kConvFilterElements = kConvFiltersPerBlock * kConvChunkChannels * 9;
static_assert(kConvTileH * kConvTileW == kCoopThreads, "one output pixel per thread");

// gemv: a block computes kGemvRowsPerBlock rows of one image, each of its
// 8 warps kGemvRowsPerWarp of them; x is staged kGemvChunk elements at a
// time (a multiple of 32, so that lane l still sums c = l, l + 32, ...).
inline constexpr int kGemvChunk = 2048;
inline constexpr int kGemvRowsPerWarp = 4;
inline constexpr int kGemvRowsPerBlock = kGemvRowsPerWarp * (kCoopThreads / 32);
static_assert(kGemvChunk % 32 == 0, "chunks keep the lane order of the sum");

// Static shared memory of each kernel (float tile, plus conv's filters): all
// the shared memory they use. The launches add dynamic shared memory that
// nothing reads, only so that one block fills an SM (coop.h).
inline constexpr int kConvStaticSharedBytes =
    (kConvTileElements + kConvFilterElements) * static_cast<int>(sizeof(float));
inline constexpr int kGemvStaticSharedBytes = kGemvChunk * static_cast<int>(sizeof(float));

// [begin, end) of units or elements.
struct Range {
  int begin = 0;
  int end = 0;
  DISSECT_COOP_HD int size() const { return end - begin; }
};

// The units block `rank` of `parts` loads: a balanced split of [0, units),
// the first units % parts blocks one unit more. Empty when rank >= units.
DISSECT_COOP_HD inline Range SliceOf(int units, int parts, int rank) {
  const int base = units / parts, extra = units % parts;
  Range r;
  r.begin = rank * base + (rank < extra ? rank : extra);
  r.end = r.begin + base + (rank < extra ? 1 : 0);
  return r;
}

// The rank whose slice holds `unit` (0 <= unit < units).
DISSECT_COOP_HD inline int SliceOwner(int units, int parts, int unit) {
  const int base = units / parts, extra = units % parts;
  const int big = extra * (base + 1);  // units in the first `extra` slices
  if (unit < big) return unit / (base + 1);
  return extra + (unit - big) / base;
}

// Elements of the tile that block `rank` loads: its slice of units, each
// `unit_elements` long.
DISSECT_COOP_HD inline Range SliceElements(int units, int unit_elements, int parts, int rank) {
  const Range u = SliceOf(units, parts, rank);
  return Range{u.begin * unit_elements, u.end * unit_elements};
}

DISSECT_COOP_HD inline int CeilDiv(int a, int b) { return (a + b - 1) / b; }

// Blocks along x: `groups` work groups (filter or row groups), rounded up to
// a whole number of clusters; blocks past the last group stage their slice
// for their cluster and compute nothing.
DISSECT_COOP_HD inline int ClusterAlignedBlocks(int groups, int cluster_size) {
  return CeilDiv(groups, cluster_size) * cluster_size;
}

// The grid of a conv3x3 launch over an N x C x H x W input and K filters:
// x = filter groups (clusters along x), y = spatial tiles, z = images.
struct Grid3 {
  int x = 1, y = 1, z = 1;
};
DISSECT_COOP_HD inline Grid3 ConvGrid(int n, int h, int w, int k, int cluster_size) {
  return Grid3{ClusterAlignedBlocks(CeilDiv(k, kConvFiltersPerBlock), cluster_size),
               CeilDiv(h, kConvTileH) * CeilDiv(w, kConvTileW), n};
}
// gemv over N images of C inputs and K rows: x = row groups, y = images.
DISSECT_COOP_HD inline Grid3 GemvGrid(int n, int k, int cluster_size) {
  return Grid3{ClusterAlignedBlocks(CeilDiv(k, kGemvRowsPerBlock), cluster_size), n, 1};
}

// Where conv tile element `e` (0 <= e < channels x kConvUnitElements) of
// the chunk starting at channel c0, for the spatial tile `tile` (blockIdx.y)
// of a W-wide image, comes from. inside is false for halo positions outside
// the image (staged as 0 and never summed).
struct ConvSource {
  int c = 0, ih = 0, iw = 0;
  bool inside = false;
};
DISSECT_COOP_HD inline ConvSource ConvTileSource(int e, int c0, int tile, int h, int w) {
  const int tiles_w = CeilDiv(w, kConvTileW);
  const int p0 = (tile / tiles_w) * kConvTileH, q0 = (tile % tiles_w) * kConvTileW;
  const int rem = e % kConvUnitElements;
  ConvSource s;
  s.c = c0 + e / kConvUnitElements;
  s.ih = p0 - 1 + rem / kConvHaloW;
  s.iw = q0 - 1 + rem % kConvHaloW;
  s.inside = s.ih >= 0 && s.ih < h && s.iw >= 0 && s.iw < w;
  return s;
}

// The output pixel of thread `t` in spatial tile `tile`, and the tile
// element (within one channel) of its tap (r, s).
DISSECT_COOP_HD inline int ConvOutRow(int tile, int t, int w) {
  return (tile / CeilDiv(w, kConvTileW)) * kConvTileH + t / kConvTileW;
}
DISSECT_COOP_HD inline int ConvOutCol(int tile, int t, int w) {
  return (tile % CeilDiv(w, kConvTileW)) * kConvTileW + t % kConvTileW;
}
DISSECT_COOP_HD inline int ConvTapElement(int t, int r, int s) {
  return (t / kConvTileW + r) * kConvHaloW + t % kConvTileW + s;
}

}  // namespace dissect::coop

#undef DISSECT_COOP_HD

#endif  // DISSECT_KERNELS_COOP_COOP_TILING_H_
