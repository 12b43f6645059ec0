// Host interface of the bandwidth kernels (kernels/bandwidth.cu): streaming
// read / write / copy over global memory and streaming loads from shared
// memory, each at 32-, 64- and 128-bit access widths.
#ifndef DISSECT_KERNELS_BANDWIDTH_H_
#define DISSECT_KERNELS_BANDWIDTH_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

enum class StreamOp { kRead, kWrite, kCopy };

// Threads per block of the global-memory streaming kernels.
inline constexpr int kStreamThreads = 256;
// The read kernel stores one word per warp (the warp's sum of what it read).
inline constexpr int kStreamWarpsPerBlock = kStreamThreads / 32;
// Bytes each thread has in flight per tile (see LaunchStream): the choices.
inline constexpr int kStreamBytesInFlight[] = {16, 32, 64, 128};

struct StreamArgs {
  StreamOp op = StreamOp::kRead;
  int width_bits = 32;        // bits per access: 32, 64 or 128
  int bytes_in_flight = 16;   // per thread and tile: one of kStreamBytesInFlight
  const void* src = nullptr;  // read, copy: `bytes` bytes
  void* dst = nullptr;        // write, copy: `bytes` bytes
  size_t bytes = 0;           // bytes per buffer, a multiple of width_bits / 8
  int passes = 1;             // sweeps over the buffer(s) in one launch
  int blocks = 0;             // from StreamGridBlocks
  uint32_t* sink = nullptr;   // read: blocks * kStreamWarpsPerBlock words
  // Read only: every block streams the whole buffer in each pass, from its
  // own start tile and with its own step between tiles
  // (ForEachTileRoaming), instead of its 1/blocks share.
  bool roaming = false;
};

// Tiled kernels: a tile is B × kStreamThreads elements, B = bytes_in_flight
// / (width_bits / 8); thread t of a block handles elements t, t + 256, ...,
// t + 256 (B - 1) of its tile, issuing all B loads (read, copy) before the
// first use of any (the sum; the stores), so B accesses are in flight per
// thread. Block b takes tiles b, b + G, b + 2G, ... (G = blocks) in every
// pass, so each thread re-reads the same elements, and an SM's share of the
// buffer stays in that SM's L1 if it fits. A partial last tile checks each
// element against the end. With `roaming` (reads only) every block instead
// streams all tiles in each pass, starting at RoamingStartTile and
// stepping RoamingStepTiles at a time, wrapping around
// (kernels/tiled_stream.cuh), so each SM's footprint is the whole buffer
// and the SMs read each other's shares: beyond L1 they read the L2 however
// many SMs there are. Each block has its own step, so no two blocks walk
// the buffer in step (blocks that did read each line close together, and
// the L2 seemed to deliver twice its bandwidth). A roaming pass reads
// blocks x bytes.
//   read:  sums every 32-bit word it loads; each warp stores its sum to
//          sink[global warp index] (over the whole grid: passes × the sum of
//          all words of src, modulo 2^32; roaming: blocks × that).
//   write: dst word w = StreamPatternWord(w, pass).
//   copy:  dst = src.
// Buffers must be 16-byte aligned (cudaMalloc memory is). Returns
// cudaErrorInvalidValue for a width other than 32/64/128, bytes_in_flight
// not in kStreamBytesInFlight, bytes zero or not a multiple of the access
// width, passes < 1, blocks < 1, a buffer the op needs left null, or roaming
// with an op other than read. Does nothing but the launch (no queries): it
// is what the experiments time.
cudaError_t LaunchStream(const StreamArgs& args, cudaStream_t stream);

// The grid LaunchStream should use for (op, width_bits, bytes_in_flight)
// over `bytes` bytes per buffer: enough blocks to fill every SM of the
// current device, fewer when the buffer has fewer tiles than that (so that
// no block is idle; roaming: every block has every tile, so a full grid).
// Also asks for the largest L1 carveout for the kernel: call it once, before
// (and outside the timing of) LaunchStream.
cudaError_t StreamGridBlocks(StreamOp op, int width_bits, int bytes_in_flight, size_t bytes,
                             int* blocks, bool roaming = false);

// The value the write kernel stores at 32-bit word `word` in pass `pass`.
uint32_t StreamPatternWord(size_t word, int pass);

// Shared-memory streaming: every block fills its own kSharedStreamBytes of
// shared memory, then (between two %clock64 reads, each after a barrier) all
// its threads load the whole buffer `iterations` times, conflict-free, at
// the given width (ld.volatile.shared, so that every load stays in the timed
// loop), summing what they load.
inline constexpr int kSharedStreamThreads = 256;
inline constexpr int kSharedStreamBytes = 16 << 10;

// What one block measured (written by its thread 0).
struct SharedStreamTiming {
  unsigned long long start;  // %clock64 before the timed loads
  unsigned long long stop;   // %clock64 after them
  uint32_t smid;             // %smid: the SM the block ran on
  uint32_t sum;              // sum of all words the block loaded (mod 2^32)
};

struct SharedStreamArgs {
  int width_bits = 32;                // 32, 64 or 128
  int iterations = 1;                 // loads of the whole buffer per block
  int blocks = 0;                     // from SharedStreamGridBlocks
  SharedStreamTiming* out = nullptr;  // device pointer, `blocks` entries
};

// Blocks that fill every SM of the current device with resident blocks.
// Also asks for the largest shared-memory carveout for the width's kernel:
// call it once, before (and outside the timing of) LaunchSharedStream.
cudaError_t SharedStreamGridBlocks(int width_bits, int* blocks);

cudaError_t LaunchSharedStream(const SharedStreamArgs& args, cudaStream_t stream);

// The `sum` every block of a correct launch reports.
uint32_t SharedStreamExpectedSum(int iterations);

}  // namespace dissect

#endif  // DISSECT_KERNELS_BANDWIDTH_H_
