#include "experiments/workloads/forward/network.h"

#include <algorithm>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace dissect::forward {
namespace {

// Every layer reads shapes its inputs make, and a conv's weights match its
// input's channels.
void ExpectShapesChain(const NetworkSpec& net) {
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const LayerSpec& l = net.layers[i];
    ASSERT_FALSE(l.inputs.empty()) << l.name;
    for (size_t k = 0; k < l.inputs.size(); ++k) {
      const int j = l.inputs[k];
      ASSERT_LT(j, static_cast<int>(i)) << l.name;
      const Shape made = j == kNetworkInput ? net.input : net.layers[j].out;
      if (k == 0 || l.op == LayerOp::kAdd) EXPECT_EQ(made, l.in) << l.name;
      if (l.op == LayerOp::kConcat) EXPECT_EQ(made.h, l.out.h) << l.name;
    }
    if (l.op == LayerOp::kConcat) {
      const int b = l.inputs[1];
      EXPECT_EQ(l.out.c, l.in.c + (b == kNetworkInput ? net.input : net.layers[b].out).c) << l.name;
    } else if (l.op == LayerOp::kConv || l.op == LayerOp::kFc) {
      EXPECT_EQ(l.out.c, l.k) << l.name;
    } else {
      EXPECT_EQ(l.out.c, l.in.c) << l.name;
    }
  }
}

TEST(NetworkTest, Vgg16) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("vgg16");
  ASSERT_TRUE(net.ok()) << net.status();
  ExpectShapesChain(*net);
  EXPECT_EQ(CountLayers(*net, LayerOp::kConv), 13);
  EXPECT_EQ(CountLayers(*net, LayerOp::kBatchNorm), 13);
  EXPECT_EQ(CountLayers(*net, LayerOp::kRelu), 13);
  EXPECT_EQ(CountLayers(*net, LayerOp::kMaxPool), 5);
  EXPECT_EQ(CountLayers(*net, LayerOp::kAdd), 0);
  EXPECT_EQ(net->layers.front().out, (Shape{64, 224, 224}));
  EXPECT_EQ(net->layers.back().out, (Shape{512, 7, 7}));
}

TEST(NetworkTest, Resnet50) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("resnet50");
  ASSERT_TRUE(net.ok()) << net.status();
  ExpectShapesChain(*net);
  EXPECT_EQ(CountLayers(*net, LayerOp::kConv), 53);  // 1 + 16 * 3 + 4 projections
  EXPECT_EQ(CountLayers(*net, LayerOp::kBatchNorm), 53);
  EXPECT_EQ(CountLayers(*net, LayerOp::kAdd), 16);
  EXPECT_EQ(CountLayers(*net, LayerOp::kRelu), 1 + 16 * 3);
  EXPECT_EQ(CountLayers(*net, LayerOp::kMaxPool), 1);
  EXPECT_EQ(net->layers[3].out, (Shape{64, 56, 56}));  // after the max-pool
  EXPECT_EQ(net->layers.back().out, (Shape{2048, 7, 7}));
  // torchvision's v1.5: the stride-2 sits on the 3x3 conv.
  for (const LayerSpec& l : net->layers) {
    if (l.name == "layer2.0.conv2") EXPECT_EQ(l.stride, 2);
    if (l.name == "layer2.0.conv1") EXPECT_EQ(l.stride, 1);
    if (l.name == "layer2.0.downsample.0") EXPECT_EQ(l.out, (Shape{512, 28, 28}));
  }
}

TEST(NetworkTest, Vgg16Classifier) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("vgg16", NetworkPart::kFull);
  ASSERT_TRUE(net.ok()) << net.status();
  ExpectShapesChain(*net);
  EXPECT_EQ(net->layers.size(), 44u + 6u);
  EXPECT_EQ(CountLayers(*net, LayerOp::kFc), 3);
  EXPECT_EQ(CountLayers(*net, LayerOp::kRelu), 13 + 2);
  EXPECT_EQ(net->layers[44].in, (Shape{512, 7, 7}));
  EXPECT_EQ(net->layers.back().op, LayerOp::kSoftmax);
  EXPECT_EQ(net->layers.back().out, (Shape{1000, 1, 1}));
}

TEST(NetworkTest, Resnet50Classifier) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("resnet50", NetworkPart::kFull);
  ASSERT_TRUE(net.ok()) << net.status();
  ExpectShapesChain(*net);
  const LayerSpec& pool = net->layers[net->layers.size() - 3];
  EXPECT_EQ(pool.op, LayerOp::kAvgPool);
  EXPECT_EQ(pool.r, 7);
  EXPECT_EQ(pool.out, (Shape{2048, 1, 1}));
  EXPECT_EQ(net->layers.back().out, (Shape{1000, 1, 1}));
}

TEST(NetworkTest, Alexnet) {
  const absl::StatusOr<NetworkSpec> features = BuiltinNetwork("alexnet");
  ASSERT_TRUE(features.ok()) << features.status();
  ExpectShapesChain(*features);
  EXPECT_EQ(CountLayers(*features, LayerOp::kConv), 5);
  EXPECT_EQ(CountLayers(*features, LayerOp::kBatchNorm), 0);
  EXPECT_EQ(CountLayers(*features, LayerOp::kMaxPool), 3);
  EXPECT_EQ(CountLayers(*features, LayerOp::kFc), 0);
  EXPECT_EQ(features->layers[0].out, (Shape{64, 55, 55}));
  EXPECT_EQ(features->layers[2].out, (Shape{64, 27, 27}));
  EXPECT_EQ(features->layers[3].out, (Shape{192, 27, 27}));
  EXPECT_EQ(features->layers.back().out, (Shape{256, 6, 6}));
  const absl::StatusOr<NetworkSpec> full = BuiltinNetwork("alexnet", NetworkPart::kFull);
  ASSERT_TRUE(full.ok()) << full.status();
  ExpectShapesChain(*full);
  EXPECT_EQ(CountLayers(*full, LayerOp::kFc), 3);
  EXPECT_EQ(CountLayers(*full, LayerOp::kSoftmax), 1);
  // fc6 reads the flattened 256x6x6 map: 9216 features.
  EXPECT_EQ(ComputeLayerCost(*full, 13, 1).flops, 2.0 * 4096 * 9216);
}

TEST(NetworkTest, Densenet121) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("densenet121", NetworkPart::kFull);
  ASSERT_TRUE(net.ok()) << net.status();
  ExpectShapesChain(*net);
  EXPECT_EQ(CountLayers(*net, LayerOp::kConv), 1 + 2 * (6 + 12 + 24 + 16) + 3);
  EXPECT_EQ(CountLayers(*net, LayerOp::kConcat), 6 + 12 + 24 + 16);
  EXPECT_EQ(CountLayers(*net, LayerOp::kAvgPool), 3 + 1);
  EXPECT_EQ(CountLayers(*net, LayerOp::kBatchNorm), 1 + 2 * 58 + 3 + 1);
  EXPECT_EQ(CountLayers(*net, LayerOp::kFc), 1);
  // 121 weighted layers: 120 convs and the FC.
  EXPECT_EQ(CountLayers(*net, LayerOp::kConv) + CountLayers(*net, LayerOp::kFc), 121);
  for (const LayerSpec& l : net->layers) {
    if (l.name == "features.denseblock1.denselayer6.concat") EXPECT_EQ(l.out, (Shape{256, 56, 56}));
    if (l.name == "features.transition1.pool") EXPECT_EQ(l.out, (Shape{128, 28, 28}));
    if (l.name == "features.denseblock2.denselayer12.concat")
      EXPECT_EQ(l.out, (Shape{512, 28, 28}));
    if (l.name == "features.transition3.pool") EXPECT_EQ(l.out, (Shape{512, 7, 7}));
    if (l.name == "features.relu5") EXPECT_EQ(l.out, (Shape{1024, 7, 7}));
  }
  EXPECT_EQ(net->layers.back().out, (Shape{1000, 1, 1}));
  const absl::StatusOr<NetworkSpec> features = BuiltinNetwork("densenet121");
  ASSERT_TRUE(features.ok());
  EXPECT_EQ(features->layers.back().name, "features.relu5");
}

TEST(NetworkTest, FilesMatchEmbedded) {
  for (const std::string& name : AllBuiltinNetworkNames()) {
    for (const NetworkPart part : {NetworkPart::kFeatures, NetworkPart::kFull}) {
      const absl::StatusOr<NetworkSpec> file =
          LoadNetworkFile("configs/networks/" + name + ".json", part);
      ASSERT_TRUE(file.ok()) << file.status();
      EXPECT_EQ(file->name, name);
      EXPECT_EQ(file->layers.size(), BuiltinNetwork(name, part)->layers.size());
    }
  }
}

TEST(NetworkTest, LayerCosts) {
  const NetworkSpec net = *ParseNetwork(
      R"({"format": "dissect.network.v1", "name": "t", "input": {"c": 2, "h": 4, "w": 4},
        "layers": [{"name": "a", "op": "conv", "k": 3, "r": 3, "s": 3, "pad": 1},
                   {"name": "b", "op": "bn"}, {"name": "c", "op": "relu"},
                   {"name": "d", "op": "concat", "inputs": ["c", "input"]},
                   {"name": "e", "op": "avgpool", "r": 2, "s": 2, "stride": 2},
                   {"name": "f", "op": "add", "inputs": ["e", "e"]}],
        "classifier": [{"name": "g", "op": "fc", "k": 7}, {"name": "h", "op": "softmax"}]})",
      "t.json", NetworkPart::kFull);
  const int batch = 2;
  // conv: 2x2x4x4 in, 3*2*3*3 weights, 2x3x4x4 out.
  EXPECT_EQ(ComputeLayerCost(net, 0, batch).bytes, 4.0 * (64 + 54 + 96));
  EXPECT_EQ(ComputeLayerCost(net, 0, batch).flops, 2.0 * 96 * 18);
  EXPECT_EQ(ComputeLayerCost(net, 1, batch).bytes, 4.0 * (96 + 12 + 96));
  EXPECT_EQ(ComputeLayerCost(net, 2, batch).bytes, 4.0 * (96 + 96));
  EXPECT_EQ(ComputeLayerCost(net, 3, batch).bytes, 4.0 * (160 + 160));  // 3 + 2 channels
  EXPECT_EQ(ComputeLayerCost(net, 3, batch).flops, 0);
  EXPECT_EQ(ComputeLayerCost(net, 4, batch).bytes, 4.0 * (160 + 40));
  EXPECT_EQ(ComputeLayerCost(net, 4, batch).flops, 40.0 * 4);
  EXPECT_EQ(ComputeLayerCost(net, 5, batch).bytes, 4.0 * (80 + 40));
  // fc: 5x2x2 = 20 features in, 7 out, 140 weights.
  EXPECT_EQ(ComputeLayerCost(net, 6, batch).bytes, 4.0 * (40 + 140 + 14));
  EXPECT_EQ(ComputeLayerCost(net, 6, batch).flops, 2.0 * 2 * 140);
  EXPECT_EQ(ComputeLayerCost(net, 7, batch).bytes, 4.0 * (14 + 14));
}

// No layer writes a buffer that a tensor still to be read (or its own input)
// holds.
void ExpectPlanSafe(const NetworkSpec& net, const BufferPlan& plan) {
  const int count = static_cast<int>(net.layers.size());
  ASSERT_EQ(plan.buffer.size(), net.layers.size());
  std::vector<int> last_use(count);
  for (int i = 0; i < count; ++i) {
    last_use[i] = i;
    for (int j : net.layers[i].inputs) {
      if (j != kNetworkInput) last_use[j] = std::max(last_use[j], i);
    }
  }
  for (int i = 0; i < count; ++i) {
    ASSERT_GE(plan.buffer[i], 0);
    ASSERT_LT(plan.buffer[i], plan.count);
    for (int j = 0; j < i; ++j) {
      if (last_use[j] >= i) {
        EXPECT_NE(plan.buffer[i], plan.buffer[j])
            << net.layers[i].name << " overwrites " << net.layers[j].name;
      }
    }
  }
}

TEST(NetworkTest, BufferPlans) {
  const NetworkSpec vgg = *BuiltinNetwork("vgg16");
  const BufferPlan vgg_plan = PlanBuffers(vgg);
  ExpectPlanSafe(vgg, vgg_plan);
  EXPECT_EQ(vgg_plan.count, 2);  // a chain ping-pongs
  const NetworkSpec resnet = *BuiltinNetwork("resnet50");
  const BufferPlan resnet_plan = PlanBuffers(resnet);
  ExpectPlanSafe(resnet, resnet_plan);
  // The block input stays live beside the main path's ping-pong and, in
  // the first block of a stage, the projection.
  EXPECT_GE(resnet_plan.count, 3);
  EXPECT_LE(resnet_plan.count, 4);
  for (const std::string& name : AllBuiltinNetworkNames()) {
    const NetworkSpec full = *BuiltinNetwork(name, NetworkPart::kFull);
    ExpectPlanSafe(full, PlanBuffers(full));
  }
}

TEST(NetworkTest, BuiltinNames) {
  EXPECT_EQ(AllBuiltinNetworkNames(),
            (std::vector<std::string>{"vgg16", "resnet50", "densenet121", "alexnet"}));
  EXPECT_EQ(BuiltinNetworkNames(), (std::vector<std::string>{"vgg16", "resnet50"}));
}

TEST(NetworkTest, UnknownBuiltin) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("googlenet");
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("vgg16, resnet50, densenet121, alexnet"),
            std::string::npos);
}

std::string Doc(const std::string& layers) {
  return R"({"format": "dissect.network.v1", "name": "t", "input": {"c": 2, "h": 8, "w": 8},
             "layers": [)" +
         layers + "]}";
}

TEST(NetworkTest, ParsesDefaultsAndExplicitInputs) {
  const absl::StatusOr<NetworkSpec> net =
      ParseNetwork(Doc(R"({"name": "a", "op": "conv", "k": 4, "r": 3, "s": 3, "pad": 1},
             {"name": "b", "op": "relu"},
             {"name": "p", "op": "maxpool", "r": 3, "s": 3, "stride": 2, "pad": 1},
             {"name": "c", "op": "conv", "k": 4, "r": 1, "s": 1, "stride": 2, "input": "b"},
             {"name": "d", "op": "add", "inputs": ["p", "c"]})"),
                   "t.json");
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_EQ(net->layers[0].inputs, std::vector<int>{kNetworkInput});
  EXPECT_EQ(net->layers[1].inputs, std::vector<int>{0});
  EXPECT_EQ(net->layers[2].out, (Shape{4, 4, 4}));
  EXPECT_EQ(net->layers[3].inputs, std::vector<int>{1});
  EXPECT_EQ(net->layers[3].out, (Shape{4, 4, 4}));
  EXPECT_EQ(net->layers[4].inputs, (std::vector<int>{2, 3}));
}

void ExpectError(const std::string& json, const std::string& fragment) {
  const absl::StatusOr<NetworkSpec> net = ParseNetwork(json, "bad.json");
  ASSERT_FALSE(net.ok()) << fragment;
  EXPECT_EQ(net.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(net.status().message().find("bad.json"), std::string::npos) << net.status();
  EXPECT_NE(net.status().message().find(fragment), std::string::npos) << net.status();
}

TEST(NetworkTest, Errors) {
  ExpectError("{", "not valid JSON");
  ExpectError(R"({"format": "x"})", "\"format\"");
  ExpectError(Doc(R"({"name": "a", "op": "lrn"})"), "\"op\" must be one of");
  ExpectError(Doc(R"({"name": "a", "op": "concat", "inputs": ["input"]})"),
              "concat needs \"inputs\": two layer names");
  ExpectError(Doc(R"({"name": "a", "op": "maxpool", "r": 2, "s": 2, "stride": 2},
                     {"name": "b", "op": "concat", "inputs": ["a", "input"]})"),
              "concat of unequal sizes 4x4 and 8x8");
  ExpectError(Doc(R"({"name": "a", "op": "fc"})"), "layer 0 (a): no \"k\"");
  ExpectError(Doc(R"({"name": "a", "op": "fc", "k": 3, "r": 1})"), "unknown key \"r\"");
  ExpectError(Doc(R"({"name": "a", "op": "avgpool", "global": true, "r": 2})"),
              "a global avgpool takes no r");
  ExpectError(Doc(R"({"name": "a", "op": "avgpool", "global": 1})"), "\"global\" must be");
  ExpectError(Doc(R"({"name": "a", "op": "maxpool", "global": true})"), "unknown key \"global\"");
  ExpectError(
      Doc(R"({"name": "a", "op": "relu"}], "classifier": [{"name": "a", "op": "fc", "k": 2})"),
      "layer 1 (a): duplicate");
  ExpectError(Doc(R"({"name": "a", "op": "relu"}], "classifier": [)"),
              "\"classifier\" must be a non-empty array");
  ExpectError(Doc(R"({"name": "a", "op": "conv", "r": 3, "s": 3})"), "layer 0 (a): no \"k\"");
  ExpectError(Doc(R"({"name": "a", "op": "relu", "k": 3})"), "unknown key \"k\"");
  ExpectError(Doc(R"({"name": "a", "op": "relu", "input": "z"})"), "\"z\" is no earlier layer");
  ExpectError(Doc(R"({"name": "a", "op": "relu"}, {"name": "a", "op": "relu"})"), "duplicate");
  ExpectError(Doc(R"({"name": "a", "op": "conv", "k": 3, "r": 9, "s": 9})"), "does not fit");
  ExpectError(Doc(R"({"name": "a", "op": "conv", "k": 3, "r": 1, "s": 1},
                     {"name": "b", "op": "add", "inputs": ["a", "input"]})"),
              "add of unequal shapes 3x8x8 and 2x8x8");
  ExpectError(Doc(R"({"name": "a", "op": "add", "inputs": ["input"]})"), "two layer names");
  ExpectError(Doc(""), "\"layers\" must be a non-empty array");
}

TEST(NetworkTest, FileErrorsNameTheFile) {
  const absl::StatusOr<NetworkSpec> missing = LoadNetworkFile("/nonexistent/net.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/net.json"), std::string::npos);
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/corrupt.json";
  std::ofstream(path) << "{\"format\": \"dissect.network.v1\", \"layers\": [";
  const absl::StatusOr<NetworkSpec> corrupt = LoadNetworkFile(path);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.status().message().find(path + ": not valid JSON"), std::string::npos)
      << corrupt.status();
}

}  // namespace
}  // namespace dissect::forward
