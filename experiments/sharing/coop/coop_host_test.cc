#include "experiments/sharing/coop/coop_host.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/framework/experiment.h"
#include "experiments/sharing/shared_memory_limits.h"
#include "gtest/gtest.h"

namespace dissect::coop {
namespace {

using l1_bypass::LayerShape;
using l1_bypass::LayerType;

LayerShape Conv(int r, int stride, int pad) {
  LayerShape l;
  l.name = "test.conv";
  l.type = LayerType::kConv;
  l.c = 64;
  l.h = l.w = 28;
  l.k = 64;
  l.r = l.s = r;
  l.stride = stride;
  l.pad = pad;
  return l;
}

TEST(CoopHostTest, Conv3x3RunsOnlyStrideOnePadOneThreeByThreeConvs) {
  EXPECT_EQ(NotApplicable(CoopKernel::kConv3x3, Conv(3, 1, 1)), "");
  EXPECT_NE(NotApplicable(CoopKernel::kConv3x3, Conv(5, 1, 2)), "");
  EXPECT_NE(NotApplicable(CoopKernel::kConv3x3, Conv(3, 2, 1)), "");
  EXPECT_NE(NotApplicable(CoopKernel::kConv3x3, Conv(3, 1, 0)), "");
  LayerShape fc;
  fc.name = "test.fc";
  fc.type = LayerType::kFc;
  EXPECT_NE(NotApplicable(CoopKernel::kConv3x3, fc), "");
  EXPECT_EQ(NotApplicable(CoopKernel::kGemv, fc), "");
  EXPECT_NE(NotApplicable(CoopKernel::kGemv, Conv(3, 1, 1)), "");
}

TEST(CoopHostTest, EveryBuiltInLayerEitherFitsOrSaysWhy) {
  const auto& layers = l1_bypass::EmbeddedLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  int convs = 0, fcs = 0;
  for (const LayerShape& l : *layers) {
    if (NotApplicable(CoopKernel::kConv3x3, l).empty()) ++convs;
    if (NotApplicable(CoopKernel::kGemv, l).empty()) ++fcs;
  }
  // alexnet conv3/conv5, vgg16 conv3_1/4_2/5_3, conv1_2, resnet50 res2..5.
  EXPECT_EQ(convs, 10);
  EXPECT_EQ(fcs, 5);
}

TEST(CoopHostTest, KernelNamesRoundTrip) {
  for (const std::string& name : CoopKernelNames()) {
    absl::StatusOr<CoopKernel> k = ParseCoopKernel(name);
    ASSERT_TRUE(k.ok()) << name;
  }
  EXPECT_EQ(*ParseCoopKernel("conv3x3"), CoopKernel::kConv3x3);
  EXPECT_EQ(*ParseCoopKernel("gemv"), CoopKernel::kGemv);
  EXPECT_EQ(LayerKernelOf(CoopKernel::kGemv), layers::LayerKernel::kGemv);
  EXPECT_EQ(ParseCoopKernel("conv").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CoopHostTest, ValidateRejectsNonsenseOnly) {
  EXPECT_TRUE(ValidatePoint(1, 1).ok());
  EXPECT_TRUE(ValidatePoint(32, 16).ok());
  // Above the CUDA limit: the point runs and is skipped, not rejected.
  EXPECT_TRUE(ValidatePoint(1, 32).ok());
  EXPECT_EQ(ValidatePoint(0, 1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidatePoint(kMaxBatch + 1, 1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidatePoint(1, 0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidatePoint(1, -4).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidatePoint(1, 3).code(), absl::StatusCode::kInvalidArgument);
}

TEST(CoopHostTest, OnlyCoopUsesClusters) {
  EXPECT_TRUE(CheckVariantClusterSize("coop", 8).ok());
  EXPECT_TRUE(CheckVariantClusterSize("layer", 1).ok());
  EXPECT_TRUE(CheckVariantClusterSize("tiled", 1).ok());
  const absl::Status s = CheckVariantClusterSize("tiled", 4);
  EXPECT_TRUE(dissect::IsSkipped(s));
  EXPECT_NE(s.message().find("tiled does not use clusters"), absl::string_view::npos) << s;
  EXPECT_TRUE(dissect::IsSkipped(CheckVariantClusterSize("layer", 2)));
}

TEST(CoopHostTest, SpeedupIsTheRatioOfMediansWithItsSampleSpread) {
  absl::StatusOr<Speedup> s = SpeedupOver({2.0, 4.0, 3.0}, {1.0, 1.5, 1.2});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->ratio, 3.0 / 1.2);
  // lo = 2 / 1.5, hi = 4 / 1.
  EXPECT_DOUBLE_EQ(s->spread, (4.0 - 2.0 / 1.5) / (3.0 / 1.2));
  absl::StatusOr<Speedup> same = SpeedupOver({5.0}, {5.0});
  ASSERT_TRUE(same.ok());
  EXPECT_DOUBLE_EQ(same->ratio, 1.0);
  EXPECT_DOUBLE_EQ(same->spread, 0.0);
  EXPECT_FALSE(SpeedupOver({}, {1.0}).ok());
  EXPECT_FALSE(SpeedupOver({1.0}, {0.0}).ok());
}

// Ranks of a cluster on one SM would share their tile inside it, and the
// row would credit DSM with it: the occupancy calculator's shared-memory
// rule must leave room for one block of each flavour per SM.
TEST(CoopHostTest, EveryTiledAndCoopBlockHasAnSmToItself) {
  for (const SmSharedMemory& limits : {H100SharedMemory(), A100SharedMemory()}) {
    for (const CoopKernel kernel : {CoopKernel::kConv3x3, CoopKernel::kGemv}) {
      SmSharedMemory sm = limits;
      sm.kernel_static = CoopStaticSharedBytes(kernel);
      SCOPED_TRACE(absl::StrCat(sm.per_sm, " B/SM, ", sm.kernel_static, " B static"));
      const absl::StatusOr<size_t> shared = CoopLaunchSharedBytes(sm);
      ASSERT_TRUE(shared.ok()) << shared.status();
      EXPECT_EQ(BlocksPerSmByShared(sm, static_cast<int64_t>(*shared)), 1);
      // Within what one block may ask for, static included.
      EXPECT_LE(static_cast<int64_t>(*shared) + sm.kernel_static, sm.per_block_optin);
    }
  }
}

TEST(CoopHostTest, StaticSharedMemoryIsTheTiles) {
  // conv: 16 channels x 10 x 34 inputs and 4 x 16 x 9 taps; gemv: 2048 x.
  EXPECT_EQ(CoopStaticSharedBytes(CoopKernel::kConv3x3), (16 * 10 * 34 + 4 * 16 * 9) * 4);
  EXPECT_EQ(CoopStaticSharedBytes(CoopKernel::kGemv), 2048 * 4);
}

TEST(CoopHostTest, SameSmFractionCountsBlocksBesideARankOfTheirCluster) {
  // Clusters of 2: {3, 3} share an SM, {5, 7} do not; SM 7 in the next
  // cluster is another cluster's business.
  EXPECT_DOUBLE_EQ(*ClusterSameSmFraction({3, 3, 5, 7, 7, 9}, 2), 2.0 / 6);
  // Clusters of 4: three ranks on SM 1, one alone.
  EXPECT_DOUBLE_EQ(*ClusterSameSmFraction({1, 1, 2, 1, 4, 5, 6, 7}, 4), 3.0 / 8);
  EXPECT_DOUBLE_EQ(*ClusterSameSmFraction({0, 2, 4, 6}, 4), 0.0);
  // A cluster of 1 has no peer, whatever shares the SM.
  EXPECT_DOUBLE_EQ(*ClusterSameSmFraction({5, 5, 5}, 1), 0.0);
  EXPECT_FALSE(ClusterSameSmFraction({}, 2).ok());
  EXPECT_FALSE(ClusterSameSmFraction({1, 2, 3}, 2).ok());  // not whole clusters
  EXPECT_FALSE(ClusterSameSmFraction({1, -1}, 2).ok());    // a block never recorded
  EXPECT_FALSE(ClusterSameSmFraction({1, 2}, 0).ok());
}

TEST(CoopHostTest, CoopDimsCarryTheLayerShape) {
  layers::LayerDims d;
  d.n = 2;
  d.c = 3;
  d.h = 4;
  d.w = 5;
  d.k = 6;
  const CoopDims c = CoopDimsOf(d);
  EXPECT_EQ(c.n, 2);
  EXPECT_EQ(c.c, 3);
  EXPECT_EQ(c.h, 4);
  EXPECT_EQ(c.w, 5);
  EXPECT_EQ(c.k, 6);
}

}  // namespace
}  // namespace dissect::coop
