// A small simulated L2 with near copies, for replaying an experiment's
// accesses on the CPU: l2_sm_map's access plan (l2_map_method_test) and
// latency_trace's walk (latency_trace_method_test). Not a model of any real
// GPU's numbers: just enough of the behaviour that decides what a method
// sees.
//
// Two partitions. Every line (128 bytes) has a home partition, a fixed
// hash of its address. SMs 0 .. sm_count/2 - 1 are near partition 0, the
// rest near partition 1. A load from SM s of line x:
//  - homed in near(s): a near hit;
//  - homed in the other partition and copied into near(s): a near hit, the
//    copy becomes the most recently used;
//  - else a far hit, and a copy of x is made in near(s) (A100 and Hopper
//    keep such copies of far data in the near partition).
// A partition holds `partition_lines` lines, its homes and its copies
// together; homes are never evicted and never miss (the replays keep
// everything they touch under the L2's capacity, and nothing here is
// DRAM), copies are evicted least recently used first when the homes and
// copies would not fit.
#ifndef DISSECT_EXPERIMENTS_NEAR_COPY_L2_MODEL_H_
#define DISSECT_EXPERIMENTS_NEAR_COPY_L2_MODEL_H_

#include <cstdint>
#include <list>
#include <unordered_map>
#include <unordered_set>

namespace dissect {

struct NearCopyL2Options {
  int sm_count = 8;
  uint64_t partition_lines = 512;
  double near_cycles = 280;
  double far_cycles = 480;
};

class NearCopyL2Model {
 public:
  static constexpr uint64_t kLineBytes = 128;

  explicit NearCopyL2Model(const NearCopyL2Options& options) : options_(options) {}

  // The latency SM `sm` sees for a load of `address`, and the model's new
  // state after it.
  double Load(int sm, uint64_t address);

  int NearPartition(int sm) const { return sm < options_.sm_count / 2 ? 0 : 1; }
  static int HomePartition(uint64_t address);

 private:
  struct Partition {
    std::unordered_set<uint64_t> homes;
    std::list<uint64_t> lru;  // copies, most recently used first
    std::unordered_map<uint64_t, std::list<uint64_t>::iterator> copies;
  };
  // Evicts least recently used copies until homes and copies fit.
  void Trim(Partition& p);

  NearCopyL2Options options_;
  Partition partitions_[2];
};

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_NEAR_COPY_L2_MODEL_H_
