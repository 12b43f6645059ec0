// The CPU reference computes what each layer kernel should, and the checks
// built on it catch a wrong output.
#include "experiments/workloads/layers/reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace dissect::l1_bypass {
namespace {

using layers::LayerKernel;

LayerShape ConvLayer(int c, int hw, int k, int r, int stride, int pad) {
  LayerShape l;
  l.name = "t";
  l.type = LayerType::kConv;
  l.c = c;
  l.h = l.w = hw;
  l.k = k;
  l.r = l.s = r;
  l.stride = stride;
  l.pad = pad;
  return l;
}

std::vector<float> ReferenceOutput(const Workload& wl, const HostTensors& in) {
  std::vector<float> y(wl.y_elements);
  for (size_t i = 0; i < y.size(); ++i) y[i] = ExactOutputAt(wl, in, i);
  return y;
}

TEST(ReferenceTest, ConvOfOnesCountsTheWindowInsideThePadding) {
  const Workload wl = MakeWorkload(LayerKernel::kConv, ConvLayer(2, 4, 1, 3, 1, 1), 0);
  HostTensors in;
  in.x.assign(wl.x_elements, 1.0f);
  in.weights.assign(wl.weight_elements, 1.0f);
  const std::vector<float> y = ReferenceOutput(wl, in);
  ASSERT_EQ(y.size(), 16u);
  EXPECT_EQ(y[0], 2 * 4.0f);   // corner: 2 x 2 window, 2 channels
  EXPECT_EQ(y[1], 2 * 6.0f);   // edge
  EXPECT_EQ(y[5], 2 * 9.0f);   // interior
  EXPECT_EQ(y[15], 2 * 4.0f);  // far corner
}

TEST(ReferenceTest, StridedConvPicksTheRightPixels) {
  // One channel, 1 x 1 filter of weight 1, stride 2: every other pixel.
  const Workload wl = MakeWorkload(LayerKernel::kConv, ConvLayer(1, 5, 1, 1, 2, 0), 0);
  HostTensors in;
  in.x.resize(wl.x_elements);
  std::iota(in.x.begin(), in.x.end(), 0.0f);
  in.weights = {1.0f};
  EXPECT_EQ(ReferenceOutput(wl, in), (std::vector<float>{0, 2, 4, 10, 12, 14, 20, 22, 24}));
}

TEST(ReferenceTest, MaxPoolStencilGatherStream) {
  LayerShape pool = ConvLayer(1, 4, 1, 2, 2, 0);
  pool.type = LayerType::kPool;
  const Workload mp = MakeWorkload(LayerKernel::kMaxPool, pool, 0);
  HostTensors in;
  in.x.resize(16);
  std::iota(in.x.begin(), in.x.end(), 0.0f);
  EXPECT_EQ(ReferenceOutput(mp, in), (std::vector<float>{5, 7, 13, 15}));

  const Workload st = MakeWorkload(LayerKernel::kStencil, pool, 0);
  const std::vector<float> s = ReferenceOutput(st, in);
  // Interior pixel 5: 0.5 * 5 + 0.125 * (1 + 9 + 4 + 6); corner 0: 0.125 * (4 + 1).
  EXPECT_EQ(s[5], 2.5f + 0.125f * 20);
  EXPECT_EQ(s[0], 0.125f * 5);

  const Workload g = MakeWorkload(LayerKernel::kGather, pool, 0);
  const HostTensors gin = MakeInputs(g, 7);
  std::vector<int32_t> sorted = gin.index;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], int32_t(i));
  EXPECT_NE(gin.index, sorted) << "not shuffled";
  EXPECT_EQ(ExactOutputAt(g, gin, 3), gin.x[gin.index[3]]);

  const Workload sm = MakeWorkload(LayerKernel::kStream, ConvLayer(2, 2, 1, 1, 1, 0), 0);
  HostTensors sin;
  sin.x = {1, 1, 1, 1, -1, -1, -1, 3};
  sin.weights = {2, 1, 0.5f, 0};  // scale[2], shift[2]
  EXPECT_EQ(ReferenceOutput(sm, sin), (std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f, 0, 0, 0, 3}));
}

TEST(ReferenceTest, GemvAndSoftmaxAgreeWithDoublePrecision) {
  LayerShape fc;
  fc.name = "fc";
  fc.type = LayerType::kFc;
  fc.c = 1000;
  fc.k = 3;
  const Workload wl = MakeWorkload(LayerKernel::kGemv, fc, 0);
  const HostTensors in = MakeInputs(wl, 11);
  for (size_t o = 0; o < 3; ++o) {
    double want = 0;
    for (int c = 0; c < fc.c; ++c) want += double(in.weights[o * fc.c + c]) * in.x[c];
    EXPECT_NEAR(ExactOutputAt(wl, in, o), want, 1e-4);
  }
  const Workload sm = MakeWorkload(LayerKernel::kSoftmax, fc, 0);
  const HostTensors sin = MakeInputs(sm, 12);
  const std::vector<double> row = SoftmaxRow(sm, sin, 0);
  ASSERT_EQ(row.size(), 3u);
  EXPECT_NEAR(row[0] + row[1] + row[2], 1.0, 1e-12);
  EXPECT_GT(row[0], 0.0);
}

TEST(ReferenceTest, CheckCatchesOneWrongElement) {
  const Workload wl = MakeWorkload(LayerKernel::kConv, ConvLayer(3, 9, 4, 3, 1, 1), 0);
  const HostTensors in = MakeInputs(wl, 5);
  std::vector<float> y = ReferenceOutput(wl, in);
  EXPECT_TRUE(CheckAgainstReference(wl, in, y, 1e9).ok());
  y[123] = std::nextafter(y[123], 10.0f);  // one ulp off
  const absl::Status s = CheckAgainstReference(wl, in, y, 1e9);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "element 123")) << s;
  y.pop_back();
  EXPECT_FALSE(CheckAgainstReference(wl, in, y, 1e9).ok());
}

TEST(ReferenceTest, CheckCatchesAWrongSoftmaxRow) {
  LayerShape fc;
  fc.name = "fc";
  fc.type = LayerType::kFc;
  fc.n = 4;
  fc.k = 300;
  const Workload wl = MakeWorkload(LayerKernel::kSoftmax, fc, 0);
  const HostTensors in = MakeInputs(wl, 9);
  std::vector<float> y;
  for (size_t r = 0; r < 4; ++r) {
    for (double v : SoftmaxRow(wl, in, r)) y.push_back(static_cast<float>(v));
  }
  EXPECT_TRUE(CheckAgainstReference(wl, in, y, 1e9).ok());
  y[2 * 300 + 7] *= 1.001f;
  const absl::Status s = CheckAgainstReference(wl, in, y, 1e9);
  EXPECT_TRUE(absl::StrContains(s.message(), "row 2 element 7")) << s;
}

TEST(ReferenceTest, SampledCheckStaysWithinItsBudgetAndStillChecks) {
  const Workload wl = MakeWorkload(LayerKernel::kStencil, ConvLayer(8, 64, 1, 3, 1, 1), 0);
  const HostTensors in = MakeInputs(wl, 3);
  std::vector<float> y = ReferenceOutput(wl, in);
  // A budget of 100 outputs still checks the first and the last.
  EXPECT_TRUE(CheckAgainstReference(wl, in, y, 500).ok());
  y.back() = -y.back();
  EXPECT_FALSE(CheckAgainstReference(wl, in, y, 500).ok());
}

TEST(ReferenceTest, SampledCheckOfABatchChecksEveryImage) {
  // 8 images of 64 x 32 x 32 outputs, a budget of 20 outputs: the first and
  // last output of every image are among them, wherever the random ones fall.
  LayerShape batch = ConvLayer(64, 32, 1, 3, 1, 1);
  batch.n = 8;
  const Workload wl = MakeWorkload(LayerKernel::kStencil, batch, 0);
  ASSERT_EQ(wl.images, 8);
  const HostTensors in = MakeInputs(wl, 4);
  std::vector<float> y = ReferenceOutput(wl, in);
  EXPECT_TRUE(CheckAgainstReference(wl, in, y, 100).ok());
  const size_t first_of_image_5 = 5 * wl.y_elements / 8;
  y[first_of_image_5] = std::nextafter(y[first_of_image_5], 10.0f);
  const absl::Status s = CheckAgainstReference(wl, in, y, 100);
  EXPECT_TRUE(absl::StrContains(s.message(), absl::StrCat("element ", first_of_image_5))) << s;
}

TEST(ReferenceTest, IdenticalMeansBitForBit) {
  const std::vector<float> a = {1.0f, 0.0f, 2.0f};
  EXPECT_TRUE(CheckIdentical(a, a, "default").ok());
  const absl::Status s = CheckIdentical({1.0f, -0.0f, 2.0f}, a, "default");
  EXPECT_TRUE(absl::StrContains(s.message(), "differs from default's at element 1")) << s;
}

}  // namespace
}  // namespace dissect::l1_bypass
