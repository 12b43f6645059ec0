// Golden test of µ-cuDNN's page in the paper's setting: the workspace_limit
// generator with the catalog entry's setting "paper_setting"
// (configs/papers/oyama_2018_mucudnn.json: AlexNet at mini-batch 256,
// workspace limits 128, 256 and 512 MiB) on the SYNTHETIC results
// testdata/synthetic_conv_algorithms_batch256.json (made-up numbers,
// testdata/make_synthetic_conv_algos.py). After an intended change:
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/conv_algos:workspace_limit_paper_setting_test
#include <string>
#include <vector>

#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "analysis/plots/fixture_test_util.h"
#include "analysis/results/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using testing::CatalogEntryOrFail;
using testing::ExpectPaperFigureDrawn;
using testing::ExpectPaperGoldens;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kTestdata[] = "analysis/papers/conv_algos/testdata/";
constexpr char kTarget[] = "//analysis/papers/conv_algos:workspace_limit_paper_setting_test";

// The µ-cuDNN entry as the generator sees it in the paper's setting.
CatalogEntry InThePapersSetting() {
  const CatalogEntry entry = CatalogEntryOrFail("oyama_2018_mucudnn");
  for (const AnalysisSetting& setting : entry.settings) {
    if (setting.id == "paper_setting") return entry.InSetting(setting);
  }
  ADD_FAILURE() << "oyama_2018_mucudnn has no analysis setting \"paper_setting\"";
  return entry;
}

TEST(WorkspaceLimitPaperSettingTest, MatchesGolden) {
  absl::StatusOr<PaperFigure> figure = GenerateWorkspaceLimit(
      InThePapersSetting(),
      testing::ReadResultFixtures(kTestdata, {"synthetic_conv_algorithms_batch256.json"}));
  ASSERT_TRUE(figure.ok()) << figure.status();
  ExpectPaperGoldens(*figure, kTestdata, "workspace_limit_paper_setting", kTarget);
  EXPECT_THAT(figure->markdown, HasSubstr("Mini-batch 256,"));
  // Synthetic fft needs 1 MiB an image: at 128 MiB only micro-batches of
  // 128 fit it (features.0: 2 x 0.4 x 40 µs x 136/8 = 544 µs, against the
  // whole batch's implicit_gemm, 40 µs x 264/8 = 1320 µs), so splitting
  // wins there; from 256 MiB the whole batch runs fft and splitting gains
  // nothing.
  EXPECT_THAT(figure->markdown, HasSubstr("| 544 µs (2×128 fft) |  2.426x |"));
  EXPECT_THAT(figure->markdown, HasSubstr("| alexnet | 256 MiB         |             1716 |"));
  EXPECT_THAT(figure->markdown, Not(HasSubstr("resnet50")));
  EXPECT_THAT(figure->markdown, Not(HasSubstr("no limit")));
  ExpectPaperFigureDrawn(*figure, "workspace_limit_paper_setting_test");
}

}  // namespace
}  // namespace dissect::analysis::papers
