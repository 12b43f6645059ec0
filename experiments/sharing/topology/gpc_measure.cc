#include "experiments/sharing/topology/gpc_measure.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/harness/experiment.h"
#include "kernels/topology/topology.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

constexpr int kLargestFirst[] = {16, 8, 4, 2};

}  // namespace

absl::Status ValidateGpcClusterSize(int cluster_size) {
  if (cluster_size == 0 || (cluster_size >= 2 && (cluster_size & (cluster_size - 1)) == 0)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cluster_size must be 0 (the largest that fits) or a power of two >= 2 (got ",
                   cluster_size, ")"));
}

absl::StatusOr<GpcProbePlan> PlanGpcProbe(const DeviceInfo& device, int cluster_size) {
  DISSECT_RETURN_IF_ERROR(ValidateGpcClusterSize(cluster_size));
  DISSECT_RETURN_IF_ERROR(ClustersSupported(device));
  GpcProbePlan plan;
  plan.dynamic_shared_bytes = static_cast<size_t>(device.shared_per_block_optin_bytes);
  const void* kernel = TopologyProbeKernel();
  if (cluster_size != 0) {
    DISSECT_ASSIGN_OR_RETURN(const ClusterFit fit,
                             CheckClusterLaunch(device, kernel, cluster_size, plan.block_threads,
                                                plan.dynamic_shared_bytes));
    plan.fits.push_back(fit);
    return plan;
  }
  std::string refusals;
  for (const int size : kLargestFirst) {
    absl::StatusOr<ClusterFit> fit =
        CheckClusterLaunch(device, kernel, size, plan.block_threads, plan.dynamic_shared_bytes);
    if (fit.ok()) {
      plan.fits.push_back(*fit);
    } else if (IsSkipped(fit.status())) {
      absl::StrAppend(&refusals, refusals.empty() ? "" : ", ", fit.status().message());
    } else {
      return fit.status();
    }
  }
  if (plan.fits.empty()) {
    return Skipped(absl::StrCat("no cluster size of 2..16 runs here: ", refusals));
  }
  return plan;
}

absl::StatusOr<std::vector<LaunchRecord>> RunGpcProbe(const GpcProbePlan& plan, cudaStream_t stream,
                                                      int launches) {
  if (plan.fits.empty()) return absl::InvalidArgumentError("the plan has no cluster size");
  if (launches < 1) {
    return absl::InvalidArgumentError(absl::StrCat("launches must be >= 1, got ", launches));
  }
  size_t max_blocks = 0;
  for (const ClusterFit& fit : plan.fits) {
    max_blocks = std::max(max_blocks, static_cast<size_t>(fit.max_active_clusters) *
                                          static_cast<size_t>(fit.cluster_size));
  }
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<TopologyBlockRecord> device_records,
                           DeviceBuffer<TopologyBlockRecord>::Allocate(max_blocks));
  std::vector<TopologyBlockRecord> host(max_blocks);
  std::vector<LaunchRecord> records;
  records.reserve(static_cast<size_t>(launches));
  for (int i = 0; i < launches; ++i) {
    const ClusterFit& fit = plan.fits[static_cast<size_t>(i) % plan.fits.size()];
    TopologyArgs args;
    args.cluster_size = fit.cluster_size;
    args.clusters = fit.max_active_clusters;
    args.block_threads = plan.block_threads;
    args.dynamic_shared_bytes = plan.dynamic_shared_bytes;
    args.spin_cycles = kTopologySpinCycles;
    args.records = device_records.get();
    const size_t blocks = static_cast<size_t>(args.clusters) * args.cluster_size;
    // All bits set: a block that never wrote its record reads as SM -1,
    // which InferGpcMap ignores and counts.
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(device_records.get(), 0xff, blocks * sizeof(TopologyBlockRecord), stream));
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchTopologyProbe(args, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host.data(), device_records.get(),
                                                 blocks * sizeof(TopologyBlockRecord),
                                                 cudaMemcpyDeviceToHost, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    LaunchRecord launch;
    launch.blocks.reserve(blocks);
    for (size_t b = 0; b < blocks; ++b) {
      launch.blocks.push_back({host[b].smid, host[b].cluster, host[b].cluster_rank});
    }
    records.push_back(std::move(launch));
  }
  return records;
}

absl::StatusOr<GpcMap> MeasureGpcMap(const DeviceInfo& device, cudaStream_t stream, int launches) {
  if (launches < 1) {
    return absl::InvalidArgumentError(absl::StrCat("launches must be >= 1, got ", launches));
  }
  DISSECT_ASSIGN_OR_RETURN(const GpcProbePlan plan, PlanGpcProbe(device, 0));
  DISSECT_ASSIGN_OR_RETURN(const std::vector<LaunchRecord> records,
                           RunGpcProbe(plan, stream, launches));
  return InferGpcMap(SmIdBound(device.sm_count, records), records);
}

}  // namespace dissect
