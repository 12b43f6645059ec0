// Question: which SMs of this GPU share a GPC (graphics processing
//           cluster), and how many SMs does each GPC have?
// Timed:    nothing is timed for the answer: the topology probe
//           (kernels/topology) is launched `launches` times in 1-D
//           thread-block clusters, one block per SM (the block asks for the
//           per-block maximum of dynamic shared memory), max active clusters
//           × cluster size blocks per launch; thread 0 of each block records
//           %smid, %clusterid.x and %cluster_ctarank, then spins 20000 SM
//           cycles (%clock64) so that the launch's blocks are resident
//           together. The hardware places a cluster's blocks on one GPC, so
//           SMs seen in one cluster share a GPC; InferGpcMap
//           (probes/topology/gpc_map.h) merges SMs linked in at least two
//           launches and reports observations the repetitions contradict as
//           inconsistent_sms. cluster_size 0 alternates the largest size
//           that fits (16 with the non-portable opt-in) with the smaller
//           ones down to 2, so that GPCs with fewer free SMs than the
//           largest cluster are covered too. Events time single launches of
//           the largest size for the row's time (launch plus the spin: no
//           latency is asked).
// Expected: H100 SXM5 enables 132 of the die's 144 SMs (8 GPCs of up to 18
//           SMs), so the GPC sizes are uneven, e.g. some GPCs of 16 and some
//           of 18 (from the literature, not our measurement); the number of
//           16-block clusters that fit (max_active_clusters) counts the GPCs
//           with at least 16 free SMs. SM numbering need not be contiguous
//           per GPC. %smid compiles to SR_VIRTUALSMID on sm_90: under MPS or
//           green contexts the ids are virtual. Devices below compute
//           capability 9.0 have no clusters: every point is skipped.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "experiments/harness/experiment.h"
#include "experiments/sharing/topology/gpc_measure.h"
#include "kernels/topology/topology.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/topology/gpc_map.h"

namespace dissect {
namespace {

constexpr int kMaxLaunches = 4096;

absl::Status ValidatePoint(const Point& point) {
  const int64_t launches = point.Int("launches");
  if (launches < 1 || launches > kMaxLaunches) {
    return absl::InvalidArgumentError(
        absl::StrCat("launches must be in 1..", kMaxLaunches, " (got ", launches, ")"));
  }
  const int64_t cluster_size = point.Int("cluster_size");
  if (cluster_size < 0 || cluster_size > (1 << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster_size must be 0 (the largest that fits) or a power of two >= 2 (got ",
                     cluster_size, ")"));
  }
  return ValidateGpcClusterSize(static_cast<int>(cluster_size));
}

std::vector<double> AsDoubles(const std::vector<int>& values) {
  return std::vector<double>(values.begin(), values.end());
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const GpcProbePlan plan,
                           PlanGpcProbe(ctx.device(), static_cast<int>(ctx.Int("cluster_size"))));
  const ClusterFit& largest = plan.fits.front();

  // The row's time: one launch of the largest cluster size.
  TopologyArgs args;
  args.cluster_size = largest.cluster_size;
  args.clusters = largest.max_active_clusters;
  args.block_threads = plan.block_threads;
  args.dynamic_shared_bytes = plan.dynamic_shared_bytes;
  args.spin_cycles = kTopologySpinCycles;
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<TopologyBlockRecord> timed_records,
                           DeviceBuffer<TopologyBlockRecord>::Allocate(
                               static_cast<size_t>(args.clusters) * args.cluster_size));
  args.records = timed_records.get();
  DISSECT_RETURN_IF_ERROR(
      ctx.TimeKernel([&args](cudaStream_t s) { return LaunchTopologyProbe(args, s); },
                     CacheState::kHot)
          .status());

  DISSECT_ASSIGN_OR_RETURN(const std::vector<LaunchRecord> records,
                           RunGpcProbe(plan, ctx.stream(), static_cast<int>(ctx.Int("launches"))));
  const GpcMap map = InferGpcMap(SmIdBound(ctx.device().sm_count, records), records);

  const int mapped = static_cast<int>(map.gpc_of_sm.size()) - map.unmapped_sms;
  const int size_min =
      map.gpc_sizes.empty() ? 0 : *std::min_element(map.gpc_sizes.begin(), map.gpc_sizes.end());
  const int size_max =
      map.gpc_sizes.empty() ? 0 : *std::max_element(map.gpc_sizes.begin(), map.gpc_sizes.end());
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("gpcs", {static_cast<double>(map.gpc_count)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("sms_mapped", {static_cast<double>(mapped)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("gpc_size_min", {static_cast<double>(size_min)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("gpc_size_max", {static_cast<double>(size_max)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("inconsistent_sms", {static_cast<double>(map.inconsistent_sms)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("cluster_size_used", {static_cast<double>(largest.cluster_size)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("max_active_clusters", {static_cast<double>(largest.max_active_clusters)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("sm_ids", {static_cast<double>(map.gpc_of_sm.size())}));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("gpc_of_sm", AsDoubles(map.gpc_of_sm)));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("gpc_sizes", AsDoubles(map.gpc_sizes)));

  std::vector<std::string> sizes;
  for (const ClusterFit& fit : plan.fits) {
    sizes.push_back(absl::StrCat(fit.cluster_size, " (", fit.max_active_clusters, " active)"));
  }
  ctx.AddNote(absl::StrCat("cluster sizes in turn: ", absl::StrJoin(sizes, " ")));
  if (!map.note.empty()) ctx.AddNote(absl::StrReplaceAll(map.note, {{";", ","}}));
  return absl::OkStatus();
}

DISSECT_EXPERIMENT(gpc_topology)
    .Question("Which SMs share a GPC, and how many SMs does each GPC have?")
    .AddAxis(IntAxis("launches", "launches", {32},
                     "cluster launches the map is inferred from (1..4096)"))
    .AddAxis(IntAxis("cluster_size", "blocks", {0},
                     "blocks per cluster: 0 = the largest that fits, alternating with the "
                     "smaller sizes down to 2; else 2, 4, 8 or 16"))
    .AddMetric("gpcs", "GPCs", "groups of SMs that ran blocks of one cluster")
    .AddMetric("sms_mapped", "SMs", "SMs seen in at least one launch")
    .AddMetric("gpc_size_min", "SMs", "SMs of the smallest GPC")
    .AddMetric("gpc_size_max", "SMs", "SMs of the largest GPC")
    .AddMetric("inconsistent_sms", "SMs",
               "SMs seen once in a cluster with another GPC's SMs, against repeated "
               "observations")
    .AddMetric("cluster_size_used", "blocks", "the largest cluster size launched")
    .AddMetric("max_active_clusters", "clusters",
               "clusters of that size that fit at once (cudaOccupancyMaxActiveClusters)")
    .AddMetric("sm_ids", "SMs",
               "SM ids the map covers: the SM count, or the highest %smid + 1 if higher")
    .AddVector("gpc_of_sm", "-", "sm", "GPC of each SM (-1: never seen)")
    .AddVector("gpc_sizes", "SMs", "gpc", "SMs of each GPC, GPCs numbered by their lowest SM")
    .Validate(ValidatePoint)
    .Run(Run);

}  // namespace
}  // namespace dissect
