// Golden test of µ-cuDNN's page in the paper's setting: the workspace_limit
// generator with the catalog entry's setting "paper_setting"
// (configs/papers/oyama_2018_mucudnn.json: AlexNet at mini-batch 256,
// workspace limits 128, 256 and 512 MiB) on the SYNTHETIC results
// testdata/synthetic_conv_algorithms_batch256.json (made-up numbers,
// testdata/make_synthetic_conv_algos.py). After an intended change:
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/conv_algos:workspace_limit_paper_setting_test
#include <string>

#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr testing::PaperTestdata kTestdata = {
    "analysis/papers/conv_algos/testdata/",
    "//analysis/papers/conv_algos:workspace_limit_paper_setting_test"};

// The µ-cuDNN entry as the generator sees it in the paper's setting.
CatalogEntry InThePapersSetting() {
  const CatalogEntry entry = testing::CatalogEntryOrFail("oyama_2018_mucudnn");
  for (const AnalysisSetting& setting : entry.settings) {
    if (setting.id == "paper_setting") return entry.InSetting(setting);
  }
  ADD_FAILURE() << "oyama_2018_mucudnn has no analysis setting \"paper_setting\"";
  return entry;
}

TEST(WorkspaceLimitPaperSettingTest, MatchesGolden) {
  const std::string page = testing::ExpectPageMatchesGoldens(
      GenerateWorkspaceLimit(InThePapersSetting(),
                             kTestdata.Results({"synthetic_conv_algorithms_batch256.json"})),
      kTestdata, "workspace_limit_paper_setting");
  EXPECT_THAT(page, HasSubstr("Mini-batch 256,"));
  // Synthetic fft needs 1 MiB an image: at 128 MiB only micro-batches of
  // 128 fit it (features.0: 2 x 0.4 x 40 µs x 136/8 = 544 µs, against the
  // whole batch's implicit_gemm, 40 µs x 264/8 = 1320 µs), so splitting
  // wins there; from 256 MiB the whole batch runs fft and splitting gains
  // nothing.
  EXPECT_THAT(page, HasSubstr("| 544 µs (2×128 fft) |  2.426x |"));
  EXPECT_THAT(page, HasSubstr("| alexnet | 256 MiB         |             1716 |"));
  EXPECT_THAT(page, Not(HasSubstr("resnet50")));
  EXPECT_THAT(page, Not(HasSubstr("no limit")));
}

}  // namespace
}  // namespace dissect::analysis::papers
