// Question: how long does a kernel launch take on this GPU: from the host's
//           launch call to the kernel's start, per launch when launches are
//           queued back to back, to a synchronized return, and per block of
//           a growing grid; by stream launch and by CUDA graph launch?
// Timed:    every kernel is empty (blocks of 32 threads doing nothing) except
//           launch_to_start's, whose threads read %globaltimer first thing.
//           launch_to_start: with the device idle (the stream synchronized),
//           the host reads steady_clock, then calls the launch (<<<>>>, or
//           cudaGraphLaunch of a one-node graph); the kernel's first
//           %globaltimer read is written to mapped host memory. Both reads
//           go onto the host clock through an offset calibrated before and
//           after the samples (experiments/launch/clock_calibration.h: a
//           one-thread kernel answers 64 request/reply rounds over mapped
//           memory, reading %globaltimer between the host's two clock
//           reads; the offset comes from the shortest round trip, uncertain
//           by half of it plus one %globaltimer step, plus half the drift
//           between the two calibrations: the row's note gives all three,
//           and the step). latency_us = stamp on the host clock - the host
//           read, uncertain by the offset's uncertainty plus one step (the
//           stamp's own read).
//           back_to_back: 256 empty launches queued behind the harness's
//           guard spin, CUDA events around them (device time only); stream:
//           256 <<<>>> launches; graph: one launch of a graph of 256 kernel
//           nodes in a chain (not 256 graph launches).
//           launch_interval_us = the events' time / 256.
//           sync_round_trip: with the device idle, host steady_clock around
//           launch + cudaStreamSynchronize (graph: cudaGraphLaunch of a
//           one-node graph + the same synchronize); latency_us. The
//           synchronize waits as the driver's default (cudaDeviceScheduleAuto)
//           has it: it spins while the host has more cores than active
//           CUDA contexts, otherwise it yields.
//           block_dispatch: CUDA events around one launch of `blocks`
//           empty blocks behind the guard spin; kernel_time_us. The
//           analysis fits dispatch_ns_per_block as the slope over blocks.
//           Each row reports its measure's metric and NaN for the others.
// Expected: (estimates, not measured here) launch_to_start a few to tens of
//           us; back_to_back a few us per stream launch and less per graph
//           node; sync_round_trip above launch_to_start (it adds the
//           kernel, its completion and the host's wake-up); block_dispatch
//           flat while the grid fits on the SMs at once, then growing
//           linearly in blocks.
// Could be confused with: host time inside an event pair (events see the
//           device only: back_to_back and block_dispatch queue their
//           launches behind the guard spin, //probes:event_timer_test, so
//           host submission is not timed there; launch_to_start and
//           sync_round_trip time the host on purpose, with the host clock).
//           The first launch's lazy module loading (CUDA loads a module at
//           its first launch): every point launches its kernel, or its
//           graph, once untimed, then the warm-up launches, before any
//           sample. Graph instantiation and upload: done before the
//           samples (cudaGraphInstantiate, cudaGraphUpload), never timed.
//           CPU frequency scaling: the host-timed measures run at whatever
//           clock the host core is at; the warm-up keeps it busy first, and
//           the row notes the core's cpufreq governor when the kernel
//           exposes it. Clock error in launch_to_start: bounded by the
//           calibration's uncertainty (the note), whose math
//           //experiments/launch:clock_calibration_test checks without a
//           GPU against known offsets and a thread answering as the kernel;
//           //experiments/launch:launch_probe_ptx_test checks that the
//           handshake's timer read follows the request's load and a branch
//           on it and precedes the fenced reply (the bound needs that
//           order), and that the start stamp reads the timer first.
#include <cuda_runtime_api.h>
#include <sched.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "experiments/framework/experiment.h"
#include "experiments/launch/clock_calibration.h"
#include "kernels/launch_probe.h"
#include "probes/cuda_status.h"
#include "probes/pinned_buffer.h"

namespace dissect {
namespace {

constexpr char kLaunchToStart[] = "launch_to_start";
constexpr char kBackToBack[] = "back_to_back";
constexpr char kSyncRoundTrip[] = "sync_round_trip";
constexpr char kBlockDispatch[] = "block_dispatch";

constexpr char kLatencyUs[] = "latency_us";
constexpr char kLaunchIntervalUs[] = "launch_interval_us";
constexpr char kKernelTimeUs[] = "kernel_time_us";

// back_to_back's launches per sample (graph: kernel nodes per graph): far
// above one launch's event resolution, well below the launch queue's depth.
constexpr int kQueuedLaunches = 256;
constexpr int kHandshakeRounds = 64;
// The host gives up on a handshake reply after this; the kernel gives up on
// a request after twice as long.
constexpr absl::Duration kHandshakeTimeout = absl::Seconds(2);
constexpr uint64_t kKernelHandshakeTimeoutNs = 4'000'000'000;

absl::Status Validate(const Point& p) {
  const int64_t blocks = p.Int("blocks");
  if (blocks < 1) {
    return absl::InvalidArgumentError(absl::StrCat("blocks must be at least 1 (got ", blocks, ")"));
  }
  if (blocks > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("blocks must be at most 2147483647, a grid's x dimension (got ", blocks, ")"));
  }
  const std::string& measure = p.Str("measure");
  if (blocks != 1 && measure != kBlockDispatch) {
    return absl::InvalidArgumentError(absl::StrCat("blocks must be 1 for ", measure, " (got ",
                                                   blocks, "): only block_dispatch grows the grid"));
  }
  return absl::OkStatus();
}

// A CUDA graph captured from launches on a stream, instantiated and
// uploaded to the device before anything is timed: launching it then costs
// the launch alone.
class CapturedGraph {
 public:
  CapturedGraph() = default;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  ~CapturedGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }

  // Captures `nodes` calls of `launch` on `stream` (each node after the
  // one before), instantiates and uploads the graph, and waits for it.
  absl::Status Capture(const LaunchFn& launch, int nodes, cudaStream_t stream) {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t launched = cudaSuccess;
    for (int i = 0; i < nodes && launched == cudaSuccess; ++i) launched = launch(stream);
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph_);
    DISSECT_CUDA_RETURN_IF_ERROR(launched);
    DISSECT_CUDA_RETURN_IF_ERROR(ended);
    DISSECT_CUDA_RETURN_IF_ERROR(cudaGraphInstantiate(&exec_, graph_, 0));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaGraphUpload(exec_, stream));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    return absl::OkStatus();
  }

  cudaError_t Launch(cudaStream_t stream) const { return cudaGraphLaunch(exec_, stream); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// The point's launch: `kernel` itself (stream), or one launch of `graph`
// captured as `nodes` copies of it (graph). Either way it is launched once
// and waited for here, untimed, so that lazy module loading and the graph's
// first launch are behind it.
absl::StatusOr<LaunchFn> PrepareLaunch(const std::string& mode, const LaunchFn& kernel, int nodes,
                                       CapturedGraph& graph, cudaStream_t stream) {
  LaunchFn launch = kernel;
  if (mode == "graph") {
    DISSECT_RETURN_IF_ERROR(graph.Capture(kernel, nodes, stream));
    launch = [&graph](cudaStream_t s) { return graph.Launch(s); };
  }
  DISSECT_CUDA_RETURN_IF_ERROR(launch(stream));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return launch;
}

// Reports `metric`'s samples, and one NaN for each other metric (a row
// defines its measure's metric only).
absl::Status Report(PointContext& ctx, absl::string_view metric, std::vector<double> samples) {
  for (const char* other : {kLatencyUs, kLaunchIntervalUs, kKernelTimeUs}) {
    if (metric == other) continue;
    DISSECT_RETURN_IF_ERROR(
        ctx.AddSamples(other, {std::numeric_limits<double>::quiet_NaN()}));
  }
  return ctx.AddSamples(metric, std::move(samples));
}

// "cpu_governor: performance" for the core this thread runs on; "" where
// the kernel exposes no cpufreq governor (a VM, a container without /sys).
std::string CpuGovernorNote() {
  const int cpu = sched_getcpu();
  if (cpu < 0) return "";
  std::ifstream in(absl::StrCat("/sys/devices/system/cpu/cpu", cpu, "/cpufreq/scaling_governor"));
  std::string governor;
  if (!(in >> governor)) return "";
  return absl::StrCat("cpu_governor: ", governor);
}

void NoteCpuGovernor(PointContext& ctx) {
  const std::string note = CpuGovernorNote();
  if (!note.empty()) ctx.AddNote(note);
}

// Runs `sample` for the warm-up (results dropped), then for the samples,
// each after the stream has drained: the device is idle when it starts.
absl::StatusOr<std::vector<double>> IdleDeviceSamples(
    const TimingOptions& timing, cudaStream_t stream,
    const std::function<absl::StatusOr<double>()>& sample) {
  std::vector<double> kept;
  for (int i = 0; i < timing.warmup + timing.samples; ++i) {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    DISSECT_ASSIGN_OR_RETURN(const double value, sample());
    if (i >= timing.warmup) kept.push_back(value);
  }
  return kept;
}

// One calibration of the host clock against %globaltimer: the handshake
// kernel on the idle `stream`, the host's side here.
absl::StatusOr<ClockOffset> Calibrate(cudaStream_t stream) {
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  DISSECT_ASSIGN_OR_RETURN(PinnedBuffer<ClockHandshakeSlots> slots,
                           PinnedBuffer<ClockHandshakeSlots>::Allocate(1, cudaHostAllocMapped));
  std::memset(slots.get(), 0, sizeof(ClockHandshakeSlots));
  void* device_slots = nullptr;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(&device_slots, slots.get(), 0));
  DISSECT_CUDA_RETURN_IF_ERROR(LaunchClockHandshake(static_cast<ClockHandshakeSlots*>(device_slots),
                                                    kHandshakeRounds, kKernelHandshakeTimeoutNs,
                                                    stream));
  absl::StatusOr<std::vector<Handshake>> rounds =
      RunHandshakes(slots.get(), kHandshakeRounds, kHandshakeTimeout);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  if (!rounds.ok()) return rounds.status();
  return OffsetFromHandshakes(*rounds,
                              static_cast<int64_t>(__atomic_load_n(&slots.get()->timer_step_ns,
                                                                   __ATOMIC_ACQUIRE)));
}

absl::Status MeasureLaunchToStart(PointContext& ctx) {
  const cudaStream_t stream = ctx.stream();
  DISSECT_ASSIGN_OR_RETURN(PinnedBuffer<uint64_t> stamp,
                           PinnedBuffer<uint64_t>::Allocate(1, cudaHostAllocMapped));
  void* device_stamp = nullptr;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(&device_stamp, stamp.get(), 0));
  const LaunchFn kernel = [device_stamp](cudaStream_t s) {
    return LaunchStartStamp(static_cast<uint64_t*>(device_stamp), s);
  };
  CapturedGraph graph;
  DISSECT_ASSIGN_OR_RETURN(const LaunchFn launch,
                           PrepareLaunch(ctx.Str("mode"), kernel, 1, graph, stream));
  DISSECT_ASSIGN_OR_RETURN(const ClockOffset before, Calibrate(stream));
  std::vector<std::pair<int64_t, int64_t>> host_and_device_ns;
  // Every sample's value is its pair, read after the second calibration.
  DISSECT_ASSIGN_OR_RETURN(
      const std::vector<double> pair_index,
      IdleDeviceSamples(ctx.timing(), stream, [&]() -> absl::StatusOr<double> {
        __atomic_store_n(stamp.get(), uint64_t{0}, __ATOMIC_SEQ_CST);
        const int64_t host_ns = HostNowNs();
        DISSECT_CUDA_RETURN_IF_ERROR(launch(stream));
        DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
        const uint64_t device_ns = __atomic_load_n(stamp.get(), __ATOMIC_ACQUIRE);
        if (device_ns == 0) return absl::InternalError("the start stamp kernel wrote no stamp");
        host_and_device_ns.emplace_back(host_ns, static_cast<int64_t>(device_ns));
        return static_cast<double>(host_and_device_ns.size() - 1);
      }));
  DISSECT_ASSIGN_OR_RETURN(const ClockOffset after, Calibrate(stream));
  const ClockOffset offset = CombineOffsets(before, after);
  std::vector<double> us, ms;
  for (const double index : pair_index) {
    const auto& [host_ns, device_ns] = host_and_device_ns[static_cast<size_t>(index)];
    us.push_back(static_cast<double>(HostNsOfDevice(offset, device_ns) - host_ns) / 1e3);
    ms.push_back(us.back() / 1e3);
  }
  ctx.AddNote(DescribeCalibration(offset, before, after, kHandshakeRounds));
  NoteCpuGovernor(ctx);
  ctx.RecordTimeSamples(std::move(ms));
  return Report(ctx, kLatencyUs, std::move(us));
}

absl::Status MeasureSyncRoundTrip(PointContext& ctx) {
  const cudaStream_t stream = ctx.stream();
  const LaunchFn kernel = [](cudaStream_t s) { return LaunchEmptyKernel(1, s); };
  CapturedGraph graph;
  DISSECT_ASSIGN_OR_RETURN(const LaunchFn launch,
                           PrepareLaunch(ctx.Str("mode"), kernel, 1, graph, stream));
  DISSECT_ASSIGN_OR_RETURN(
      std::vector<double> us,
      IdleDeviceSamples(ctx.timing(), stream, [&]() -> absl::StatusOr<double> {
        const int64_t before_ns = HostNowNs();
        DISSECT_CUDA_RETURN_IF_ERROR(launch(stream));
        DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
        return static_cast<double>(HostNowNs() - before_ns) / 1e3;
      }));
  std::vector<double> ms;
  for (double u : us) ms.push_back(u / 1e3);
  NoteCpuGovernor(ctx);
  ctx.RecordTimeSamples(std::move(ms));
  return Report(ctx, kLatencyUs, std::move(us));
}

absl::Status MeasureBackToBack(PointContext& ctx) {
  const LaunchFn kernel = [](cudaStream_t s) { return LaunchEmptyKernel(1, s); };
  const bool graph_mode = ctx.Str("mode") == "graph";
  CapturedGraph graph;
  DISSECT_ASSIGN_OR_RETURN(
      const LaunchFn launch,
      PrepareLaunch(ctx.Str("mode"), kernel, kQueuedLaunches, graph, ctx.stream()));
  // Stream: the harness queues kQueuedLaunches launches per sample and
  // divides; graph: one launch of the kQueuedLaunches-node graph per sample.
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> ms,
                           ctx.TimeKernel(launch, CacheState::kHot,
                                          graph_mode ? 1 : kQueuedLaunches));
  std::vector<double> us;
  for (double m : ms) us.push_back(m * 1e3 / (graph_mode ? kQueuedLaunches : 1));
  ctx.AddNote(graph_mode ? absl::StrCat("one graph of ", kQueuedLaunches,
                                        " kernel nodes in a chain per sample, its time / ",
                                        kQueuedLaunches)
                         : absl::StrCat(kQueuedLaunches, " stream launches per sample"));
  return Report(ctx, kLaunchIntervalUs, std::move(us));
}

absl::Status MeasureBlockDispatch(PointContext& ctx) {
  const int64_t blocks = ctx.Int("blocks");
  const LaunchFn kernel = [blocks](cudaStream_t s) { return LaunchEmptyKernel(blocks, s); };
  CapturedGraph graph;
  DISSECT_ASSIGN_OR_RETURN(const LaunchFn launch,
                           PrepareLaunch(ctx.Str("mode"), kernel, 1, graph, ctx.stream()));
  DISSECT_ASSIGN_OR_RETURN(std::vector<double> ms, ctx.TimeKernel(launch, CacheState::kHot));
  std::vector<double> us;
  for (double m : ms) us.push_back(m * 1e3);
  return Report(ctx, kKernelTimeUs, std::move(us));
}

absl::Status Run(PointContext& ctx) {
  const std::string& measure = ctx.Str("measure");
  if (measure == kLaunchToStart) return MeasureLaunchToStart(ctx);
  if (measure == kBackToBack) return MeasureBackToBack(ctx);
  if (measure == kSyncRoundTrip) return MeasureSyncRoundTrip(ctx);
  return MeasureBlockDispatch(ctx);
}

DISSECT_EXPERIMENT(launch_overhead)
    .Question("How long does a kernel launch take: from the host's call to the kernel's start, "
              "per launch back to back, to a synchronized return, and per block of a growing "
              "grid, by stream and by CUDA graph?")
    .AddAxis(StringAxis("measure", {kLaunchToStart, kBackToBack, kSyncRoundTrip, kBlockDispatch},
                        {},
                        "launch_to_start (host call to the kernel's first %globaltimer read), "
                        "back_to_back (per launch of 256 queued), sync_round_trip (launch + "
                        "synchronize), block_dispatch (kernel time by grid)"))
    .AddAxis(StringAxis("mode", {"stream", "graph"}, {},
                        "stream: <<<>>> launches; graph: cudaGraphLaunch of a captured, "
                        "instantiated and uploaded graph"))
    .AddAxis(IntAxis("blocks", "blocks", {1},
                     "blocks of 32 threads in the grid; 1 except for block_dispatch (e.g. "
                     "--axis=measure=block_dispatch --axis=blocks=1,132,1320,13200,132000)"))
    .AddMetric(kLatencyUs, "us",
               "launch_to_start: host launch call to the kernel's first %globaltimer read, on "
               "the host clock; sync_round_trip: launch + cudaStreamSynchronize on the host "
               "clock (NaN for the other measures)")
    .AddMetric(kLaunchIntervalUs, "us",
               "back_to_back: device time per launch of 256 queued empty launches (NaN for the "
               "other measures)")
    .AddMetric(kKernelTimeUs, "us",
               "block_dispatch: event time of one empty launch of `blocks` blocks (NaN for the "
               "other measures)")
    .Validate(Validate)
    .Headline(kLatencyUs)
    .Run(Run);

}  // namespace
}  // namespace dissect
