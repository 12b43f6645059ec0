// Question: which SMs of this GPU share a GPC (graphics processing
//           cluster), and how many SMs does each GPC have?
// Timed:    nothing is timed for the answer: the topology probe
//           (kernels/topology) is launched `launches` times in 1-D
//           thread-block clusters; thread 0 of each block records %smid,
//           %clusterid.x and %cluster_ctarank, then spins 20000 SM cycles
//           (%clock64) so that the launch's blocks are resident together.
//           The hardware places a cluster's blocks on one GPC, so SMs seen
//           in one cluster share a GPC; InferGpcMap
//           (experiments/sharing/topology/gpc_map.h) merges SMs linked in at least two
//           launches and reports observations the repetitions contradict as
//           inconsistent_sms. The launches follow GpcLaunchSchedule
//           (experiments/sharing/topology/gpc_schedule.h), each step twice: cluster_size
//           0 takes sizes 16 (non-portable opt-in), 8, 4, 2 at one block
//           per SM (the per-block opt-in shared memory) and 16, 8, 4 at two
//           (a third of it); a first round at the full grid
//           (max_active_clusters), then rounds in which a blocker kernel
//           (one block per SM, the opt-in shared memory, on a second
//           stream) holds about one SM in 8, a different pseudo-random set
//           each round, while the grid is scaled to the free SMs less 0-2
//           clusters. Groups smaller than the smallest cluster size at one
//           block per SM, or of one TPC (2 SMs), are reported as
//           unresolved_sms, never as GPCs; those of one TPC that ran
//           clusters of their own also as single_tpc_sms. The groups must
//           hold as many clusters of each size at one block per SM as
//           cudaOccupancyMaxActiveClusters says fit (capacity_mismatches
//           counts the sizes where they do not). --gpc_records_dir writes
//           every launch's placements (GpcRunJson) for a look off the
//           device.
//           Events time single launches of the largest size for the row's
//           time (launch plus the spin: no latency is asked).
// Expected: H100 SXM5 enables 132 of the die's 144 SMs (8 GPCs of up to 18
//           SMs), so the GPC sizes are uneven, e.g. some GPCs of 16 and some
//           of 18 (from the literature, not our measurement); the number of
//           16-block clusters that fit (max_active_clusters) counts the GPCs
//           with at least 16 free SMs. Clusters show the cluster
//           scheduler's domains, not whole GPCs: from Hopper the driver
//           keeps a few TPCs out of their GPC's clusters (singleton TPCs,
//           see experiments/sharing/topology/gpc_map.h). The H100 80GB HBM3 of
//           2026-11-27 had 4 (SMs 124..131) beside 8 groups of 8, 16 x5
//           and 18 x2 SMs, which is what its occupancy calculator counts
//           (7, 15, 30, 66 clusters of 16, 8, 4, 2): gpcs 8, single_tpc_sms
//           8, and the GPC sizes leave those TPCs out (which GPC holds them
//           no cluster shows). SM numbering need not be contiguous
//           per GPC. %smid compiles to SR_VIRTUALSMID on sm_90: under MPS or
//           green contexts the ids are virtual. Devices below compute
//           capability 9.0 have no clusters: every point is skipped.
// Confused with: launch-order artefacts of a deterministic scheduler taken
//           for GPC boundaries. Identical launches on an idle GPU may land
//           identically, so an 18-SM GPC whose 16-block cluster always takes
//           the same 16 SMs would be reported as a GPC of 16 and one of 2
//           (H100: ~13 "GPCs" down to 2 SMs, inconsistent_sms 0). Singleton
//           TPCs look the same and no schedule joins them; a group of one
//           TPC is therefore never a GPC, and capacity_mismatches > 0 says a
//           larger domain was split or merged. The
//           blocker and the varied grids and occupancies move the clusters;
//           gpc_schedule_test shows the confusion is not happening on a
//           simulated scheduler whose placement is a fixed function of
//           (grid, blocks per SM, held SMs): the plain schedule splits the
//           GPCs there (PlainScheduleSplitsGpcs), this one recovers the
//           exact map on four layouts in two GPC orders
//           (DeterministicPlacementTest.VariedScheduleRecoversTheGpcs), and
//           gpc_map_test that a small consistent group is unresolved, not a
//           GPC (GroupSmallerThanTheSmallestClusterIsUnresolved). Whether
//           the blocker held its SMs on the device is checked per launch:
//           a probe block on a held SM, or a blocker that was not resident
//           in time, is named in the row's note.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "experiments/framework/experiment.h"
#include "experiments/result_format/atomic_file.h"
#include "experiments/sharing/topology/gpc_map.h"
#include "experiments/sharing/topology/gpc_measure.h"
#include "experiments/sharing/topology/gpc_schedule.h"
#include "gflags/gflags.h"
#include "kernels/topology/topology.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

DEFINE_string(gpc_records_dir, "",
              "if set, a folder that gets one JSON file per point with every launch's block "
              "placements, shapes and held SMs (gpc_records_<launches>_<cluster_size>.json)");

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

// The row's time: one launch of the plan's first shape (the largest cluster
// size at one block per SM) at its full grid.
absl::Status TimeLargest(PointContext& ctx, const GpcProbePlan& plan) {
  const GpcProbeShape& largest = plan.shapes.front();
  TopologyArgs args = ProbeLaunchArgs(plan, largest, largest.shape.max_active_clusters);
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<TopologyBlockRecord> timed_records,
                           DeviceBuffer<TopologyBlockRecord>::Allocate(
                               static_cast<size_t>(args.clusters) * args.cluster_size));
  args.records = timed_records.get();
  return ctx.TimeKernel([&args](cudaStream_t s) { return LaunchTopologyProbe(args, s); },
                        CacheState::kHot)
      .status();
}

// Writes the run's launches to --gpc_records_dir (nothing when unset) and
// says where in the row's note.
absl::Status WriteRecords(PointContext& ctx, const GpcProbePlan& plan, const GpcProbeRun& run) {
  if (FLAGS_gpc_records_dir.empty()) return absl::OkStatus();
  const std::string path = absl::StrCat(FLAGS_gpc_records_dir, "/gpc_records_",
                                        ctx.Int("launches"), "_", ctx.Int("cluster_size"), ".json");
  DISSECT_RETURN_IF_ERROR(result_format::WriteFileAtomically(path, GpcRunJson(plan, run)));
  ctx.AddNote(absl::StrCat("launch records in ", path));
  return absl::OkStatus();
}

absl::Status AddMap(PointContext& ctx, const GpcMap& map) {
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
      ctx.AddSamples("unresolved_sms", {static_cast<double>(map.unresolved_sms)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("single_tpc_sms", {static_cast<double>(map.single_tpc_sms)}));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("sm_ids", {static_cast<double>(map.gpc_of_sm.size())}));
  DISSECT_RETURN_IF_ERROR(ctx.SetVector("gpc_of_sm", AsDoubles(map.gpc_of_sm)));
  return ctx.SetVector("gpc_sizes", AsDoubles(map.gpc_sizes));
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const GpcProbePlan plan,
                           PlanGpcProbe(ctx.device(), static_cast<int>(ctx.Int("cluster_size"))));
  DISSECT_RETURN_IF_ERROR(TimeLargest(ctx, plan));

  DISSECT_ASSIGN_OR_RETURN(const GpcProbeRun run,
                           RunGpcProbe(plan, ctx.stream(), static_cast<int>(ctx.Int("launches"))));
  DISSECT_RETURN_IF_ERROR(WriteRecords(ctx, plan, run));
  const std::vector<GpcClusterShape> shapes = ClusterShapes(plan);
  const GpcMap map = InferGpcMap(SmIdBound(ctx.device().sm_count, run.records), run.records,
                                 SmallestClusterSize(shapes));
  DISSECT_RETURN_IF_ERROR(AddMap(ctx, map));
  const std::vector<std::string> mismatches = CapacityMismatches(shapes, map);
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("capacity_mismatches", {static_cast<double>(mismatches.size())}));
  const GpcClusterShape& largest = shapes.front();
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("cluster_size_used", {static_cast<double>(largest.cluster_size)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("max_active_clusters", {static_cast<double>(largest.max_active_clusters)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("blocked_launches", {static_cast<double>(run.blocked_launches)}));
  DISSECT_RETURN_IF_ERROR(
      ctx.AddSamples("blocker_failures", {static_cast<double>(run.blocker_failures)}));

  std::vector<std::string> described;
  for (const GpcClusterShape& s : shapes) {
    described.push_back(absl::StrCat(s.cluster_size, "x", s.blocks_per_sm, "/SM (",
                                     s.max_active_clusters, " active)"));
  }
  ctx.AddNote(absl::StrCat("cluster shapes in turn: ", absl::StrJoin(described, " ")));
  if (!plan.refusals.empty()) {
    ctx.AddNote(absl::StrReplaceAll(absl::StrCat("not run: ", plan.refusals), {{";", ","}}));
  }
  if (run.blocker_failures > 0) {
    ctx.AddNote(absl::StrCat(run.blocker_failures, " of ", run.blocked_launches,
                             " blocked launches without every SM held in time"));
  }
  if (!mismatches.empty()) {
    ctx.AddNote(absl::StrCat("the groups disagree with the occupancy calculator (",
                             absl::StrJoin(mismatches, ", "), ")"));
  }
  if (!map.note.empty()) ctx.AddNote(absl::StrReplaceAll(map.note, {{";", ","}}));
  return absl::OkStatus();
}

DISSECT_EXPERIMENT(gpc_topology)
    .NeedsComputeCapability(90, "thread-block clusters")
    .Question("Which SMs share a GPC, and how many SMs does each GPC have?")
    .AddAxis(IntAxis("launches", "launches", {kGpcDefaultLaunches},
                     "cluster launches the map is inferred from (1..4096), in the varied "
                     "schedule: a full-grid round, then rounds with SMs held by a blocker"))
    .AddAxis(IntAxis("cluster_size", "blocks", {0},
                     "blocks per cluster: 0 = 16, 8, 4, 2 at one block per SM and 16, 8, 4 "
                     "at two, in turn (those that fit); else that size at one and two"))
    .AddMetric("gpcs", "GPCs",
               "groups of SMs that ran blocks of one cluster, of at least the smallest "
               "cluster size and more than one TPC")
    .AddMetric("sms_mapped", "SMs", "SMs seen in at least one launch")
    .AddMetric("gpc_size_min", "SMs",
               "SMs of the smallest GPC (those its clusters use: singleton TPCs left out)")
    .AddMetric("gpc_size_max", "SMs", "SMs of the largest GPC (as gpc_size_min)")
    .AddMetric("inconsistent_sms", "SMs",
               "SMs seen once in a cluster with another GPC's SMs, against repeated "
               "observations")
    .AddMetric("unresolved_sms", "SMs",
               "SMs in groups smaller than the smallest cluster size that fits or of one "
               "TPC (GPC -1): not GPCs")
    .AddMetric("single_tpc_sms", "SMs",
               "unresolved SMs in groups of one TPC that ran clusters of their own: "
               "singleton TPCs (kept out of their GPC's clusters) or GPC parts no launch "
               "joined")
    .AddMetric("capacity_mismatches", "cluster sizes",
               "cluster sizes at one block per SM for which the groups hold another number "
               "of clusters than cudaOccupancyMaxActiveClusters says fit")
    .AddMetric("blocked_launches", "launches", "launches with SMs held by the blocker kernel")
    .AddMetric("blocker_failures", "launches",
               "blocked launches whose blocker did not hold every SM in time")
    .AddMetric("cluster_size_used", "blocks", "the largest cluster size launched")
    .AddMetric("max_active_clusters", "clusters",
               "clusters of that size that fit at once (cudaOccupancyMaxActiveClusters)")
    .AddMetric("sm_ids", "SMs",
               "SM ids the map covers: the SM count, or the highest %smid + 1 if higher")
    .AddFlag("gpc_records_dir")
    .AddVector("gpc_of_sm", "-", "sm", "GPC of each SM (-1: never seen, or unresolved)")
    .AddVector("gpc_sizes", "SMs", "gpc", "SMs of each GPC, GPCs numbered by their lowest SM")
    .Validate(ValidatePoint)
    .Run(Run);

}  // namespace
}  // namespace dissect
