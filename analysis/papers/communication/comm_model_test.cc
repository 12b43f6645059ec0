// The compute-vs-communication model's arithmetic, and the parameter counts
// of configs/networks against torchvision's.
#include "analysis/papers/communication/comm_model.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers::communication {
namespace {

using ::testing::HasSubstr;

TEST(CommModelTest, RingAllReduceSendsTwiceNMinusOneOverNOfTheGradients) {
  EXPECT_DOUBLE_EQ(RingAllReduceBytesPerWorker(100, 2), 100);
  EXPECT_DOUBLE_EQ(RingAllReduceBytesPerWorker(100, 4), 150);
  EXPECT_DOUBLE_EQ(RingAllReduceBytesPerWorker(100, 8), 175);
  EXPECT_DOUBLE_EQ(RingAllReduceBytesPerWorker(100, 1), 0);
}

TEST(CommModelTest, LineRateInGbitPerSecondIsAnEighthInGBPerSecond) {
  EXPECT_DOUBLE_EQ(LineRateGBps(25), 3.125);
  EXPECT_DOUBLE_EQ(LineRateGBps(100), 12.5);
}

TEST(CommModelTest, TransferShareAndSpeedup) {
  EXPECT_DOUBLE_EQ(TransferMs(3.125e9, 3.125), 1000);
  EXPECT_DOUBLE_EQ(TransferMs(1e6, 50), 0.02);
  EXPECT_TRUE(std::isnan(TransferMs(1, 0)));
  EXPECT_DOUBLE_EQ(ModelledStepComputeMs(2), 6);
  EXPECT_DOUBLE_EQ(CommunicationSharePercent(3, 1), 25);
  EXPECT_DOUBLE_EQ(UpgradeSpeedup(10, 30, 5), 40.0 / 15.0);
  EXPECT_DOUBLE_EQ(UpgradeSpeedup(10, 0, 0), 1);
}

// torchvision's parameter counts (alexnet 61,100,840; vgg16_bn
// 138,365,992; resnet50 25,557,032; densenet121 7,978,856) less their
// biases, which configs/networks leaves out (alexnet: 1,152 conv and 9,192
// FC; vgg16_bn: 4,224 conv and 9,192 FC; resnet50 and densenet121: the FC's
// 1,000).
TEST(CommModelTest, ConfigsNetworksParametersAreTorchvisionsWithoutBiases) {
  EXPECT_EQ(BuiltinNetworkParameters("alexnet").value_or(-1), 61'090'496);
  EXPECT_EQ(BuiltinNetworkParameters("vgg16").value_or(-1), 138'352'576);
  EXPECT_EQ(BuiltinNetworkParameters("resnet50").value_or(-1), 25'556'032);
  EXPECT_EQ(BuiltinNetworkParameters("densenet121").value_or(-1), 7'977'856);
  EXPECT_EQ(BuiltinNetworkParameters("lenet").status().code(), absl::StatusCode::kNotFound);
}

// ResNet-50 on 8 workers over 25 Gbps: 1.75 x 4 B x 25,556,032 parameters
// = 178,892,224 B at 3.125 GB/s.
TEST(CommModelTest, ResNet50OverTwentyFiveGbps) {
  const double bytes = RingAllReduceBytesPerWorker(
      kGradientBytesPerParameter * BuiltinNetworkParameters("resnet50").value_or(0), 8);
  EXPECT_DOUBLE_EQ(bytes, 178'892'224);
  EXPECT_NEAR(TransferMs(bytes, LineRateGBps(25)), 57.2455, 1e-4);
}

TEST(CommModelTest, CountsEachLayerKind) {
  const char* net = R"({"input": {"c": 3, "h": 8, "w": 8}, "layers": [
      {"name": "a", "op": "conv", "k": 4, "r": 3, "s": 3, "pad": 1},
      {"name": "b", "op": "bn"},
      {"name": "c", "op": "conv", "k": 2, "r": 1, "s": 1, "input": "input"},
      {"name": "d", "op": "concat", "inputs": ["a", "c"]},
      {"name": "e", "op": "maxpool", "r": 2, "s": 2, "stride": 2}],
    "classifier": [{"name": "f", "op": "fc", "k": 10}, {"name": "g", "op": "softmax"}]})";
  // conv 4x3x3x3 = 108, bn 2x4 = 8, conv 2x3 = 6, fc 10 x (6 x 4 x 4) = 960.
  EXPECT_EQ(TrainableParameters(net, "t").value_or(-1), 108 + 8 + 6 + 960);
}

TEST(CommModelTest, MalformedNetworksAreOneLineErrors) {
  EXPECT_THAT(TrainableParameters("{", "x.json").status().message(),
              HasSubstr("x.json: not a JSON object"));
  EXPECT_THAT(TrainableParameters(R"({"layers": []})", "x.json").status().message(),
              HasSubstr("\"input\" must be an object"));
  EXPECT_THAT(TrainableParameters(R"({"input": {"c": 1, "h": 2, "w": 2},
                                     "layers": [{"name": "a", "op": "lstm"}]})",
                                  "x.json")
                  .status()
                  .message(),
              HasSubstr("x.json: a: unknown op \"lstm\""));
  EXPECT_THAT(TrainableParameters(R"({"input": {"c": 1, "h": 2, "w": 2},
                                     "layers": [{"name": "a", "op": "relu", "input": "z"}]})",
                                  "x.json")
                  .status()
                  .message(),
              HasSubstr("a: its input is no earlier layer"));
}

}  // namespace
}  // namespace dissect::analysis::papers::communication
