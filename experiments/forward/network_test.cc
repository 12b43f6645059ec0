#include "experiments/forward/network.h"

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
    for (int j : l.inputs) {
      ASSERT_LT(j, static_cast<int>(i)) << l.name;
      const Shape made = j == kNetworkInput ? net.input : net.layers[j].out;
      EXPECT_EQ(made, l.in) << l.name;
    }
    if (l.op != LayerOp::kConv) EXPECT_EQ(l.out.c, l.in.c) << l.name;
    if (l.op == LayerOp::kConv) EXPECT_EQ(l.out.c, l.k) << l.name;
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

TEST(NetworkTest, FilesMatchEmbedded) {
  for (const std::string& name : BuiltinNetworkNames()) {
    const absl::StatusOr<NetworkSpec> file = LoadNetworkFile("configs/networks/" + name + ".json");
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_EQ(file->name, name);
    EXPECT_EQ(file->layers.size(), BuiltinNetwork(name)->layers.size());
  }
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
}

TEST(NetworkTest, UnknownBuiltin) {
  const absl::StatusOr<NetworkSpec> net = BuiltinNetwork("densenet121");
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("vgg16, resnet50"), std::string::npos);
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
  ExpectError(Doc(R"({"name": "a", "op": "softmax"})"), "\"op\" must be one of");
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
