// The simulated L2 with near copies; see near_copy_l2_model.h.
#include "experiments/near_copy_l2_model.h"

namespace dissect {

int NearCopyL2Model::HomePartition(uint64_t address) {
  // A multiplicative hash of the line number: homes alternate irregularly,
  // as real address-to-slice hashes do, rather than by one address bit.
  return static_cast<int>(((address / kLineBytes) * 0x9E3779B97F4A7C15ull) >> 63);
}

void NearCopyL2Model::Trim(Partition& p) {
  while (!p.lru.empty() && p.homes.size() + p.lru.size() > options_.partition_lines) {
    p.copies.erase(p.lru.back());
    p.lru.pop_back();
  }
}

double NearCopyL2Model::Load(int sm, uint64_t address) {
  const uint64_t line = address / kLineBytes;
  const int home = HomePartition(address);
  if (partitions_[home].homes.insert(line).second) Trim(partitions_[home]);
  if (home == NearPartition(sm)) return options_.near_cycles;
  Partition& near = partitions_[NearPartition(sm)];
  const auto it = near.copies.find(line);
  if (it != near.copies.end()) {
    near.lru.splice(near.lru.begin(), near.lru, it->second);
    return options_.near_cycles;
  }
  near.lru.push_front(line);
  near.copies[line] = near.lru.begin();
  Trim(near);
  return options_.far_cycles;
}

}  // namespace dissect
