#include "experiments/sharing/topology/gpc_measure.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/framework/experiment.h"
#include "kernels/topology/topology.h"
#include "nlohmann/json.hpp"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"
#include "probes/pinned_buffer.h"

namespace dissect {
namespace {

// How long the host waits for the blocker to take its SMs.
constexpr auto kBlockerArrivalTimeout = std::chrono::seconds(2);

// Adds `cluster_size` at `blocks_per_sm` to the plan if the device runs it;
// a refusal goes to plan.refusals.
absl::Status AddShape(const DeviceInfo& device, int cluster_size, int blocks_per_sm,
                      GpcProbePlan& plan) {
  const void* kernel = TopologyProbeKernel();
  const size_t bytes = GpcShapeSharedBytes(plan.max_shared_bytes, blocks_per_sm);
  absl::StatusOr<ClusterFit> fit =
      CheckClusterLaunch(device, kernel, cluster_size, plan.block_threads, bytes);
  if (!fit.ok()) {
    if (!IsSkipped(fit.status())) return fit.status();
    absl::StrAppend(&plan.refusals, plan.refusals.empty() ? "" : ", ", fit.status().message());
    return absl::OkStatus();
  }
  int per_sm = 1;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel, plan.block_threads, bytes));
  if (per_sm != blocks_per_sm) {
    absl::StrAppend(&plan.refusals, plan.refusals.empty() ? "" : ", ", "cluster size ",
                    cluster_size, " with ", bytes, " B shared memory runs ", per_sm,
                    " blocks per SM, not ", blocks_per_sm);
    return absl::OkStatus();
  }
  plan.shapes.push_back({{cluster_size, blocks_per_sm, fit->max_active_clusters}, bytes});
  return absl::OkStatus();
}

// The blocker's counters (device memory), its signals (mapped pinned host
// memory), its SM mask and its own stream, for the launches of one
// RunGpcProbe.
class Blocker {
 public:
  Blocker() = default;
  Blocker(const Blocker&) = delete;
  Blocker& operator=(const Blocker&) = delete;
  ~Blocker() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  absl::Status Init(const GpcProbePlan& plan) {
    using Signals = PinnedBuffer<TopologyBlockerSignals>;
    DISSECT_ASSIGN_OR_RETURN(signals_, Signals::Allocate(1, cudaHostAllocMapped));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_),
                                                          signals_.get(), 0));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    words_ = (plan.sm_count + 31) / 32;
    DISSECT_ASSIGN_OR_RETURN(mask_, DeviceBuffer<unsigned>::Allocate(static_cast<size_t>(words_)));
    DISSECT_ASSIGN_OR_RETURN(counters_, DeviceBuffer<TopologyBlockerCounters>::Allocate(1));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaFuncSetAttribute(TopologyBlockerKernel(),
                                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                      static_cast<int>(plan.max_shared_bytes)));
    args_.held_mask = mask_.get();
    args_.mask_words = words_;
    args_.blocks = plan.sm_count;
    args_.block_threads = plan.block_threads;
    args_.dynamic_shared_bytes = plan.max_shared_bytes;
    args_.max_cycles = kBlockerMaxCycles;
    args_.counters = counters_.get();
    args_.signals = device_;
    return absl::OkStatus();
  }

  // Launches the blocker over `held` and waits until every block has read
  // its SM; false if that did not happen in time (the probe then runs
  // anyway: its records show whether a held SM ran a probe block).
  absl::StatusOr<bool> Hold(const std::vector<int>& held) {
    std::vector<unsigned> mask(static_cast<size_t>(words_), 0u);
    for (const int sm : held) {
      if (sm >= 0 && sm / 32 < words_) mask[sm / 32] |= 1u << (sm % 32);
    }
    *signals_.get() = TopologyBlockerSignals{};
    std::atomic_thread_fence(std::memory_order_seq_cst);
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(mask_.get(), mask.data(),
                                            mask.size() * sizeof(unsigned),
                                            cudaMemcpyHostToDevice));
    DISSECT_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(counters_.get(), 0, sizeof(TopologyBlockerCounters), stream_));
    DISSECT_CUDA_RETURN_IF_ERROR(LaunchTopologyBlocker(args_, stream_));
    const auto deadline = std::chrono::steady_clock::now() + kBlockerArrivalTimeout;
    while (Read(&signals_.get()->all_arrived) == 0) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  // Lets the held blocks exit and waits for the blocker; true if no block
  // gave up waiting.
  absl::StatusOr<bool> Release() {
    static_cast<volatile int&>(signals_.get()->release) = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    TopologyBlockerCounters counters;
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(&counters, counters_.get(), sizeof(counters),
                                            cudaMemcpyDeviceToHost));
    return counters.timed_out == 0;
  }

 private:
  static int Read(const int* p) { return *static_cast<const volatile int*>(p); }

  PinnedBuffer<TopologyBlockerSignals> signals_;  // mapped: the kernel reads it through device_
  TopologyBlockerSignals* device_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer<unsigned> mask_;
  DeviceBuffer<TopologyBlockerCounters> counters_;
  int words_ = 0;
  TopologyBlockerArgs args_;
};

// One probe launch of `shape` with `clusters` clusters on `stream`; every
// block's placement. Synchronizes the stream.
absl::StatusOr<std::vector<BlockPlacement>> ProbeOnce(const GpcProbePlan& plan,
                                                      const GpcProbeShape& shape, int clusters,
                                                      TopologyBlockRecord* device_records,
                                                      cudaStream_t stream) {
  TopologyArgs args = ProbeLaunchArgs(plan, shape, clusters);
  args.records = device_records;
  const size_t blocks = static_cast<size_t>(args.clusters) * args.cluster_size;
  std::vector<TopologyBlockRecord> host(blocks);
  // All bits set: a block that never wrote its record reads as SM -1,
  // which InferGpcMap ignores and counts.
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(device_records, 0xff, blocks * sizeof(TopologyBlockRecord), stream));
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchTopologyProbe(args, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host.data(), device_records,
                                               blocks * sizeof(TopologyBlockRecord),
                                               cudaMemcpyDeviceToHost, stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  std::vector<BlockPlacement> placements;
  placements.reserve(blocks);
  for (const TopologyBlockRecord& r : host) placements.push_back({r.smid, r.cluster, r.cluster_rank});
  return placements;
}

}  // namespace

std::vector<GpcClusterShape> ClusterShapes(const GpcProbePlan& plan) {
  std::vector<GpcClusterShape> shapes;
  for (const GpcProbeShape& s : plan.shapes) shapes.push_back(s.shape);
  return shapes;
}

size_t GpcShapeSharedBytes(size_t max_shared_bytes, int blocks_per_sm) {
  return max_shared_bytes / (blocks_per_sm == 1 ? 1 : 3);
}

TopologyArgs ProbeLaunchArgs(const GpcProbePlan& plan, const GpcProbeShape& shape, int clusters) {
  TopologyArgs args;
  args.cluster_size = shape.shape.cluster_size;
  args.clusters = clusters;
  args.block_threads = plan.block_threads;
  args.dynamic_shared_bytes = shape.dynamic_shared_bytes;
  args.spin_cycles = kTopologySpinCycles;
  return args;
}

GpcProbeKernelLimits ProbeKernelLimits(const GpcProbePlan& plan) {
  GpcProbeKernelLimits limits;
  for (const GpcProbeShape& s : plan.shapes) {
    limits.max_dynamic_shared_bytes =
        std::max(limits.max_dynamic_shared_bytes, s.dynamic_shared_bytes);
    limits.non_portable_cluster_size |= s.shape.cluster_size > kPortableClusterSize;
  }
  return limits;
}

absl::Status PrepareProbeKernel(const GpcProbePlan& plan) {
  const GpcProbeKernelLimits limits = ProbeKernelLimits(plan);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaFuncSetAttribute(TopologyProbeKernel(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(limits.max_dynamic_shared_bytes)));
  if (limits.non_portable_cluster_size) {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaFuncSetAttribute(
        TopologyProbeKernel(), cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  return absl::OkStatus();
}

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
  plan.sm_count = device.sm_count;
  plan.max_shared_bytes = static_cast<size_t>(device.shared_per_block_optin_bytes);
  std::vector<GpcShapeRequest> requests;
  if (cluster_size == 0) {
    requests.assign(std::begin(kGpcShapeRequests), std::end(kGpcShapeRequests));
  } else {
    requests.push_back({cluster_size, 1});
    if (cluster_size >= 4) requests.push_back({cluster_size, 2});
  }
  for (const GpcShapeRequest& r : requests) {
    DISSECT_RETURN_IF_ERROR(AddShape(device, r.cluster_size, r.blocks_per_sm, plan));
  }
  if (SmallestClusterSize(ClusterShapes(plan)) == 0) {
    return Skipped(absl::StrCat(cluster_size == 0 ? "no cluster size of 2..16"
                                                  : absl::StrCat("cluster size ", cluster_size),
                                " runs here at one block per SM: ", plan.refusals));
  }
  // CheckClusterLaunch left the shared-memory attribute at the last
  // request's size; the shapes at one block per SM need more.
  DISSECT_RETURN_IF_ERROR(PrepareProbeKernel(plan));
  // Requests list the largest size at one block per SM first, so the first
  // shape (the row's timed launch) is the largest that fits that way.
  return plan;
}

absl::StatusOr<GpcProbeRun> RunGpcProbe(const GpcProbePlan& plan, cudaStream_t stream,
                                        int launches) {
  if (plan.shapes.empty()) return absl::InvalidArgumentError("the plan has no cluster shape");
  if (launches < 1) {
    return absl::InvalidArgumentError(absl::StrCat("launches must be >= 1, got ", launches));
  }
  const std::vector<GpcLaunchStep> steps =
      GpcLaunchSchedule(plan.sm_count, ClusterShapes(plan), launches);
  size_t max_blocks = 0;
  bool any_blocked = false;
  for (const GpcLaunchStep& step : steps) {
    max_blocks = std::max(max_blocks, static_cast<size_t>(step.clusters) *
                                          static_cast<size_t>(step.shape.cluster_size));
    any_blocked |= !step.blocked_sms.empty();
  }
  // Again here: a CheckClusterLaunch of the probe since planning would have
  // lowered its shared-memory attribute.
  DISSECT_RETURN_IF_ERROR(PrepareProbeKernel(plan));
  DISSECT_ASSIGN_OR_RETURN(DeviceBuffer<TopologyBlockRecord> device_records,
                           DeviceBuffer<TopologyBlockRecord>::Allocate(max_blocks));
  Blocker blocker;
  if (any_blocked) DISSECT_RETURN_IF_ERROR(blocker.Init(plan));
  GpcProbeRun run;
  for (const GpcLaunchStep& step : steps) {
    const GpcProbeShape& shape = plan.shapes[static_cast<size_t>(step.shape_index)];
    bool held = true;
    if (!step.blocked_sms.empty()) {
      ++run.blocked_launches;
      DISSECT_ASSIGN_OR_RETURN(held, blocker.Hold(step.blocked_sms));
    }
    absl::StatusOr<std::vector<BlockPlacement>> blocks =
        ProbeOnce(plan, shape, step.clusters, device_records.get(), stream);
    bool blocker_failed = false;
    if (!step.blocked_sms.empty()) {
      // Release before any error return: the held blocks would spin on.
      DISSECT_ASSIGN_OR_RETURN(const bool no_timeout, blocker.Release());
      blocker_failed = !held || !no_timeout;
      if (blocker_failed) ++run.blocker_failures;
    }
    if (!blocks.ok()) return blocks.status();
    run.steps.push_back(step);
    run.blocker_failed.push_back(blocker_failed);
    LaunchRecord launch;
    launch.blocks = *std::move(blocks);
    launch.blocks_per_sm = step.shape.blocks_per_sm;
    launch.blocked_sms = step.blocked_sms;
    run.records.push_back(std::move(launch));
  }
  return run;
}

std::vector<std::string> CapacityMismatches(const std::vector<GpcClusterShape>& shapes,
                                            const GpcMap& map) {
  std::vector<std::string> mismatches;
  for (const GpcClusterShape& shape : shapes) {
    if (shape.blocks_per_sm != 1) continue;
    const int predicted = ClustersThatFit(map, shape.cluster_size);
    if (predicted == shape.max_active_clusters) continue;
    mismatches.push_back(absl::StrCat("clusters of ", shape.cluster_size, ": ",
                                      shape.max_active_clusters, " fit, the map's groups hold ",
                                      predicted));
  }
  return mismatches;
}

std::string GpcRunJson(const GpcProbePlan& plan, const GpcProbeRun& run) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const GpcProbeShape& s : plan.shapes) {
    shapes.push_back({{"cluster_size", s.shape.cluster_size},
                      {"blocks_per_sm", s.shape.blocks_per_sm},
                      {"max_active_clusters", s.shape.max_active_clusters},
                      {"dynamic_shared_bytes", s.dynamic_shared_bytes}});
  }
  nlohmann::json launches = nlohmann::json::array();
  for (size_t i = 0; i < run.records.size(); ++i) {
    nlohmann::json blocks = nlohmann::json::array();
    for (const BlockPlacement& b : run.records[i].blocks) {
      blocks.push_back({b.sm, b.cluster, b.rank});
    }
    const bool scheduled = i < run.steps.size();
    launches.push_back({{"shape", scheduled ? run.steps[i].shape_index : -1},
                        {"clusters", scheduled ? run.steps[i].clusters : -1},
                        {"blocked_sms", run.records[i].blocked_sms},
                        {"blocker_failed", i < run.blocker_failed.size() && run.blocker_failed[i]},
                        {"blocks", std::move(blocks)}});
  }
  const nlohmann::json out = {{"sm_count", plan.sm_count},
                               {"shapes", std::move(shapes)},
                               {"launches", std::move(launches)}};
  return out.dump() + "\n";
}

absl::StatusOr<GpcMap> MeasureGpcMap(const DeviceInfo& device, cudaStream_t stream, int launches) {
  if (launches < 1) {
    return absl::InvalidArgumentError(absl::StrCat("launches must be >= 1, got ", launches));
  }
  DISSECT_ASSIGN_OR_RETURN(const GpcProbePlan plan, PlanGpcProbe(device, 0));
  DISSECT_ASSIGN_OR_RETURN(const GpcProbeRun run, RunGpcProbe(plan, stream, launches));
  GpcMap map = InferGpcMap(SmIdBound(device.sm_count, run.records), run.records,
                           SmallestClusterSize(ClusterShapes(plan)));
  if (run.blocker_failures > 0) {
    absl::StrAppend(&map.note, map.note.empty() ? "" : ". ", run.blocker_failures, " of ",
                    run.blocked_launches, " blocked launches without every SM held in time");
  }
  const std::vector<std::string> mismatches = CapacityMismatches(ClusterShapes(plan), map);
  if (!mismatches.empty()) {
    absl::StrAppend(&map.note, map.note.empty() ? "" : ". ",
                    "the groups disagree with the occupancy calculator (",
                    absl::StrJoin(mismatches, ", "), ")");
  }
  return map;
}

}  // namespace dissect
