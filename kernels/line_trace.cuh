// Line tracing for the intergroup-sharing probe (L1 duplication): which 128-byte
// lines each SM's global loads touch, as one bitmap of lines per SM. Device
// code records into a LineTrace that the host prepared (experiments that
// trace allocate the bitmaps and describe the traced tensors as regions);
// the host analysis (probes/duplication) reduces the bitmaps to lines
// touched, replication and duplicated fraction.
//
// Only traced builds call RecordLine: the timed builds of a kernel never
// carry it (kernels/layers: the `trace` variant; kernels/coop: a template
// flag), so the tracing overhead stays off every timed variant.
#ifndef DISSECT_KERNELS_LINE_TRACE_CUH_
#define DISSECT_KERNELS_LINE_TRACE_CUH_

#include <cstdint>

namespace dissect {

inline constexpr int kTraceLineBytes = 128;
inline constexpr int kMaxTraceRegions = 4;

// One traced tensor: [base, base + bytes), whose lines are numbered from
// first_line in the bitmaps. Lines are counted from the region's base
// rounded down to a 128-byte boundary.
struct TraceRegion {
  uint64_t base = 0;
  uint64_t bytes = 0;
  uint64_t first_line = 0;
};

// Bitmaps: sm_slots rows of words_per_sm 32-bit words; bit (line % 32) of
// word (line / 32) of row `smid` is set when a load of SM `smid` touched
// `line`. block_sm (optional, may be null) gets each block's %smid.
struct LineTrace {
  TraceRegion regions[kMaxTraceRegions];
  int region_count = 0;
  uint32_t* bitmaps = nullptr;
  uint64_t words_per_sm = 0;
  int sm_slots = 0;
  int* block_sm = nullptr;
};

#ifdef __CUDACC__
__device__ __forceinline__ uint32_t TraceSmId() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Sets the bit of the line `p` lies in, if p lies in a traced region; loads
// outside every region are not traced.
__device__ __forceinline__ void RecordLine(const LineTrace& t, const void* p) {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  const uint32_t sm = TraceSmId();
  if (t.bitmaps == nullptr || static_cast<int>(sm) >= t.sm_slots) return;
  for (int r = 0; r < t.region_count; ++r) {
    const TraceRegion& g = t.regions[r];
    if (a < g.base || a >= g.base + g.bytes) continue;
    const uint64_t line =
        g.first_line + (a / kTraceLineBytes - g.base / kTraceLineBytes);
    uint32_t* word = t.bitmaps + sm * t.words_per_sm + line / 32;
    const uint32_t bit = 1u << (line % 32);
    // A plain read first: most loads hit a line their SM already marked, and
    // an atomic per load would serialize the warp needlessly.
    if ((*reinterpret_cast<volatile uint32_t*>(word) & bit) == 0) atomicOr(word, bit);
    return;
  }
}

// Records the block's SM once (thread 0).
__device__ __forceinline__ void RecordBlockSm(const LineTrace& t) {
  if (t.block_sm != nullptr && threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    t.block_sm[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] =
        static_cast<int>(TraceSmId());
  }
}
#endif  // __CUDACC__

}  // namespace dissect

#endif  // DISSECT_KERNELS_LINE_TRACE_CUH_
