// Golden test of GenerateFusionSpeedup on SYNTHETIC layer_fusion result files
// (testdata/make_synthetic_fusion.py), with the real catalog entries.
// Regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/fusion:fusion_test
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/figures.h"
#include "analysis/fixture_test_util.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

constexpr char kTarget[] = "//analysis/papers/fusion:fusion_test";
constexpr char kData[] = "analysis/papers/fusion/testdata/";

CatalogEntry Entry(const std::string& id) { return testing::CatalogEntryOrFail(id); }

// The markdown and every figure file against goldens named after `stem`,
// then gnuplot draws every script.
void ExpectGolden(const PaperFigure& figure, const std::string& stem) {
  testing::ExpectMatchesGolden(figure.markdown, std::string(kData) + stem + ".golden.md", kTarget);
  for (const FigureFile& file : figure.files) {
    testing::ExpectMatchesGolden(file.contents,
                                 std::string(kData) + stem + "." + file.name + ".golden", kTarget);
  }
  std::filesystem::path dir;
  testing::DrawPaperFigure(figure, stem, "fusion_test_" + stem, &dir);
}

TEST(FusionSpeedup, ConvReluWithSkippedAndFailedRows) {
  const CatalogEntry entry = Entry("dong_kaeli_2018_d_fusion");
  const std::vector<ResultFile> files = testing::ReadResultFixtures(
      kData, {"synthetic_layer_fusion_conv_relu.json", "synthetic_relu_bandwidth.json"});
  const absl::StatusOr<PaperFigure> figure = GenerateFusionSpeedup(entry, files);
  ASSERT_TRUE(figure.ok()) << figure.status();
  EXPECT_NE(figure->markdown.find("skipped: needs 1.6 GiB"), std::string::npos);
  EXPECT_NE(figure->markdown.find("no fused row to compare with"), std::string::npos);
  ASSERT_EQ(figure->scripts.size(), 1u);
  ExpectGolden(*figure, "conv_relu");
}

TEST(FusionSpeedup, BnReluPatterns) {
  const CatalogEntry entry = Entry("jung_2019_b_bn_relu_fusion");
  const std::vector<ResultFile> files =
      testing::ReadResultFixtures(kData, {"synthetic_layer_fusion_bn.json"});
  const absl::StatusOr<PaperFigure> figure = GenerateFusionSpeedup(entry, files);
  ASSERT_TRUE(figure.ok()) << figure.status();
  EXPECT_NE(figure->markdown.find("230.4 GB/s (quoted in issue 16)"), std::string::npos);
  ASSERT_EQ(figure->scripts.size(), 2u);
  ExpectGolden(*figure, "bn_relu");
}

TEST(FusionSpeedup, NoLayerFusionFileNamesTheExperiment) {
  const CatalogEntry entry = Entry("dong_kaeli_2018_d_fusion");
  const std::vector<ResultFile> files =
      testing::ReadResultFixtures(kData, {"synthetic_relu_bandwidth.json"});
  const absl::StatusOr<PaperFigure> figure = GenerateFusionSpeedup(entry, files);
  ASSERT_FALSE(figure.ok());
  EXPECT_NE(figure.status().message().find("no layer_fusion result"), std::string::npos)
      << figure.status();
}

TEST(FusionSpeedup, RejectsUnknownPattern) {
  CatalogEntry entry = Entry("dong_kaeli_2018_d_fusion");
  entry.params = {{"pattern", "conv_bn"}};
  const std::vector<ResultFile> files =
      testing::ReadResultFixtures(kData, {"synthetic_layer_fusion_conv_relu.json"});
  const absl::StatusOr<PaperFigure> figure = GenerateFusionSpeedup(entry, files);
  ASSERT_FALSE(figure.ok());
  EXPECT_NE(figure.status().message().find("unknown params.pattern 'conv_bn'"), std::string::npos)
      << figure.status();
}

}  // namespace
}  // namespace dissect::analysis::papers
