// Measures the SM-to-GPC map of this device: launches the
// topology probe (kernels/topology) in thread-block clusters, following the
// varied schedule of experiments/sharing/topology/gpc_schedule.h (grids, blocks per SM
// and SMs held by the blocker kernel change between launches), and infers
// the map from where each cluster's blocks ran (experiments/sharing/topology/gpc_map.h).
// Other parts of the intergroup-sharing probe (l1_duplication) call
// MeasureGpcMap to group SMs by GPC.
#ifndef DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MEASURE_H_
#define DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MEASURE_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/sharing/cluster_support.h"
#include "experiments/sharing/topology/gpc_map.h"
#include "experiments/sharing/topology/gpc_schedule.h"
#include "kernels/topology/topology.h"
#include "probes/device_info.h"

namespace dissect {

// Spin per block, in SM cycles, so that a launch's blocks are resident
// together instead of one after another on the same SMs.
inline constexpr long long kTopologySpinCycles = 20000;
// The blocker gives up holding its SMs after this many cycles (about 1 s at
// 2 GHz): far longer than one probe launch, short enough that a host that
// died cannot leave the GPU held.
inline constexpr long long kBlockerMaxCycles = 2000000000;

// One cluster shape the device runs, with the shared memory that gives its
// blocks per SM.
struct GpcProbeShape {
  GpcClusterShape shape;
  size_t dynamic_shared_bytes = 0;
};

// What the launches of one measurement use.
struct GpcProbePlan {
  // Largest cluster size at one block per SM first (the row's timed launch).
  std::vector<GpcProbeShape> shapes;
  int block_threads = 32;
  int sm_count = 0;  // blocker grid: one block per SM
  // The per-block opt-in maximum: the blocker's shared memory, and the
  // probe's at one block per SM.
  size_t max_shared_bytes = 0;
  // Shapes the device refused, in words (empty: none).
  std::string refusals;
};

// The shapes alone, for GpcLaunchSchedule and SmallestClusterSize.
std::vector<GpcClusterShape> ClusterShapes(const GpcProbePlan& plan);

// Dynamic shared memory per probe block for `blocks_per_sm` blocks per SM:
// the opt-in maximum for 1, a third of it for 2 (see PlanGpcProbe).
size_t GpcShapeSharedBytes(size_t max_shared_bytes, int blocks_per_sm);

// The probe launch of `shape` with `clusters` clusters (records left null).
TopologyArgs ProbeLaunchArgs(const GpcProbePlan& plan, const GpcProbeShape& shape, int clusters);

// The probe kernel's function attributes that every launch of the plan
// needs: the largest dynamic shared memory of its shapes
// (cudaFuncAttributeMaxDynamicSharedMemorySize) and whether a shape is above
// kPortableClusterSize (cudaFuncAttributeNonPortableClusterSizeAllowed).
// CheckClusterLaunch sets the shared-memory attribute to the size it checks,
// so after planning it holds the last shape's (a third of the opt-in
// maximum), below what the shapes at one block per SM launch with.
struct GpcProbeKernelLimits {
  size_t max_dynamic_shared_bytes = 0;
  bool non_portable_cluster_size = false;
};
GpcProbeKernelLimits ProbeKernelLimits(const GpcProbePlan& plan);

// Sets the probe kernel's attributes to ProbeKernelLimits(plan), so that
// every shape of the plan launches (a launch above the kernel's shared-memory
// attribute fails with cudaErrorInvalidValue).
absl::Status PrepareProbeKernel(const GpcProbePlan& plan);

// OK for 0 and powers of two >= 2 (sizes above the device's maximum pass
// here and are Skipped by PlanGpcProbe); InvalidArgument otherwise.
absl::Status ValidateGpcClusterSize(int cluster_size);

// Plans the launches. cluster_size 0: the shapes of kGpcShapeRequests that
// fit (16 needs the non-portable opt-in); an explicit size (2, 4, 8, 16):
// that size at one block per SM, and at two from 4. Two blocks per SM come
// from a third of the opt-in shared memory per block (two fit beside the
// per-block reserve, three do not); the shape records the blocks per SM the
// occupancy calculator reports and is dropped where that is not 2.
// Skipped(reason) on a device without clusters or when no size runs at one
// block per SM (CheckClusterLaunch); InvalidArgument where
// ValidateGpcClusterSize refuses the size. On success the probe kernel is
// prepared for every shape of the plan (PrepareProbeKernel).
absl::StatusOr<GpcProbePlan> PlanGpcProbe(const DeviceInfo& device, int cluster_size);

// What RunGpcProbe saw.
struct GpcProbeRun {
  std::vector<LaunchRecord> records;  // one per launch, with its blocked SMs
  // The launches as scheduled (GpcLaunchSchedule), one per record.
  std::vector<GpcLaunchStep> steps;
  // Per launch: its blocker did not take every SM before the probe ran or
  // gave up waiting (false for a launch without a blocker).
  std::vector<bool> blocker_failed;
  int blocked_launches = 0;  // launches with a blocker
  // Blocked launches whose blocker failed (see blocker_failed).
  int blocker_failures = 0;
};

// The shapes at one block per SM whose max_active_clusters
// (cudaOccupancyMaxActiveClusters) differs from ClustersThatFit(map, size),
// in words ("clusters of 16: 7 fit, the map's groups hold 8"): a cluster
// domain the map split or merged. Empty when all agree. Shapes at two
// blocks per SM are not compared: on the H100 the occupancy calculator
// answers 14 and 62 for 16 and 4 blocks there, fewer than the same groups
// hold at two blocks per SM (15 and 66).
std::vector<std::string> CapacityMismatches(const std::vector<GpcClusterShape>& shapes,
                                            const GpcMap& map);

// Every launch of `run` as JSON, for inferring the map again off the device
// and for seeing which launches ran more blocks on an SM than their blocks
// per SM or ran blocks on held SMs: {"sm_count", "shapes": [{cluster_size,
// blocks_per_sm, max_active_clusters, dynamic_shared_bytes}], "launches":
// [{shape, clusters, blocked_sms, blocker_failed, blocks: [[sm, cluster,
// rank], ...] in block order}]}.
std::string GpcRunJson(const GpcProbePlan& plan, const GpcProbeRun& run);

// Runs `launches` launches of GpcLaunchSchedule(plan.sm_count, shapes,
// launches): each spinning kTopologySpinCycles, those with held SMs beside a
// resident blocker on a second stream. Synchronizes the stream.
absl::StatusOr<GpcProbeRun> RunGpcProbe(const GpcProbePlan& plan, cudaStream_t stream,
                                        int launches);

// Plans (cluster_size 0), runs `launches` launches and infers the map over
// SmIdBound(device.sm_count, records) SMs, groups smaller than the smallest
// cluster size unresolved. Skipped(reason) on a device without clusters;
// InvalidArgument for launches < 1.
absl::StatusOr<GpcMap> MeasureGpcMap(const DeviceInfo& device, cudaStream_t stream, int launches);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MEASURE_H_
