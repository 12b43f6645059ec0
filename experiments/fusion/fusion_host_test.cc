// Host pieces of layer_fusion: names, layer shapes, compulsory bytes, the
// output sample and the CPU reference.
#include "experiments/fusion/fusion_host.h"

#include <algorithm>

#include "experiments/framework/l2_residency.h"
#include "gtest/gtest.h"

namespace dissect::fusion {
namespace {

ConvDims Tiny() {
  ConvDims d;
  d.n = 1;
  d.c = 1;
  d.h = d.w = 3;
  d.k = 1;
  d.r = d.s = 3;
  d.stride = 1;
  d.pad = 1;
  return d;
}

TEST(FusionHost, ParsesNames) {
  EXPECT_EQ(*ParsePattern("bn_relu_conv"), Pattern::kBnReluConv);
  EXPECT_EQ(*ParseMode("unfused"), Mode::kUnfused);
  EXPECT_FALSE(ParsePattern("conv").ok());
  EXPECT_FALSE(ParseMode("half").ok());
}

TEST(FusionHost, LayersAreConvLayersThenDenseNet) {
  const std::vector<std::string> names = FusionLayerNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "vgg16.conv3_1"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "vgg16.pool1"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "vgg16.fc6"), names.end());
  EXPECT_EQ(names.back(), "densenet121.block3_3x3");
  const absl::StatusOr<FusionLayer> t = FindFusionLayer("densenet121.transition1");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dims.c, 256);
  EXPECT_EQ(t->dims.k, 128);
  EXPECT_EQ(t->dims.OutH(), 56);
  const absl::StatusOr<FusionLayer> v = FindFusionLayer("vgg16.conv3_1");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->dims.r, 3);
  EXPECT_EQ(v->dims.OutH(), v->dims.h);
  EXPECT_FALSE(FindFusionLayer("vgg16.pool1").ok());
}

TEST(FusionHost, CompulsoryBytes) {
  ConvDims d = FindFusionLayer("densenet121.block1_3x3")->dims;
  d.n = 2;
  const double x = 2.0 * 128 * 56 * 56 * 4, y = 2.0 * 32 * 56 * 56 * 4;
  const double w = 32.0 * 128 * 9 * 4, bn = 2.0 * 128 * 4;
  // conv_relu: the intermediate is the conv's output.
  EXPECT_DOUBLE_EQ(CompulsoryBytes(Pattern::kConvRelu, Mode::kFused, d), x + w + y);
  EXPECT_DOUBLE_EQ(CompulsoryBytes(Pattern::kConvRelu, Mode::kUnfused, d), x + w + 3 * y);
  // bn_relu: input and output are the layer's input tensor.
  EXPECT_DOUBLE_EQ(CompulsoryBytes(Pattern::kBnRelu, Mode::kFused, d), 2 * x + bn);
  EXPECT_DOUBLE_EQ(CompulsoryBytes(Pattern::kBnRelu, Mode::kUnfused, d), 4 * x + bn);
  // bn_relu_conv: the intermediate is BN+ReLU's output, the conv's input.
  EXPECT_DOUBLE_EQ(CompulsoryBytes(Pattern::kBnReluConv, Mode::kFused, d), x + bn + w + y);
  EXPECT_DOUBLE_EQ(CompulsoryBytes(Pattern::kBnReluConv, Mode::kUnfused, d), 3 * x + bn + w + y);
}

// The working set is every distinct byte the unfused pattern touches; the
// DRAM framing needs at least 2x L2 of it.
TEST(FusionHost, WorkingSetCountsEachTensorOnce) {
  ConvDims d = FindFusionLayer("densenet121.block1_3x3")->dims;
  d.n = 2;
  const double x = 2.0 * 128 * 56 * 56 * 4, y = 2.0 * 32 * 56 * 56 * 4;
  const double w = 32.0 * 128 * 9 * 4, bn = 2.0 * 128 * 4;
  EXPECT_DOUBLE_EQ(WorkingSetBytes(Pattern::kConvRelu, d), x + w + 2 * y);
  EXPECT_DOUBLE_EQ(WorkingSetBytes(Pattern::kBnRelu, d), 3 * x + bn);
  EXPECT_DOUBLE_EQ(WorkingSetBytes(Pattern::kBnReluConv, d), 2 * x + bn + w + y);
}

// DenseNet-121 block 1 at batch 1..8 fits twice over in an H100's 50 MiB L2
// (write-back: the unfused intermediate never reaches DRAM when timed), so
// no row of it may be framed as DRAM traffic; batch 32 of the 56x56 shapes
// is beyond 2x L2. The rule's own boundary: //experiments/framework:l2_residency_test.
TEST(FusionHost, DenseNetBlock1AtSmallBatchesIsL2Resident) {
  constexpr int64_t kH100L2 = 50 << 20;
  for (const char* layer : {"densenet121.block1_1x1", "densenet121.block1_3x3",
                            "densenet121.transition1", "densenet121.block3_3x3"}) {
    for (Pattern p : {Pattern::kConvRelu, Pattern::kBnRelu, Pattern::kBnReluConv}) {
      for (int batch = 1; batch <= 8; ++batch) {
        ConvDims d = FindFusionLayer(layer)->dims;
        d.n = batch;
        EXPECT_FALSE(BeyondTwiceL2(WorkingSetBytes(p, d), kH100L2))
            << layer << " batch " << batch << ": " << WorkingSetBytes(p, d);
      }
    }
  }
  for (const char* layer : {"densenet121.block1_1x1", "densenet121.transition1"}) {
    ConvDims d = FindFusionLayer(layer)->dims;
    d.n = 32;
    EXPECT_TRUE(BeyondTwiceL2(WorkingSetBytes(Pattern::kBnRelu, d), kH100L2)) << layer;
    EXPECT_TRUE(BeyondTwiceL2(WorkingSetBytes(Pattern::kBnReluConv, d), kH100L2)) << layer;
  }
}

TEST(FusionHost, ReferenceOfATinyConv) {
  const ConvDims d = Tiny();
  HostInputs in;
  in.x = {1, -2, 3, -4, 5, -6, 7, -8, 9};
  in.weights = std::vector<float>(9, 1.0f);
  in.scale = {2.0f};
  in.shift = {-1.0f};
  // Centre: the sum of all nine inputs is 5; corner (0,0): 1 - 2 - 4 + 5 = 0.
  EXPECT_EQ(ReferenceAt(Pattern::kConvRelu, in, d, 4), 5.0f);
  EXPECT_EQ(ReferenceAt(Pattern::kConvRelu, in, d, 0), 0.0f);
  // Corner (0,1): 1 - 2 + 3 - 4 + 5 - 6 = -3, ReLU gives 0.
  EXPECT_EQ(ReferenceAt(Pattern::kConvRelu, in, d, 1), 0.0f);
  // bn_relu: max(2x - 1, 0).
  EXPECT_EQ(ReferenceAt(Pattern::kBnRelu, in, d, 0), 1.0f);
  EXPECT_EQ(ReferenceAt(Pattern::kBnRelu, in, d, 1), 0.0f);
  EXPECT_EQ(ReferenceAt(Pattern::kBnRelu, in, d, 8), 17.0f);
  // bn_relu_conv at the centre: BN+ReLU gives 1,0,5,0,9,0,13,0,17 = 45; no
  // ReLU after the conv.
  EXPECT_EQ(ReferenceAt(Pattern::kBnReluConv, in, d, 4), 45.0f);
  in.weights = std::vector<float>(9, -1.0f);
  EXPECT_EQ(ReferenceAt(Pattern::kBnReluConv, in, d, 4), -45.0f);
}

TEST(FusionHost, SampleHoldsEveryImagesEnds) {
  ConvDims d = FindFusionLayer("vgg16.conv3_1")->dims;
  d.n = 4;
  const std::vector<size_t> s = SampleOutputs(Pattern::kConvRelu, d, 1e6);
  const size_t per_image = static_cast<size_t>(d.k) * d.OutH() * d.OutW();
  EXPECT_LT(s.size(), per_image);
  for (int n = 0; n < 4; ++n) {
    EXPECT_TRUE(std::binary_search(s.begin(), s.end(), n * per_image)) << n;
    EXPECT_TRUE(std::binary_search(s.begin(), s.end(), (n + 1) * per_image - 1)) << n;
  }
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  // Small enough: every output.
  EXPECT_EQ(SampleOutputs(Pattern::kConvRelu, Tiny(), 1e6).size(), 9u);
}

TEST(FusionHost, CheckFindsAWrongOutput) {
  const ConvDims d = Tiny();
  const HostInputs in = MakeInputs(Pattern::kBnReluConv, d, 7);
  std::vector<float> y(9);
  for (size_t i = 0; i < 9; ++i) y[i] = ReferenceAt(Pattern::kBnReluConv, in, d, i);
  EXPECT_TRUE(CheckAgainstReference(Pattern::kBnReluConv, in, d, y, 1e6).ok());
  y[5] += 1.0f;
  const absl::Status bad = CheckAgainstReference(Pattern::kBnReluConv, in, d, y, 1e6);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("output 5"), std::string::npos) << bad;
}

}  // namespace
}  // namespace dissect::fusion
