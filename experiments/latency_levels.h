// Groups per-access latencies (a fine-grained pointer-chase trace) into
// levels: one level per cache level or partition the accesses were served
// from, e.g. L2-near and L2-far hits.
#ifndef DISSECT_EXPERIMENTS_LATENCY_LEVELS_H_
#define DISSECT_EXPERIMENTS_LATENCY_LEVELS_H_

#include <cstdint>
#include <vector>

namespace dissect {

struct LatencyLevel {
  double cycles = 0;    // median latency of the level's accesses
  double fraction = 0;  // share of all accesses
  uint32_t max_cycles = 0;  // slowest access still in this level
};

struct LevelOptions {
  // A new level starts where sorted latencies jump by more than this factor
  // and by at least min_gap_cycles.
  double min_gap_ratio = 1.15;
  uint32_t min_gap_cycles = 8;
  // Levels holding fewer accesses than this share are outliers (interrupts,
  // TLB walks); they are dropped and the remaining fractions renormalized.
  double min_fraction = 0.01;
  // At most this many levels; the closest neighbours are merged first.
  int max_levels = 3;
};

// Levels sorted by latency, fastest first. Empty input → no levels.
std::vector<LatencyLevel> FindLatencyLevels(const std::vector<uint32_t>& cycles,
                                            const LevelOptions& options = {});

// The most frequent byte distance between consecutive accesses slower than
// `threshold_cycles`. `addresses[k]` is the byte address of access k. Ties go
// to the smaller distance; 0 when fewer than two accesses are that slow.
uint64_t DominantMissDistance(const std::vector<uint64_t>& addresses,
                              const std::vector<uint32_t>& cycles,
                              uint32_t threshold_cycles);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_LATENCY_LEVELS_H_
