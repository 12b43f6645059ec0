// Tests for the activation-sparsity section (sparsity.h) and its figures: the
// section over the synthetic files of analysis/testdata/sparsity/ against
// sparsity.golden.md, the figures' gnuplot text against
// sparsity_figures.golden.txt, the crossover rule and the table builders on
// hand-made rows, and gnuplot drawing the figures (skipped where gnuplot is
// not installed).
//
// After an intended change, regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/plots:sparsity_test

#include "analysis/sections/sparsity.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/plots/figures.h"
#include "analysis/plots/fixture_test_util.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::ReadText;
using test_util::Runfile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kTestdata[] = "analysis/testdata/sparsity/";
constexpr char kTarget[] = "//analysis/plots:sparsity_test";

std::vector<ResultFile> ReadFixtures() {
  return testing::ReadResultFixtures(
      kTestdata, {"synthetic_activation_sparsity.json", "synthetic_sparsity_speed.json",
                  "synthetic_sparse24_gemm.json", "synthetic_compressible_bandwidth.json"});
}

void CheckGolden(const std::string& actual, const std::string& golden) {
  testing::ExpectMatchesGolden(actual, absl::StrCat(kTestdata, golden), kTarget);
}

TEST(SparsityGoldenTest, SectionMatchesGolden) {
  const std::vector<ResultFile> files = ReadFixtures();
  ASSERT_EQ(files.size(), 4u);
  CheckGolden(RenderSparsitySections(files), "sparsity.golden.md");
}

absl::StatusOr<std::vector<DeviceFigures>> Figures() { return BuildFigures(ReadFixtures()); }

TEST(SparsityGoldenTest, FiguresMatchGolden) {
  absl::StatusOr<std::vector<DeviceFigures>> figures = Figures();
  ASSERT_TRUE(figures.ok()) << figures.status();
  std::string actual;
  for (const DeviceFigures& device : *figures) {
    for (const FigureFile& file : device.files) {
      absl::StrAppend(&actual, "==> ", device.folder, "/", file.name, " <==\n", file.contents);
    }
  }
  CheckGolden(actual, "sparsity_figures.golden.txt");
}

// The contents of figure file `name`, "" if there is none.
std::string FigureText(const DeviceFigures& device, const std::string& name) {
  for (const FigureFile& file : device.files) {
    if (file.name == name) return file.contents;
  }
  return "";
}

TEST(SparsityFiguresTest, LayersChannelsAndSpeedupFiguresPerNetworkAndShape) {
  absl::StatusOr<std::vector<DeviceFigures>> figures = Figures();
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 1u);
  const DeviceFigures& device = figures->front();
  EXPECT_THAT(
      device.scripts,
      ElementsAre("sparsity_layers_vgg16.gp", "sparsity_channels_vgg16.gp",
                  "sparsity_layers_resnet50.gp", "sparsity_channels_resnet50.gp",
                  "sparsity_speedup_vgg16_conv3_1.gp", "sparsity_speedup_resnet50_fc1000.gp"));
  // The channel curves are the plain-ReLU pass's, not the first pass's.
  EXPECT_THAT(FigureText(device, "sparsity_channels_vgg16.gp"), HasSubstr("synthetic_weights T=0"));
  // Crossovers beyond noise are marked at y = 1: cusparse_csr between 70
  // and 90 %, skip_warp on channel structure at 72.5 %; never-winning
  // methods have no mark.
  const std::string speedup = FigureText(device, "sparsity_speedup_vgg16_conv3_1.dat");
  EXPECT_THAT(speedup, HasSubstr("\n76.11111111 1 \"cusparse_csr\"\n"));
  EXPECT_THAT(speedup, HasSubstr("\n72.5 1 \"skip_warp\"\n"));
  EXPECT_THAT(speedup, Not(HasSubstr("1 \"skip_tile\"")));
  EXPECT_THAT(FigureText(device, "sparsity_speedup_vgg16_conv3_1.gp"),
              HasSubstr("1 with lines dt 2 lc rgb 'gray40' title 'dense (y = 1)'"));
}

TEST(SparsityFiguresTest, GnuplotDrawsEveryFigure) {
  if (RunGnuplot(".", "--version") == 127) GTEST_SKIP() << "gnuplot not on PATH";
  absl::StatusOr<std::vector<DeviceFigures>> figures = Figures();
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 1u);
  const DeviceFigures& device = figures->front();
  std::filesystem::path dir;
  ASSERT_NO_FATAL_FAILURE(testing::DrawFigures(device, "sparsity_test", &dir));
  EXPECT_THAT(test_util::ReadText((dir / "sparsity_speedup_vgg16_conv3_1.svg").string()),
              HasSubstr("crossover (beyond noise)"));
}

// The report ends with the section; without sparsity results it has none.
TEST(SparsityReportTest, RenderReportAppendsTheSectionOnlyWithSparsityResults) {
  absl::StatusOr<std::string> report = RenderReport(ReadFixtures(), {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("\n## activation sparsity: SYNTHETIC H100 (test data)\n"));
  EXPECT_EQ(RenderSparsitySections({}), "");
  ResultFile other;
  other.experiment = "memory_latency";
  EXPECT_EQ(RenderSparsitySections({other}), "");
  absl::StatusOr<std::string> without = RenderReport({other}, {});
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_THAT(*without, Not(HasSubstr("activation sparsity")));
}

std::vector<CrossoverPoint> Curve(const std::vector<std::pair<double, double>>& points) {
  std::vector<CrossoverPoint> out;
  for (const auto& [pct, speedup] : points) out.push_back({pct, speedup});
  return out;
}

TEST(FindCrossoverTest, WinningFromTheStartCrossesAtTheFirstPoint) {
  const Crossover c = FindCrossover(Curve({{0, 1.05}, {50, 1.5}, {99, 3}}));
  ASSERT_TRUE(c.sparsity_pct.has_value());
  EXPECT_EQ(*c.sparsity_pct, 0);
  EXPECT_FALSE(c.interpolated);
  EXPECT_EQ(c.first_win, 0);
  EXPECT_EQ(CrossoverText(c), "0 %");
}

TEST(FindCrossoverTest, NeverWinningSaysUpToWhere) {
  const Crossover c = FindCrossover(Curve({{0, 0.5}, {50, 0.8}, {99, 1.0}}));
  EXPECT_FALSE(c.sparsity_pct.has_value());
  EXPECT_EQ(c.first_win, -1);
  EXPECT_EQ(CrossoverText(c), "never (up to 99 %)");
  EXPECT_EQ(CrossoverText(FindCrossover({})), "—");
}

TEST(FindCrossoverTest, InterpolatesBetweenTheLastLossAndTheFirstWin) {
  // 0.8 at 70 %, 1.6 at 90 %: the speedup crosses 1 a quarter of the way.
  const Crossover c = FindCrossover(Curve({{0, 0.2}, {70, 0.8}, {90, 1.6}, {99, 6}}));
  ASSERT_TRUE(c.sparsity_pct.has_value());
  EXPECT_DOUBLE_EQ(*c.sparsity_pct, 75);
  EXPECT_TRUE(c.interpolated);
  EXPECT_EQ(c.last_loss, 1);
  EXPECT_EQ(c.first_win, 2);
}

TEST(FindCrossoverTest, OnlyASustainedWinCounts) {
  // Wins at 50 %, loses at 70 %: the crossover is after the last loss.
  const Crossover c = FindCrossover(Curve({{0, 0.9}, {50, 1.2}, {70, 0.9}, {90, 1.7}, {99, 4}}));
  ASSERT_TRUE(c.sparsity_pct.has_value());
  EXPECT_DOUBLE_EQ(*c.sparsity_pct, 72.5);
  EXPECT_EQ(c.first_win, 3);
  // A win that does not last to the end never counts.
  EXPECT_FALSE(FindCrossover(Curve({{0, 0.9}, {50, 1.2}, {99, 0.9}})).sparsity_pct.has_value());
}

TEST(FindCrossoverTest, UnmeasuredPointsAreIgnored) {
  std::vector<CrossoverPoint> points = Curve({{0, 0.5}, {50, 0.9}, {70, 0}, {90, 1.3}});
  points[2].speedup.reset();
  const Crossover c = FindCrossover(points);
  ASSERT_TRUE(c.sparsity_pct.has_value());
  EXPECT_DOUBLE_EQ(*c.sparsity_pct, 50 + 40 * 0.25);
  EXPECT_EQ(c.last_loss, 1);
  EXPECT_EQ(c.first_win, 3);
  points.back().speedup.reset();
  EXPECT_EQ(CrossoverText(FindCrossover(points)), "never (up to 50 %)");
}

SpeedPoint Point(double pct, double speedup, double low, double high) {
  SpeedPoint p;
  p.sparsity_pct = pct;
  p.speedup = speedup;
  p.speedup_min = low;
  p.speedup_max = high;
  p.speedup_spread = (high - low) / speedup;
  return p;
}

// A nominal win whose slowest sample loses is no crossover beyond noise.
TEST(NoiseCrossoverTest, NoiseMakesANominalWinNotCount) {
  SpeedCurve curve;
  curve.method = "skip_tile";
  curve.points = {Point(0, 0.9, 0.88, 0.92), Point(90, 0.99, 0.96, 1.02),
                  Point(99, 1.03, 0.97, 1.08)};
  EXPECT_EQ(CrossoverText(NoiseCrossover(curve)), "never (up to 99 %)");
  // Nominally it crosses between 90 % (0.99) and 99 % (1.03).
  EXPECT_EQ(CrossoverText(NominalCrossover(curve)), "92.25 %");
}

TEST(EndToEndCrossoverTest, ConversionTimeMovesTheCrossover) {
  SpeedCurve curve;
  curve.method = "cusparse_csr";
  for (double pct : {50.0, 90.0, 99.0}) {
    SpeedPoint p = Point(pct, 2, 1.9, 2.1);
    p.end_to_end_ms = pct == 99 ? 0.5 : 2.0;
    p.end_to_end_max_ms = *p.end_to_end_ms * 1.1;
    curve.points.push_back(p);
  }
  // Dense takes 1 ms: wins only at 99 % (1 / 0.55), crossing between 90 and 99.
  const Crossover c = EndToEndCrossover(curve, 1.0);
  ASSERT_TRUE(c.sparsity_pct.has_value());
  EXPECT_GT(*c.sparsity_pct, 90);
  EXPECT_LT(*c.sparsity_pct, 99);
  EXPECT_EQ(CrossoverText(NoiseCrossover(curve)), "50 %");
}

TEST(CrossoverTableTest, DenseRowsAreLeftOutAndInterpolationIsNamed) {
  SpeedCurve dense;
  dense.shape = "s";
  dense.method = "dense_cublas";
  dense.structure = "uniform";
  dense.points = {Point(0, 1, 0.99, 1.01)};
  dense.points[0].kernel_ms = 1;
  SpeedCurve sparse = dense;
  sparse.method = "cusparse_csr";
  sparse.points = {Point(0, 0.5, 0.45, 0.55), Point(50, 0.8, 0.8, 0.85), Point(90, 1.5, 1.4, 1.6)};
  const MarkdownTable t = CrossoverTable({dense, sparse});
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0][3], "cusparse_csr");
  EXPECT_EQ(t.rows[0][4], "63.33 % (between 50 and 90 %)");
  EXPECT_EQ(t.rows[0][5], "1.500 (min 1.400, ±13.3%)");
  // No end_to_end_ms: no end-to-end crossover.
  EXPECT_EQ(t.rows[0][7], "—");
}

// sparse24_gemm's kernel is load-bound: a speedup beyond its ceiling, even
// in its slowest sample, says the method measured something else.
TEST(Sparse24TableTest, ShowsTheLoadBoundCeilingAndFlagsASpeedupAboveIt) {
  SpeedCurve sparse;
  sparse.shape = "s";
  sparse.method = "sparse_mma_sp";
  sparse.points = {Point(0, 1.2, 1.15, 1.25), Point(90, 1.6, 1.55, 1.65)};
  for (SpeedPoint& p : sparse.points) p.load_bound = 1.3333;
  const MarkdownTable t = Sparse24Table({sparse});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][4], "1.333");
  EXPECT_EQ(t.rows[0].back(), "");
  EXPECT_EQ(t.rows[1].back(), "above the load-bound ceiling: check the method");
}

TEST(DenseOnZerosTableTest, SaysWhetherDenseSpeedsUpOnZeros) {
  SpeedCurve dense;
  dense.shape = "s";
  dense.method = "dense_cublas";
  dense.points = {Point(0, 1, 0.99, 1.01), Point(99, 1.2, 1.1, 1.3)};
  dense.points[0].power_w = 300;
  SpeedCurve noisy = dense;
  noisy.points[1] = Point(99, 1.01, 0.98, 1.03);
  SpeedCurve slower = dense;
  slower.points[1] = Point(99, 0.9, 0.85, 0.95);
  const MarkdownTable t = DenseOnZerosTable({dense, noisy, slower});
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][5], "yes");
  EXPECT_EQ(t.rows[1][5], "no (within noise)");
  EXPECT_EQ(t.rows[2][5], "slower");
  EXPECT_EQ(t.rows[0][6], "300");
  EXPECT_EQ(t.rows[0][7], "—");
}

TEST(CompressionTableTest, SkippedCompressibleRowShowsItsReason) {
  CompressionRow r;
  r.zero_pct = "100";
  r.bytes = "1048576";
  r.ordinary_gbps = 3000;
  r.notes = {"compressible: skipped: compression refused"};
  CompressionRow granted;
  granted.zero_pct = "50";
  granted.bytes = "1048576";
  granted.ordinary_gbps = 2000;
  granted.compressible_gbps = 3000;
  granted.granted = 1;
  const MarkdownTable t = CompressionTable({r, granted});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_THAT(t.rows[0], ElementsAre("100 %", "1 MiB", "3000", "—", "—", "—",
                                     "compressible: skipped: compression refused"));
  EXPECT_EQ(t.rows[1][4], "1.50");
  EXPECT_EQ(t.rows[1][5], "yes");
}

TEST(ThresholdTableTest, SortsThresholdsNumericallyPerNetwork) {
  std::vector<ActivationPass> passes(3);
  for (ActivationPass& p : passes) {
    p.network = "vgg16";
    p.source = "fatrelu";
  }
  passes[0].threshold = "0.5";
  passes[1].threshold = "0";
  passes[2].threshold = "0.25";
  passes[2].mean_zero = 0.6;
  const MarkdownTable t = ThresholdTable(passes);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][3], "0");
  EXPECT_EQ(t.rows[1][3], "0.25");
  EXPECT_EQ(t.rows[1][5], "60.0%");
  EXPECT_EQ(t.rows[2][3], "0.5");
}

TEST(BuildSparsityTest, LayerNamesAndChannelSlicesComeFromTheRow) {
  const std::vector<ResultFile> files = ReadFixtures();
  std::vector<const ResultFile*> pointers;
  for (const ResultFile& f : files) pointers.push_back(&f);
  const std::vector<SparsityDevice> devices = BuildSparsity(pointers);
  ASSERT_EQ(devices.size(), 1u);
  const std::vector<ActivationPass>& passes = devices[0].passes;
  ASSERT_EQ(passes.size(), 5u);
  ASSERT_EQ(passes[1].layers.size(), 4u);
  EXPECT_EQ(passes[1].source, "synthetic_weights");
  EXPECT_EQ(passes[1].layers[1].name, "conv3_1");
  EXPECT_THAT(passes[1].layers[0].channels, ElementsAre(0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7));
  EXPECT_THAT(passes[1].layers[3].channels, ElementsAre(0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.0));
  // Without a `layers=` note the layers are named by index.
  ASSERT_EQ(passes[3].layers.size(), 2u);
  EXPECT_EQ(passes[3].layers[1].name, "1");
  EXPECT_EQ(passes[3].layers[1].channels.size(), 8u);
  EXPECT_THAT(passes[4].note, HasSubstr("skipped: no .npy dumps"));
  EXPECT_TRUE(passes[4].layers.empty());
}

TEST(SelectedLayersTest, SpreadsEvenlyWithFirstAndLast) {
  EXPECT_THAT(SelectedLayers(13, 4), ElementsAre(0, 4, 8, 12));
  EXPECT_THAT(SelectedLayers(3, 4), ElementsAre(0, 1, 2));
  EXPECT_THAT(SelectedLayers(5, 1), ElementsAre(0));
  EXPECT_TRUE(SelectedLayers(0, 4).empty());
}

}  // namespace
}  // namespace dissect::analysis
