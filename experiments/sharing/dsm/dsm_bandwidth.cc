// Question: how many bytes per clock can an SM read from a peer block's
//           shared memory in its thread-block cluster (distributed shared
//           memory), next to its own shared memory, by cluster size?
// Timed:    CUDA events around one launch of max_active_clusters x
//           cluster_size blocks of 512 threads (cudaOccupancyMaxActiveClusters
//           for this kernel, cluster size and bytes_per_block of dynamic
//           shared memory, so the whole GPU is busy). Every block fills its
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
// Expected: from the literature, not measured here: local shared memory
//           near its 128 B/clk/SM ceiling; DSM well below it (published
//           H100 figures are a few TB/s over the GPU), falling as more of a
//           cluster's traffic shares the SM-to-SM network. Blocks of a
//           cluster that share an SM (peer_same_sm_fraction > 0) read their
//           peer without leaving the SM. Clusters need compute capability
//           9.0 (points skipped below); cluster_size 16 needs the
//           non-portable opt-in (skipped where refused).
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/harness/experiment.h"
#include "experiments/sharing/cluster_support.h"
#include "experiments/sharing/dsm/dsm_host.h"
#include "kernels/dsm/dsm.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const int path_value,
                           ParseDsmPathValue(ctx.Str("path"), DsmBandwidthPathNames()));
  const DsmPath path = static_cast<DsmPath>(path_value);
  const int cluster_size = static_cast<int>(ctx.Int("cluster_size"));
  const uint64_t block_bytes = static_cast<uint64_t>(ctx.Int("bytes_per_block"));
  DISSECT_RETURN_IF_ERROR(ClustersSupported(ctx.device()));
  DISSECT_ASSIGN_OR_RETURN(const ClusterFit fit,
                           CheckClusterLaunch(ctx.device(), DsmStreamKernel(path), cluster_size,
                                              kDsmStreamThreads, static_cast<size_t>(block_bytes)));
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

  // Every launch but the scratch slot's must have read the right buffer.
  const int launches = ctx.timing().warmup + ctx.timing().samples;
  std::vector<uint32_t> sums(static_cast<size_t>(launches) * blocks);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(sums.data(), d_sums.get(), sums.size() * sizeof(uint32_t),
                                          cudaMemcpyDeviceToHost));
  const bool peer = path == DsmPath::kDsmPeer;
  for (int l = 0; l < launches; ++l) {
    for (int b = 0; b < blocks; ++b) {
      const uint32_t want =
          ExpectedStreamSum(block_bytes, StreamRankRead(b, cluster_size, peer), iterations);
      const uint32_t got = sums[static_cast<size_t>(l) * blocks + b];
      if (got != want) {
        return absl::InternalError(
            absl::StrCat("launch ", l, " block ", b, " summed ", got, ", expected ", want));
      }
    }
  }
  std::vector<int> block_sm(blocks);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(block_sm.data(), d_sm.get(), d_sm.bytes(), cudaMemcpyDeviceToHost));
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
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples(
      "peer_same_sm_fraction",
      std::vector<double>(1, peer ? PeerSameSmFraction(block_sm, cluster_size) : 0.0)));
  if (fit.non_portable) ctx.AddNote("non-portable cluster size (opt-in)");
  if (peer && cluster_size == 1) {
    ctx.AddNote("cluster of 1: each block reads its own buffer through the shared::cluster window");
  }
  return absl::OkStatus();
}

DISSECT_EXPERIMENT(dsm_bandwidth)
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
