// Golden test of GenerateFusionSpeedup on SYNTHETIC layer_fusion result files
// (testdata/make_synthetic_fusion.py), with the real catalog entries.
// Regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/fusion:fusion_test
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "analysis/plots/figures.h"
#include "analysis/plots/fixture_test_util.h"
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
  EXPECT_NE(figure->markdown.find("230.4 GB/s (the reading list 'GPU Workload Characteristics' (2024-10-30), item 13"), std::string::npos);
  ASSERT_EQ(figure->scripts.size(), 2u);
  ExpectGolden(*figure, "bn_relu");
}

// The table lines of `markdown` that hold `layer` at `batch`.
std::vector<std::string> RowsOf(const std::string& markdown, const std::string& layer,
                                const std::string& batch) {
  std::vector<std::string> out;
  for (const absl::string_view line : absl::StrSplit(markdown, '\n')) {
    const std::vector<std::string> cells = absl::StrSplit(line, '|');
    if (cells.size() < 3) continue;
    if (absl::StripAsciiWhitespace(cells[1]) == layer &&
        absl::StripAsciiWhitespace(cells[2]) == batch) {
      out.emplace_back(line);
    }
  }
  return out;
}

// DenseNet-121 block-1 data at batch 1 and 8 fits in a 50 MiB L2, which is
// write-back: the unfused intermediate (and, hot, the input) never reaches
// DRAM, so its bytes are no DRAM bytes saved and its GB/s no % of the DRAM
// peak. Rows whose working set is at least 2x L2 keep the DRAM framing.
TEST(FusionSpeedup, RowsThatFitInL2AreL2ResidentNotAPercentOfDram) {
  const CatalogEntry entry = Entry("jung_2019_b_bn_relu_fusion");
  const std::vector<ResultFile> files =
      testing::ReadResultFixtures(kData, {"synthetic_layer_fusion_l2.json"});
  const absl::StatusOr<PaperFigure> figure = GenerateFusionSpeedup(entry, files);
  ASSERT_TRUE(figure.ok()) << figure.status();
  const std::string& md = figure->markdown;
  EXPECT_FALSE(absl::StrContains(md, "DRAM bytes saved")) << md;
  for (const std::string batch : {"1", "8"}) {
    const std::vector<std::string> rows = RowsOf(md, "densenet121.block1_3x3", batch);
    ASSERT_FALSE(rows.empty()) << batch << "\n" << md;
    for (const std::string& row : rows) {
      EXPECT_TRUE(absl::StrContains(row, "L2-resident")) << row;
      EXPECT_FALSE(absl::StrContains(row, "%)")) << "a % of the DRAM peak: " << row;
    }
  }
  const std::vector<std::string> hot_1x1 = RowsOf(md, "densenet121.block1_1x1", "1");
  ASSERT_EQ(hot_1x1.size(), 1u) << md;
  EXPECT_TRUE(absl::StrContains(hot_1x1[0], "L2-resident")) << hot_1x1[0];
  EXPECT_FALSE(absl::StrContains(hot_1x1[0], "%)")) << hot_1x1[0];
  for (const std::string layer : {"densenet121.transition1", "densenet121.block1_1x1"}) {
    const std::vector<std::string> rows = RowsOf(md, layer, "32");
    ASSERT_EQ(rows.size(), 1u) << layer << "\n" << md;
    EXPECT_TRUE(absl::StrContains(rows[0], "%)")) << rows[0];
    EXPECT_FALSE(absl::StrContains(rows[0], "L2-resident")) << rows[0];
  }
  ExpectGolden(*figure, "l2");
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
