// Host interface of the SM-to-L2 latency map kernel (issue 14): the L2-hit
// latency of a set of lines, as seen from one chosen SM.
//
// A launch is a grid of blocks that each fill an SM (PrepareL2Map sets the
// dynamic shared memory so that one block fits per SM); every block reads
// %smid, the first block on the target SM claims the launch (atomicCAS on
// `claimed`) and measures, every other block exits at once. The measuring
// thread, for each line in turn: loads the line's address from the table
// (untimed), one warm load of the line (ld.global.cg), waits for it, reads
// %clock64, chases `hops` dependent ld.global.cg loads of that same line
// (the line holds its own address, so each load's address is the previous
// load's value: no address arithmetic in a hop), waits for the last, reads
// %clock64 again. cycles[line] = the delta over the `hops` loads.
#ifndef DISSECT_KERNELS_L2_MAP_L2_MAP_H_
#define DISSECT_KERNELS_L2_MAP_L2_MAP_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

// Loads per trip of the timed hop loop; hops must be a positive multiple.
inline constexpr int kL2MapUnroll = 16;

struct L2MapArgs {
  // Device table of line_count device addresses; the 8 bytes at each hold
  // that same address.
  const unsigned long long* const* lines = nullptr;
  int line_count = 0;
  int hops = 0;            // dependent loads per line, a positive multiple of kL2MapUnroll
  int target_sm = 0;       // %smid of the SM that measures
  int* claimed = nullptr;  // device word, 0 before the launch; target_sm + 1 after
  unsigned long long* cycles = nullptr;  // device, line_count: %clock64 delta over `hops` loads
  unsigned long long* sink = nullptr;    // device, 1 word: the last loaded value (keeps it live)
};

// Sets the kernel's dynamic shared memory to the most one block may have
// on `device` (the per-block opt-in less the kernel's static shared memory),
// more than half an SM's shared memory, so that no two blocks share an SM;
// returns that size. Call once, before anything is timed.
cudaError_t PrepareL2Map(int device, size_t* dynamic_shared_bytes);

// One launch of `blocks` blocks of 32 threads with `dynamic_shared_bytes`
// each (from PrepareL2Map).
cudaError_t LaunchL2Map(const L2MapArgs& args, int blocks, size_t dynamic_shared_bytes,
                        cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_L2_MAP_L2_MAP_H_
