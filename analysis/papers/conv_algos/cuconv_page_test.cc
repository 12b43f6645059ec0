// Golden test of the cuConv page (configs/papers/cuconv_2022_two_stage.json:
// the conv_algorithms generator with params "ours": "two_stage") on the
// synthetic results of testdata/make_synthetic_two_stage.py (made-up
// numbers): our two_stage against each cuDNN algorithm and cuDNN's best per
// layer at batches 1 and 8, and the errors of its params. After an intended
// change:
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/conv_algos:cuconv_page_test
#include <string>
#include <vector>

#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "analysis/results/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using testing::CatalogEntryOrFail;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr testing::PaperTestdata kTestdata = {"analysis/papers/conv_algos/testdata/",
                                              "//analysis/papers/conv_algos:cuconv_page_test"};
constexpr char kEntry[] = "cuconv_2022_two_stage";

std::vector<ResultFile> Fixtures() {
  return kTestdata.Results({"synthetic_two_stage_conv_algorithms.json"});
}

TEST(CuconvPageTest, MatchesGolden) {
  const std::string page = testing::ExpectPageMatchesGoldens(
      GenerateConvAlgorithms(CatalogEntryOrFail(kEntry), Fixtures()), kTestdata,
      "cuconv_two_stage");
  // alexnet.features.0 at batch 1: cuDNN's best is implicit_gemm's 30 µs
  // (winograd not supported), two_stage takes 24 µs: 1.25x, its one win.
  EXPECT_THAT(page, HasSubstr("|   1 |     24 µs | 30 µs (implicit_gemm) | **1.25x** |"));
  EXPECT_THAT(page, HasSubstr("| alexnet  |     1 |             1 of 3 both ran |"));
  // At batch 8 fft's 50 + 7 x 3 = 71 µs is cuDNN's best there; two_stage's
  // 90 µs is 0.7889x of it.
  EXPECT_THAT(page, HasSubstr("71 µs (fft)"));
  EXPECT_THAT(page, HasSubstr("| 0.7889x |"));
  // The published value stays unknown, with its reason.
  EXPECT_THAT(page, HasSubstr("unknown: only the title and year"));
}

// Without "ours" the page has no such section (the Xu et al. page).
TEST(CuconvPageTest, NoSectionWithoutOurs) {
  CatalogEntry entry = CatalogEntryOrFail(kEntry);
  entry.params.erase("ours");
  absl::StatusOr<PaperFigure> figure = GenerateConvAlgorithms(entry, Fixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  EXPECT_THAT(figure->markdown, Not(HasSubstr("against cuDNN")));
}

TEST(CuconvPageTest, BadOursBatches) {
  CatalogEntry entry = CatalogEntryOrFail(kEntry);
  entry.params["ours_batches"] = {1, 0.5};
  EXPECT_THAT(GenerateConvAlgorithms(entry, Fixtures()).status().message(),
              HasSubstr("params.ours_batches must be batch sizes >= 1"));
  entry.params["ours_batches"] = nlohmann::ordered_json::array();
  EXPECT_THAT(GenerateConvAlgorithms(entry, Fixtures()).status().message(),
              HasSubstr("params.ours_batches must be a non-empty list"));
}

}  // namespace
}  // namespace dissect::analysis::papers
