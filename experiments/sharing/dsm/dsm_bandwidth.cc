// Question: how many bytes per clock can an SM read from a peer block's
//           shared memory in its thread-block cluster (distributed shared
//           memory), next to its own shared memory, by cluster size?
// Timed:    CUDA events around one launch of max_active_clusters x
//           cluster_size blocks of 512 threads (cudaOccupancyMaxActiveClusters
//           for this kernel, cluster size and shared memory, so the whole
//           GPU is busy), one block per SM: each block asks for the opt-in
//           maximum of dynamic shared memory (OneBlockPerSmSharedBytes),
//           of which it uses bytes_per_block. Every block fills its
//           buffer (word i holds i plus its cluster rank in the top byte),
//           waits at a cluster barrier, and each thread then reads its
//           16-byte column of every 8 KiB row of the buffer of rank
//           (rank + 1) % cluster_size with ld.shared::cluster.v4.u32
//           (dsm_peer; LD.E.128 in SASS) or of its own buffer with
//           ld.volatile.shared.v4.u32 (shared_local; LDS.128), enough passes
//           that every block reads >= 16 MiB, summing the words; each thread
//           adds its sum to its block's total once, and the host checks
//           every block's total against the buffer it should have read (a
//           block that read its own buffer instead of its peer's fails).
//           bandwidth_gbps counts the bytes loaded (not the fill) over the
//           event time; the fill, the barriers and the launch are inside
//           that time (under 2% at >= 16 MiB per block).
//           bytes_per_clk_per_sm divides by the SM clock NVML reported
//           while the samples ran and by the SMs that held a block (%smid).
// Could be confused with:
//           - the same SM for a peer SM: by threads alone four 512-thread
//             blocks fit an SM, and by a 32 KiB buffer alone six, so ranks
//             r and r + 1 could share an SM and their "DSM" reads never
//             leave it. Taking the opt-in shared memory leaves room for one
//             block per SM: dsm_host_test checks OneBlockPerSmSharedBytes
//             against the occupancy arithmetic (BlocksPerSmByShared) on
//             H100 and A100 limits, and the run refuses a launch for which
//             cudaOccupancyMaxActiveBlocksPerMultiprocessor is not 1. Each
//             row also records peer_same_sm_fraction from the blocks'
//             %smid (1 in a cluster of 1, whose peer is the block itself),
//             and analysis/sharing leaves rows above 0 out of the DSM
//             bandwidth, naming them (sharing_test,
//             SameSmPeerRowsAreLeftOutWithTheirReason).
//           - local shared memory for DSM: a block that read its own buffer
//             through the cluster window would add its own rank, not its
//             peer's: every block's sum is checked against its peer's
//             buffer (ExpectedStreamSum, dsm_host_test).
//           - the loads hoisted out of the pass loop (fewer bytes than
//             counted): dsm_sass_test keeps the 16-byte loads inside it.
// Expected: from the literature, not measured here: local shared memory
//           near its 128 B/clk/SM ceiling; DSM well below it (published
//           H100 figures are a few TB/s over the GPU), falling as more of a
//           cluster's traffic shares the SM-to-SM network. One block per
//           SM can still keep 32 KiB of loads in flight (16 warps x 4 x
//           512 B), 160 B/clk at a 200-cycle DSM latency, so the single
//           block should not be what caps the DSM figure (an estimate, not
//           measured). Clusters need compute capability 9.0 (points skipped
//           below); cluster_size 16 needs the non-portable opt-in (skipped
//           where refused).
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/sharing/cluster_support.h"
#include "experiments/sharing/dsm/dsm_host.h"
#include "kernels/dsm/dsm.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

// Dynamic shared memory per block so that one block fills an SM: four
// blocks of 512 threads would fit by threads alone, and the default 32 KiB
// buffer lets six fit by shared memory, so ranks r and r + 1 could share an
// SM and a "peer" read would never leave it.
absl::StatusOr<size_t> OneBlockPerSm(PointContext& ctx, DsmPath path, uint64_t block_bytes) {
  DISSECT_ASSIGN_OR_RETURN(const SmSharedMemory sm,
                           QuerySmSharedMemory(ctx.device().index, DsmStreamKernel(path)));
  const absl::StatusOr<int64_t> shared =
      OneBlockPerSmSharedBytes(sm, static_cast<int64_t>(block_bytes));
  if (!shared.ok()) return Skipped(shared.status().message());
  return static_cast<size_t>(*shared);
}

// Every launch but the scratch slot's must have read the right buffer:
// `d_sums` holds one sum per block for each launch.
absl::Status CheckSums(const PointContext& ctx, const DsmStreamArgs& args, const uint32_t* d_sums,
                       bool peer) {
  const int launches = ctx.timing().warmup + ctx.timing().samples;
  const int blocks = args.blocks;
  std::vector<uint32_t> sums(static_cast<size_t>(launches) * blocks);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(sums.data(), d_sums, sums.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  for (int l = 0; l < launches; ++l) {
    for (int b = 0; b < blocks; ++b) {
      const uint32_t want = ExpectedStreamSum(
          args.block_bytes, StreamRankRead(b, args.cluster_size, peer), args.iterations);
      const uint32_t got = sums[static_cast<size_t>(l) * blocks + b];
      if (got != want) {
        return absl::InternalError(
            absl::StrCat("launch ", l, " block ", b, " summed ", got, ", expected ", want));
      }
    }
  }
  return absl::OkStatus();
}

// The point's samples and notes from the launch times `ms` of `args`, and
// the SM each block ran on.
absl::Status ReportBandwidth(PointContext& ctx, const std::vector<double>& ms,
                             const DsmStreamArgs& args, const ClusterFit& fit,
                             const std::vector<int>& block_sm, bool peer) {
  const int blocks = args.blocks;
  const int cluster_size = args.cluster_size;
  const uint64_t block_bytes = args.block_bytes;
  const uint64_t iterations = args.iterations;
  const int sms = DistinctSms(block_sm);

  double clock_mhz = 0;
  if (const std::optional<double> measured = ctx.SmClockMhz(); measured && *measured > 0) {
    clock_mhz = *measured;
  } else {
    clock_mhz = static_cast<double>(ctx.device().sm_clock_max_khz) / 1e3;
    ctx.AddNote("no NVML SM clock: bytes_per_clk_per_sm uses the rated maximum clock");
  }
  const double bytes = static_cast<double>(blocks) * static_cast<double>(block_bytes) *
                       static_cast<double>(iterations);
  std::vector<double> gbps;
  std::vector<double> per_clk;
  for (double sample_ms : ms) {
    DISSECT_ASSIGN_OR_RETURN(const StreamRates r,
                             StreamRatesFrom(bytes, sample_ms, clock_mhz, sms));
    gbps.push_back(r.gbps);
    per_clk.push_back(r.bytes_per_clk_per_sm);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bandwidth_gbps", std::move(gbps)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("bytes_per_clk_per_sm", std::move(per_clk)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples(
      "max_active_clusters", std::vector<double>(1, static_cast<double>(fit.max_active_clusters))));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("sms_used", std::vector<double>(1, sms)));
  const double same_sm = peer ? PeerSameSmFraction(block_sm, cluster_size) : 0.0;
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("peer_same_sm_fraction", std::vector<double>(1, same_sm)));
  if (cluster_size > 1 && same_sm > 0) {
    ctx.AddNote(absl::StrCat("a fraction ", same_sm,
                             " of the blocks read a peer on their own SM: not DSM between SMs"));
  }
  if (fit.non_portable) ctx.AddNote("non-portable cluster size (opt-in)");
  if (peer && cluster_size == 1) {
    ctx.AddNote("cluster of 1: each block reads its own buffer through the shared::cluster window");
  }
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const int path_value,
                           ParseDsmPathValue(ctx.Str("path"), DsmBandwidthPathNames()));
  const DsmPath path = static_cast<DsmPath>(path_value);
  const int cluster_size = static_cast<int>(ctx.Int("cluster_size"));
  const uint64_t block_bytes = static_cast<uint64_t>(ctx.Int("bytes_per_block"));
  DISSECT_ASSIGN_OR_RETURN(const size_t shared_bytes, OneBlockPerSm(ctx, path, block_bytes));
  DISSECT_ASSIGN_OR_RETURN(const ClusterFit fit,
                           CheckClusterLaunch(ctx.device(), DsmStreamKernel(path), cluster_size,
                                              kDsmStreamThreads, shared_bytes));
  // The runtime's own occupancy, with the attributes CheckClusterLaunch set.
  int blocks_per_sm = 0;
  DISSECT_CUDA_RETURN_IF_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_sm, DsmStreamKernel(path), kDsmStreamThreads, shared_bytes));
  if (blocks_per_sm != 1) {
    return absl::InternalError(absl::StrCat(blocks_per_sm, " blocks with ", shared_bytes,
                                            " B of shared memory fit one SM, want 1"));
  }
  const int blocks = fit.max_active_clusters * cluster_size;
  const uint64_t iterations = StreamIterations(block_bytes);
  DISSECT_ASSIGN_OR_RETURN(auto d_sums,
                           DeviceBuffer<uint32_t>::Allocate(ctx.LaunchSlots() * blocks));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemset(d_sums.get(), 0, d_sums.bytes()));
  DISSECT_ASSIGN_OR_RETURN(auto d_sm, DeviceBuffer<int>::Allocate(blocks));
  DsmStreamArgs args;
  args.path = path;
  args.cluster_size = cluster_size;
  args.blocks = blocks;
  args.block_bytes = block_bytes;
  args.shared_bytes = shared_bytes;
  args.iterations = iterations;
  args.block_sm = d_sm.get();
  int launch = 0;
  DISSECT_ASSIGN_OR_RETURN(const std::vector<double> ms,
                           ctx.TimeKernel(
                               [&](cudaStream_t stream) {
                                 args.sums = d_sums.get() + ctx.LaunchSlot(launch++) * blocks;
                                 return LaunchDsmStream(args, stream);
                               },
                               CacheState::kHot));

  const bool peer = path == DsmPath::kDsmPeer;
  DISSECT_RETURN_IF_ERROR(CheckSums(ctx, args, d_sums.get(), peer));
  std::vector<int> block_sm(blocks);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(block_sm.data(), d_sm.get(), d_sm.bytes(), cudaMemcpyDeviceToHost));
  return ReportBandwidth(ctx, ms, args, fit, block_sm, peer);
}

DISSECT_EXPERIMENT(dsm_bandwidth)
    .NeedsComputeCapability(90, "thread-block clusters (distributed shared memory)")
    .Question(
        "How many bytes per clock can an SM read from a peer block's shared memory in its "
        "cluster (DSM), next to its own shared memory?")
    .AddAxis(IntAxis("cluster_size", "blocks", {1, 2, 4, 8, 16},
                     "blocks per cluster (a power of two; 16 needs the non-portable opt-in)"))
    .AddAxis(StringAxis("path", DsmBandwidthPathNames(), {},
                        "dsm_peer: ld.shared::cluster.v4 of the next rank's buffer; "
                        "shared_local: ld.volatile.shared.v4 of the block's own"))
    .AddAxis(IntAxis("bytes_per_block", "B", {32 << 10},
                     "each block's shared buffer (a multiple of 8 KiB: 512 threads x 16 B)"))
    .AddMetric("bandwidth_gbps", "GB/s", "bytes loaded by all blocks / event time (1e9 B/s)")
    .AddMetric("bytes_per_clk_per_sm", "B/clk/SM",
               "bytes loaded / (event time x NVML SM clock) / SMs that held a block")
    .AddMetric("max_active_clusters", "clusters",
               "cudaOccupancyMaxActiveClusters; the grid is this many clusters")
    .AddMetric("sms_used", "SMs", "distinct %smid among the blocks of the last launch")
    .AddMetric("peer_same_sm_fraction", "-",
               "dsm_peer: fraction of blocks whose peer ran on the same SM (0 on shared_local)")
    .Validate(ValidateDsmBandwidthPoint)
    .Run(Run);

}  // namespace
}  // namespace dissect
