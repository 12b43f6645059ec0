// Golden tests of the instruction chapter's section (instructions.h) and its
// figures over SYNTHETIC result files,
// analysis/testdata/instructions_synthetic/ (written by
// make_synthetic_instructions.py in the instruction chapter's row contract;
// every number there is made up, none is a measurement): the section against
// instructions.golden.md with the shipped rates table
// (configs/published/instruction_rates.json, built in), the figures' gnuplot
// text against instructions_figures.golden.txt, single values of the section
// (% of published with hfma2's two results per op, the cc 8.0 device without a
// column, ops with no published rate, skipped rows, the dispatch slope), the
// report adding the section only with instruction results, and gnuplot
// drawing the figures (skipped where gnuplot is not installed).
//
// After an intended change, regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/plots:instructions_test

#include "analysis/sections/instructions.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/plots/figures.h"
#include "analysis/plots/fixture_test_util.h"
#include "analysis/results/results.h"
#include "analysis/sections/instruction_rates.h"
#include "analysis/sections/instruction_rates_embedded.h"
#include "analysis/sections/report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/testing/test_util.h"

namespace dissect::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CellWith;
using testing::TableRow;

constexpr char kTestdata[] = "analysis/testdata/instructions_synthetic/";
constexpr char kTarget[] = "//analysis/plots:instructions_test";

std::vector<ResultFile> ReadFixtures() {
  return testing::ReadResultFixtures(
      kTestdata, {"synthetic_instruction_latency.json", "synthetic_instruction_throughput.json",
                  "synthetic_launch_overhead.json", "synthetic_instruction_throughput_cc80.json"});
}

InstructionRates Rates() {
  absl::StatusOr<InstructionRates> rates =
      ParseInstructionRatesJson(kEmbeddedInstructionRatesJson, kEmbeddedInstructionRatesOrigin);
  EXPECT_TRUE(rates.ok()) << rates.status();
  return rates.ok() ? *std::move(rates) : InstructionRates();
}

void CheckGolden(const std::string& actual, const std::string& golden) {
  testing::ExpectMatchesGolden(actual, absl::StrCat(kTestdata, golden), kTarget);
}

TEST(InstructionsGoldenTest, SectionMatchesGolden) {
  const std::vector<ResultFile> files = ReadFixtures();
  ASSERT_EQ(files.size(), 4u);
  CheckGolden(RenderInstructionsSections(files, Rates()), "instructions.golden.md");
}

absl::StatusOr<std::vector<DeviceFigures>> Figures() { return BuildFigures(ReadFixtures()); }

TEST(InstructionsGoldenTest, FiguresMatchGolden) {
  absl::StatusOr<std::vector<DeviceFigures>> figures = Figures();
  ASSERT_TRUE(figures.ok()) << figures.status();
  std::string actual;
  for (const DeviceFigures& device : *figures) {
    for (const FigureFile& file : device.files) {
      absl::StrAppend(&actual, "==> ", device.folder, "/", file.name, " <==\n", file.contents);
    }
  }
  CheckGolden(actual, "instructions_figures.golden.txt");
}

TEST(InstructionsSectionTest, PercentOfTheCc90ColumnAndHalf2CountsTwoResults) {
  const std::string section = RenderInstructionsSections(ReadFixtures(), Rates());
  // ffma: the best of three points, 121.6 of 128.
  EXPECT_THAT(TableRow(section, "ffma"), ::testing::Contains("95.0%"));
  EXPECT_THAT(TableRow(section, "ffma"), CellWith("4 chains · 32 warps/SM"));
  // hfma2: 120 HFMA2 per clock are 240 16-bit results of 256.
  EXPECT_THAT(TableRow(section, "hfma2"), ::testing::Contains("93.8%"));
  EXPECT_THAT(TableRow(section, "dfma"),
              ::testing::Contains("8.1"));  // the longest chain's latency
  EXPECT_THAT(TableRow(section, "vote_ballot"), CellWith("none published"));
  EXPECT_THAT(section, HasSubstr("- vote_ballot: the arithmetic table has no row for warp vote"));
  EXPECT_THAT(TableRow(section, "barrier_cluster"),
              CellWith("latency, throughput: skipped: cluster launch refused"));
  EXPECT_THAT(TableRow(section, "atom_shared_add (contention warp)"), ::testing::Contains("1.1"));
  EXPECT_THAT(section, HasSubstr("f2f_f16: a chain step is 2 instructions"));
}

TEST(InstructionsSectionTest, ADeviceWithoutAColumnSaysNonePublishedForItsCc) {
  const std::string section = RenderInstructionsSections(ReadFixtures(), Rates());
  const size_t a100 = section.find("## instructions: SYNTHETIC A100 (test data)");
  ASSERT_NE(a100, std::string::npos);
  EXPECT_THAT(TableRow(section.substr(a100), "ffma"), CellWith("none published for cc 8.0"));
  EXPECT_THAT(section.substr(a100), Not(HasSubstr("Published rates")));
}

TEST(InstructionsSectionTest, LaunchOverheadAndTheDispatchSlope) {
  const std::string section = RenderInstructionsSections(ReadFixtures(), Rates());
  EXPECT_THAT(TableRow(section, "launch to kernel start"), ::testing::Contains("4.1"));
  EXPECT_THAT(TableRow(section, "launch to kernel start"), ::testing::Contains("3.2"));
  // 3 + 0.0021 x blocks, with +-0.01 us off the line: 2.103 ns per block by
  // least squares.
  const std::vector<std::string> dispatch = TableRow(section, "block dispatch");
  EXPECT_THAT(dispatch, ::testing::Contains("2.103"));
  EXPECT_THAT(dispatch, CellWith("stream: slope over 4 points, blocks 1-4096"));
  EXPECT_THAT(dispatch, CellWith("graph: skipped: block_dispatch runs on streams only"));
}

TEST(InstructionsFiguresTest, GnuplotDrawsEveryFigure) {
  if (RunGnuplot(".", "--version") == 127) GTEST_SKIP() << "gnuplot not on PATH";
  absl::StatusOr<std::vector<DeviceFigures>> figures = Figures();
  ASSERT_TRUE(figures.ok()) << figures.status();
  // The cc 8.0 device has no latency, so no point to draw.
  ASSERT_EQ(figures->size(), 1u);
  std::filesystem::path dir;
  ASSERT_NO_FATAL_FAILURE(testing::DrawFigures(figures->front(), "instructions_test", &dir));
  EXPECT_THAT(test_util::ReadText((dir / "instructions_latency_throughput.svg").string()),
              HasSubstr("hfma2"));
}

// The report ends with the section; without instruction results it has none.
TEST(InstructionsReportTest, RenderReportAppendsTheSectionOnlyWithInstructionResults) {
  ReportOptions options;
  options.instruction_rates = Rates();
  absl::StatusOr<std::string> report = RenderReport(ReadFixtures(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("\n## instructions: SYNTHETIC H100 (test data)\n"));
  EXPECT_EQ(RenderInstructionsSections({}, options.instruction_rates), "");
  ResultFile other;
  other.experiment = "memory_latency";
  absl::StatusOr<std::string> without = RenderReport({other}, options);
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_THAT(*without, Not(HasSubstr("## instructions")));
}

}  // namespace
}  // namespace dissect::analysis
