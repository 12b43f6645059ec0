#include "experiments/conv_algos/conv_layers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "experiments/workloads/forward/cpu_reference.h"
#include "gtest/gtest.h"

namespace dissect::conv_algos {
namespace {

const ConvLayer* Find(const std::vector<ConvLayer>& layers, const std::string& name) {
  for (const ConvLayer& l : layers) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

TEST(ConvLayersTest, NamesEveryConvOfEveryNetwork) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  std::map<std::string, int> per_network;
  for (const ConvLayer& l : *layers) ++per_network[l.network];
  EXPECT_EQ(per_network["vgg16"], 13);
  EXPECT_EQ(per_network["resnet50"], 53);
  EXPECT_EQ(per_network["alexnet"], 5);
  const ConvLayer* conv = Find(*layers, "vgg16.conv4_2");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->spec.in.c, 512);
  EXPECT_EQ(conv->spec.in.h, 28);
  EXPECT_EQ(conv->spec.k, 512);
  EXPECT_EQ(conv->network_conv_layers, 13);
}

TEST(ConvLayersTest, ShapeCountsCountEachConvOnce) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  std::map<std::string, int> counted;
  for (const ConvLayer& l : *layers) counted[l.network] += l.shape_count;
  EXPECT_EQ(counted["vgg16"], 13);
  EXPECT_EQ(counted["resnet50"], 53);
  // VGG-16: conv4_2 and conv4_3 repeat conv4_2's shape (512 -> 512 at 28x28).
  EXPECT_EQ(Find(*layers, "vgg16.conv4_2")->shape_count, 2);
  EXPECT_EQ(Find(*layers, "vgg16.conv4_3")->shape_count, 0);
  // ResNet-50: the 3x3 conv of blocks 1 and 2 of layer1 repeats block 0's.
  EXPECT_EQ(Find(*layers, "resnet50.layer1.0.conv2")->shape_count, 3);
  EXPECT_EQ(Find(*layers, "resnet50.layer1.1.conv2")->shape_count, 0);
  const std::vector<std::string> distinct = DistinctShapeNames(*layers, {"vgg16"});
  EXPECT_EQ(std::count(distinct.begin(), distinct.end(), "vgg16.conv4_3"), 0);
  EXPECT_EQ(std::count(distinct.begin(), distinct.end(), "vgg16.conv1_1"), 1);
  EXPECT_EQ(distinct.size(), 9u);  // conv3_3, conv4_3, conv5_2 and conv5_3 repeat
}

TEST(ConvLayersTest, FlopsAreTwiceTheMultiplyAdds) {
  absl::StatusOr<std::vector<ConvLayer>> layers = AllConvLayers();
  ASSERT_TRUE(layers.ok()) << layers.status();
  // conv1_1: 64 x 3 x 3 x 3 weights at 224 x 224 outputs.
  EXPECT_DOUBLE_EQ(ConvFlops(Find(*layers, "vgg16.conv1_1")->spec, 2),
                   2.0 * 2 * 64 * 3 * 3 * 3 * 224 * 224);
  // ResNet-50's stem: 7x7 stride 2 to 112 x 112.
  EXPECT_DOUBLE_EQ(ConvFlops(Find(*layers, "resnet50.conv1")->spec, 1),
                   2.0 * 64 * 3 * 7 * 7 * 112 * 112);
}

// The sampled reference of the experiment's check equals the forward pass's
// CPU convolution (ConvCpu) everywhere on a small strided, padded layer,
// with an input pattern shorter than the tensor (it repeats).
TEST(ConvLayersTest, OutputAtMatchesTheCpuConvolution) {
  forward::LayerSpec l;
  l.op = forward::LayerOp::kConv;
  l.in = {3, 7, 6};
  l.k = 4;
  l.r = 3;
  l.s = 2;
  l.stride = 2;
  l.pad = 1;
  l.out = {4, 4, 4};
  const int batch = 2;
  std::vector<float> x_pattern(50);
  std::vector<float> w_pattern(17);
  for (size_t i = 0; i < x_pattern.size(); ++i) x_pattern[i] = forward::NormalAt(1, 0, i);
  for (size_t i = 0; i < w_pattern.size(); ++i) w_pattern[i] = forward::NormalAt(1, 1, i);
  const forward::TensorDims dims{batch, l.in.c, l.in.h, l.in.w};
  std::vector<float> x(dims.elements());
  std::vector<float> w(static_cast<size_t>(l.k) * l.in.c * l.r * l.s);
  for (size_t i = 0; i < x.size(); ++i) x[i] = x_pattern[i % x_pattern.size()];
  for (size_t i = 0; i < w.size(); ++i) w[i] = w_pattern[i % w_pattern.size()];
  forward::TensorDims out;
  const std::vector<float> y = forward::ConvCpu(x, dims, w, l.k, l.r, l.s, l.stride, l.pad, &out);
  ASSERT_EQ(out.h, l.out.h);
  ASSERT_EQ(out.w, l.out.w);
  size_t i = 0;
  for (int n = 0; n < batch; ++n) {
    for (int k = 0; k < l.k; ++k) {
      for (int p = 0; p < out.h; ++p) {
        for (int q = 0; q < out.w; ++q, ++i) {
          const ReferenceValue ref = ConvOutputAt(l, x_pattern, w_pattern, n, k, p, q);
          EXPECT_NEAR(ref.value, y[i], 1e-5) << n << " " << k << " " << p << " " << q;
          EXPECT_GE(ref.magnitude, std::fabs(ref.value));
          EXPECT_GE(ref.magnitude, ref.norm);
          EXPECT_GT(ref.norm, 0);
        }
      }
    }
  }
}

TEST(ConvLayersTest, AlgorithmsByName) {
  EXPECT_EQ(ConvAlgos().size(), 8u);
  EXPECT_EQ(*ConvAlgoNamed("winograd_nonfused"), CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
  EXPECT_EQ(*ConvAlgoNamed("fft_tiling"), CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING);
  EXPECT_EQ(ConvAlgoNamed("winograd3").status().message(),
            "unknown convolution algorithm 'winograd3' (one of implicit_gemm, "
            "implicit_precomp_gemm, gemm, direct, fft, fft_tiling, winograd, winograd_nonfused)");
}

// The algorithm axis: cuDNN's eight, then our two_stage, which is not a cuDNN
// algorithm.
TEST(ConvLayersTest, AlgorithmAxisEndsWithTwoStage) {
  const std::vector<std::string> axis = AlgoAxisNames();
  ASSERT_EQ(axis.size(), ConvAlgos().size() + 1);
  EXPECT_EQ(axis.back(), "two_stage");
  EXPECT_FALSE(ConvAlgoNamed(kTwoStageAlgo).ok());
}

}  // namespace
}  // namespace dissect::conv_algos
