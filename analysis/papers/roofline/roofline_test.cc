// Golden tests of GenerateRoofline on the synthetic result files of
// testdata/ (make_synthetic_roofline.py; made-up numbers, not measurements)
// with the real catalog entry configs/papers/yuan_2024_llm_roofline.json:
// the markdown against roofline.golden.md, the figure's files against
// roofline_figures.golden.txt, gnuplot drawing it, and the errors when a
// ceiling is missing.
//
// After an intended change, regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/papers/roofline:roofline_test
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/fixture_test_util.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "analysis/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using ::testing::HasSubstr;

constexpr char kFolder[] = "analysis/papers/roofline/testdata/";
constexpr char kTarget[] = "//analysis/papers/roofline:roofline_test";

CatalogEntry Entry() { return testing::CatalogEntryOrFail("yuan_2024_llm_roofline"); }

std::vector<ResultFile> Fixtures(const std::vector<std::string>& names) {
  return testing::ReadResultFixtures(kFolder, names);
}

std::vector<ResultFile> AllFixtures() {
  return Fixtures({"synthetic_memory_bandwidth.json", "synthetic_cublaslt_gemm.json",
                   "synthetic_attention.json"});
}

TEST(RooflineTest, MarkdownMatchesGolden) {
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(Entry(), AllFixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  testing::ExpectMatchesGolden(figure->markdown, absl::StrCat(kFolder, "roofline.golden.md"),
                               kTarget);
}

TEST(RooflineTest, FigureMatchesGolden) {
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(Entry(), AllFixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  testing::ExpectMatchesGolden(testing::FigureFilesText(*figure),
                               absl::StrCat(kFolder, "roofline_figures.golden.txt"), kTarget);
}

TEST(RooflineTest, GnuplotDrawsTheFigure) {
  if (!testing::HaveGnuplot()) GTEST_SKIP() << "gnuplot not on PATH";
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(Entry(), AllFixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  std::filesystem::path dir;
  testing::DrawPaperFigure(*figure, "roofline", "roofline_test", &dir);
}

TEST(RooflineTest, NoMemoryBandwidthRowsIsAnErrorNamingIt) {
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(
      Entry(), Fixtures({"synthetic_cublaslt_gemm.json", "synthetic_attention.json"}));
  ASSERT_FALSE(figure.ok());
  EXPECT_THAT(figure.status().message(), HasSubstr("no memory_bandwidth results"));
}

TEST(RooflineTest, NoDramFootprintIsAnError) {
  CatalogEntry entry = Entry();
  entry.params["dram_min_footprint_bytes"] = int64_t{4} << 30;
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(entry, AllFixtures());
  ASSERT_FALSE(figure.ok());
  EXPECT_THAT(figure.status().message(),
              HasSubstr("no measured memory_bandwidth read rows at footprints >= 4 GiB"));
}

TEST(RooflineTest, NoGemmRowsIsAnErrorNamingIt) {
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(
      Entry(), Fixtures({"synthetic_memory_bandwidth.json", "synthetic_attention.json"}));
  ASSERT_FALSE(figure.ok());
  EXPECT_THAT(figure.status().message(), HasSubstr("no cublaslt_gemm results"));
}

TEST(RooflineTest, FmaRoofIsComputedWithoutAnFp32Row) {
  std::vector<ResultFile> files = AllFixtures();
  for (ResultFile& f : files) {
    if (f.experiment != "cublaslt_gemm") continue;
    std::vector<Row> kept;
    for (const Row& row : f.rows) {
      if (row.Axis("dtype") != std::optional<std::string>("fp32")) kept.push_back(row);
    }
    f.rows = kept;
  }
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(Entry(), files);
  ASSERT_TRUE(figure.ok()) << figure.status();
  // 132 SMs × 128 lanes × 2 × 1980 MHz = 66.91 TFLOP/s, labelled computed.
  EXPECT_THAT(figure->markdown, HasSubstr("| FP32 FMA pipe "));
  EXPECT_THAT(figure->markdown, HasSubstr("66.91"));
  EXPECT_THAT(figure->markdown, HasSubstr("computed"));
}

TEST(RooflineTest, BadParamsAreAnError) {
  CatalogEntry entry = Entry();
  entry.params["decode_cache"] = "warm";
  absl::StatusOr<PaperFigure> figure = GenerateRoofline(entry, AllFixtures());
  ASSERT_FALSE(figure.ok());
  EXPECT_THAT(figure.status().message(), HasSubstr("decode_cache must be"));
}

}  // namespace
}  // namespace dissect::analysis::papers
