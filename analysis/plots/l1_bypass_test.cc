// Speedup tables and the -dlcm=cg figure of the l1_bypass experiment, on the
// synthetic fixture analysis/testdata/synthetic_l1_bypass.json (made-up
// times and spreads, see make_synthetic_l1_bypass.py).

#include "analysis/sections/l1_bypass.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "analysis/plots/figures.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

ResultFile Fixture() {
  auto file = ReadResultFile(
      test_util::Runfile("analysis/testdata/synthetic_l1_bypass.json"));
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *file : ResultFile{};
}

const SpeedupRow* FindRow(const L1BypassTable& t, const std::string& ws,
                          const std::string& occupancy,
                          const std::string& batch = "1") {
  for (const SpeedupRow& r : t.rows) {
    if (r.working_set == ws && r.occupancy_pct == occupancy &&
        r.batch == batch) {
      return &r;
    }
  }
  return nullptr;
}

size_t Column(const L1BypassTable& t, const std::string& variant) {
  for (size_t i = 0; i < t.variants.size(); ++i) {
    if (t.variants[i] == variant) return i;
  }
  ADD_FAILURE() << "no column " << variant;
  return 0;
}

TEST(L1BypassTest, OneTablePerKernelWithEveryVariantButDefault) {
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({Fixture()});
  ASSERT_EQ(tables.size(), 2u);  // the skipped maxpool row makes no table
  EXPECT_EQ(tables[0].kernel, "stream");
  EXPECT_EQ(tables[1].kernel, "conv");
  EXPECT_EQ(tables[0].device, "Synthetic H100-like GPU (fixture)");
  EXPECT_EQ(tables[0].variants,
            (std::vector<std::string>{"dlcm_cg", "cg", "cs", "evict_first",
                                      "cv", "l2_persist"}));
  // From the rows' same_code_as notes.
  EXPECT_EQ(tables[0].same_code_as,
            (std::vector<std::string>{"", "dlcm_cg", "", "cs", "", "default"}));
  EXPECT_EQ(tables[0].runtime_setting[5],
            "L2 persisting access-policy window over the input");
  EXPECT_EQ(tables[0].runtime_setting[1], "");
  EXPECT_EQ(tables[0].loads[1], "LDG.E.STRONG.GPU");
  EXPECT_EQ(tables[0].loads[5], "");
  EXPECT_EQ(tables[0].rows.size(), 8u);
  EXPECT_EQ(tables[0].rows[4].batch, "32");
}

TEST(L1BypassTest, SpeedupNoiseAndWinner) {
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({Fixture()});
  ASSERT_EQ(tables.size(), 2u);
  const L1BypassTable& stream = tables[0];
  const SpeedupRow* row = FindRow(stream, "as configured", "100");
  ASSERT_NE(row, nullptr);
  ASSERT_TRUE(row->default_us.has_value());
  EXPECT_DOUBLE_EQ(*row->default_us, 2.1);
  EXPECT_EQ(row->input_bytes, 1605632);
  const VariantSpeedup cg = *row->variants[Column(stream, "dlcm_cg")];
  EXPECT_NEAR(cg.speedup, 1 / 0.94, 1e-9);
  EXPECT_DOUBLE_EQ(cg.noise, 0.02);  // the default's spread is the larger
  EXPECT_TRUE(cg.faster());
  // 1 % faster with 3 % noise: neither faster nor slower.
  const VariantSpeedup cs = *row->variants[Column(stream, "cs")];
  EXPECT_FALSE(cs.faster());
  EXPECT_FALSE(cs.slower());
  EXPECT_TRUE(row->variants[Column(stream, "cv")]->slower());
  // cg, dlcm_cg's twin, measured 1 % faster than it: the pair wins, timed by
  // dlcm_cg, instead of cg beating its own code.
  EXPECT_TRUE(row->variants[Column(stream, "cg")]->faster());
  EXPECT_EQ(row->winner, "dlcm_cg ≡ cg");

  // Two variants beyond the noise: the faster one wins.
  const SpeedupRow* big = FindRow(stream, "67108864", "25");
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(big->variants[Column(stream, "cs")]->faster());
  EXPECT_EQ(big->winner, "dlcm_cg ≡ cg");
  // Batch 32: cs beats dlcm_cg, and its twin evict_first comes along.
  const SpeedupRow* batch = FindRow(stream, "as configured", "100", "32");
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->input_bytes, 51380224);
  EXPECT_EQ(batch->winner, "cs ≡ evict_first");

  // conv: bypassing L1 loses; nothing beats the noise.
  const SpeedupRow* conv = FindRow(tables[1], "as configured", "25");
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(conv->variants[Column(tables[1], "dlcm_cg")]->slower());
  EXPECT_EQ(conv->winner, "");
}

TEST(L1BypassTest, ATwinWithoutItsFirstTwinIsACandidateOfItsOwn) {
  ResultFile file = Fixture();
  std::vector<Row> kept;
  for (const Row& r : file.rows) {
    if (r.Axis("variant") != "dlcm_cg") kept.push_back(r);
  }
  file.rows = kept;
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({file});
  ASSERT_EQ(tables.size(), 2u);
  const SpeedupRow* row = FindRow(tables[0], "as configured", "100");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->winner, "cg");
}

TEST(L1BypassTest, SameCodeNoteParsesEveryPart) {
  const auto twin = ParseSameCodeNote(
      "throttled; same_code_as: dlcm_cg (LDG.E.STRONG.GPU); L2-resident: ...");
  ASSERT_TRUE(twin.has_value());
  EXPECT_EQ(twin->same_code_as, "dlcm_cg");
  EXPECT_EQ(twin->loads, "LDG.E.STRONG.GPU");
  EXPECT_EQ(twin->runtime_setting, "");
  // The note before the loads were written: no loads.
  const auto bare = ParseSameCodeNote("same_code_as: cs");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->same_code_as, "cs");
  EXPECT_EQ(bare->loads, "");
  const auto window = ParseSameCodeNote(
      "same_code_as: default + L2 streaming access-policy window over the input");
  ASSERT_TRUE(window.has_value());
  EXPECT_EQ(window->same_code_as, "default");
  EXPECT_EQ(window->runtime_setting, "L2 streaming access-policy window over the input");
  EXPECT_FALSE(ParseSameCodeNote("L2-resident: working set 1 B").has_value());
  EXPECT_FALSE(ParseSameCodeNote("").has_value());
}

TEST(L1BypassTest, FilesWithoutTheSameCodeNoteReadWithoutTwins) {
  ResultFile file = Fixture();
  for (Row& r : file.rows) r.label.clear();
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({file});
  ASSERT_EQ(tables.size(), 2u);
  for (const std::string& same : tables[0].same_code_as) EXPECT_EQ(same, "");
  const SpeedupRow* row = FindRow(tables[0], "as configured", "100");
  ASSERT_NE(row, nullptr);
  // Without the note cg is a candidate of its own, and the faster one.
  EXPECT_EQ(row->winner, "cg");
  const std::string md = RenderL1Bypass(tables);
  EXPECT_FALSE(absl::StrContains(md, "≡")) << md;
  EXPECT_FALSE(absl::StrContains(md, "Same machine code")) << md;
}

TEST(L1BypassTest, FilesWithoutTheBatchAxisStillRead) {
  ResultFile file = Fixture();
  for (Row& r : file.rows) {
    std::vector<std::pair<std::string, std::string>> axes;
    for (const auto& a : r.axes) {
      if (a.first != "batch") axes.push_back(a);
    }
    r.axes = axes;
  }
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({file});
  ASSERT_EQ(tables.size(), 2u);
  // Batch 1 and 32 of the stream layer are now one point: the first wins.
  EXPECT_EQ(tables[0].rows.size(), 6u);
  EXPECT_EQ(tables[0].rows[0].batch, "");
  EXPECT_TRUE(absl::StrContains(RenderL1Bypass(tables),
                                "| vgg16.conv3_1 | — | as configured"));
}

TEST(L1BypassTest, RowsWithoutDefaultHaveNoSpeedup) {
  ResultFile file = Fixture();
  std::vector<Row> kept;
  for (const Row& r : file.rows) {
    if (r.Axis("variant") != "default") kept.push_back(r);
  }
  file.rows = kept;
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({file});
  ASSERT_FALSE(tables.empty());
  for (const SpeedupRow& r : tables[0].rows) {
    EXPECT_FALSE(r.default_us.has_value());
    for (const auto& v : r.variants) EXPECT_FALSE(v.has_value());
    EXPECT_EQ(r.winner, "");
  }
  EXPECT_TRUE(absl::StrContains(RenderL1Bypass(tables), "| no default row |"));
}

TEST(L1BypassTest, MarkdownMarksWinnersAndLosers) {
  const std::string md = RenderL1Bypass(BuildL1BypassTables({Fixture()}));
  EXPECT_TRUE(absl::StartsWith(md,
                               "## l1_bypass: speedup over default: Synthetic "
                               "H100-like GPU (fixture)\n"));
  EXPECT_TRUE(absl::StrContains(md, "### stream\n")) << md;
  EXPECT_TRUE(absl::StrContains(md, "### conv\n")) << md;
  EXPECT_TRUE(absl::StrContains(
      md,
      "| layer | batch | working set | timing | occupancy % | default (us) | "
      "dlcm_cg | cg ≡ dlcm_cg | cs | evict_first ≡ cs | cv | "
      "l2_persist (default code) | winner |\n"))
      << md;
  EXPECT_TRUE(absl::StrContains(
      md,
      "Same machine code, the same run: dlcm_cg ≡ cg (LDG.E.STRONG.GPU), "
      "cs ≡ evict_first (LDG.E.EF)."))
      << md;
  EXPECT_TRUE(absl::StrContains(
      md,
      "Same machine code, another run: l2_persist: the default build "
      "with an L2 persisting access-policy window over the input.\n"))
      << md;
  EXPECT_TRUE(absl::StrContains(
      md,
      "| vgg16.conv3_1 | 1 | as configured (1.531 MiB), L2-resident | hot | 100 | 2.1 | "
      "**1.064 ±2.0%** | **1.075 ±2.0%** | 1.010 ±3.0% | 1.015 ±2.0% | "
      "_0.769 ±2.0%_ | 1.000 ±2.0% | dlcm_cg ≡ cg |\n"))
      << md;
  EXPECT_TRUE(absl::StrContains(md, "| 1 | 67108864 (64 MiB) | hot | 25 |"))
      << md;
  EXPECT_TRUE(absl::EndsWith(md, "| — |\n")) << md;  // conv: no winner
  EXPECT_EQ(RenderL1Bypass({}), "");
}

TEST(L1BypassTest, CountersTableBesideTheSpeedups) {
  ResultFile file = Fixture();
  // No counters in the fixture: no counters table.
  EXPECT_FALSE(absl::StrContains(RenderL1Bypass(BuildL1BypassTables({file})),
                                 ": counters\n"));
  // Give the stream rows at the configured working set, occupancy 100, the
  // counters a --metrics=all_memory run would add (made-up values).
  for (Row& r : file.rows) {
    if (r.Axis("kernel") != "stream" || r.Axis("working_set_bytes") != "0" ||
        r.Axis("occupancy_pct") != "100" || r.Axis("timing") != "hot") {
      continue;
    }
    const bool base = r.Axis("variant") == "default";
    r.counters["cupti/l1_hit_rate"] = base ? 12.5 : 0;
    r.counters["cupti/l2_sectors_read"] = 50176;
    if (base) r.counters["cupti/dram_bytes_read"] = 1605632;
  }
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({file});
  ASSERT_EQ(tables.size(), 2u);
  const SpeedupRow* row = FindRow(tables[0], "as configured", "100");
  ASSERT_NE(row, nullptr);
  ASSERT_EQ(row->counters.size(), 7u);  // default and the six variants
  EXPECT_EQ(row->counters[0].variant, "default");
  EXPECT_EQ(row->counters[0].l1_hit_pct, 12.5);
  EXPECT_EQ(row->counters[1].variant, "dlcm_cg");
  EXPECT_EQ(row->counters[1].l1_hit_pct, 0);
  EXPECT_FALSE(row->counters[1].dram_bytes_read.has_value());
  EXPECT_TRUE(tables[1].rows[0].counters.empty());  // conv had none

  const std::string md = RenderL1Bypass(tables);
  EXPECT_TRUE(absl::StrContains(md, "#### stream: counters\n")) << md;
  EXPECT_FALSE(absl::StrContains(md, "#### conv: counters\n")) << md;
  EXPECT_TRUE(absl::StrContains(
      md,
      "| vgg16.conv3_1 | 1 | as configured | hot | 100 | default | 12.5 | "
      "50176 | 1.531 MiB | 1.00 |\n"))
      << md;
  EXPECT_TRUE(absl::StrContains(
      md,
      "| vgg16.conv3_1 | 1 | as configured | hot | 100 | dlcm_cg | 0.0 | "
      "50176 | — | — |\n"))
      << md;

  // The counters from a second file (a separate --metrics run) join the
  // timing of the first.
  const std::vector<L1BypassTable> merged =
      BuildL1BypassTables({Fixture(), file});
  ASSERT_EQ(merged.size(), 2u);
  const SpeedupRow* joined = FindRow(merged[0], "as configured", "100");
  ASSERT_NE(joined, nullptr);
  EXPECT_EQ(joined->counters.size(), 7u);
}

// The cells of the generic table's rows (`## l1_bypass`, before the speedup
// section) by column header, trimmed.
std::vector<std::map<std::string, std::string>> GenericRows(const std::string& report) {
  const std::string section = report.substr(
      report.find("## l1_bypass\n"),
      report.find("## l1_bypass: speedup") - report.find("## l1_bypass\n"));
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (absl::string_view line : absl::StrSplit(section, '\n')) {
    if (!absl::StartsWith(line, "| ") || absl::StrContains(line, "---")) continue;
    std::vector<std::string> cells;
    for (absl::string_view cell : absl::StrSplit(line, '|')) {
      cells.emplace_back(absl::StripAsciiWhitespace(cell));
    }
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

// A point whose bytes_moved is under 2x device_l2_bytes (beyond_2x_l2 0) is
// L2-resident, hot or cold: the report shows "L2-resident" where a % of the
// DRAM peak would be, and says so in the speedup section's working-set cell.
// In the fixture: batch 1, batch 32 (98 MiB, over 1x L2 but under 2x), the
// cold 4 MiB point and conv; only the 64 MiB point (128 MiB moved) is beyond.
TEST(L1BypassTest, L2ResidentRowsShowNoPercentOfTheDramPeak) {
  auto report = RenderReport({Fixture()}, ReportOptions{});
  ASSERT_TRUE(report.ok()) << report.status();
  const auto rows = GenericRows(*report);
  EXPECT_EQ(rows.size(), 71u);  // 7 variants x 2 occupancies x 5 points + the skip
  int resident = 0, dram = 0;
  for (const auto& row : rows) {
    const std::string pct = row.at("dram_peak_pct (%)");
    if (row.at("kernel") == "maxpool") continue;  // skipped: "—"
    const std::string where = absl::StrCat(row.at("kernel"), " batch ", row.at("batch (images)"),
                                           " ", row.at("working_set_bytes (B)"), " ",
                                           row.at("timing"), " ", row.at("variant"));
    if (row.at("working_set_bytes (B)") == "67108864") {
      double value = 0;
      EXPECT_TRUE(absl::SimpleAtod(pct, &value) && value > 20 && value < 100)
          << where << ": " << pct;
      ++dram;
    } else {
      EXPECT_EQ(pct, "L2-resident") << where;
      ++resident;
    }
  }
  EXPECT_EQ(dram, 14);
  EXPECT_EQ(resident, 56);
  EXPECT_FALSE(absl::StrContains(*report, "nan")) << *report;

  const std::vector<L1BypassTable> tables = BuildL1BypassTables({Fixture()});
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(FindRow(tables[0], "as configured", "100")->beyond_2x_l2, false);
  EXPECT_EQ(FindRow(tables[0], "67108864", "100")->beyond_2x_l2, true);
  EXPECT_EQ(FindRow(tables[0], "as configured", "100", "32")->beyond_2x_l2, false);
  const std::string md = RenderL1Bypass(tables);
  EXPECT_TRUE(absl::StrContains(md, "| 32 | as configured (49 MiB), L2-resident | hot | 25 |"))
      << md;
  EXPECT_TRUE(absl::StrContains(md, "| 1 | 4194304 (4 MiB), L2-resident | cold | 100 |")) << md;
  EXPECT_TRUE(absl::StrContains(md, "| 1 | 67108864 (64 MiB) | hot | 25 |")) << md;
  EXPECT_TRUE(absl::StrContains(md, "| resnet50.res5b_branch2b | 1 | as configured (98 KiB), "
                                    "L2-resident | hot |"))
      << md;
}

// Files from before the rule have no beyond_2x_l2: their points say nothing
// about L2 (the generic table shows the file's number as it is).
TEST(L1BypassTest, FilesWithoutTheCounterSayNothingAboutL2) {
  ResultFile file = Fixture();
  for (Row& r : file.rows) r.counters.erase("beyond_2x_l2");
  const std::vector<L1BypassTable> tables = BuildL1BypassTables({file});
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_FALSE(FindRow(tables[0], "as configured", "100")->beyond_2x_l2.has_value());
  EXPECT_FALSE(absl::StrContains(RenderL1Bypass(tables), ", L2-resident |"));
}

TEST(L1BypassTest, ReportAppendsTheSection) {
  auto report = RenderReport({Fixture()}, ReportOptions{});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(absl::StrContains(*report, "## l1_bypass\n"))
      << "the generic table";
  EXPECT_TRUE(
      absl::StrContains(*report, "\n## l1_bypass: speedup over default: "));
}

TEST(L1BypassTest, FigureBarsAreDlcmCgAtTheConfiguredWorkingSet) {
  const ResultFile file = Fixture();
  const auto fig =
      BuildL1BypassFigure({&file}, {"fixture.json"}, "Fixture GPU");
  ASSERT_TRUE(fig.has_value());
  EXPECT_EQ(fig->stem, "l1_bypass_dlcm_cg");
  const std::vector<std::string> lines =
      absl::StrSplit(fig->data, '\n', absl::SkipEmpty());
  // Two comments, then stream at batch 1 and 32 and conv.
  ASSERT_EQ(lines.size(), 5u) << fig->data;
  EXPECT_EQ(lines[2],
            "\"stream vgg16.conv3_1 batch 1\" 6.3830 2.0000 6.3830 2.0000");
  EXPECT_EQ(lines[3],
            "\"stream vgg16.conv3_1 batch 32\" 1.0101 1.0000 1.0101 1.0000");
  EXPECT_EQ(lines[4],
            "\"conv resnet50.res5b_branch2b batch 1\" -10.7143 1.0000 -10.7143 "
            "1.0000");
  EXPECT_TRUE(
      absl::StrContains(fig->script, "set output 'l1_bypass_dlcm_cg.svg'"));
  EXPECT_TRUE(absl::StrContains(
      fig->script, "using 2:3:xtic(1) title 'hot, occupancy 25%'"));
  EXPECT_TRUE(
      absl::StrContains(fig->script, "using 4:5 title 'hot, occupancy 100%'"));
  EXPECT_TRUE(absl::StrContains(fig->script, "#   fixture.json\n"));

  const auto figures = BuildFigures({file});
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 1u);
  EXPECT_EQ((*figures)[0].scripts,
            std::vector<std::string>{"l1_bypass_dlcm_cg.gp"});

  ResultFile other = file;
  other.experiment = "relu_bandwidth";
  EXPECT_FALSE(BuildL1BypassFigure({&other}, {}, "x").has_value());
}

}  // namespace
}  // namespace dissect::analysis
