#include "experiments/sparsity/sparsity_rows.h"

#include <vector>

#include "gtest/gtest.h"

namespace dissect::sparsity {
namespace {

LayerCounts Layer(const std::string& name, const Dims& dims, const std::vector<float>& x) {
  absl::StatusOr<SparsityCounts> counts = CountSparsity(dims, x);
  EXPECT_TRUE(counts.ok()) << counts.status();
  return {name, counts.ok() ? *counts : SparsityCounts{}};
}

TEST(SparsityRowsTest, RowFromTwoLayers) {
  // conv1: 8 elements, 5 zeros (channels 2/2, 1/2, 2/2, 0/2); conv2: 2
  // elements, 1 zero (one channel of each).
  const std::vector<LayerCounts> layers = {
      Layer("conv1", {1, 4, 1, 2}, {0, 0, 1, 0, 0, 0, 2, 3}),
      Layer("conv2", {1, 2, 1, 1}, {0, 7}),
  };
  absl::StatusOr<SparsityRow> row = MakeRow(layers);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->layers, 2);
  EXPECT_DOUBLE_EQ(row->mean_zero_fraction, (5.0 / 8 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(row->overall_zero_fraction, 6.0 / 10);
  EXPECT_EQ(row->layers_note, "layers=conv1 conv2");
  const auto& v = row->vectors;
  EXPECT_EQ(v.at("zero_fraction"), (std::vector<double>{5.0 / 8, 0.5}));
  EXPECT_EQ(v.at("dead_channel_fraction"), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(v.at("channel_sparsity"), (std::vector<double>{0, 0.5, 1, 1, 0, 1}));
  EXPECT_EQ(v.at("channel_offset"), (std::vector<double>{0, 4}));
  EXPECT_EQ(v.at("channel_min"), (std::vector<double>{0, 0}));
  EXPECT_EQ(v.at("channel_median"), (std::vector<double>{0.75, 0.5}));
  EXPECT_EQ(v.at("channel_max"), (std::vector<double>{1, 1}));
  EXPECT_EQ(v.at("two_four_fraction"), (std::vector<double>{1, 1}));
  EXPECT_EQ(v.at("warp_zero_fraction"), (std::vector<double>{0, 0}));
  EXPECT_EQ(v.at("tile_zero_fraction"), (std::vector<double>{0, 0}));
  EXPECT_EQ(v.size(), 10u);
  EXPECT_FALSE(MakeRow({}).ok());
}

TEST(SparsityRowsTest, SkipReasons) {
  EXPECT_EQ(SkipReason(kSyntheticWeights, "vgg16", "", 0, false), "");
  EXPECT_EQ(SkipReason(kSyntheticWeights, "vgg16", "", 0.1f, false),
            "synthetic_weights runs only at threshold 0");
  EXPECT_EQ(SkipReason(kFatrelu, "vgg16", "", 0.1f, false), "");
  EXPECT_EQ(SkipReason(kFatrelu, "vgg16", "", 0, false),
            "fatrelu needs a threshold above 0 (threshold 0 is plain ReLU)");
  EXPECT_EQ(SkipReason(kNpyDumps, "vgg16", "vgg16", 0, false), "no --activations given");
  EXPECT_EQ(SkipReason(kNpyDumps, "vgg16", "vgg16", 0, true), "");
  EXPECT_EQ(SkipReason(kNpyDumps, "resnet50", "vgg16", 0, true), "npy dumps have no network");
  EXPECT_EQ(SkipReason(kNpyDumps, "vgg16", "vgg16", 0.5f, true),
            "npy_dumps runs only at threshold 0");
}

TEST(SparsityRowsTest, ThresholdsAndNames) {
  for (const std::string& t : ThresholdChoices()) EXPECT_TRUE(ParseThreshold(t).ok()) << t;
  for (const std::string& t : DefaultThresholds()) {
    bool listed = false;
    for (const std::string& c : ThresholdChoices()) listed |= c == t;
    EXPECT_TRUE(listed) << t;
  }
  EXPECT_FLOAT_EQ(*ParseThreshold("0.25"), 0.25f);
  EXPECT_FALSE(ParseThreshold("-1").ok());
  EXPECT_FALSE(ParseThreshold("inf").ok());
  EXPECT_FALSE(ParseThreshold("x").ok());
  EXPECT_TRUE(CheckLayerName("conv1_1").ok());
  EXPECT_FALSE(CheckLayerName("conv 1").ok());
  EXPECT_FALSE(CheckLayerName("a;b").ok());
  EXPECT_FALSE(CheckLayerName("").ok());
}

}  // namespace
}  // namespace dissect::sparsity
