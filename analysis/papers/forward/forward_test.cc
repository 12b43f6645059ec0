// Golden tests of the forward generators on the synthetic layer_breakdown
// results of testdata/make_synthetic_layer_breakdown.py (made-up numbers)
// with the catalog's own entries (configs/papers/jung_2019_a_densenet_bandwidth.json,
// fathom_2016_op_breakdown.json): each markdown page and its figure files
// against the goldens, gnuplot drawing every figure, and the errors. After an
// intended change:
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/forward:forward_test
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "analysis/plots/figures.h"
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

constexpr testing::PaperTestdata kTestdata = {"analysis/papers/forward/testdata/",
                                              "//analysis/papers/forward:forward_test"};

std::vector<ResultFile> Fixtures() { return kTestdata.Results({"synthetic_layer_breakdown.json"}); }

TEST(LayerBandwidthTest, MatchesGolden) {
  const std::string page = testing::ExpectPageMatchesGoldens(
      GenerateLayerBandwidth(CatalogEntryOrFail("jung_2019_a_densenet_bandwidth"), Fixtures()),
      kTestdata, "layer_bandwidth");
  // The largest measured batch (16) of densenet121; l1.relu2 (made up at
  // 4100 GB/s, 4099 after the fixture's rounding of its time) is above the
  // fixture's 3352.3 GB/s peak.
  EXPECT_THAT(page, HasSubstr("densenet121 forward pass at batch 16 (15 ops"));
  EXPECT_THAT(page, HasSubstr("| CONV "));
  EXPECT_THAT(page, HasSubstr("|     4099 |         122.3 |"));
  EXPECT_THAT(page, HasSubstr("230.4 GB/s"));
  EXPECT_THAT(page, HasSubstr("item 13 (notes on the paper"));
  // Only densenet121's rows are this figure's: vgg16's and the skipped
  // resnet50 are not listed.
  EXPECT_THAT(page, Not(HasSubstr("resnet50")));
}

TEST(OpBreakdownTest, MatchesGolden) {
  const std::string page = testing::ExpectPageMatchesGoldens(
      GenerateOpBreakdown(CatalogEntryOrFail("fathom_2016_op_breakdown"), Fixtures()), kTestdata,
      "op_breakdown");
  EXPECT_THAT(page, HasSubstr("| vgg16 "));
  EXPECT_THAT(page, HasSubstr("| densenet121 "));
  // The skipped and the failed point are reported, with why.
  EXPECT_THAT(page, HasSubstr("resnet50 at batch 16: skipped: cuDNN not found"));
  EXPECT_THAT(page, HasSubstr("alexnet at batch 64: error: the softmax output"));
  EXPECT_THAT(page, HasSubstr("unknown: neither the paper's abstract nor the authors' repository"));
}

TEST(ForwardGeneratorsTest, SharesAddUpPerPass) {
  absl::StatusOr<PaperFigure> figure =
      GenerateOpBreakdown(CatalogEntryOrFail("fathom_2016_op_breakdown"), Fixtures());
  ASSERT_TRUE(figure.ok());
  for (const FigureFile& file : figure->files) {
    if (file.name != "op_breakdown.dat") continue;
    const std::vector<std::string> lines = absl::StrSplit(file.contents, '\n', absl::SkipEmpty());
    for (const std::string& line : lines) {
      if (line[0] == '#') continue;
      const std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
      double sum = 0;
      for (size_t i = 1; i < fields.size(); ++i) sum += std::stod(fields[i]);
      EXPECT_NEAR(sum, 100.0, 1e-6) << line;
    }
  }
}

TEST(ForwardGeneratorsTest, Errors) {
  ResultFile other;
  other.experiment = "memory_latency";
  for (auto generate : {&GenerateLayerBandwidth, &GenerateOpBreakdown}) {
    absl::StatusOr<PaperFigure> figure =
        generate(CatalogEntryOrFail("jung_2019_a_densenet_bandwidth"), {other});
    EXPECT_EQ(figure.status().code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(figure.status().message(), HasSubstr("no layer_breakdown results"));
  }
  CatalogEntry entry = CatalogEntryOrFail("jung_2019_a_densenet_bandwidth");
  entry.params["network"] = "resnet50";
  EXPECT_EQ(GenerateLayerBandwidth(entry, Fixtures()).status().message(),
            "layer_breakdown results hold no measured resnet50 pass");
  entry.params["network"] = "densenet121";
  entry.params["batch"] = 64;
  EXPECT_EQ(GenerateLayerBandwidth(entry, Fixtures()).status().message(),
            "layer_breakdown results hold no measured densenet121 pass at batch 64");
  entry.params["batch"] = "one";
  EXPECT_THAT(GenerateLayerBandwidth(entry, Fixtures()).status().message(),
              HasSubstr("params.batch must be an integer >= 1"));
  CatalogEntry fathom = CatalogEntryOrFail("fathom_2016_op_breakdown");
  fathom.params["networks"] = {"resnet50"};
  EXPECT_EQ(GenerateOpBreakdown(fathom, Fixtures()).status().message(),
            "layer_breakdown results hold no measured pass of the params' networks");
  fathom.params["networks"] = "vgg16";
  EXPECT_THAT(GenerateOpBreakdown(fathom, Fixtures()).status().message(),
              HasSubstr("params.networks must be a list of strings"));
}

}  // namespace
}  // namespace dissect::analysis::papers
