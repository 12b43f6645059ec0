// Golden tests of the conv_algos generators on the synthetic conv_algorithms
// results of testdata/make_synthetic_conv_algos.py (made-up numbers) with
// the catalog's own entries (configs/papers/xu_2018_conv_algorithms.json,
// oyama_2018_mucudnn.json): each markdown page and its figure files against
// the goldens, gnuplot drawing every figure, and the errors. After an
// intended change:
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/conv_algos:conv_algos_test
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

constexpr testing::PaperTestdata kTestdata = {"analysis/papers/conv_algos/testdata/",
                                              "//analysis/papers/conv_algos:conv_algos_test"};

std::vector<ResultFile> Fixtures() { return kTestdata.Results({"synthetic_conv_algorithms.json"}); }

TEST(ConvAlgorithmsTest, MatchesGolden) {
  const std::string page = testing::ExpectPageMatchesGoldens(
      GenerateConvAlgorithms(CatalogEntryOrFail("xu_2018_conv_algorithms"), Fixtures()), kTestdata,
      "conv_algorithms");
  // Synthetic AlexNet at batch 64: fft is fastest on every layer (144 + 216 + 108 =
  // 468 µs); implicit_gemm everywhere takes 360 + 540 + 270 = 1170 µs: 2.5x.
  EXPECT_THAT(page, HasSubstr("| alexnet  | implicit_gemm everywhere |           1170 |"));
  EXPECT_THAT(page, HasSubstr("2.5x"));
  EXPECT_THAT(page, HasSubstr("CUDNN_STATUS_NOT_SUPPORTED"));
  EXPECT_THAT(page, HasSubstr("measured layers cover 3 of 53 conv layers"));
}

TEST(WorkspaceLimitTest, MatchesGolden) {
  const std::string page = testing::ExpectPageMatchesGoldens(
      GenerateWorkspaceLimit(CatalogEntryOrFail("oyama_2018_mucudnn"), Fixtures()), kTestdata,
      "workspace_limit");
  EXPECT_THAT(page, HasSubstr("assumes back-to-back micro-batches cost the sum"));
}

TEST(ConvAlgosErrorsTest, MissingExperimentAndBadParams) {
  ResultFile other;
  other.experiment = "memory_latency";
  for (auto generate : {&GenerateConvAlgorithms, &GenerateWorkspaceLimit}) {
    absl::StatusOr<PaperFigure> figure =
        generate(CatalogEntryOrFail("oyama_2018_mucudnn"), {other});
    EXPECT_EQ(figure.status().code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(figure.status().message(), HasSubstr("no conv_algorithms results"));
  }
  CatalogEntry entry = CatalogEntryOrFail("oyama_2018_mucudnn");
  entry.params["limits_bytes"] = {0, -5};
  EXPECT_THAT(GenerateWorkspaceLimit(entry, Fixtures()).status().message(),
              HasSubstr("params.limits_bytes must be byte counts >= 0 or -1"));
  entry.params["networks"] = {"lenet"};
  EXPECT_EQ(GenerateConvAlgorithms(entry, Fixtures()).status().message(),
            "conv_algorithms results hold no layer of lenet at math fma");
}

}  // namespace
}  // namespace dissect::analysis::papers
