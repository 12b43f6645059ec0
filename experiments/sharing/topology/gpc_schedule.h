// The launches the GPC map is inferred from (gpc_map.h), as data: host
// code decides every launch's cluster shape, grid and the SMs a
// resident blocker kernel holds, so that a simulated scheduler can replay
// exactly what the device is asked (gpc_schedule_test). CPU only.
//
// Why the launches must differ. A scheduler may place identical launches on
// an idle GPU identically: an 18-SM GPC is then always covered by the same
// 16 SMs of its 16-block cluster, and its 2 other SMs only ever share a
// cluster with each other, so the map splits the GPC in two. Varying the
// grid, the blocks per SM and, above all, which SMs are held by a blocker
// forces clusters onto other SMs: with 2 SMs of that GPC held, the cluster
// of 16 must take the 2 it used to leave out. A placement that depends only
// on (grid, blocks per SM, held SMs) is the model the test replays.
#ifndef DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_SCHEDULE_H_
#define DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_SCHEDULE_H_

#include <vector>

namespace dissect {

// A cluster shape the device runs: blocks per cluster, the blocks per SM the
// probe's shared memory allows, and how many such clusters fit at once on
// the idle device (cudaOccupancyMaxActiveClusters).
struct GpcClusterShape {
  int cluster_size = 2;
  int blocks_per_sm = 1;
  int max_active_clusters = 1;
};

// One launch of the topology probe.
struct GpcLaunchStep {
  GpcClusterShape shape;
  int shape_index = 0;  // index of `shape` in the shapes the schedule was made from
  int clusters = 1;  // the grid, in clusters
  // SM ids (%smid) a blocker kernel holds for the whole launch, ascending;
  // empty: no blocker.
  std::vector<int> blocked_sms;
};

// The shapes the experiment asks the device for, largest first: every
// cluster size at one block per SM (the smaller sizes cover GPCs with fewer
// free SMs than the largest), and the sizes from 4 at two blocks per SM
// (at 2 a cluster could sit on one SM and join nothing).
struct GpcShapeRequest {
  int cluster_size;
  int blocks_per_sm;
};
inline constexpr GpcShapeRequest kGpcShapeRequests[] = {{16, 1}, {8, 1}, {4, 1}, {2, 1},
                                                        {16, 2}, {8, 2}, {4, 2}};
// Launches per map by default: the plain round and 8 blocked rounds of the 7
// shapes, each step twice (126), rounded up. On simulated deterministic
// schedulers the map is exact from about 56-98 launches (gpc_schedule_test).
inline constexpr int kGpcDefaultLaunches = 128;

// Each step is launched twice in a row, so that a placement is confirmed by
// repetition (InferGpcMap merges groups linked in two launches) even where
// the scheduler is deterministic.
inline constexpr int kGpcStepRepeats = 2;
// A blocked round holds the SMs of one of this many classes (a fixed
// pseudo-random class per SM id, so the held SMs of a GPC are a different
// few each round whatever the SM numbering).
inline constexpr int kGpcBlockClasses = 8;

// The varied schedule, as the experiment launches it. Steps come in
// kGpcStepRepeats identical launches; step k uses shapes[k % shapes.size()]
// (shapes of several cluster sizes and blocks per SM), round r = k /
// shapes.size(). Round 0: the full grid (max_active_clusters), no blocker.
// Round r >= 1: a blocker holds the SMs of id < sm_count whose class for
// this round is (r - 1) % kGpcBlockClasses (about one SM in 8, a different
// draw of classes every kGpcBlockClasses rounds), and the grid is the full
// grid scaled to the free SMs, less r % 3 clusters (at least 1), so that
// the grid also varies.
std::vector<GpcLaunchStep> GpcLaunchSchedule(int sm_count, const std::vector<GpcClusterShape>& shapes,
                                             int launches);

// The smallest cluster size among `shapes` at one block per SM (0 when
// none): a GPC runs such a cluster, so a group of fewer SMs is a part of a
// GPC that no launch joined to the rest, never a GPC (InferGpcMap's
// min_gpc_sms).
int SmallestClusterSize(const std::vector<GpcClusterShape>& shapes);

// The plain schedule: launch i uses shapes[i % shapes.size()] with its full
// grid (max_active_clusters), no blocker. Identical launches repeat, so a
// deterministic scheduler repeats its placements and the map can split
// GPCs (see above); kept for comparison.
std::vector<GpcLaunchStep> PlainGpcSchedule(const std::vector<GpcClusterShape>& shapes,
                                            int launches);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_SCHEDULE_H_
