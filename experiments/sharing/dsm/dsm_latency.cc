// Question: what does a load from another block's shared memory in the
//           same thread-block cluster (distributed shared memory) cost,
//           next to the block's own shared memory and L2, by cluster size
//           and by peer?
// Timed:    one cluster of cluster_size blocks (256 threads each). Every
//           block copies the same pointer chain (footprint_bytes, one slot
//           every stride_bytes, a random or strided cycle) into its dynamic
//           shared memory (each block asks for all the shared memory a
//           block may have, so no two blocks share an SM and every peer is
//           another SM), rebased so that each slot holds the address of the
//           next slot; a cluster barrier follows. Then thread 0 of rank 0
//           alone chases: path dsm_peer, for every peer distance d in
//           0..cluster_size-1 in turn, the chain of rank d, whose slots hold
//           64-bit generic addresses in the cluster's shared window (mapa.u64
//           once per peer, outside the timed loops), with dependent generic
//           ld.u64 loads; shared_local its own copy with ld.shared.u32; l2
//           the same chain as 64-bit pointers in global memory with
//           ld.global.cg. Each chase runs one lap of the chain untimed (it
//           warms L2 on path l2), then two segments of `loads` and 2 x
//           `loads` loads, each between %clock64 reads that wait for the
//           last load; cycles per load is the slope over the two segments
//           (the fixed cost of a segment cancels). A second cluster barrier
//           keeps every block alive until the chase is done. On sm_90a a
//           dsm_peer hop is one LD.E.64 (the instruction ptxas makes of
//           ld.shared::cluster too), shared_local's one LDS and l2's one
//           LDG. Events time each launch for the row's time.
// Could be confused with:
//           - the same SM for a peer SM: a peer block on the chasing block's
//             SM is served like local shared memory. Every block takes the
//             opt-in maximum of shared memory, so two cannot share an SM
//             (OneBlockPerSmSharedBytes, checked against the occupancy
//             arithmetic in :dsm_host_test); the %smid of each rank is
//             recorded and a row names any peer distance that ran on the
//             chasing SM anyway.
//           - a register move or address arithmetic for the hardware's hop:
//             ld.shared::cluster.u32 becomes a generic LD.E whose address
//             pair needs a dependent MOV of each loaded word, inside the
//             timed chain (a few cycles on each hop); the 64-bit window
//             addresses make the loaded value the whole next address.
//             //experiments/sharing/dsm:dsm_sass_test fails if any
//             instruction sits between two dependent hops, and
//             :dsm_sass_checks_test shows that check failing on the MOV
//             shape.
//           - local shared memory for DSM: every block holds the same
//             chain, so a chase of the chaser's own copy would end where a
//             peer's does; what makes it the peer's is the base address,
//             mapped to rank d (:dsm_ptx_test: mapa.u64 before the clock
//             reads; :dsm_sass_test: mapa's PRMT before the first timed
//             loop, none inside). Distance 0, the block's own memory
//             through the cluster window, is reported apart
//             (cycles_by_peer[0]) and kept out of the dsm_peer mean
//             (DsmPeerCyclesPerLoad, :dsm_host_test).
// Expected: from the literature, not measured here: shared_local about 30
//           cycles on H100, L2 about 200-270 cycles, and DSM in between or
//           near L2: published H100 measurements put a DSM load at about
//           180-210 cycles, about the same for every peer of a cluster (a
//           cluster lies within one GPC). Distance 0 (the block's own
//           shared memory through the cluster window) shows what the
//           generic cluster path costs without leaving the SM. Clusters
//           need compute capability 9.0 (points skipped below), and
//           cluster_size 16 the non-portable opt-in (skipped where the
//           device refuses it).
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/framework/experiment.h"
#include "experiments/sharing/cluster_support.h"
#include "experiments/sharing/dsm/dsm_host.h"
#include "experiments/workloads/inputs/pointer_chain.h"
#include "kernels/dsm/dsm.h"
#include "probes/cuda_status.h"
#include "probes/device_buffer.h"

namespace dissect {
namespace {

constexpr uint64_t kChainSeed = 0x5eed;
// Warm-up loads are one lap of the chain, at most this many.
constexpr uint64_t kMaxWarmupLoads = uint64_t{1} << 20;

// The shared memory each chasing block asks for: the chain's footprint,
// raised so that no two blocks of the cluster fit on one SM; Skipped when
// the footprint does not fit a block.
absl::StatusOr<size_t> ChaseSharedBytes(const PointContext& ctx, DsmPath path, int64_t footprint) {
  if (footprint + static_cast<int64_t>(kDsmChaseStaticSharedBytes) >
      ctx.device().shared_per_block_optin_bytes) {
    return Skipped(absl::StrCat("footprint ", footprint, " B (+", kDsmChaseStaticSharedBytes,
                                " B the kernel uses itself) exceeds the ",
                                ctx.device().shared_per_block_optin_bytes,
                                " B of shared memory a block may use"));
  }
  // No two blocks of the cluster fit on one SM, so every peer is another
  // SM (a peer on the chasing block's own SM would be served like local
  // shared memory).
  DISSECT_ASSIGN_OR_RETURN(const SmSharedMemory sm,
                           QuerySmSharedMemory(ctx.device().index, DsmChaseKernel(path)));
  const absl::StatusOr<int64_t> one_per_sm = OneBlockPerSmSharedBytes(sm, footprint);
  if (!one_per_sm.ok()) return Skipped(one_per_sm.status().message());
  return static_cast<size_t>(*one_per_sm);
}

// The chain to chase: its words, their byte offsets on the device and, for
// the L2 path, the chain as device pointers.
struct ChainBuffers {
  std::vector<uint32_t> words;
  DeviceBuffer<uint32_t> offsets;
  DeviceBuffer<unsigned long long> pointers;
};

absl::StatusOr<ChainBuffers> UploadChain(DsmPath path, int64_t footprint, int64_t stride,
                                         ChainOrder order) {
  ChainBuffers chain;
  DISSECT_ASSIGN_OR_RETURN(chain.words, BuildChain(footprint, stride, order, kChainSeed));
  const std::vector<uint32_t>& words = chain.words;
  std::vector<uint32_t> offsets = words;
  for (uint32_t& w : offsets) w *= static_cast<uint32_t>(sizeof(uint32_t));
  DISSECT_ASSIGN_OR_RETURN(chain.offsets, DeviceBuffer<uint32_t>::Allocate(offsets.size()));
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(chain.offsets.get(), offsets.data(),
                                          chain.offsets.bytes(), cudaMemcpyHostToDevice));
  if (path == DsmPath::kL2) {
    DISSECT_ASSIGN_OR_RETURN(chain.pointers,
                             DeviceBuffer<unsigned long long>::Allocate(offsets.size() / 2));
    DISSECT_ASSIGN_OR_RETURN(
        const std::vector<uint64_t> pointers,
        ChainAsPointers(words, stride, reinterpret_cast<uint64_t>(chain.pointers.get())));
    DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(chain.pointers.get(), pointers.data(),
                                            chain.pointers.bytes(), cudaMemcpyHostToDevice));
  }
  return chain;
}

// The cycles per load of every timed launch's chase of every peer, in
// launch-major order. Every chase must have happened: its end point
// (`expected`, a byte offset from the chain's start) is known.
absl::StatusOr<std::vector<double>> ChaseSlopes(const std::vector<ChaseTiming>& results,
                                                int warmup, int peers, uint64_t expected,
                                                uint64_t timed_loads) {
  const int launches = static_cast<int>(results.size() / peers);
  std::vector<double> slopes;
  for (int l = warmup; l < launches; ++l) {
    for (int d = 0; d < peers; ++d) {
      const ChaseTiming& t = results[static_cast<size_t>(l) * peers + d];
      if (t.sink != expected) {
        return absl::InternalError(absl::StrCat("launch ", l, " peer ", d, " ended the chase at ",
                                                t.sink, ", expected ", expected));
      }
      DISSECT_ASSIGN_OR_RETURN(const double slope,
                               SegmentSlope(t.cycles[0], t.cycles[1], timed_loads));
      slopes.push_back(slope);
    }
  }
  return slopes;
}

// The point's samples, vector and notes from the chases' slopes.
absl::Status ReportLatency(PointContext& ctx, const std::vector<double>& slopes, int peers,
                           DsmPath path, const ClusterFit& fit,
                           const std::vector<int>& sm_of_rank) {
  const int cluster_size = static_cast<int>(sm_of_rank.size());
  std::vector<double> per_launch;
  for (size_t l = 0; l * peers < slopes.size(); ++l) {
    const std::vector<double> launch_by_peer(slopes.begin() + l * peers,
                                             slopes.begin() + (l + 1) * peers);
    DISSECT_ASSIGN_OR_RETURN(const double value, DsmPeerCyclesPerLoad(launch_by_peer));
    per_launch.push_back(value);
  }
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples("cycles_per_load", std::move(per_launch)));
  DISSECT_RETURN_IF_ERROR(ctx.AddSamples(
      "max_active_clusters", std::vector<double>(1, static_cast<double>(fit.max_active_clusters))));
  if (path == DsmPath::kDsmPeer) {
    DISSECT_ASSIGN_OR_RETURN(std::vector<double> by_peer, CyclesByPeer(slopes, peers));
    DISSECT_RETURN_IF_ERROR(ctx.SetVector("cycles_by_peer", std::move(by_peer)));
    if (cluster_size == 1) {
      ctx.AddNote("cluster of 1: the peer is the block itself, through the shared::cluster window");
    }
    const std::vector<int> near = PeersOnChaserSm(sm_of_rank);
    if (!near.empty()) {
      ctx.AddNote(absl::StrCat("peer distance(s) ", absl::StrJoin(near, " "),
                               " ran on the chasing block's SM"));
    }
  }
  if (fit.non_portable) ctx.AddNote("non-portable cluster size (opt-in)");
  return absl::OkStatus();
}

absl::Status Run(PointContext& ctx) {
  DISSECT_ASSIGN_OR_RETURN(const int path_value,
                           ParseDsmPathValue(ctx.Str("path"), DsmLatencyPathNames()));
  const DsmPath path = static_cast<DsmPath>(path_value);
  DISSECT_ASSIGN_OR_RETURN(const ChainOrder order, ParseChainOrder(ctx.Str("order")));
  const int cluster_size = static_cast<int>(ctx.Int("cluster_size"));
  const int64_t footprint = ctx.Int("footprint_bytes");
  const int64_t stride = ctx.Int("stride_bytes");
  const uint64_t timed_loads = static_cast<uint64_t>(ctx.Int("loads"));
  DISSECT_ASSIGN_OR_RETURN(const size_t shared_bytes, ChaseSharedBytes(ctx, path, footprint));
  DISSECT_ASSIGN_OR_RETURN(const ClusterFit fit,
                           CheckClusterLaunch(ctx.device(), DsmChaseKernel(path), cluster_size,
                                              kDsmChaseThreads, shared_bytes));

  DISSECT_ASSIGN_OR_RETURN(const ChainBuffers chain,
                           UploadChain(path, footprint, stride, order));
  const std::vector<uint32_t>& words = chain.words;

  const int peers = path == DsmPath::kDsmPeer ? cluster_size : 1;
  const uint64_t slots = static_cast<uint64_t>(footprint / stride);
  DISSECT_ASSIGN_OR_RETURN(auto d_out,
                           DeviceBuffer<ChaseTiming>::Allocate(ctx.LaunchSlots() * peers));
  DISSECT_ASSIGN_OR_RETURN(auto d_sm, DeviceBuffer<int>::Allocate(cluster_size));
  DsmChaseArgs args;
  args.path = path;
  args.offsets = chain.offsets.get();
  args.chain_bytes = static_cast<uint64_t>(footprint);
  args.shared_bytes = shared_bytes;
  args.pointers = chain.pointers.get();
  args.cluster_size = cluster_size;
  args.warmup_loads = std::min(slots, kMaxWarmupLoads);
  args.timed_loads = timed_loads;
  args.block_sm = d_sm.get();
  int launch = 0;
  DISSECT_RETURN_IF_ERROR(ctx.TimeKernel(
                                 [&](cudaStream_t stream) {
                                   args.out = d_out.get() + ctx.LaunchSlot(launch++) * peers;
                                   return LaunchDsmChase(args, stream);
                                 },
                                 CacheState::kHot)
                              .status());

  const int launches = ctx.timing().warmup + ctx.timing().samples;
  std::vector<ChaseTiming> results(static_cast<size_t>(launches) * peers);
  DISSECT_CUDA_RETURN_IF_ERROR(cudaMemcpy(
      results.data(), d_out.get(), results.size() * sizeof(ChaseTiming), cudaMemcpyDeviceToHost));
  std::vector<int> sm_of_rank(cluster_size);
  DISSECT_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(sm_of_rank.data(), d_sm.get(), d_sm.bytes(), cudaMemcpyDeviceToHost));
  // Every chase must have happened: its end point (a byte offset from the
  // chain's start) is known.
  const uint64_t expected =
      uint64_t{WalkChain(words, (args.warmup_loads + 3 * timed_loads) % slots)} * sizeof(uint32_t);
  DISSECT_ASSIGN_OR_RETURN(const std::vector<double> slopes,
                           ChaseSlopes(results, ctx.timing().warmup, peers, expected, timed_loads));
  return ReportLatency(ctx, slopes, peers, path, fit, sm_of_rank);
}

DISSECT_EXPERIMENT(dsm_latency)
    .NeedsComputeCapability(90, "thread-block clusters (distributed shared memory)")
    .Question(
        "What does a load from a peer block's shared memory in a thread-block cluster (DSM) "
        "cost, next to own shared memory and L2, by cluster size and peer?")
    .AddAxis(IntAxis("cluster_size", "blocks", {1, 2, 4, 8, 16},
                     "blocks per cluster (a power of two; 16 needs the non-portable opt-in)"))
    .AddAxis(StringAxis("path", DsmLatencyPathNames(), {},
                        "shared_local: ld.shared of the block's own copy; dsm_peer: "
                        "ld.shared::cluster of each peer's copy; l2: ld.global.cg of the chain "
                        "as 64-bit pointers"))
    .AddAxis(IntAxis("footprint_bytes", "B", {16 << 10},
                     "bytes the chain spans in each block's shared memory"))
    .AddAxis(IntAxis("stride_bytes", "B", {8},
                     "distance between chain slots (a multiple of 8 on paths dsm_peer and l2)"))
    .AddAxis(StringAxis("order", {"random", "strided"}, {"random"},
                        "slot visiting order: a random cycle or address order"))
    .AddAxis(IntAxis("loads", "loads", {4096},
                     "loads of the first timed segment per chase (the second has twice as "
                     "many); a multiple of 16"))
    .AddMetric("cycles_per_load", "cycles/load",
               "slope of %clock64 over the two segments; dsm_peer: the mean over peer "
               "distances 1..cluster_size-1 (distance 0 for a cluster of 1)")
    .AddMetric("max_active_clusters", "clusters",
               "cudaOccupancyMaxActiveClusters for this kernel, cluster size and shared memory")
    .AddVector("cycles_by_peer", "cycles/load", "peer",
               "dsm_peer only: entry d is the latency to the block at cluster distance d; entry "
               "0 is the chasing block's own shared memory through the cluster window")
    .Validate(ValidateDsmLatencyPoint)
    .Run(Run);

}  // namespace
}  // namespace dissect
