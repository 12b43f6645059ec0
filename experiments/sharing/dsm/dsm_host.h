// Host logic of the distributed-shared-memory experiments (dsm_latency,
// dsm_bandwidth) that needs no GPU: axis checks, the
// reduction of chase timings to cycles per load per peer, the expected
// results of the stream kernel, and bandwidth arithmetic. Unit-tested by
// dsm_host_test.
#ifndef DISSECT_EXPERIMENTS_SHARING_DSM_DSM_HOST_H_
#define DISSECT_EXPERIMENTS_SHARING_DSM_DSM_HOST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "experiments/framework/axes.h"

namespace dissect {

// The path names of the axis `path`: "shared_local", "dsm_peer", "l2"
// (dsm_bandwidth has no "l2"). Values are DsmPath (kernels/dsm/dsm.h).
std::vector<std::string> DsmLatencyPathNames();
std::vector<std::string> DsmBandwidthPathNames();
// InvalidArgument for a name not in `names`; else the DsmPath value.
absl::StatusOr<int> ParseDsmPathValue(absl::string_view name,
                                      const std::vector<std::string>& names);

// A power of two >= 1 (InvalidArgument otherwise). Sizes above the
// device's limit are not checked here: CheckClusterLaunch skips them.
absl::Status ValidateClusterSize(int64_t cluster_size);

// dsm_latency's axes: cluster_size, path, footprint_bytes, stride_bytes
// (chain geometry; a multiple of 8 on paths dsm_peer and l2, whose chains
// hold 64-bit addresses), loads (a positive multiple of kChaseUnroll).
absl::Status ValidateDsmLatencyPoint(const Point& point);

// dsm_bandwidth's axes: cluster_size, path, bytes_per_block (a positive
// multiple of kDsmStreamRowBytes).
absl::Status ValidateDsmBandwidthPoint(const Point& point);

// Cycles per load of one timed chase whose segment 0 chased timed_loads
// loads in cycles0 and segment 1 twice as many in cycles1: the slope
// (cycles1 - cycles0) / timed_loads, free of the segments' fixed cost.
// InvalidArgument if timed_loads is 0 or cycles1 < cycles0.
absl::StatusOr<double> SegmentSlope(uint64_t cycles0, uint64_t cycles1, uint64_t timed_loads);

// `slopes` holds launches × peers values, launch-major (launch l's peer d
// at l * peers + d). Returns per peer the median over launches.
// InvalidArgument if peers < 1 or the size is not a positive multiple.
absl::StatusOr<std::vector<double>> CyclesByPeer(const std::vector<double>& slopes, int peers);

// dsm_peer's cycles_per_load from one launch's (or the medians') values
// by peer distance: the mean over distances 1..n-1 (the peers proper), or
// distance 0 when n == 1 (a cluster of one: the block itself through the
// cluster window). InvalidArgument if empty.
absl::StatusOr<double> DsmPeerCyclesPerLoad(const std::vector<double>& by_peer);

// The peer distances d > 0 whose block ran on the same SM as the chasing
// block (rank 0): sm_of_rank[r] is rank r's %smid. Such a peer's "remote"
// loads never leave the SM.
std::vector<int> PeersOnChaserSm(const std::vector<int>& sm_of_rank);

// The cluster rank whose buffer block `block` reads in the stream kernel:
// (rank + 1) % cluster_size for dsm_peer (`peer` true), its own otherwise.
int StreamRankRead(int block, int cluster_size, bool peer);

// The sum a block of the stream kernel adds (mod 2^32): `iterations`
// passes over a `block_bytes` buffer of cluster rank `rank_read`.
uint32_t ExpectedStreamSum(uint64_t block_bytes, int rank_read, uint64_t iterations);

// Passes over a block_bytes buffer so that every block reads at least
// kStreamBytesPerBlock (at least one pass).
inline constexpr uint64_t kStreamBytesPerBlock = uint64_t{16} << 20;
uint64_t StreamIterations(uint64_t block_bytes);

// Distinct SM ids among `block_sm`.
int DistinctSms(const std::vector<int>& block_sm);

// Fraction of blocks whose peer (dsm_peer's rank read) ran on their own SM.
double PeerSameSmFraction(const std::vector<int>& block_sm, int cluster_size);

struct StreamRates {
  double gbps = 0;                  // bytes / time, 1e9 B/s
  double bytes_per_clk_per_sm = 0;  // bytes / (time × SM clock) / sms
};
// InvalidArgument unless bytes, ms, clock_mhz and sms are positive.
absl::StatusOr<StreamRates> StreamRatesFrom(double bytes, double ms, double clock_mhz, int sms);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_DSM_DSM_HOST_H_
