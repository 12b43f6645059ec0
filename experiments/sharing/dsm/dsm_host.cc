// Host logic of the DSM experiments; see dsm_host.h.
#include "experiments/sharing/dsm/dsm_host.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/workloads/inputs/pointer_chain.h"
#include "kernels/dsm/dsm.h"
#include "kernels/pointer_chase.h"
#include "probes/cuda_status.h"

namespace dissect {
namespace {

constexpr const char* kPathNames[] = {"shared_local", "dsm_peer", "l2"};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::vector<std::string> DsmLatencyPathNames() {
  return {kPathNames[0], kPathNames[1], kPathNames[2]};
}

std::vector<std::string> DsmBandwidthPathNames() { return {kPathNames[0], kPathNames[1]}; }

absl::StatusOr<int> ParseDsmPathValue(absl::string_view name,
                                      const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), name) != names.end()) {
    for (int i = 0; i < 3; ++i) {
      if (name == kPathNames[i]) return i;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown path '", name, "' (paths: ", absl::StrJoin(names, ", "), ")"));
}

absl::Status ValidateClusterSize(int64_t cluster_size) {
  if (cluster_size < 1 || (cluster_size & (cluster_size - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster_size must be a power of two >= 1 (got ", cluster_size, ")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateDsmLatencyPoint(const Point& point) {
  DISSECT_RETURN_IF_ERROR(ValidateClusterSize(point.Int("cluster_size")));
  DISSECT_ASSIGN_OR_RETURN(const int path,
                           ParseDsmPathValue(point.Str("path"), DsmLatencyPathNames()));
  const int64_t footprint = point.Int("footprint_bytes");
  const int64_t stride = point.Int("stride_bytes");
  DISSECT_RETURN_IF_ERROR(ValidateChainGeometry(footprint, stride));
  if (path != static_cast<int>(DsmPath::kSharedLocal) && stride % 8 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("stride_bytes (", stride, ") must be a multiple of 8 on path ",
                     point.Str("path"), ": its chain holds 64-bit addresses"));
  }
  const int64_t loads = point.Int("loads");
  if (loads < 1 || loads % kChaseUnroll != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("loads must be a positive multiple of ", kChaseUnroll, " (got ", loads,
                     "): the timed loop chases ", kChaseUnroll, " loads a trip"));
  }
  return absl::OkStatus();
}

absl::Status ValidateDsmBandwidthPoint(const Point& point) {
  DISSECT_RETURN_IF_ERROR(ValidateClusterSize(point.Int("cluster_size")));
  DISSECT_RETURN_IF_ERROR(ParseDsmPathValue(point.Str("path"), DsmBandwidthPathNames()).status());
  const int64_t bytes = point.Int("bytes_per_block");
  if (bytes < 1 || bytes % kDsmStreamRowBytes != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bytes_per_block must be a positive multiple of ", kDsmStreamRowBytes, " (got ", bytes,
        "): each of the ", kDsmStreamThreads, " threads reads 16 bytes of every row"));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> SegmentSlope(uint64_t cycles0, uint64_t cycles1, uint64_t timed_loads) {
  if (timed_loads == 0) return absl::InvalidArgumentError("timed_loads is 0");
  if (cycles1 < cycles0) {
    return absl::InvalidArgumentError(absl::StrCat("segment 1 (", cycles1,
                                                   " cycles) took less than segment 0 (", cycles0,
                                                   " cycles) with twice the loads"));
  }
  return static_cast<double>(cycles1 - cycles0) / static_cast<double>(timed_loads);
}

absl::StatusOr<std::vector<double>> CyclesByPeer(const std::vector<double>& slopes, int peers) {
  if (peers < 1 || slopes.empty() || slopes.size() % peers != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(slopes.size(), " slopes are not whole launches of ", peers, " peers"));
  }
  const size_t launches = slopes.size() / peers;
  std::vector<double> out;
  for (int d = 0; d < peers; ++d) {
    std::vector<double> of_peer;
    for (size_t l = 0; l < launches; ++l) of_peer.push_back(slopes[l * peers + d]);
    out.push_back(Median(std::move(of_peer)));
  }
  return out;
}

absl::StatusOr<double> DsmPeerCyclesPerLoad(const std::vector<double>& by_peer) {
  if (by_peer.empty()) return absl::InvalidArgumentError("no peers");
  if (by_peer.size() == 1) return by_peer[0];
  double sum = 0;
  for (size_t d = 1; d < by_peer.size(); ++d) sum += by_peer[d];
  return sum / static_cast<double>(by_peer.size() - 1);
}

std::vector<int> PeersOnChaserSm(const std::vector<int>& sm_of_rank) {
  std::vector<int> out;
  for (size_t d = 1; d < sm_of_rank.size(); ++d) {
    if (sm_of_rank[d] == sm_of_rank[0]) out.push_back(static_cast<int>(d));
  }
  return out;
}

int StreamRankRead(int block, int cluster_size, bool peer) {
  const int rank = block % cluster_size;
  return peer ? (rank + 1) % cluster_size : rank;
}

uint32_t ExpectedStreamSum(uint64_t block_bytes, int rank_read, uint64_t iterations) {
  uint32_t once = 0;
  for (uint64_t i = 0; i < block_bytes / sizeof(uint32_t); ++i) {
    once += DsmStreamWord(static_cast<uint32_t>(i), static_cast<uint32_t>(rank_read));
  }
  return once * static_cast<uint32_t>(iterations);
}

uint64_t StreamIterations(uint64_t block_bytes) {
  if (block_bytes == 0) return 1;
  return std::max<uint64_t>(1, (kStreamBytesPerBlock + block_bytes - 1) / block_bytes);
}

int DistinctSms(const std::vector<int>& block_sm) {
  return static_cast<int>(std::set<int>(block_sm.begin(), block_sm.end()).size());
}

double PeerSameSmFraction(const std::vector<int>& block_sm, int cluster_size) {
  if (block_sm.empty() || cluster_size < 1) return 0;
  int same = 0;
  for (size_t b = 0; b < block_sm.size(); ++b) {
    const size_t first = b - b % cluster_size;
    const size_t peer = first + StreamRankRead(static_cast<int>(b), cluster_size, true);
    if (peer < block_sm.size() && block_sm[peer] == block_sm[b]) ++same;
  }
  return static_cast<double>(same) / static_cast<double>(block_sm.size());
}

absl::StatusOr<StreamRates> StreamRatesFrom(double bytes, double ms, double clock_mhz, int sms) {
  if (!(bytes > 0) || !(ms > 0) || !(clock_mhz > 0) || sms < 1) {
    return absl::InvalidArgumentError(absl::StrCat("bytes ", bytes, ", ms ", ms, ", clock ",
                                                   clock_mhz, " MHz and SMs ", sms,
                                                   " must all be positive"));
  }
  StreamRates r;
  const double seconds = ms * 1e-3;
  r.gbps = bytes / seconds / 1e9;
  r.bytes_per_clk_per_sm = bytes / (seconds * clock_mhz * 1e6) / sms;
  return r;
}

}  // namespace dissect
