// Test support: simulated devices for the GPC map (gpc_map_test,
// gpc_schedule_test). A layout says which GPC each SM belongs to; the
// placement models say where a launch of the topology probe would run.
#ifndef DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_SIM_H_
#define DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_SIM_H_

#include <random>
#include <string>
#include <vector>

#include "experiments/sharing/topology/gpc_map.h"
#include "experiments/sharing/topology/gpc_schedule.h"

namespace dissect {

// A device layout: true_gpc[sm], and each GPC's SMs ascending.
struct SimLayout {
  std::vector<int> true_gpc;
  std::vector<std::vector<int>> sms_of_gpc;
};

// SMs dealt round-robin to GPCs of the given sizes (skipping full ones), so
// that the numbering interleaves GPCs as on real parts.
SimLayout InterleavedLayout(const std::vector<int>& sizes);
// GPC 0 holds SMs 0..sizes[0]-1, GPC 1 the next ones, and so on.
SimLayout ContiguousLayout(const std::vector<int>& sizes);
// H100 SXM5-like: 132 SMs in 8 interleaved GPCs of uneven size.
SimLayout H100LikeLayout();

// The cluster domains the H100 80GB HBM3 of 2026-11-27 showed
// (analysis/reference/h100_80gb_hbm3/2026-11-27-gpc-blocker-check,
// gpc_of_sm): TPC t is SMs 2t and 2t+1; TPCs 0..31 go round-robin to
// domains 0..7, TPCs 32..59 round-robin to domains 1..7, TPCs 60 and 61 to
// domains 6 and 7, and TPCs 62..65 (SMs 124..131) are domains 8..11 of one
// TPC each, the singleton TPCs the cluster scheduler keeps out of their GPC.
// Domain sizes 8, 16 x5, 18 x2 and 2 x4 SMs.
SimLayout H100ClusterDomains();

// What cudaOccupancyMaxActiveClusters answers on the idle device: the
// clusters that fit in each GPC, added up.
int SimMaxActiveClusters(const SimLayout& layout, int cluster_size, int blocks_per_sm);

// The shapes of every cluster size in `sizes` at every blocks-per-SM count
// in `blocks_per_sm`, with the layout's max active clusters.
std::vector<GpcClusterShape> SimShapes(const SimLayout& layout, const std::vector<int>& sizes,
                                       const std::vector<int>& blocks_per_sm);

// How a deterministic scheduler visits GPCs: each GPC filled before the
// next, or one cluster per GPC in turn.
enum class SimGpcOrder { kFillEach, kRoundRobin };

// A scheduler without randomness: every launch of the same step lands the
// same way. Within a GPC the free slots (SMs not held by the blocker, in
// ascending id, each SM's blocks_per_sm slots together) are taken in order,
// cluster_size at a time, while a whole cluster fits; GPCs in `order`.
// Clusters beyond what fits run in later waves placed the same way.
LaunchRecord PlaceDeterministically(const SimLayout& layout, const GpcLaunchStep& step,
                                    SimGpcOrder order);

// A scheduler that picks SMs at random: in each GPC, as many clusters as fit
// (up to the step's grid, GPCs in order) on a random choice of its free SMs.
LaunchRecord PlaceRandomly(const SimLayout& layout, const GpcLaunchStep& step, std::mt19937& rng);

// Whether every mapped SM pair is in one inferred GPC exactly when it is in
// one true GPC; the first counter-example in *why otherwise.
bool SamePartition(const SimLayout& layout, const GpcMap& map, std::string* why);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_SIM_H_
