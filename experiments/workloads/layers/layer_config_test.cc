// The built-in layer file parses, its shapes chain like the networks do, and
// malformed files are rejected with one-line errors.
#include "experiments/workloads/layers/layer_config.h"

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace dissect::l1_bypass {
namespace {

std::map<std::string, LayerShape> ByName() {
  const auto& layers = EmbeddedLayers();
  EXPECT_TRUE(layers.ok()) << layers.status();
  std::map<std::string, LayerShape> out;
  if (layers.ok()) {
    for (const LayerShape& l : *layers) out[l.name] = l;
  }
  return out;
}

TEST(LayerConfigTest, EmbeddedFileHasTheThreeNetworks) {
  const auto layers = ByName();
  int alexnet = 0, vgg = 0, resnet = 0;
  for (const auto& [name, l] : layers) {
    alexnet += l.network == "alexnet";
    vgg += l.network == "vgg16";
    resnet += l.network == "resnet50";
  }
  EXPECT_GE(alexnet, 5);
  EXPECT_GE(vgg, 5);
  EXPECT_GE(resnet, 5);
}

TEST(LayerConfigTest, EmbeddedShapesChainLikeTheNetworks) {
  auto l = ByName();
  ASSERT_FALSE(l.empty());
  // AlexNet: 227 -> 55 (conv1) -> 27 (pool1) = conv2's input; conv5's 13 ->
  // 6 (pool5); fc6 takes 256 x 6 x 6.
  EXPECT_EQ(l["alexnet.conv1"].OutH(), 55);
  EXPECT_EQ(l["alexnet.pool1"].c, l["alexnet.conv1"].k);
  EXPECT_EQ(l["alexnet.pool1"].OutH(), l["alexnet.conv2"].h);
  EXPECT_EQ(l["alexnet.conv3"].OutH(), 13);
  EXPECT_EQ(l["alexnet.pool5"].OutH(), 6);
  EXPECT_EQ(l["alexnet.fc6"].c, l["alexnet.pool5"].c * 6 * 6);
  // VGG-16: 3 x 3 pad 1 keeps the size; 2 x 2 pools halve it; fc6 takes
  // 512 x 7 x 7.
  EXPECT_EQ(l["vgg16.conv1_2"].OutH(), 224);
  EXPECT_EQ(l["vgg16.pool1"].OutH(), 112);
  EXPECT_EQ(l["vgg16.conv4_2"].OutH(), 28);
  EXPECT_EQ(l["vgg16.fc6"].c, 512 * 7 * 7);
  // ResNet-50: 224 -> 112 (conv1) -> 56 (pool1) = res2a's input.
  EXPECT_EQ(l["resnet50.conv1"].OutH(), 112);
  EXPECT_EQ(l["resnet50.pool1"].h, l["resnet50.conv1"].OutH());
  EXPECT_EQ(l["resnet50.pool1"].OutH(), l["resnet50.res2a_branch2b"].h);
  EXPECT_EQ(l["resnet50.res5b_branch2b"].OutH(), 7);
  EXPECT_EQ(l["resnet50.fc1000"].k, 1000);
}

constexpr char kGood[] = R"({
  "format": "dissect.layers.v1",
  "networks": {"net": {"authors": "A", "title": "T", "venue": "V", "where": "Table 1"}},
  "layers": [
    {"name": "net.conv", "network": "net", "type": "conv", "n": 1, "c": 3, "h": 8, "w": 8,
     "k": 4, "r": 3, "s": 3, "stride": 1, "pad": 1},
    {"name": "net.fc", "network": "net", "type": "fc", "n": 1, "c": 16, "k": 10}
  ]
})";

TEST(LayerConfigTest, ParsesAMinimalFile) {
  const auto layers = ParseLayerConfig(kGood, "good.json");
  ASSERT_TRUE(layers.ok()) << layers.status();
  ASSERT_EQ(layers->size(), 2u);
  EXPECT_EQ((*layers)[0].OutH(), 8);
  EXPECT_EQ((*layers)[1].type, LayerType::kFc);
  EXPECT_EQ((*layers)[1].h, 1);
}

void ExpectError(const std::string& from, const std::string& to, const std::string& message) {
  const std::string text = absl::StrReplaceAll(kGood, {{from, to}});
  ASSERT_NE(text, kGood) << "the edit '" << from << "' did not apply";
  const auto layers = ParseLayerConfig(text, "bad.json");
  ASSERT_FALSE(layers.ok()) << "accepted: " << to;
  const std::string got(layers.status().message());
  EXPECT_TRUE(absl::StartsWith(got, "bad.json: ")) << got;
  EXPECT_TRUE(absl::StrContains(got, message)) << got;
  EXPECT_FALSE(absl::StrContains(got, "\n")) << got;
}

TEST(LayerConfigTest, RejectsMalformedFiles) {
  ExpectError("dissect.layers.v1", "dissect.layers.v2", "\"format\"");
  ExpectError("\"format\"", "\"formt\"", "\"format\"");
  ExpectError("\"where\": \"Table 1\"", "\"where\": \"\"", "\"where\"");
  ExpectError("\"name\": \"net.fc\"", "\"name\": \"net.conv\"", "duplicate name");
  ExpectError("\"name\": \"net.fc\"", "\"name\": \"net/fc\"", "may hold only");
  ExpectError("\"network\": \"net\", \"type\": \"fc\"", "\"network\": \"other\", \"type\": \"fc\"",
              "is not in \"networks\"");
  ExpectError("\"type\": \"fc\"", "\"type\": \"lstm\"", "conv, pool or fc");
  ExpectError("\"r\": 3", "\"r\": 11", "window does not fit");
  ExpectError("\"c\": 16", "\"c\": 0", "\"c\" must be an integer");
  ExpectError("\"c\": 16", "\"c\": 16, \"h\": 4", "only n, c and k");
  ExpectError("\"k\": 10", "\"k\": 10, \"groups\": 2", "unknown key \"groups\"");
  ExpectError("\"k\": 4,", "", "no \"k\"");
  ExpectError("{\n  \"format\"", "[{\n  \"format\"", "not valid JSON");
}

TEST(LayerConfigTest, FindsEmbeddedLayersByName) {
  const std::vector<std::string> names = EmbeddedLayerNames();
  ASSERT_TRUE(EmbeddedLayers().ok()) << EmbeddedLayers().status();
  ASSERT_EQ(names.size(), EmbeddedLayers()->size());
  EXPECT_EQ(names.front(), EmbeddedLayers()->front().name);
  for (const std::string& name : {std::string("vgg16.conv3_1"), names.back()}) {
    const absl::StatusOr<const LayerShape*> layer = FindEmbeddedLayer(name);
    ASSERT_TRUE(layer.ok()) << layer.status();
    EXPECT_EQ((*layer)->name, name);
  }
  EXPECT_EQ((*FindEmbeddedLayer("vgg16.conv3_1"))->c, 128);
  const absl::StatusOr<const LayerShape*> missing = FindEmbeddedLayer("vgg19.conv1");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.status().message(), "unknown layer 'vgg19.conv1'");
}

}  // namespace
}  // namespace dissect::l1_bypass
