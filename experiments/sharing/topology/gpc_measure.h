// Measures the SM-to-GPC map of this device (issue 14): launches the
// topology probe (kernels/topology) in thread-block clusters and infers the
// map from where each cluster's blocks ran (probes/topology/gpc_map.h).
// Other parts of the intergroup-sharing probe (l1_duplication) call
// MeasureGpcMap to group SMs by GPC.
#ifndef DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MEASURE_H_
#define DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MEASURE_H_

#include <cuda_runtime_api.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "experiments/sharing/cluster_support.h"
#include "probes/device_info.h"
#include "probes/topology/gpc_map.h"

namespace dissect {

// Spin per block, in SM cycles, so that a launch's blocks are resident
// together instead of one after another on the same SMs.
inline constexpr long long kTopologySpinCycles = 20000;

// What the launches of one measurement used.
struct GpcProbePlan {
  // Cluster sizes in launch order: launch i uses sizes[i % sizes.size()].
  // The largest first.
  std::vector<ClusterFit> fits;
  int block_threads = 32;
  // Dynamic shared memory per block: the device's per-block opt-in maximum,
  // so that one block fits per SM and a cluster's blocks run on distinct
  // SMs.
  size_t dynamic_shared_bytes = 0;
};

// OK for 0 and powers of two >= 2 (sizes above the device's maximum pass
// here and are Skipped by PlanGpcProbe); InvalidArgument otherwise.
absl::Status ValidateGpcClusterSize(int cluster_size);

// Plans the launches. cluster_size 0: the largest size that fits (16 with
// the non-portable opt-in, else 8, ...), alternating with the smaller sizes
// down to 2 (GPCs with fewer free SMs than the largest cluster are covered
// by the smaller ones). An explicit size (2, 4, 8, 16): that size only.
// Skipped(reason) on a device without clusters or for a size that cannot
// run here (CheckClusterLaunch: above 16, or above what the device allows);
// InvalidArgument where ValidateGpcClusterSize refuses the size.
absl::StatusOr<GpcProbePlan> PlanGpcProbe(const DeviceInfo& device, int cluster_size);

// Runs `launches` launches of the plan (launch i: fits[i % size]
// max_active_clusters × cluster_size blocks), each spinning
// kTopologySpinCycles, and returns where every block ran. Synchronizes the
// stream.
absl::StatusOr<std::vector<LaunchRecord>> RunGpcProbe(const GpcProbePlan& plan, cudaStream_t stream,
                                                      int launches);

// Plans (cluster_size 0), runs `launches` launches and infers the map over
// SmIdBound(device.sm_count, records) SMs.
// Skipped(reason) on a device without clusters; InvalidArgument for
// launches < 1.
absl::StatusOr<GpcMap> MeasureGpcMap(const DeviceInfo& device, cudaStream_t stream, int launches);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_TOPOLOGY_GPC_MEASURE_H_
