#include "experiments/sharing/topology/gpc_schedule.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace dissect {
namespace {

// splitmix64's finalizer: a fixed, well-mixed hash, so that the held SMs
// are the same on every run and in the simulator.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The SMs held in blocked round `round` (>= 1), ascending.
std::vector<int> HeldSms(int sm_count, int round) {
  const int draw = (round - 1) / kGpcBlockClasses;
  const uint64_t held_class = static_cast<uint64_t>((round - 1) % kGpcBlockClasses);
  std::vector<int> held;
  for (int sm = 0; sm < sm_count; ++sm) {
    const uint64_t key = (static_cast<uint64_t>(draw) << 32) | static_cast<uint32_t>(sm);
    if (Mix(key) % kGpcBlockClasses == held_class) held.push_back(sm);
  }
  return held;
}

}  // namespace

std::vector<GpcLaunchStep> GpcLaunchSchedule(int sm_count, const std::vector<GpcClusterShape>& shapes,
                                             int launches) {
  std::vector<GpcLaunchStep> steps;
  if (shapes.empty() || sm_count < 1) return steps;
  for (int i = 0; i < launches; ++i) {
    const int k = i / kGpcStepRepeats;
    if (i % kGpcStepRepeats != 0) {
      steps.push_back(steps.back());
      continue;
    }
    GpcLaunchStep step;
    step.shape_index = k % static_cast<int>(shapes.size());
    step.shape = shapes[static_cast<size_t>(step.shape_index)];
    const int round = k / static_cast<int>(shapes.size());
    step.clusters = step.shape.max_active_clusters;
    if (round > 0) {
      step.blocked_sms = HeldSms(sm_count, round);
      const int64_t free_sms = sm_count - static_cast<int64_t>(step.blocked_sms.size());
      const int64_t scaled = int64_t{step.shape.max_active_clusters} * free_sms / sm_count;
      step.clusters = static_cast<int>(std::max<int64_t>(1, scaled - round % 3));
    }
    steps.push_back(step);
  }
  return steps;
}

int SmallestClusterSize(const std::vector<GpcClusterShape>& shapes) {
  int smallest = 0;
  for (const GpcClusterShape& shape : shapes) {
    if (shape.blocks_per_sm != 1) continue;
    if (smallest == 0 || shape.cluster_size < smallest) smallest = shape.cluster_size;
  }
  return smallest;
}

std::vector<GpcLaunchStep> PlainGpcSchedule(const std::vector<GpcClusterShape>& shapes,
                                            int launches) {
  std::vector<GpcLaunchStep> steps;
  if (shapes.empty()) return steps;
  for (int i = 0; i < launches; ++i) {
    GpcLaunchStep step;
    step.shape_index = i % static_cast<int>(shapes.size());
    step.shape = shapes[static_cast<size_t>(step.shape_index)];
    step.clusters = step.shape.max_active_clusters;
    steps.push_back(step);
  }
  return steps;
}

}  // namespace dissect
