#include "experiments/sharing/topology/gpc_sim.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "absl/strings/str_cat.h"

namespace dissect {
namespace {

bool Held(const GpcLaunchStep& step, int sm) {
  return std::binary_search(step.blocked_sms.begin(), step.blocked_sms.end(), sm);
}

// The free slots of each GPC: SM ids in ascending order, each repeated
// blocks_per_sm times.
std::vector<std::vector<int>> FreeSlots(const SimLayout& layout, const GpcLaunchStep& step) {
  std::vector<std::vector<int>> slots(layout.sms_of_gpc.size());
  for (size_t g = 0; g < layout.sms_of_gpc.size(); ++g) {
    for (const int sm : layout.sms_of_gpc[g]) {
      if (Held(step, sm)) continue;
      for (int b = 0; b < step.shape.blocks_per_sm; ++b) slots[g].push_back(sm);
    }
  }
  return slots;
}

void AddCluster(const std::vector<int>& slots, size_t first, int cluster_size, int cluster,
                LaunchRecord& launch) {
  for (int r = 0; r < cluster_size; ++r) launch.blocks.push_back({slots[first + r], cluster, r});
}

}  // namespace

SimLayout InterleavedLayout(const std::vector<int>& sizes) {
  SimLayout layout;
  const int total = std::accumulate(sizes.begin(), sizes.end(), 0);
  layout.true_gpc.assign(total, -1);
  layout.sms_of_gpc.resize(sizes.size());
  size_t g = 0;
  for (int sm = 0; sm < total; ++sm) {
    while (static_cast<int>(layout.sms_of_gpc[g].size()) == sizes[g]) g = (g + 1) % sizes.size();
    layout.true_gpc[sm] = static_cast<int>(g);
    layout.sms_of_gpc[g].push_back(sm);
    g = (g + 1) % sizes.size();
  }
  return layout;
}

SimLayout ContiguousLayout(const std::vector<int>& sizes) {
  SimLayout layout;
  layout.sms_of_gpc.resize(sizes.size());
  for (size_t g = 0; g < sizes.size(); ++g) {
    for (int i = 0; i < sizes[g]; ++i) {
      layout.sms_of_gpc[g].push_back(static_cast<int>(layout.true_gpc.size()));
      layout.true_gpc.push_back(static_cast<int>(g));
    }
  }
  return layout;
}

SimLayout H100LikeLayout() { return InterleavedLayout({18, 18, 18, 18, 16, 16, 16, 12}); }

SimLayout H100ClusterDomains() {
  constexpr int kTpcs = 66;
  SimLayout layout;
  layout.true_gpc.resize(kTpcs * kSmsPerTpc);
  layout.sms_of_gpc.resize(12);
  for (int tpc = 0; tpc < kTpcs; ++tpc) {
    int domain = 0;
    if (tpc < 32) {
      domain = tpc % 8;
    } else if (tpc < 60) {
      domain = 1 + (tpc - 32) % 7;
    } else if (tpc < 62) {
      domain = 6 + (tpc - 60);
    } else {
      domain = 8 + (tpc - 62);
    }
    for (int i = 0; i < kSmsPerTpc; ++i) {
      const int sm = tpc * kSmsPerTpc + i;
      layout.true_gpc[sm] = domain;
      layout.sms_of_gpc[domain].push_back(sm);
    }
  }
  return layout;
}

int SimMaxActiveClusters(const SimLayout& layout, int cluster_size, int blocks_per_sm) {
  int clusters = 0;
  for (const std::vector<int>& sms : layout.sms_of_gpc) {
    clusters += static_cast<int>(sms.size()) * blocks_per_sm / cluster_size;
  }
  return clusters;
}

std::vector<GpcClusterShape> SimShapes(const SimLayout& layout, const std::vector<int>& sizes,
                                       const std::vector<int>& blocks_per_sm) {
  std::vector<GpcClusterShape> shapes;
  for (const int per_sm : blocks_per_sm) {
    for (const int size : sizes) {
      shapes.push_back({size, per_sm, SimMaxActiveClusters(layout, size, per_sm)});
    }
  }
  return shapes;
}

LaunchRecord PlaceDeterministically(const SimLayout& layout, const GpcLaunchStep& step,
                                    SimGpcOrder order) {
  const std::vector<std::vector<int>> slots = FreeSlots(layout, step);
  const int size = step.shape.cluster_size;
  LaunchRecord launch;
  int cluster = 0;
  while (cluster < step.clusters) {
    // One wave: the device empty of probe blocks, GPCs visited in order.
    std::vector<size_t> used(slots.size(), 0);
    const int wave_start = cluster;
    bool placed = true;
    while (placed && cluster < step.clusters) {
      placed = false;
      for (size_t g = 0; g < slots.size() && cluster < step.clusters; ++g) {
        while (used[g] + size <= slots[g].size() && cluster < step.clusters) {
          AddCluster(slots[g], used[g], size, cluster++, launch);
          used[g] += size;
          placed = true;
          if (order == SimGpcOrder::kRoundRobin) break;
        }
      }
    }
    if (cluster == wave_start) break;  // not one cluster fits
  }
  return launch;
}

LaunchRecord PlaceRandomly(const SimLayout& layout, const GpcLaunchStep& step, std::mt19937& rng) {
  std::vector<std::vector<int>> slots = FreeSlots(layout, step);
  const int size = step.shape.cluster_size;
  LaunchRecord launch;
  int cluster = 0;
  for (std::vector<int>& gpc : slots) {
    std::shuffle(gpc.begin(), gpc.end(), rng);
    for (size_t first = 0; first + size <= gpc.size() && cluster < step.clusters; first += size) {
      AddCluster(gpc, first, size, cluster++, launch);
    }
  }
  return launch;
}

bool SamePartition(const SimLayout& layout, const GpcMap& map, std::string* why) {
  const int n = static_cast<int>(layout.true_gpc.size());
  if (map.gpc_of_sm.size() != layout.true_gpc.size()) {
    *why = absl::StrCat("map covers ", map.gpc_of_sm.size(), " SMs, layout ", n);
    return false;
  }
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (map.gpc_of_sm[a] < 0 || map.gpc_of_sm[b] < 0) continue;
      if ((map.gpc_of_sm[a] == map.gpc_of_sm[b]) != (layout.true_gpc[a] == layout.true_gpc[b])) {
        *why = absl::StrCat("SMs ", a, " and ", b, ": inferred GPCs ", map.gpc_of_sm[a], " and ",
                            map.gpc_of_sm[b], ", true GPCs ", layout.true_gpc[a], " and ",
                            layout.true_gpc[b]);
        return false;
      }
    }
  }
  return true;
}

}  // namespace dissect
