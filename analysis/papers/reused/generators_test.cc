// Golden tests of the generators of analysis/papers/reused on synthetic
// result files (analysis/testdata/ and analysis/papers/reused/testdata/),
// with the catalog entries of configs/papers that name them: each
// generator's markdown and figure files against <generator>.golden.md and
// <generator>_figures.golden.txt, gnuplot drawing every SVG (skipped where
// gnuplot is not installed), and the error when the entry's experiment is
// missing from the results.
//
// After an intended change, regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/reused:generators_test

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/plots/fixture_test_util.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "analysis/results/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/testing/test_util.h"

namespace dissect::analysis::papers {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kGoldens[] = "analysis/papers/reused/testdata/";
constexpr char kTarget[] = "//analysis/papers/reused:generators_test";

// The catalog entries of this package, by id.
const std::vector<std::string>& EntryIds() {
  static const auto* ids = new std::vector<std::string>{
      "dong_kaeli_2018_a_latency",       "dong_kaeli_2018_b_transactions",
      "dong_kaeli_2018_c_l1_bypass",     "wang_2019_paradnn_fc",
      "tensor_cores_2024_good_bad_ugly", "intergroup_2024_cache_cooperation",
      "kurtz_2020_activation_sparsity"};
  return *ids;
}

absl::StatusOr<CatalogEntry> Entry(const std::string& id) { return testing::ReadCatalogEntry(id); }

struct Case {
  std::string entry;
  std::string generator;
  std::string folder;  // of the fixtures
  std::vector<std::string> fixtures;
  std::string experiment;  // the one a missing-results error names
};

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"dong_kaeli_2018_a_latency",
       "latency_pair",
       "analysis/testdata/",
       {"synthetic_memory_latency.json"},
       "memory_latency"},
      {"dong_kaeli_2018_b_transactions",
       "layer_transactions",
       kGoldens,
       {"synthetic_l1_bypass_counters.json", "synthetic_l1_bypass_unavailable.json"},
       "l1_bypass"},
      {"dong_kaeli_2018_c_l1_bypass",
       "l1_bypass_speedup",
       "analysis/testdata/",
       {"synthetic_l1_bypass.json"},
       "l1_bypass"},
      {"wang_2019_paradnn_fc", "fc_heatmap", kGoldens, {"synthetic_fc_gemm.json"}, "cublaslt_gemm"},
      {"tensor_cores_2024_good_bad_ugly",
       "tensor_good_bad_ugly",
       "analysis/testdata/tensor/",
       {"synthetic_cublaslt_gemm.json"},
       "cublaslt_gemm"},
      {"intergroup_2024_cache_cooperation",
       "intergroup_sharing",
       "analysis/testdata/sharing/",
       {"synthetic_l1_duplication.json", "synthetic_dsm_latency.json",
        "synthetic_dsm_bandwidth.json", "synthetic_gpc_topology.json", "synthetic_l2_sm_map.json",
        "synthetic_cluster_coop.json"},
       "l1_duplication"},
      {"kurtz_2020_activation_sparsity",
       "activation_sparsity",
       "analysis/testdata/sparsity/",
       {"synthetic_activation_sparsity.json", "synthetic_sparsity_speed.json"},
       "activation_sparsity"},
  };
  return *cases;
}

// Pages must not depend on what the machine's shared data folder holds: the
// generators look in a folder that does not exist (fc_heatmap then says in
// one line why the paper's heatmap is not drawn).
void HideSharedData() { setenv("DISSECT_SHARED_DATA", "/nonexistent/shared/data", 1); }

absl::StatusOr<PaperFigure> Generate(const Case& c) {
  HideSharedData();
  absl::StatusOr<CatalogEntry> entry = Entry(c.entry);
  if (!entry.ok()) return entry.status();
  const Generator generator = FindGenerator(entry->generator);
  if (generator == nullptr) return absl::NotFoundError(entry->generator);
  return generator(*entry, testing::ReadResultFixtures(c.folder, c.fixtures));
}

TEST(ReusedCatalogTest, EveryEntryParsesAndNamesAKnownGenerator) {
  ASSERT_EQ(EntryIds().size(), 7u);
  for (const std::string& id : EntryIds()) {
    absl::StatusOr<CatalogEntry> entry = Entry(id);
    ASSERT_TRUE(entry.ok()) << entry.status();
    EXPECT_EQ(entry->id, id);
    EXPECT_TRUE(entry->ready()) << id;
    EXPECT_NE(FindGenerator(entry->generator), nullptr) << id << ": " << entry->generator;
    for (const PublishedValue& p : entry->published) {
      EXPECT_TRUE(p.known() || !p.why.empty()) << id << ": " << p.key;
    }
  }
}

TEST(ReusedGeneratorsTest, MarkdownAndFiguresMatchGoldens) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.generator);
    absl::StatusOr<PaperFigure> figure = Generate(c);
    ASSERT_TRUE(figure.ok()) << figure.status();
    testing::ExpectPaperGoldens(*figure, kGoldens, c.generator, kTarget);
    EXPECT_FALSE(figure->scripts.empty());
  }
}

// ParaDnn's own V100 cells beside ours, from a synthetic file shaped like
// the authors' gpu_fc.json (params.paper_data given as an absolute path).
absl::StatusOr<PaperFigure> GenerateFcHeatmapWithPaperFixture() {
  HideSharedData();
  absl::StatusOr<CatalogEntry> entry = Entry("wang_2019_paradnn_fc");
  if (!entry.ok()) return entry.status();
  entry->params["paper_data"] =
      test_util::Runfile(std::string(kGoldens) + "synthetic_paradnn_gpu_fc.json");
  return FindGenerator("fc_heatmap")(
      *entry, testing::ReadResultFixtures(kGoldens, {"synthetic_fc_gemm.json"}));
}

TEST(ReusedGeneratorsTest, FcHeatmapWithThePapersCellsMatchesGoldens) {
  absl::StatusOr<PaperFigure> figure = GenerateFcHeatmapWithPaperFixture();
  ASSERT_TRUE(figure.ok()) << figure.status();
  testing::ExpectPaperGoldens(*figure, kGoldens, "fc_heatmap_with_paper_fixture", kTarget);
  EXPECT_THAT(figure->markdown, HasSubstr("**300 (30000)**"));  // framework-bound
  EXPECT_THAT(figure->markdown, Not(HasSubstr("is not drawn")));
}

TEST(ReusedGeneratorsTest, FcHeatmapSaysWhyThePapersCellsAreMissing) {
  absl::StatusOr<PaperFigure> figure = Generate(
      {"wang_2019_paradnn_fc", "fc_heatmap", kGoldens, {"synthetic_fc_gemm.json"}, ""});
  ASSERT_TRUE(figure.ok()) << figure.status();
  EXPECT_THAT(figure->markdown,
              HasSubstr("The paper's V100 heatmap is not drawn: papers/paradnn/gpu_fc.json is "
                        "not in the shared data folder"));
}

TEST(ReusedGeneratorsTest, FcHeatmapRejectsAMalformedPaperFile) {
  HideSharedData();
  absl::StatusOr<CatalogEntry> entry = Entry("wang_2019_paradnn_fc");
  ASSERT_TRUE(entry.ok()) << entry.status();
  // A file that is there but is not gpu_fc.json: a result file.
  entry->params["paper_data"] = test_util::Runfile(std::string(kGoldens) + "synthetic_fc_gemm.json");
  absl::StatusOr<PaperFigure> figure = FindGenerator("fc_heatmap")(
      *entry, testing::ReadResultFixtures(kGoldens, {"synthetic_fc_gemm.json"}));
  ASSERT_FALSE(figure.ok());
  EXPECT_EQ(figure.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(figure.status().message(), HasSubstr("synthetic_fc_gemm.json: "));
}

TEST(ReusedGeneratorsTest, GnuplotDrawsEveryFigure) {
  if (!testing::HaveGnuplot()) GTEST_SKIP() << "gnuplot not on PATH";
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.generator);
    absl::StatusOr<PaperFigure> figure = Generate(c);
    ASSERT_TRUE(figure.ok()) << figure.status();
    std::filesystem::path dir;
    testing::DrawPaperFigure(*figure, c.generator, "reused_generators_test", &dir);
  }
  absl::StatusOr<PaperFigure> with_paper = GenerateFcHeatmapWithPaperFixture();
  ASSERT_TRUE(with_paper.ok()) << with_paper.status();
  std::filesystem::path dir;
  testing::DrawPaperFigure(*with_paper, "fc_heatmap_with_paper_fixture", "reused_generators_test",
                           &dir);
}

TEST(ReusedGeneratorsTest, MissingExperimentIsNamed) {
  // Results of another experiment only: every generator says which it needs.
  const std::vector<ResultFile> other =
      testing::ReadResultFixtures("analysis/testdata/", {"synthetic_relu.json"});
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.generator);
    absl::StatusOr<CatalogEntry> entry = Entry(c.entry);
    ASSERT_TRUE(entry.ok()) << entry.status();
    ASSERT_NE(FindGenerator(entry->generator), nullptr) << entry->generator;
    for (const std::vector<ResultFile>& results : {std::vector<ResultFile>{}, other}) {
      absl::StatusOr<PaperFigure> figure = FindGenerator(entry->generator)(*entry, results);
      ASSERT_FALSE(figure.ok());
      EXPECT_EQ(figure.status().code(), absl::StatusCode::kNotFound);
      EXPECT_THAT(figure.status().message(), HasSubstr(c.experiment));
      EXPECT_THAT(figure.status().message(), HasSubstr(c.entry));
    }
  }
}

}  // namespace
}  // namespace dissect::analysis::papers
