// Host interface of the SM-to-L2 latency map kernel: the first-touch L2
// latency of a ring of lines, as seen from one chosen SM, each touch made
// after a sweep has pushed the SM's near copies of those lines out. The
// plan it follows (which loads, in which order, which are timed) is
// experiments/sharing/l2_map/l2_map_plan.h; that header says why.
//
// A launch is a grid of blocks of kL2MapBlockThreads threads that each fill
// an SM (PrepareL2Map sets the dynamic shared memory so that one block fits
// per SM); thread 0 of every block reads %smid, the first block on the
// target SM claims the launch (atomicCAS on `claimed`) and measures, every
// other block exits at once. The measuring block, `laps` times:
//  - sweep: every thread loads (ld.global.cg) one 8-byte word of every
//    kL2MapBlockThreads-th 32-byte sector of the sweep buffer,
//    kL2MapSweepUnroll loads in flight, waits for its loads, and the block
//    synchronises;
//  - lap: thread 0, for each line of the ring from first_line on, reads
//    %clock64 around three intervals: an empty one (the wait on a value
//    already there), the first touch (one ld.global.cg of the line's word
//    0, waited for) and the re-touch (one ld.global.cg of word 1 of the same
//    line, waited for). Both words hold the next line's address, so each
//    timed load is addressed by the previous re-touch's result: no address
//    arithmetic between hops.
#ifndef DISSECT_KERNELS_L2_MAP_L2_MAP_H_
#define DISSECT_KERNELS_L2_MAP_L2_MAP_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dissect {

inline constexpr int kL2MapBlockThreads = 256;
// The sweep loads one word of each sector of this size.
inline constexpr uint64_t kL2MapSectorBytes = 32;
// Independent sweep loads per thread and trip; the sweep is a whole number
// of trips of the block.
inline constexpr int kL2MapSweepUnroll = 8;
inline constexpr uint64_t kL2MapSweepGrainBytes =
    kL2MapBlockThreads * kL2MapSectorBytes * kL2MapSweepUnroll;
// The re-touch reads the word this many bytes after the first touch's: the
// same sector, at another address, so that no compiler merges the loads.
inline constexpr uint64_t kL2MapRetouchOffset = 8;

struct L2MapArgs {
  // Device address of the ring's first line; words 0 and 1 of every line
  // hold the next line's address.
  unsigned long long first_line = 0;
  int line_count = 0;
  int laps = 0;
  const unsigned long long* sweep = nullptr;  // device, sweep_bytes
  uint64_t sweep_bytes = 0;                   // a multiple of kL2MapSweepGrainBytes
  int target_sm = 0;                          // %smid of the SM that measures
  int* claimed = nullptr;  // device word, 0 before the launch; target_sm + 1 after
  // Device, laps x line_count each, index lap * line_count + line: %clock64
  // deltas of the empty interval, the first touch and the re-touch.
  unsigned long long* empty_cycles = nullptr;
  unsigned long long* first_touch_cycles = nullptr;
  unsigned long long* retouch_cycles = nullptr;
  unsigned long long* sink = nullptr;  // device, 1 word: the last loaded value (keeps it live)
};

// Sets the kernel's dynamic shared memory to the most one block may have
// on `device` (the per-block opt-in less the kernel's static shared memory),
// more than half an SM's shared memory, so that no two blocks share an SM;
// returns that size. Call once, before anything is timed.
cudaError_t PrepareL2Map(int device, size_t* dynamic_shared_bytes);

// One launch of `blocks` blocks of kL2MapBlockThreads threads with
// `dynamic_shared_bytes` each (from PrepareL2Map).
cudaError_t LaunchL2Map(const L2MapArgs& args, int blocks, size_t dynamic_shared_bytes,
                        cudaStream_t stream);

}  // namespace dissect

#endif  // DISSECT_KERNELS_L2_MAP_L2_MAP_H_
