#include "experiments/conv_algos/conv_layers.h"

#include <algorithm>
#include <map>
#include <string>

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

TEST(ConvLayersTest, AlgorithmsByName) {
  EXPECT_EQ(ConvAlgos().size(), 8u);
  EXPECT_EQ(*ConvAlgoNamed("winograd_nonfused"), CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
  EXPECT_EQ(*ConvAlgoNamed("fft_tiling"), CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING);
  EXPECT_EQ(ConvAlgoNamed("winograd3").status().message(),
            "unknown convolution algorithm 'winograd3' (one of implicit_gemm, "
            "implicit_precomp_gemm, gemm, direct, fft, fft_tiling, winograd, winograd_nonfused)");
}

}  // namespace
}  // namespace dissect::conv_algos
