#include "experiments/workloads/forward/cpu_reference.h"

#include <cmath>
#include <numeric>

#include "gtest/gtest.h"

namespace dissect::forward {
namespace {

std::vector<float> Iota(size_t n, float first) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(ConvCpuTest, TwoByTwoValid) {
  TensorDims out;
  const std::vector<float> y = ConvCpu(Iota(9, 1), {1, 1, 3, 3}, {1, 2, 3, 4}, 1, 2, 2, 1, 0, &out);
  EXPECT_EQ(out.h, 2);
  EXPECT_EQ(out.w, 2);
  EXPECT_EQ(y, (std::vector<float>{37, 47, 67, 77}));
}

TEST(ConvCpuTest, PaddedStrided) {
  TensorDims out;
  const std::vector<float> y =
      ConvCpu(Iota(9, 1), {1, 1, 3, 3}, std::vector<float>(9, 1.0f), 1, 3, 3, 2, 1, &out);
  EXPECT_EQ(out.h, 2);
  EXPECT_EQ(out.w, 2);
  EXPECT_EQ(y, (std::vector<float>{12, 16, 24, 28}));
}

TEST(ConvCpuTest, SumsOverChannelsPerOutputChannel) {
  TensorDims out;
  // Two images of 2 channels, 1x1; k = 2 filters: (1, 1) and (1, -1).
  const std::vector<float> y =
      ConvCpu({2, 3, 5, 7}, {2, 2, 1, 1}, {1, 1, 1, -1}, 2, 1, 1, 1, 0, &out);
  EXPECT_EQ(out.c, 2);
  EXPECT_EQ(y, (std::vector<float>{5, -1, 12, -2}));
}

TEST(BatchNormCpuTest, MeanVarAndNormalize) {
  // n 2, c 2, h 1, w 2: channel 0 holds 1, 2, 3, 4; channel 1 holds 10 x4.
  const TensorDims dims = {2, 2, 1, 2};
  const std::vector<float> x = {1, 2, 10, 10, 3, 4, 10, 10};
  std::vector<float> mean;
  std::vector<float> var;
  ChannelMeanVarCpu(x, dims, &mean, &var);
  EXPECT_FLOAT_EQ(mean[0], 2.5f);
  EXPECT_FLOAT_EQ(var[0], 1.25f);
  EXPECT_FLOAT_EQ(mean[1], 10.0f);
  EXPECT_FLOAT_EQ(var[1], 0.0f);
  const std::vector<float> y = BatchNormCpu(x, dims, mean, var, 0.0);
  EXPECT_NEAR(y[0], -1.5 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR(y[5], 1.5 / std::sqrt(1.25), 1e-6);
  const std::vector<float> z = BatchNormCpu({3}, {1, 1, 1, 1}, {1}, {4}, 0.0);
  EXPECT_FLOAT_EQ(z[0], 1.0f);
}

TEST(FatReluCpuTest, Threshold) {
  const std::vector<float> x = {-1, 0, 0.5f, 1, 2};
  EXPECT_EQ(FatReluCpu(x, 0), (std::vector<float>{0, 0, 0.5f, 1, 2}));
  EXPECT_EQ(FatReluCpu(x, 1), (std::vector<float>{0, 0, 0, 0, 2}));
}

TEST(MaxPoolCpuTest, PaddedStrided) {
  TensorDims out;
  EXPECT_EQ(MaxPoolCpu(Iota(16, 1), {1, 1, 4, 4}, 3, 3, 2, 1, &out),
            (std::vector<float>{6, 8, 14, 16}));
  EXPECT_EQ(out.h, 2);
  std::vector<float> negative = Iota(16, 1);
  for (float& v : negative) v = -v;
  // Padding is no candidate: the corner window's max is -1, not 0.
  EXPECT_EQ(MaxPoolCpu(negative, {1, 1, 4, 4}, 3, 3, 2, 1, &out),
            (std::vector<float>{-1, -2, -5, -6}));
}

TEST(AddCpuTest, Elementwise) { EXPECT_EQ(AddCpu({1, 2}, {3, -5}), (std::vector<float>{4, -3})); }

TEST(RandomTest, NormalAtIsStandardAndDeterministic) {
  double sum = 0;
  double sum_sq = 0;
  constexpr int kCount = 100000;
  for (int i = 0; i < kCount; ++i) {
    const double z = NormalAt(7, 3, i);
    sum += z;
    sum_sq += z * z;
  }
  EXPECT_NEAR(sum / kCount, 0.0, 0.02);
  EXPECT_NEAR(sum_sq / kCount, 1.0, 0.02);
  EXPECT_EQ(NormalAt(7, 3, 11), NormalAt(7, 3, 11));
  EXPECT_NE(NormalAt(7, 3, 11), NormalAt(8, 3, 11));
}

TEST(RandomTest, HeWeightsStd) {
  const std::vector<float> w = HeWeights(1, 5, 64, 64, 3, 3);
  ASSERT_EQ(w.size(), 64u * 64 * 9);
  double sum_sq = 0;
  for (float v : w) sum_sq += static_cast<double>(v) * v;
  EXPECT_NEAR(std::sqrt(sum_sq / w.size()), std::sqrt(2.0 / (64 * 9)), 0.02 * std::sqrt(2.0 / 576));
  EXPECT_EQ(w, HeWeights(1, 5, 64, 64, 3, 3));
  EXPECT_NE(w, HeWeights(1, 6, 64, 64, 3, 3));
}

TEST(SyntheticImageTest, SmoothBoundedDeterministic) {
  const TensorDims dims = {2, 3, 32, 32};
  const std::vector<float> x = SyntheticImage(42, dims);
  ASSERT_EQ(x.size(), dims.elements());
  EXPECT_EQ(x, SyntheticImage(42, dims));
  EXPECT_NE(x, SyntheticImage(43, dims));
  double mean = 0;
  for (float v : x) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LE(v, 2.0f);
    mean += v;
  }
  mean /= x.size();
  // Horizontal neighbours are strongly correlated (image-like, not noise).
  double cov = 0;
  double var = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    if ((i + 1) % dims.w == 0) continue;
    cov += (x[i] - mean) * (x[i + 1] - mean);
    var += (x[i] - mean) * (x[i] - mean);
  }
  EXPECT_GT(cov / var, 0.6);
}

TEST(RunNetworkCpuTest, CalibratedBnAndFatRelu) {
  NetworkSpec net;
  net.input = {3, 8, 8};
  LayerSpec conv;
  conv.name = "conv";
  conv.op = LayerOp::kConv;
  conv.inputs = {kNetworkInput};
  conv.k = 4;
  conv.r = conv.s = 3;
  conv.pad = 1;
  conv.in = {3, 8, 8};
  conv.out = {4, 8, 8};
  LayerSpec bn = conv;
  bn.name = "bn";
  bn.op = LayerOp::kBatchNorm;
  bn.inputs = {0};
  bn.in = conv.out;
  LayerSpec relu = bn;
  relu.name = "relu";
  relu.op = LayerOp::kRelu;
  relu.inputs = {1};
  net.layers = {conv, bn, relu};
  for (const float threshold : {0.0f, 0.5f}) {
    std::vector<std::string> seen;
    ASSERT_TRUE(RunNetworkCpu(net, 2, 9, threshold,
                              [&](const LayerSpec& l, const std::vector<float>& y, TensorDims d) {
                                seen.push_back(l.name);
                                if (l.op == LayerOp::kBatchNorm) {
                                  std::vector<float> mean;
                                  std::vector<float> var;
                                  ChannelMeanVarCpu(y, d, &mean, &var);
                                  for (int c = 0; c < d.c; ++c) {
                                    EXPECT_NEAR(mean[c], 0, 1e-4);
                                    EXPECT_NEAR(var[c], 1, 1e-3);
                                  }
                                }
                                if (l.op == LayerOp::kRelu) {
                                  for (float v : y) EXPECT_TRUE(v == 0 || v > threshold);
                                }
                              })
                    .ok());
    EXPECT_EQ(seen, (std::vector<std::string>{"conv", "bn", "relu"}));
  }
  EXPECT_FALSE(RunNetworkCpu(net, 0, 9, 0, nullptr).ok());
  EXPECT_FALSE(RunNetworkCpu(net, 1, 9, -1, nullptr).ok());
}

TEST(AvgPoolCpuTest, PaddingCountsAsZero) {
  TensorDims out;
  // 1..9 in a 3x3 map; 2x2 windows, stride 2, pad 1: corners see one value.
  const std::vector<float> y = AvgPoolCpu(Iota(9, 1), {1, 1, 3, 3}, 2, 2, 2, 1, &out);
  EXPECT_EQ(out.h, 2);
  EXPECT_EQ(out.w, 2);
  EXPECT_EQ(y, (std::vector<float>{0.25f, (2 + 3) / 4.0f, (4 + 7) / 4.0f, (5 + 6 + 8 + 9) / 4.0f}));
}

TEST(AvgPoolCpuTest, GlobalPerChannel) {
  TensorDims out;
  const std::vector<float> y = AvgPoolCpu(Iota(8, 1), {1, 2, 2, 2}, 2, 2, 1, 0, &out);
  EXPECT_EQ(out.c, 2);
  EXPECT_EQ(out.h, 1);
  EXPECT_EQ(y, (std::vector<float>{2.5f, 6.5f}));
}

TEST(ConcatCpuTest, ChannelsPerImage) {
  TensorDims out;
  // Two images: a has 1 channel of 2 pixels, b 2 channels.
  const std::vector<float> y =
      ConcatCpu({1, 2, 3, 4}, {2, 1, 1, 2}, Iota(8, 10), {2, 2, 1, 2}, &out);
  EXPECT_EQ(out.c, 3);
  EXPECT_EQ(y, (std::vector<float>{1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17}));
}

TEST(FcCpuTest, FlattensEachImage) {
  TensorDims out;
  // Two images of 2x1x2 = 4 features; k = 2: sum and alternating sum.
  const std::vector<float> y = FcCpu(Iota(8, 1), {2, 2, 1, 2}, {1, 1, 1, 1, 1, -1, 1, -1}, 2, &out);
  EXPECT_EQ(out.n, 2);
  EXPECT_EQ(out.c, 2);
  EXPECT_EQ(out.h, 1);
  EXPECT_EQ(y, (std::vector<float>{10, -2, 26, -2}));
}

TEST(SoftmaxCpuTest, OverChannelsPerPixel) {
  // One image, 2 channels, 2 pixels: pixel 0 sees (0, 0), pixel 1 (0, ln 3).
  const std::vector<float> y = SoftmaxCpu({0, 0, 0, std::log(3.0f)}, {1, 2, 1, 2});
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_FLOAT_EQ(y[1], 0.25f);
  EXPECT_FLOAT_EQ(y[2], 0.5f);
  EXPECT_FLOAT_EQ(y[3], 0.75f);
  // Large logits do not overflow.
  const std::vector<float> big = SoftmaxCpu({1000, 1000}, {1, 2, 1, 1});
  EXPECT_FLOAT_EQ(big[0], 0.5f);
}

}  // namespace
}  // namespace dissect::forward
