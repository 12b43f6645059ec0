// Unit tests for the report's number formatting and section layout rules
// (the full output is covered by report_golden_test).

#include "analysis/sections/report.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "analysis/sections/report_summary.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::ContainsRegex;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(FormatNumberTest, FourSignificantDigitsWithoutTrailingZeros) {
  EXPECT_EQ(FormatNumber(29.02), "29.02");
  EXPECT_EQ(FormatNumber(14.656565), "14.66");
  EXPECT_EQ(FormatNumber(0.5), "0.5");
  EXPECT_EQ(FormatNumber(12.0), "12");
  EXPECT_EQ(FormatNumber(2871.4), "2871");
  EXPECT_EQ(FormatNumber(0.000015), "1.5e-05");
  EXPECT_EQ(FormatNumber(0), "0");
  EXPECT_EQ(FormatNumber(-0.0), "0");
  EXPECT_EQ(FormatNumber(-3.25), "-3.25");
}

TEST(FormatNumberTest, LargeNumbersAsIntegers) {
  EXPECT_EQ(FormatNumber(12345.6), "12346");
  EXPECT_EQ(FormatNumber(1048576), "1048576");
  EXPECT_EQ(FormatNumber(1e16), "1e+16");
}

TEST(FormatNumberTest, NonFinite) {
  EXPECT_EQ(FormatNumber(std::nan("")), "nan");
  EXPECT_EQ(FormatNumber(HUGE_VAL), "inf");
  EXPECT_EQ(FormatNumber(-HUGE_VAL), "-inf");
}

TEST(FormatPercentTest, OneDecimal) {
  EXPECT_EQ(FormatPercent(0.0123), "1.2%");
  EXPECT_EQ(FormatPercent(0.0069), "0.7%");
  EXPECT_EQ(FormatPercent(1.5), "150.0%");
  EXPECT_EQ(FormatPercent(0), "0.0%");
  EXPECT_EQ(FormatPercent(0.0001), "<0.1%");
}

ResultFile MakeFile(const std::string& experiment, const std::string& device,
                    const std::string& path) {
  ResultFile file;
  file.path = path;
  file.experiment = experiment;
  file.context = {{"device_name", device},
                  {"dissect_question", "Q " + experiment + "?"},
                  {"axis.n.unit", "B"},
                  {"axis.n.type", "int64"},
                  {"metric.m.unit", "ns"}};
  file.axis_names = {"n"};
  file.metric_names = {"m"};
  Row row;
  row.name = experiment + "/n:8/manual_time";
  row.axes = {{"n", "8"}};
  row.counters = {{"m", 1.25}, {"m.spread", 0.02}};
  file.rows.push_back(row);
  return file;
}

TEST(RenderMarkdownTest, NoFilesNoOutput) { EXPECT_EQ(RenderMarkdown({}), ""); }

TEST(RenderMarkdownTest, ClockMovedNoteAndPolledClock) {
  // Not throttled: the note comes from the counters; the sm MHz column is
  // the median polled during the samples.
  ResultFile moved = MakeFile("exp", "GPU", "moved.json");
  moved.rows[0].counters.insert({{"clock_moved", 1},
                                 {"sm_clock_mhz.min", 1755},
                                 {"sm_clock_mhz.median", 1905},
                                 {"sm_clock_mhz.max", 1980},
                                 {"sm_clock_mhz.before", 1980},
                                 {"sm_clock_mhz.after", 1980},
                                 {"throttled", 0}});
  moved.rows[0].label = "clock moved 1755-1980 MHz";
  std::string md = RenderMarkdown({moved});
  EXPECT_THAT(md, ContainsRegex("\\| +1905 \\| clock moved 1755-1980 MHz +\\|")) << md;
  // Throttled: the label names both, once.
  moved.rows[0].counters["throttled"] = 1;
  moved.rows[0].label = "sw_power_cap; clock moved 1755-1980 MHz";
  md = RenderMarkdown({moved});
  EXPECT_THAT(md, HasSubstr("| throttled: sw_power_cap; clock moved 1755-1980 MHz |")) << md;
  EXPECT_EQ(md.find("clock moved"), md.rfind("clock moved")) << md;
  // A steady clock adds no note.
  moved.rows[0].counters["clock_moved"] = 0;
  moved.rows[0].counters["throttled"] = 0;
  moved.rows[0].label = "";
  EXPECT_THAT(RenderMarkdown({moved}), Not(HasSubstr("clock moved")));
}

TEST(RenderMarkdownTest, ReMeasuredPointsAreNotedUnderTheTable) {
  ResultFile file = MakeFile("exp", "GPU", "throttle.json");
  EXPECT_THAT(RenderMarkdown({file}), Not(HasSubstr("re-measured")));
  // The harness's rows for a throttled point: the first, then its re-measure.
  file.rows[0].counters["throttled"] = 1;
  file.rows[0].label = "sw_power_cap";
  Row again = file.rows[0];
  again.counters["throttled"] = 0;
  again.counters["attempt"] = 2;
  again.counters["m"] = 1.5;
  again.label = "re-measured after throttling (cool-down 30 s)";
  file.rows.push_back(again);
  std::string md = RenderMarkdown({file});
  EXPECT_THAT(md, ContainsRegex("\\| +1\\.25 \\| .*\\| throttled: sw_power_cap +\\|")) << md;
  EXPECT_THAT(
      md, ContainsRegex("\\| +1\\.5 \\| .*\\| re-measured after throttling \\(attempt 2\\) +\\|"))
      << md;
  const size_t table_end = md.rfind("|\n");
  const size_t note = md.find(
      "1 point was throttled and re-measured after a cool-down; both measurements are kept above");
  ASSERT_NE(note, std::string::npos) << md;
  EXPECT_GT(note, table_end) << md;
  // Throttled again: the label names the re-measure, once.
  file.rows[1].counters["throttled"] = 1;
  file.rows[1].label = "sw_power_cap; re-measured after throttling (cool-down 30 s)";
  md = RenderMarkdown({file, MakeFile("exp", "GPU", "other.json")});
  EXPECT_THAT(md, HasSubstr("| throttled: sw_power_cap; re-measured after throttling (cool-down 30 "
                            "s) |"))
      << md;
  EXPECT_THAT(md, Not(HasSubstr("(attempt 2)"))) << md;
  EXPECT_THAT(md, HasSubstr("\n1 point was throttled and re-measured")) << md;
}

TEST(RenderMarkdownTest, SectionsInFirstSeenOrder) {
  const std::string md =
      RenderMarkdown({MakeFile("zeta", "GPU", "z1.json"), MakeFile("alpha", "GPU", "a.json"),
                      MakeFile("zeta", "GPU", "z2.json")});
  const size_t zeta = md.find("## zeta\n");
  const size_t alpha = md.find("## alpha\n");
  ASSERT_NE(zeta, std::string::npos);
  ASSERT_NE(alpha, std::string::npos);
  EXPECT_LT(zeta, alpha);
  EXPECT_EQ(md.find("## zeta", zeta + 1), std::string::npos);
  // Same device: one table with a file column.
  EXPECT_THAT(md, HasSubstr("- [1] GPU · cc ? · ? SMs · commit unknown · "
                            "`z1.json`\n- [2] GPU"));
  EXPECT_THAT(md, HasSubstr("| file | n (B) | m (ns) | spread | sm MHz |"));
  EXPECT_EQ(md.back(), '\n');
  EXPECT_NE(md.substr(md.size() - 2), "\n\n");
}

TEST(RenderMarkdownTest, OneTablePerFileForDifferentDevices) {
  const std::string md =
      RenderMarkdown({MakeFile("e", "GPU A", "a.json"), MakeFile("e", "GPU B", "b.json")});
  EXPECT_THAT(md, Not(HasSubstr("| file |")));
  EXPECT_THAT(md, HasSubstr("GPU A · cc ? · ? SMs · commit unknown · `a.json`"
                            "\n\n| n (B) |"));
  EXPECT_THAT(md, HasSubstr("GPU B · cc ? · ? SMs · commit unknown · `b.json`"
                            "\n\n| n (B) |"));
}

// An imported peer file of the same device is not mixed into our table,
// and its device line says whose numbers they are.
TEST(RenderMarkdownTest, ImportedFilesGetTheirOwnTableAndSayTheirSource) {
  ResultFile peer = MakeFile("e", "GPU A", "peer.json");
  peer.context["source"] = "mt4g@abc";
  const std::string md = RenderMarkdown({MakeFile("e", "GPU A", "a.json"), peer});
  EXPECT_THAT(md, Not(HasSubstr("| file |")));
  EXPECT_THAT(md, HasSubstr("GPU A · cc ? · ? SMs · commit unknown · `a.json`"));
  EXPECT_THAT(md, HasSubstr("GPU A · cc ? · ? SMs · imported from mt4g@abc (not measured by "
                            "dissect) · `peer.json`"));
}

TEST(RenderMarkdownTest, EscapesPipesInCells) {
  ResultFile file = MakeFile("e", "GPU", "a.json");
  file.rows[0].error = true;
  file.rows[0].error_message = "error: a|b\nc";
  const std::string md = RenderMarkdown({file});
  // Error rows have no metric or spread values.
  EXPECT_THAT(md, HasSubstr("|     8 |      — |      — |        | "
                            "error: a\\|b c |\n"));
}

// relu_bandwidth rows as the experiment writes them since the 2 x L2 rule
// (experiments/framework/l2_residency.h): 16 MiB (32 MiB of input and output,
// under 2 x a 50 MiB L2) hot and cold, 1 GiB beyond it, and a row of an older
// file without beyond_2x_l2.
TEST(RenderMarkdownTest, DramPeakPctOfL2ResidentRowsReadsL2Resident) {
  ResultFile file;
  file.path = "relu.json";
  file.experiment = "relu_bandwidth";
  file.context = {{"device_name", "GPU"},
                  {"axis.bytes.unit", "B"},
                  {"axis.bytes.type", "int64"},
                  {"metric.bandwidth_gbps.unit", "GB/s"},
                  {"metric.dram_peak_pct.unit", "%"}};
  file.axis_names = {"bytes", "timing"};
  file.metric_names = {"bandwidth_gbps", "dram_peak_pct"};
  auto add = [&](const std::string& bytes, const std::string& timing, double gbps,
                 std::optional<double> beyond) {
    Row row;
    row.name = absl::StrCat("relu_bandwidth/bytes:", bytes, "/timing:", timing, "/manual_time");
    row.axes = {{"bytes", bytes}, {"timing", timing}};
    // An L2-resident row's % is NaN; 4321 stands for a file that still holds
    // a number there: the counter decides, not the value.
    row.counters = {{"bandwidth_gbps", gbps},
                    {"dram_peak_pct", beyond == 0.0 ? 4321.0 : 100 * gbps / 3352.3}};
    if (beyond) row.counters["beyond_2x_l2"] = *beyond;
    file.rows.push_back(row);
  };
  add("16777216", "hot", 6500, 0.0);
  add("16777216", "cold", 2500, 0.0);
  add("1073741824", "hot", 2935, 1.0);
  add("1048576", "hot", 412.3, std::nullopt);
  const std::string md = RenderMarkdown({file});
  EXPECT_THAT(md, ContainsRegex("\\| +16777216 \\| hot +\\| +6500 \\| +L2-resident \\|"));
  EXPECT_THAT(md, ContainsRegex("\\| +16777216 \\| cold +\\| +2500 \\| +L2-resident \\|"));
  EXPECT_THAT(md, Not(HasSubstr("4321")));
  EXPECT_THAT(md, ContainsRegex("\\| 1073741824 \\| hot +\\| +2935 \\| +87\\.55 \\|"));
  // An older file says nothing about L2: its number is shown as it is.
  EXPECT_THAT(md, ContainsRegex("\\| +1048576 \\| hot +\\| +412\\.3 \\| +12\\.3 \\|"));
}

ResultFile SharedBandwidthFile(const std::string& device, const std::string& cc) {
  ResultFile file;
  file.path = "sb.json";
  file.experiment = "shared_bandwidth";
  file.context = {{"device_name", device}, {"device_compute_capability", cc}};
  file.axis_names = {"width_bits"};
  file.metric_names = {"bytes_per_clk_per_sm"};
  Row row;
  row.name = "shared_bandwidth/width_bits:128/manual_time";
  row.axes = {{"width_bits", "128"}};
  row.counters = {{"bytes_per_clk_per_sm", 120}, {"shared_peak_pct", 93.75}};
  file.rows.push_back(row);
  return file;
}

PublishedValue Published(const std::string& cc, const std::string& level, double value) {
  PublishedValue v;
  v.device.compute_capability = cc;
  v.measured_on = "Other GPU";
  v.level = level;
  v.quantity = "bandwidth_bytes_per_clk_per_sm";
  v.unit = "B/clk/SM";
  v.value = value;
  v.source = {"Ann Author, Bo Author", "Title", "Venue 2020", 2020, "Table 9", ""};
  return v;
}

// MakeFile run with --kernel_activity: its row carries activity/* counters.
ResultFile WithActivity(ResultFile file) {
  file.context["dissect_activity"] = "activity/kernel_ms,activity/vs_events_pct";
  file.context["metric.activity/kernel_ms.unit"] = "ms";
  file.context["metric.activity/vs_events_pct.unit"] = "%";
  file.rows[0].counters["activity/kernel_ms"] = 0.001234;
  file.rows[0].counters["activity/vs_events_pct"] = -1.25;
  return file;
}

TEST(RenderMarkdownTest, ActivityCountersAreColumnsWithUnits) {
  const std::string md = RenderMarkdown({WithActivity(MakeFile("relu", "GPU", "a.json"))});
  EXPECT_THAT(md, HasSubstr("| m (ns) | activity/kernel_ms (ms) | "
                            "activity/vs_events_pct (%) | spread |"));
  EXPECT_THAT(md, ContainsRegex(" +1\\.25 \\| +0\\.001234 \\| +-1\\.25 \\| "
                                " +2\\.0% \\|"));
  EXPECT_THAT(md, Not(HasSubstr("not recorded")));
  // Without --kernel_activity there are no such columns.
  EXPECT_THAT(RenderMarkdown({MakeFile("relu", "GPU", "b.json")}), Not(HasSubstr("activity/")));
}

TEST(RenderMarkdownTest, FilesWithAndWithoutActivityGetTheirOwnTables) {
  const std::string md = RenderMarkdown(
      {WithActivity(MakeFile("relu", "GPU", "a.json")), MakeFile("relu", "GPU", "b.json")});
  EXPECT_THAT(md, Not(HasSubstr("| file |")));
  EXPECT_THAT(md, HasSubstr("`a.json`"));
  EXPECT_THAT(md, HasSubstr("`b.json`"));
}

TEST(RenderMarkdownTest, UnavailableActivityIsSaidWithItsReason) {
  ResultFile file = MakeFile("relu", "GPU", "a.json");
  file.context["dissect_activity"] = "activity/kernel_ms,activity/vs_events_pct";
  file.context["activity_unavailable"] = "no_cupti: cannot | load CUPTI";
  const std::string md = RenderMarkdown({file});
  EXPECT_THAT(md, HasSubstr("activity/kernel_ms |"));
  EXPECT_THAT(md, HasSubstr("Kernel activity (`--kernel_activity`) was not "
                            "recorded for:\n\n- `a.json`: no_cupti: cannot \\| "
                            "load CUPTI\n"));
}

TEST(RenderReportTest, WithoutDetailTheSummaryNamesTheSectionsLeftOut) {
  const std::vector<ResultFile> files = {MakeFile("e", "GPU", "a.json")};
  ReportOptions options;
  options.published = {Published("9.0", "shared", 128)};
  options.published_origin = "p.json";
  options.summary = true;
  options.detail = false;
  absl::StatusOr<std::string> report = RenderReport(files, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(*report,
            "## results read\n\n"
            "| experiment | device | measured by | files | rows |\n"
            "| ---------- | ------ | ----------- | ----: | ---: |\n"
            "| e          | GPU    | dissect e   |     1 |    1 |\n\n"
            "With --detail, the report goes on with these sections:\n\n- e\n");
}

TEST(RenderReportTest, WithoutTheSummaryItIsTheDetailsAlone) {
  const std::vector<ResultFile> files = {MakeFile("e", "GPU", "a.json")};
  absl::StatusOr<std::string> report = RenderReport(files, ReportOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(*report, RenderMarkdown(files));
}

TEST(RenderReportTest, WithDetailTheTablesFollowTheSummary) {
  const std::vector<ResultFile> files = {MakeFile("e", "GPU", "a.json")};
  ReportOptions options;
  options.summary = true;
  absl::StatusOr<std::string> report = RenderReport(files, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, StartsWith("## results read\n"));
  EXPECT_THAT(*report, EndsWith(absl::StrCat("\n# details\n\n", RenderMarkdown(files))));
}

TEST(RenderReportTest, HierarchySectionWithMatchingPublishedValuesOnly) {
  ReportOptions options;
  options.published = {Published("9.0", "shared", 128), Published("8.0", "shared", 64)};
  options.published_origin = "p.json";
  absl::StatusOr<std::string> report = RenderReport({SharedBandwidthFile("GPU Z", "9.0")}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("\n## memory hierarchy: GPU Z\n"));
  EXPECT_THAT(*report, HasSubstr("| shared |                — |            — |"
                                 "          — |        — |         — |"
                                 "           — | 120 B/clk/SM | "
                                 "93.8% of shared peak (128 B/clk/SM) |"));
  EXPECT_THAT(*report, HasSubstr("### published values: GPU Z"));
  EXPECT_THAT(*report, HasSubstr("| shared | bandwidth | 128 B/clk/SM | "
                                 "Other GPU     |  120 B/clk/SM | ×0.94 | "
                                 "[1] Table 9 |"));
  EXPECT_THAT(*report, Not(HasSubstr("64 B/clk/SM")));
  EXPECT_THAT(*report, HasSubstr("[1] Ann Author, Bo Author: \"Title\", "
                                 "Venue 2020, 2020.\n"));
}

// The summary: the value, who measured it, the level's own ceiling and its
// %, the published value with its reference, and the ceiling's origin.
TEST(RenderSummaryTest, ValuesWithTheirSourcesCeilingsAndReferences) {
  const std::vector<ResultFile> files = {SharedBandwidthFile("GPU Z", "9.0")};
  absl::StatusOr<std::vector<DeviceHierarchy>> hierarchies = InferMemoryHierarchies(files);
  ASSERT_TRUE(hierarchies.ok()) << hierarchies.status();
  const std::string summary =
      RenderSummary(files, *hierarchies, {Published("9.0", "shared", 128)});
  EXPECT_THAT(summary, StartsWith("## summary: GPU Z · cc 9.0 · ? SMs\n\nSources: dissect (1 file).\n"));
  EXPECT_THAT(summary, HasSubstr("| level  | metric    | value        | source                   | "
                                 "ceiling      | % of ceiling |\n"));
  EXPECT_THAT(summary, HasSubstr("| shared | bandwidth | 120 B/clk/SM | dissect shared_bandwidth | "
                                 "128 B/clk/SM |        93.8% |\n"));
  EXPECT_THAT(summary, HasSubstr("| shared | bandwidth | 128 B/clk/SM | published [1]            | "
                                 "           — |            — |\n"));
  EXPECT_THAT(summary, HasSubstr("- shared bandwidth ceiling (shared peak, 128 B/clk/SM): "
                                 "shared_bandwidth's shared_peak_pct\n"));
  EXPECT_THAT(summary, HasSubstr("[1] Author et al., Venue 2020, Table 9; measured on Other GPU\n"));
  EXPECT_THAT(summary, EndsWith("| shared_bandwidth | GPU Z  | dissect shared_bandwidth |     1 |"
                                "    1 |\n"));
}

TEST(RenderReportTest, NoPublishedPartWithoutAnOrigin) {
  absl::StatusOr<std::string> report =
      RenderReport({SharedBandwidthFile("GPU Z", "9.0")}, ReportOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("## memory hierarchy: GPU Z"));
  EXPECT_THAT(*report, Not(HasSubstr("published")));
}

TEST(RenderReportTest, SaysWhenNoPublishedValueMatches) {
  ReportOptions options;
  options.published = {Published("8.0", "shared", 64)};
  options.published_origin = "p.json";
  absl::StatusOr<std::string> report = RenderReport({SharedBandwidthFile("GPU Z", "9.0")}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("_no entry of `p.json` matches this device"));
}

DeviceHierarchy L2Hierarchy(const std::string& source) {
  DeviceHierarchy h;
  h.source = source;
  h.device_name = "GPU Z";
  h.compute_capability = "9.0";
  h.sm_count = "132";
  h.files = {"p.json"};
  HierarchyRow l2;
  l2.level = "L2";
  l2.latency_cycles = 260;
  l2.footprint_first = 310 * 1024;
  l2.footprint_last = 26 * 1024 * 1024;
  HierarchyRow dram;
  dram.level = "DRAM";
  dram.latency_cycles = 600;
  h.rows = {l2, dram};
  return h;
}

TEST(RenderHierarchyTest, DissectHeadingAndFootprintsColumn) {
  const std::string md = RenderHierarchy(L2Hierarchy("dissect"), {});
  EXPECT_THAT(md, HasSubstr("## memory hierarchy: GPU Z\n"));
  EXPECT_THAT(md, HasSubstr("inferred from the curves of `p.json`"));
  EXPECT_THAT(md, HasSubstr("| level | latency (cycles) | latency (ns) | "
                            "footprints       | capacity |"));
  EXPECT_THAT(md, HasSubstr("| L2    |              260 |            — | "
                            "310 KiB – 26 MiB |        — |"));
  EXPECT_THAT(md, HasSubstr("| DRAM  |              600 |            — | "
                            "               — |        — |"));
  EXPECT_THAT(md, Not(HasSubstr("imported")));
}

TEST(RenderHierarchyTest, ImportedPeerResultsAreSaidToBeThePeers) {
  const std::string md = RenderHierarchy(L2Hierarchy("mt4g@4cc55662a954"), {});
  EXPECT_THAT(md, HasSubstr("## memory hierarchy: GPU Z (mt4g@4cc55662a954)\n"));
  EXPECT_THAT(md, HasSubstr("GPU Z · cc 9.0 · 132 SMs · the values of "
                            "mt4g@4cc55662a954, imported (analysis/import) "
                            "from `p.json`; measured by that suite"));
  EXPECT_THAT(md, Not(HasSubstr("inferred from the curves")));
}

TEST(RenderHierarchyTest, PublishedValuesBesideAPeersTableSayWhoseValueItIs) {
  ReportOptions options;
  options.published_origin = "refs.json";
  PublishedValue v;
  v.device.name_contains = {"GPU Z"};
  v.level = "L2";
  v.quantity = "latency_cycles";
  v.value = 250;
  v.unit = "cycles";
  v.source.title = "T";
  options.published = {v};
  EXPECT_THAT(RenderHierarchy(L2Hierarchy("mt4g@4cc55662a954"), options),
              HasSubstr("| measured by mt4g@4cc55662a954 |"));
  EXPECT_THAT(RenderHierarchy(L2Hierarchy("dissect"), options), HasSubstr("| measured here |"));
}

// A memory_latency file of `device` whose context has `source` (none when
// empty), with a 3-point L1-like plateau.
ResultFile LatencyFile(const std::string& device, const std::string& source,
                       const std::string& path) {
  ResultFile file;
  file.path = path;
  file.experiment = "memory_latency";
  file.context = {
      {"device_name", device}, {"device_compute_capability", "9.0"}, {"device_sm_count", "132"}};
  if (!source.empty()) file.context["source"] = source;
  file.axis_names = {"path", "footprint_bytes", "stride_bytes", "order"};
  file.metric_names = {"cycles_per_load"};
  for (double footprint : {4096.0, 8192.0, 16384.0}) {
    Row row;
    row.name = "memory_latency";
    row.axes = {{"path", "global_ca"},
                {"footprint_bytes", absl::StrCat(footprint)},
                {"stride_bytes", "128"},
                {"order", "random"}};
    row.counters = {{"cycles_per_load", 40}};
    file.rows.push_back(row);
  }
  return file;
}

TEST(RenderCompareReportTest, NothingToCompareNamesDevicesAndSources) {
  absl::StatusOr<std::string> report = RenderCompareReport({LatencyFile("GPU Z", "", "a.json")});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(report.status().message(), HasSubstr("nothing to compare: found GPU Z (dissect);"));
  report = RenderCompareReport({MakeFile("relu", "GPU", "r.json")});
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("no memory hierarchy"));
}

TEST(RenderCompareReportTest, TitleInputsAndComparison) {
  absl::StatusOr<std::string> report = RenderCompareReport(
      {LatencyFile("GPU Z", "", "a.json"), LatencyFile("GPU Z", "mt4g@test", "b.json")});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("# memory hierarchy compared across sources and "
                                 "devices\n\nInputs:\n\n"
                                 "- `a.json` · memory_latency · GPU Z · dissect\n"
                                 "- `b.json` · memory_latency · GPU Z · mt4g@test\n"
                                 "\n## compare: GPU Z\n"));
  EXPECT_THAT(*report, Not(HasSubstr("## memory_latency")));
  EXPECT_EQ(report->back(), '\n');
}

TEST(RenderStallsTest, NoStallCountersNoSection) {
  EXPECT_EQ(RenderStalls({MakeFile("relu", "GPU", "a.json")}), "");
  absl::StatusOr<std::string> report =
      RenderReport({MakeFile("relu", "GPU", "a.json")}, ReportOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, Not(HasSubstr("stall")));
}

TEST(RenderStallsTest, UnavailableCountersAreSaid) {
  ResultFile file = MakeFile("relu", "GPU", "a.json");
  file.context["counters_unavailable"] = "no | permission";
  EXPECT_EQ(RenderStalls({file}),
            "## stall reasons\n\nCounters were not collected for:\n\n"
            "- `a.json` (relu on GPU): no \\| permission\n");
  absl::StatusOr<std::string> report = RenderReport({file}, ReportOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("\n\n## stall reasons\n"));
}

TEST(RenderStallsTest, OneFileFractionsAndDominant) {
  ResultFile file = MakeFile("relu", "GPU", "a.json");
  file.rows[0].counters["cupti/stall_long_scoreboard"] = 3;
  file.rows[0].counters["cupti/stall_barrier"] = 1;
  Row zero = file.rows[0];
  zero.axes = {{"n", "16"}};
  zero.counters = {{"cupti/stall_barrier", 0}};
  file.rows.push_back(zero);
  const std::string md = RenderStalls({file});
  // One file: a device line, no file column; a notes column for the
  // all-zero row.
  EXPECT_THAT(md, HasSubstr("\nGPU · cc ? · ? SMs · commit unknown · `a.json`\n"));
  EXPECT_THAT(md, HasSubstr("| benchmark | long_scoreboard | barrier | "
                            "dominant        | notes                    |\n"));
  EXPECT_THAT(md, HasSubstr("| relu/n:8  |           0.750 |   0.250 | "
                            "long_scoreboard |                          |\n"));
  EXPECT_THAT(md, HasSubstr("| relu/n:16 |               — |       — | "
                            "—               | all stall counters are 0 |\n"));
  EXPECT_THAT(md, Not(HasSubstr("| file")));
  EXPECT_THAT(md, Not(HasSubstr("not collected")));
}

}  // namespace
}  // namespace dissect::analysis
