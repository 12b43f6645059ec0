#include "experiments/sharing/dsm/dsm_host.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/sharing/cluster_support.h"
#include "experiments/sharing/shared_memory_limits.h"
#include "gtest/gtest.h"
#include "kernels/dsm/dsm.h"

namespace dissect {
namespace {

Point LatencyPoint(int64_t size, std::string path, int64_t footprint, int64_t stride,
                   int64_t loads) {
  Point p;
  p.Add("cluster_size", size);
  p.Add("path", std::move(path));
  p.Add("footprint_bytes", footprint);
  p.Add("stride_bytes", stride);
  p.Add("loads", loads);
  return p;
}

Point BandwidthPoint(int64_t size, std::string path, int64_t bytes) {
  Point p;
  p.Add("cluster_size", size);
  p.Add("path", std::move(path));
  p.Add("bytes_per_block", bytes);
  return p;
}

TEST(DsmHostTest, ParsesPathsOfEachExperiment) {
  EXPECT_EQ(*ParseDsmPathValue("shared_local", DsmLatencyPathNames()),
            static_cast<int>(DsmPath::kSharedLocal));
  EXPECT_EQ(*ParseDsmPathValue("dsm_peer", DsmLatencyPathNames()),
            static_cast<int>(DsmPath::kDsmPeer));
  EXPECT_EQ(*ParseDsmPathValue("l2", DsmLatencyPathNames()), static_cast<int>(DsmPath::kL2));
  EXPECT_EQ(*ParseDsmPathValue("dsm_peer", DsmBandwidthPathNames()),
            static_cast<int>(DsmPath::kDsmPeer));
  EXPECT_FALSE(ParseDsmPathValue("l2", DsmBandwidthPathNames()).ok());
  EXPECT_FALSE(ParseDsmPathValue("global", DsmLatencyPathNames()).ok());
}

TEST(DsmHostTest, ClusterSizeMustBeAPowerOfTwo) {
  for (int64_t s : {1, 2, 4, 8, 16, 32}) EXPECT_TRUE(ValidateClusterSize(s).ok()) << s;
  for (int64_t s : {0, -2, 3, 6, 12}) {
    EXPECT_EQ(ValidateClusterSize(s).code(), absl::StatusCode::kInvalidArgument) << s;
  }
}

TEST(DsmHostTest, ValidatesLatencyPoints) {
  EXPECT_TRUE(ValidateDsmLatencyPoint(LatencyPoint(4, "dsm_peer", 16384, 8, 4096)).ok());
  EXPECT_TRUE(ValidateDsmLatencyPoint(LatencyPoint(4, "shared_local", 16384, 4, 4096)).ok());
  // dsm_peer and l2 chase 64-bit addresses.
  EXPECT_FALSE(ValidateDsmLatencyPoint(LatencyPoint(4, "dsm_peer", 16384, 4, 4096)).ok());
  EXPECT_FALSE(ValidateDsmLatencyPoint(LatencyPoint(4, "l2", 16384, 4, 4096)).ok());
  EXPECT_TRUE(ValidateDsmLatencyPoint(LatencyPoint(4, "l2", 16384, 8, 4096)).ok());
  EXPECT_FALSE(ValidateDsmLatencyPoint(LatencyPoint(3, "dsm_peer", 16384, 8, 4096)).ok());
  EXPECT_FALSE(ValidateDsmLatencyPoint(LatencyPoint(4, "dsm_peer", 16384, 8, 100)).ok());
  EXPECT_FALSE(ValidateDsmLatencyPoint(LatencyPoint(4, "dsm_peer", 16384, 8, 0)).ok());
  EXPECT_FALSE(ValidateDsmLatencyPoint(LatencyPoint(4, "dsm_peer", 1001, 8, 4096)).ok());
  EXPECT_FALSE(ValidateDsmLatencyPoint(LatencyPoint(4, "nowhere", 16384, 8, 4096)).ok());
}

TEST(DsmHostTest, ValidatesBandwidthPoints) {
  EXPECT_TRUE(ValidateDsmBandwidthPoint(BandwidthPoint(2, "dsm_peer", kDsmStreamRowBytes)).ok());
  EXPECT_TRUE(
      ValidateDsmBandwidthPoint(BandwidthPoint(16, "shared_local", 8 * kDsmStreamRowBytes)).ok());
  EXPECT_FALSE(ValidateDsmBandwidthPoint(BandwidthPoint(2, "dsm_peer", 4096)).ok());
  EXPECT_FALSE(ValidateDsmBandwidthPoint(BandwidthPoint(2, "dsm_peer", 0)).ok());
  EXPECT_FALSE(ValidateDsmBandwidthPoint(BandwidthPoint(2, "l2", kDsmStreamRowBytes)).ok());
  EXPECT_FALSE(ValidateDsmBandwidthPoint(BandwidthPoint(5, "dsm_peer", kDsmStreamRowBytes)).ok());
}

TEST(DsmHostTest, SlopeIsFreeOfTheSegmentsFixedCost) {
  // 200 cycles a load plus 50 of fixed cost per segment.
  EXPECT_DOUBLE_EQ(*SegmentSlope(50 + 200 * 1024, 50 + 200 * 2048, 1024), 200.0);
  EXPECT_FALSE(SegmentSlope(10, 20, 0).ok());
  EXPECT_FALSE(SegmentSlope(30, 20, 16).ok());
}

TEST(DsmHostTest, CyclesByPeerIsTheMedianOverLaunchesOfEachPeer) {
  // Three launches of three peers, launch-major.
  const std::vector<double> slopes = {30, 200, 210,  //
                                      31, 900, 211,  //
                                      29, 201, 212};
  const auto by_peer = CyclesByPeer(slopes, 3);
  ASSERT_TRUE(by_peer.ok()) << by_peer.status();
  EXPECT_EQ(*by_peer, (std::vector<double>{30, 201, 211}));
  EXPECT_EQ(*CyclesByPeer({1, 2, 3, 4}, 2), (std::vector<double>{2, 3}));
  EXPECT_FALSE(CyclesByPeer(slopes, 2).ok());
  EXPECT_FALSE(CyclesByPeer({}, 1).ok());
  EXPECT_FALSE(CyclesByPeer(slopes, 0).ok());
}

TEST(DsmHostTest, DsmCyclesPerLoadAveragesThePeersProper) {
  EXPECT_DOUBLE_EQ(*DsmPeerCyclesPerLoad({30, 200, 220, 210}), 210.0);
  EXPECT_DOUBLE_EQ(*DsmPeerCyclesPerLoad({35}), 35.0);
  EXPECT_FALSE(DsmPeerCyclesPerLoad({}).ok());
}

TEST(DsmHostTest, FindsPeersOnTheChasersSm) {
  EXPECT_EQ(PeersOnChaserSm({4, 5, 4, 6}), (std::vector<int>{2}));
  EXPECT_TRUE(PeersOnChaserSm({4}).empty());
  EXPECT_TRUE(PeersOnChaserSm({1, 2, 3}).empty());
}

TEST(DsmHostTest, StreamReadsTheNextRankOfItsCluster) {
  EXPECT_EQ(StreamRankRead(0, 4, true), 1);
  EXPECT_EQ(StreamRankRead(3, 4, true), 0);
  EXPECT_EQ(StreamRankRead(7, 4, true), 0);
  EXPECT_EQ(StreamRankRead(6, 4, true), 3);
  EXPECT_EQ(StreamRankRead(6, 4, false), 2);
  EXPECT_EQ(StreamRankRead(5, 1, true), 0);
}

TEST(DsmHostTest, ExpectedStreamSumCountsIndicesAndRank) {
  // 16 bytes: words 0..3 of rank 2 hold i + 2 << 24.
  const uint32_t once = 0 + 1 + 2 + 3 + 4 * (2u << 24);
  EXPECT_EQ(ExpectedStreamSum(16, 2, 1), once);
  EXPECT_EQ(ExpectedStreamSum(16, 2, 3), 3 * once);
  EXPECT_NE(ExpectedStreamSum(16, 1, 3), ExpectedStreamSum(16, 2, 3));
}

TEST(DsmHostTest, StreamReadsAtLeastTheTargetPerBlock) {
  EXPECT_EQ(StreamIterations(kStreamBytesPerBlock), 1u);
  EXPECT_EQ(StreamIterations(kStreamBytesPerBlock * 2), 1u);
  EXPECT_EQ(StreamIterations(8192), kStreamBytesPerBlock / 8192);
  EXPECT_EQ(StreamIterations(3 * 8192) * 3 * 8192 >= kStreamBytesPerBlock, true);
  EXPECT_EQ(StreamIterations(0), 1u);
}

TEST(DsmHostTest, CountsSmsAndPeersSharingThem) {
  EXPECT_EQ(DistinctSms({3, 3, 5, 7}), 3);
  // Clusters of 2: blocks 0,1 on SM 3 (peers share), blocks 2,3 apart.
  EXPECT_DOUBLE_EQ(PeerSameSmFraction({3, 3, 5, 7}, 2), 0.5);
  EXPECT_DOUBLE_EQ(PeerSameSmFraction({3, 4, 5, 6}, 1), 1.0);
  EXPECT_DOUBLE_EQ(PeerSameSmFraction({}, 2), 0.0);
}

TEST(DsmHostTest, BandwidthBlocksGetAnSmEach) {
  for (const SmSharedMemory& base : {H100SharedMemory(), A100SharedMemory()}) {
    for (int64_t kernel_static : {0, 16, 1024}) {
      SmSharedMemory sm = base;
      sm.kernel_static = kernel_static;
      for (int64_t buffer : {int64_t{kDsmStreamRowBytes}, int64_t{32} << 10, int64_t{96} << 10}) {
        SCOPED_TRACE(absl::StrCat(sm.per_sm, " B/SM, static ", kernel_static, ", buffer ", buffer));
        const absl::StatusOr<int64_t> shared = OneBlockPerSmSharedBytes(sm, buffer);
        ASSERT_TRUE(shared.ok()) << shared.status();
        EXPECT_GE(*shared, buffer);
        EXPECT_EQ(BlocksPerSmByShared(sm, *shared), 1);
      }
    }
  }
}

TEST(DsmHostTest, StreamRates) {
  // 1e9 bytes in 1 ms: 1000 GB/s; at 1000 MHz over 10 SMs 100 B/clk/SM.
  const auto r = StreamRatesFrom(1e9, 1.0, 1000.0, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->gbps, 1000.0);
  EXPECT_DOUBLE_EQ(r->bytes_per_clk_per_sm, 100.0);
  EXPECT_FALSE(StreamRatesFrom(1e9, 0, 1000.0, 10).ok());
  EXPECT_FALSE(StreamRatesFrom(1e9, 1.0, 0, 10).ok());
  EXPECT_FALSE(StreamRatesFrom(1e9, 1.0, 1000.0, 0).ok());
}

}  // namespace
}  // namespace dissect
