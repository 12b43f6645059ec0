#include "analysis/pages/dashboard.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "analysis/nightly/history_db.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// ---------------------------------------------------------------------------
// Escaping and the markdown converter.

TEST(HtmlEscapeTest, EscapesTheFiveCharacters) {
  EXPECT_EQ(HtmlEscape(R"(<a href="x">Tom & 'Jerry'</a>)"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("plain · text"), "plain · text");
}

TEST(MarkdownToHtmlTest, HeadingsParagraphsAndLists) {
  const std::string html = MarkdownToHtml(
      "## memory_latency\n\nWhat is the load latency?\n`a.json` line two\n\n- one\n- _two_\n");
  EXPECT_EQ(html,
            "<h2>memory_latency</h2>\n"
            "<p>What is the load latency?<br>\n<code>a.json</code> line two</p>\n"
            "<ul>\n<li>one</li>\n<li><em>two</em></li>\n</ul>\n");
}

TEST(MarkdownToHtmlTest, UnderscoresInsideWordsAreNotEmphasis) {
  EXPECT_EQ(MarkdownToHtml("cycles_per_load and _no rows_\n"),
            "<p>cycles_per_load and <em>no rows</em></p>\n");
}

TEST(MarkdownToHtmlTest, TableWithAlignmentAndEscapedCells) {
  const std::string html = MarkdownToHtml(
      "| path | cycles (cycles) | notes |\n"
      "| ---- | --------------: | ----- |\n"
      "| <b>  |            29.5 | a \\| b & \"c\" |\n");
  EXPECT_EQ(html,
            "<table>\n<thead><tr><th>path</th><th class=\"num\">cycles (cycles)</th>"
            "<th>notes</th></tr></thead>\n<tbody>\n"
            "<tr><td>&lt;b&gt;</td><td class=\"num\">29.5</td>"
            "<td>a | b &amp; &quot;c&quot;</td></tr>\n</tbody>\n</table>\n");
}

TEST(MarkdownToHtmlTest, NothingIsPassedThroughUnescaped) {
  const std::string html =
      MarkdownToHtml("# <script>alert(1)</script>\n\n| a |\n| - |\n| <img src=x> |\n\n`<i>`\n");
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<i>")));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;"));
}

// ---------------------------------------------------------------------------
// Broken-link checker.

TEST(BrokenLocalLinksTest, FindsExactlyTheMissingLocalFiles) {
  const fs::path dir = test_util::FreshTempDir("links");
  fs::create_directories(dir / "figures" / "h100");
  std::ofstream(dir / "figures" / "h100" / "a.svg") << "<svg/>";
  std::ofstream(dir / "b c.svg") << "<svg/>";
  std::ofstream(dir / "x&y.html") << "";
  const std::string html = absl::StrCat(
      "<html><body>\n", "<img src=\"figures/h100/a.svg\" alt=\"ok\">\n",
      "<img src=\"figures/h100/missing.svg\">\n", "<img src='b%20c.svg'>\n",
      "<a href=\"x&amp;y.html#top\">ok</a>\n", "<a href=\"https://example.com/x.svg\">web</a>\n",
      "<a href=\"#findings\">anchor</a>\n", "<a href=mailto:a@b>mail</a>\n",
      "<object data=\"gone.svg\"></object>\n", "<link rel=\"stylesheet\" href=\"style.css\">\n",
      "<a href=\"file://", (dir / "b c.svg").string(), "\">abs ok</a>\n", "<a href=\"file://",
      (dir / "nope.html").string(), "\">abs broken</a>\n",
      "<p>src=&quot;text.svg&quot; is text, not a link</p>\n",
      "<img alt=\"a > b\" src=\"quoted_gt.svg\">\n", "</body></html>\n");
  const std::vector<std::string> broken = BrokenLocalLinks(html, dir.string());
  EXPECT_THAT(broken,
              ElementsAre(absl::StrCat("figures/h100/missing.svg (",
                                       (dir / "figures/h100/missing.svg").string(), ")"),
                          absl::StrCat("gone.svg (", (dir / "gone.svg").string(), ")"),
                          absl::StrCat("style.css (", (dir / "style.css").string(), ")"),
                          absl::StrCat("file://", (dir / "nope.html").string(), " (",
                                       (dir / "nope.html").string(), ")"),
                          absl::StrCat("quoted_gt.svg (", (dir / "quoted_gt.svg").string(), ")")));
}

// ---------------------------------------------------------------------------
// Trend plots.

TrendSeries Series(const std::vector<double>& values) {
  TrendSeries series;
  series.device = "H100 <GPU-1>";
  series.point = "memory_latency/path:global_cg/footprint_bytes:1024";
  series.metric = "cycles_per_load";
  series.unit = "cycles";
  for (size_t i = 0; i < values.size(); ++i) {
    series.samples.push_back({absl::StrCat("run", i), absl::StrCat("2026-11-2", i, "T02:00:00Z"),
                              values[i], std::nullopt, "580.65", "aaaa"});
  }
  return series;
}

TEST(TrendLayoutTest, EvenlySpacedNightsAndLinearValues) {
  const TrendLayout l = LayoutTrend(Series({10, 20, 30}));
  ASSERT_EQ(l.x.size(), 3u);
  EXPECT_DOUBLE_EQ(l.x[0], l.plot_left);
  EXPECT_DOUBLE_EQ(l.x[1], (l.plot_left + l.plot_right) / 2);
  EXPECT_DOUBLE_EQ(l.x[2], l.plot_right);
  // 5% headroom on each side of [10, 30].
  EXPECT_DOUBLE_EQ(l.y_min, 9);
  EXPECT_DOUBLE_EQ(l.y_max, 31);
  const double h = l.plot_bottom - l.plot_top;
  EXPECT_DOUBLE_EQ(l.y[0], l.plot_bottom - h * 1 / 22);
  EXPECT_DOUBLE_EQ(l.y[1], l.plot_bottom - h * 11 / 22);
  EXPECT_DOUBLE_EQ(l.y[2], l.plot_bottom - h * 21 / 22);
  // Larger values are higher up (smaller y); no spread: the band is the line.
  EXPECT_GT(l.y[0], l.y[2]);
  EXPECT_EQ(l.band_upper_y, l.y);
  EXPECT_EQ(l.band_lower_y, l.y);
  EXPECT_THAT(l.changes, IsEmpty());
}

TEST(TrendLayoutTest, SpreadBandAndRangeIncludeIt) {
  TrendSeries series = Series({100, 100});
  series.samples[0].spread = 0.1;  // 95 .. 105
  const TrendLayout l = LayoutTrend(series);
  EXPECT_DOUBLE_EQ(l.y_min, 95 - 0.5);
  EXPECT_DOUBLE_EQ(l.y_max, 105 + 0.5);
  const double h = l.plot_bottom - l.plot_top;
  EXPECT_DOUBLE_EQ(l.band_upper_y[0], l.plot_bottom - h * 10.5 / 11);
  EXPECT_DOUBLE_EQ(l.band_lower_y[0], l.plot_bottom - h * 0.5 / 11);
  EXPECT_DOUBLE_EQ(l.band_upper_y[1], l.y[1]);
}

TEST(TrendLayoutTest, FlatAndSingleSeries) {
  const TrendLayout flat = LayoutTrend(Series({50, 50}));
  EXPECT_DOUBLE_EQ(flat.y_min, 49.5);
  EXPECT_DOUBLE_EQ(flat.y_max, 50.5);
  const TrendLayout zero = LayoutTrend(Series({0}));
  EXPECT_DOUBLE_EQ(zero.y_min, -1);
  EXPECT_DOUBLE_EQ(zero.y_max, 1);
  EXPECT_DOUBLE_EQ(zero.x[0], (zero.plot_left + zero.plot_right) / 2);
  EXPECT_DOUBLE_EQ(zero.y[0], (zero.plot_top + zero.plot_bottom) / 2);
}

TEST(TrendLayoutTest, DriverAndCommitChangesAreMarkedBetweenNights) {
  TrendSeries series = Series({1, 2, 3, 4});
  series.samples[2].driver_version = "590.10";
  series.samples[3].driver_version = "590.10";
  series.samples[3].git_commit = "bbbbccccddddeeee";
  series.samples[1].driver_version = "";  // unknown: no change on either side of it
  const TrendLayout l = LayoutTrend(series);
  ASSERT_EQ(l.changes.size(), 1u);
  EXPECT_DOUBLE_EQ(l.changes[0].x, (l.x[2] + l.x[3]) / 2);
  EXPECT_EQ(l.changes[0].title, "suite commit aaaa -> bbbbccccdddd");

  series.samples[1].driver_version = "580.65";
  const TrendLayout l2 = LayoutTrend(series);
  ASSERT_EQ(l2.changes.size(), 2u);
  EXPECT_DOUBLE_EQ(l2.changes[0].x, (l2.x[1] + l2.x[2]) / 2);
  EXPECT_EQ(l2.changes[0].title, "driver 580.65 -> 590.10");
}

TEST(TrendSvgTest, OnePolylineACirclePerNightAndEscapedTitles) {
  TrendSeries series = Series({10, 20, 30});
  series.samples[2].driver_version = "590<1>";
  const std::string svg = TrendSvg(series);
  EXPECT_TRUE(absl::StartsWith(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(Count(svg, "<polyline"), 1);
  EXPECT_EQ(Count(svg, "<circle"), 3);
  EXPECT_EQ(Count(svg, "<polygon class=\"band\""), 1);
  EXPECT_EQ(Count(svg, "<line class=\"change\""), 1);
  EXPECT_THAT(svg, HasSubstr("<title>driver 580.65 -&gt; 590&lt;1&gt;</title>"));
  EXPECT_THAT(svg, HasSubstr("<title>H100 &lt;GPU-1&gt; · memory_latency/"));
  EXPECT_THAT(svg, HasSubstr("2026-11-22: 30 cycles"));
  const TrendLayout l = LayoutTrend(series);
  EXPECT_THAT(svg, HasSubstr(absl::StrFormat("points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"", l.x[0],
                                             l.y[0], l.x[1], l.y[1], l.x[2], l.y[2])));
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
}

// ---------------------------------------------------------------------------
// History -> pages.

RunPoint Point(const std::string& experiment, const std::string& axes,
               std::map<std::string, MetricValue> metrics, int attempt = 1,
               bool throttled = false) {
  RunPoint p;
  p.experiment = experiment;
  p.point = experiment + "/" + axes;
  for (absl::string_view segment : absl::StrSplit(axes, '/')) {
    std::vector<std::string> kv = absl::StrSplit(segment, ':');
    p.axes[kv[0]] = kv[1];
  }
  p.metrics = std::move(metrics);
  p.attempt = attempt;
  p.throttled = throttled;
  return p;
}

RunData MakeRun(const std::string& run_id, const std::string& started, const std::string& uuid,
                const std::string& driver, const std::string& commit, double latency,
                double bandwidth) {
  RunData run;
  run.info.run_id = run_id;
  run.info.sweep = "nightly";
  run.info.started = started;
  run.info.host = "node-" + uuid.substr(4, 1);
  run.info.git_commit = commit;
  run.info.driver_version = driver;
  run.info.device_name = "Synthetic H100";
  run.info.device_uuid = uuid;
  for (int footprint : {1024, 65536}) {
    run.points.push_back(
        Point("memory_latency",
              absl::StrCat("path:global_cg/footprint_bytes:", footprint, "/stride_bytes:128"),
              {{"cycles_per_load", {latency + footprint / 4096.0, 0.02, "cycles"}},
               {"ns_per_load", {latency / 1.98, 0.02, "ns"}}}));
  }
  run.points.push_back(Point("relu", "bytes:1073741824/timing:hot",
                             {{"bandwidth_gbps", {bandwidth, 0.01, "GB/s"}},
                              {"dram_peak_pct", {bandwidth / 33.5, 0.01, "%"}}}));
  return run;
}

std::vector<RunData> History() {
  return {
      MakeRun("a-1", "2026-11-20T02:00:00Z", "GPU-1aaa", "580.65", "c0ffee000001", 200, 2900),
      MakeRun("b-1", "2026-11-20T02:05:00Z", "GPU-2bbb", "580.65", "c0ffee000001", 201, 2890),
      MakeRun("a-2", "2026-11-21T02:00:00Z", "GPU-1aaa", "580.65", "c0ffee000002", 202, 2910),
      MakeRun("a-3", "2026-11-22T02:00:00Z", "GPU-1aaa", "590.10", "c0ffee000002", 240, 2400),
      MakeRun("b-3", "2026-11-22T02:04:00Z", "GPU-2bbb", "590.10", "c0ffee000002", 199, 2905),
      MakeRun("c-3", "2026-11-22T02:05:00Z", "GPU-3ccc", "590.10", "c0ffee000002", 201, 2895),
      MakeRun("d-3", "2026-11-22T02:06:00Z", "GPU-4ddd", "590.10", "c0ffee000002", 200, 2910),
      MakeRun("e-3", "2026-11-22T02:07:00Z", "GPU-5eee", "590.10", "c0ffee000002", 202, 2900),
  };
}

Thresholds TestThresholds() {
  Thresholds t;
  t.defaults.relative_tolerance = 0.03;
  t.defaults.k = 2;
  t.defaults.fleet_k = 5;
  t.metrics["cycles_per_load"].direction = Direction::kLowerIsBetter;
  t.metrics["ns_per_load"].direction = Direction::kLowerIsBetter;
  t.metrics["bandwidth_gbps"].direction = Direction::kHigherIsBetter;
  t.metrics["dram_peak_pct"].direction = Direction::kHigherIsBetter;
  return t;
}

// Per DeviceKey, the runs up to `night`, as WriteDashboard passes them.
std::map<std::string, std::vector<RunData>> HistoryUpTo(const std::string& night) {
  std::map<std::string, std::vector<RunData>> out;
  for (const RunData& run : History()) {
    if (NightOf(run.info) <= night) out[DeviceKey(run.info)].push_back(run);
  }
  return out;
}

std::vector<RunData> NightRuns(const std::string& night) {
  std::vector<RunData> out;
  for (const RunData& run : History()) {
    if (NightOf(run.info) == night) out.push_back(run);
  }
  return out;
}

TEST(CheckNightTest, RegressionsAgainstEarlierNightsAndFleetOutliers) {
  const DashboardFindings f =
      CheckNight(NightRuns("2026-11-22"), HistoryUpTo("2026-11-22"), TestThresholds(), 7);
  EXPECT_TRUE(f.available);
  // Card a: latency up ~19%, bandwidth down ~17% against the median of its
  // two earlier nights; card b within the noise of its one earlier night.
  std::vector<std::string> regressed;
  for (const DashboardFinding& r : f.regressions) {
    EXPECT_EQ(r.run_id, "a-3");
    regressed.push_back(absl::StrCat(r.point, " ", r.metric));
  }
  EXPECT_THAT(regressed,
              ElementsAre("memory_latency/path:global_cg/footprint_bytes:1024/stride_bytes:128 "
                          "cycles_per_load",
                          "memory_latency/path:global_cg/footprint_bytes:1024/stride_bytes:128 "
                          "ns_per_load",
                          "memory_latency/path:global_cg/footprint_bytes:65536/stride_bytes:128 "
                          "cycles_per_load",
                          "memory_latency/path:global_cg/footprint_bytes:65536/stride_bytes:128 "
                          "ns_per_load",
                          "relu/bytes:1073741824/timing:hot bandwidth_gbps",
                          "relu/bytes:1073741824/timing:hot dram_peak_pct"));
  const DashboardFinding& bw = f.regressions[4];
  EXPECT_EQ(bw.value, 2400);
  EXPECT_EQ(bw.baseline, 2905);
  EXPECT_NEAR(*bw.change_pct, (2400.0 - 2905) / 2905 * 100, 1e-9);
  EXPECT_THAT(bw.annotation, HasSubstr("median of 2 nights"));
  EXPECT_THAT(bw.annotation, HasSubstr("driver 580.65 -> 590.10"));
  // Five cards: card a is the fleet's outlier, worse, in every metric.
  ASSERT_FALSE(f.outliers.empty());
  for (const DashboardFinding& o : f.outliers) {
    EXPECT_EQ(o.run_id, "a-3");
    EXPECT_THAT(o.annotation, HasSubstr("worse than the fleet of 5 cards"));
  }
  EXPECT_THAT(f.notes, ElementsAre(HasSubstr("run c-3: no earlier night to compare with"),
                                   HasSubstr("run d-3: no earlier night"),
                                   HasSubstr("run e-3: no earlier night")));

  // The first night: nothing to compare with, two cards are no fleet.
  const DashboardFindings first =
      CheckNight(NightRuns("2026-11-20"), HistoryUpTo("2026-11-20"), TestThresholds(), 7);
  EXPECT_THAT(first.regressions, IsEmpty());
  EXPECT_THAT(first.outliers, IsEmpty());
  EXPECT_THAT(first.notes, Contains(HasSubstr("2 card(s), fewer than 5: not checked")));
}

TEST(ResultFilesFromRunTest, OneFilePerExperimentLastAttemptWins) {
  RunData run = MakeRun("a-1", "2026-11-20T02:00:00Z", "GPU-1aaa", "580.65", "c0ffee", 200, 2900);
  run.points.push_back(Point("relu", "bytes:1073741824/timing:hot",
                             {{"bandwidth_gbps", {2950, 0.005, "GB/s"}}}, 2, false));
  run.points[0].throttled = true;
  const std::vector<ResultFile> files = ResultFilesFromRun(run);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].experiment, "memory_latency");
  EXPECT_THAT(files[0].axis_names, ElementsAre("path", "footprint_bytes", "stride_bytes"));
  EXPECT_THAT(files[0].metric_names, ElementsAre("cycles_per_load", "ns_per_load"));
  EXPECT_EQ(files[0].MetricUnit("cycles_per_load"), "cycles");
  EXPECT_EQ(files[0].ContextOr("device_name", ""), "Synthetic H100");
  ASSERT_EQ(files[0].rows.size(), 2u);
  EXPECT_EQ(files[0].rows[0].Axis("footprint_bytes"), "1024");
  EXPECT_EQ(files[0].rows[0].Counter("cycles_per_load.spread"), 0.02);
  EXPECT_EQ(files[0].rows[0].Counter("throttled"), 1);
  ASSERT_EQ(files[1].rows.size(), 1u);
  EXPECT_EQ(files[1].rows[0].Counter("bandwidth_gbps"), 2950);
  EXPECT_EQ(files[1].rows[0].Counter("attempt"), 2);
  EXPECT_THAT(files[1].metric_names, ElementsAre("bandwidth_gbps", "dram_peak_pct"));

  absl::StatusOr<std::string> report = RenderReport(files, {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("## memory_latency"));
  EXPECT_THAT(*report, HasSubstr("2950"));
}

TEST(SelectTrendsTest, FindingsFirstThenHeadlinesCappedAndTrimmed) {
  std::vector<RunData> history;
  for (const RunData& run : History()) {
    if (run.info.device_uuid == "GPU-1aaa") history.push_back(run);
  }
  DashboardFinding finding;
  finding.run_id = "a-3";
  finding.point = "relu/bytes:1073741824/timing:hot";
  finding.metric = "dram_peak_pct";
  DashboardFinding other_night = finding;
  other_night.run_id = "a-1";
  other_night.metric = "ignored";
  std::vector<std::string> notes;
  const std::vector<TrendSeries> trends =
      SelectTrends(history, "2026-11-22", {finding, other_night}, 2, 3, &notes);
  ASSERT_EQ(trends.size(), 3u);
  EXPECT_EQ(trends[0].metric, "dram_peak_pct");
  EXPECT_EQ(trends[1].point, "memory_latency/path:global_cg/footprint_bytes:1024/stride_bytes:128");
  EXPECT_EQ(trends[1].metric, "cycles_per_load");
  EXPECT_EQ(trends[1].unit, "cycles");
  EXPECT_EQ(trends[2].metric, "cycles_per_load");
  // The last 2 nights only.
  ASSERT_EQ(trends[1].samples.size(), 2u);
  EXPECT_EQ(trends[1].samples[0].run_id, "a-2");
  EXPECT_EQ(trends[1].samples[1].value, 240 + 0.25);
  EXPECT_EQ(trends[1].samples[1].driver_version, "590.10");
  EXPECT_THAT(notes, ElementsAre("1 of 4 trend plots left out (at most 3 per device; the "
                                 "findings' first)"));
  // An earlier night's page ends at that night.
  const std::vector<TrendSeries> earlier =
      SelectTrends(history, "2026-11-21", {}, 30, 100, nullptr);
  ASSERT_EQ(earlier.size(), 3u);
  EXPECT_EQ(earlier[0].samples.back().run_id, "a-2");
}

// The headline a run's result files name (RunData::headline_metrics) is
// what the trends plot and the rebuilt files list first, whatever an older
// file of that experiment stood for.
TEST(SelectTrendsTest, TheHeadlineOfTheRunsFilesIsPlotted) {
  std::vector<RunData> history;
  for (RunData& run : History()) {
    if (run.info.device_uuid != "GPU-1aaa") continue;
    run.headline_metrics["memory_latency"] = "ns_per_load";
    history.push_back(std::move(run));
  }
  const std::vector<TrendSeries> trends = SelectTrends(history, "2026-11-22", {}, 30, 100, nullptr);
  ASSERT_EQ(trends.size(), 3u);
  EXPECT_EQ(trends[0].metric, "ns_per_load");
  EXPECT_EQ(trends[1].metric, "ns_per_load");
  // relu's files named none: the default of files that did not say.
  EXPECT_EQ(trends[2].metric, "bandwidth_gbps");

  const std::vector<ResultFile> files = ResultFilesFromRun(history.back());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_THAT(files[0].metric_names, ElementsAre("ns_per_load", "cycles_per_load"));
  EXPECT_EQ(files[0].ContextOr("dissect_headline_metric", ""), "ns_per_load");
}

TEST(NightPageTest, UnavailableFindingsAndFigureProblemsAreSaid) {
  NightPage page;
  page.night = "2026-11-22";
  page.findings.unavailable_reason = "no <library>";
  page.report_markdown = "## relu\n";
  page.figure_problems.push_back("H100: latency_vs_footprint not drawn: gnuplot failed");
  const std::string html = RenderNightPage(page);
  EXPECT_THAT(html, HasSubstr("regression check not available: no &lt;library&gt;"));
  EXPECT_THAT(html, HasSubstr("latency_vs_footprint not drawn: gnuplot failed"));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  // Findings come before the tables.
  EXPECT_LT(html.find("id=\"findings\""), html.find("id=\"tables\""));
}

TEST(NightPageTest, FindingsTables) {
  NightPage page;
  page.night = "2026-11-22";
  page.findings.available = true;
  DashboardFinding f;
  f.device = "H100";
  f.point = "relu/bytes:1";
  f.metric = "bandwidth_gbps";
  f.unit = "GB/s";
  f.value = 2400;
  f.baseline = 2900;
  f.change_pct = -17.24;
  f.annotation = "driver 580.65 -> 590.10";
  page.findings.regressions.push_back(f);
  const std::string html = RenderNightPage(page);
  EXPECT_THAT(html, HasSubstr("<h3>Regressions (1)</h3>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"num\">2400 GB/s</td><td class=\"num\">2900 GB/s</td>"
                              "<td class=\"num\">-17.2%</td><td>driver 580.65 -&gt; 590.10</td>"));
  EXPECT_THAT(html, HasSubstr("no fleet outliers"));
}

// Writes a stand-in SVG for each script (a real gnuplot run is the browser
// test's), except for scripts named in `fail`.
std::function<std::string(const std::string&, const std::string&)> FakeGnuplot(
    std::string fail = "") {
  return [fail](const std::string& dir, const std::string& script) -> std::string {
    if (!fail.empty() && absl::StrContains(script, fail)) return "gnuplot failed (status 1)";
    std::ofstream(fs::path(dir) / fs::path(script).replace_extension(".svg"))
        << "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
    return "";
  };
}

DashboardOptions GoldenOptions() {
  DashboardOptions options;
  options.run_gnuplot = FakeGnuplot();
  options.find = [](const std::vector<RunData>& night,
                    const std::map<std::string, std::vector<RunData>>& history) {
    return CheckNight(night, history, TestThresholds(), 7);
  };
  return options;
}

TEST(WriteDashboardTest, GoldenPages) {
  const fs::path out = test_util::FreshTempDir("golden");
  DashboardInput input;
  input.runs = History();
  absl::StatusOr<DashboardSummary> summary = WriteDashboard(input, out.string(), GoldenOptions());
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(summary->warnings, IsEmpty());
  ASSERT_EQ(summary->pages.size(), 4u);
  EXPECT_EQ(summary->pages[0], (out / "index.html").string());
  EXPECT_EQ(summary->pages[1], (out / "2026-11-22" / "index.html").string());
  EXPECT_TRUE(fs::exists(out / "2026-11-22/figures/synthetic_h100/latency_vs_footprint.svg"));
  for (const auto& [file, golden] : std::vector<std::pair<std::string, std::string>>{
           {"index.html", "analysis/testdata/dashboard/index.golden.html"},
           {"2026-11-22/index.html", "analysis/testdata/dashboard/night.golden.html"}}) {
    const std::string actual = test_util::ReadText((out / file).string());
    if (auto updated = test_util::UpdateGolden(actual, golden, "//analysis/pages:dashboard_test")) {
      EXPECT_EQ(*updated, "");
      continue;
    }
    EXPECT_EQ(actual, test_util::ReadText(test_util::Runfile(golden)))
        << test_util::StaleGolden(golden, "//analysis/pages:dashboard_test");
  }
}

TEST(WriteDashboardTest, FailedFigureIsSaidNeverLinked) {
  const fs::path out = test_util::FreshTempDir("failed_figure");
  DashboardInput input;
  input.runs = History();
  DashboardOptions options;
  options.run_gnuplot = FakeGnuplot("latency_vs_footprint");
  absl::StatusOr<DashboardSummary> summary = WriteDashboard(input, out.string(), options);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(summary->warnings, Not(IsEmpty()));
  const std::string html = test_util::ReadText((out / "2026-11-22/index.html").string());
  EXPECT_THAT(html, HasSubstr("latency_vs_footprint not drawn: gnuplot failed (status 1)"));
  EXPECT_THAT(html, Not(HasSubstr("latency_vs_footprint.svg")));
  EXPECT_THAT(html, HasSubstr("regression check not available: no regression library"));
  EXPECT_THAT(BrokenLocalLinks(html, (out / "2026-11-22").string()), IsEmpty());
}

TEST(ReadDashboardInputTest, HistoryDatabaseGivesTheSamePages) {
  const fs::path dir = test_util::FreshTempDir("db");
  const std::string db_path = (dir / "history.db").string();
  {
    absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(db_path);
    ASSERT_TRUE(db.ok()) << db.status();
    absl::StatusOr<IngestStats> stats = (*db)->AddRuns(History());
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_EQ(stats->runs, 8);
  }
  absl::StatusOr<DashboardInput> input = ReadDashboardInput(db_path);
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->origin, "history database " + db_path);
  EXPECT_THAT(input->raw_files, IsEmpty());
  ASSERT_EQ(input->runs.size(), History().size());
  absl::StatusOr<DashboardSummary> summary =
      WriteDashboard(*input, (dir / "site").string(), GoldenOptions());
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(test_util::ReadText((dir / "site/2026-11-22/index.html").string()),
            test_util::ReadText(test_util::Runfile("analysis/testdata/dashboard/night.golden.html")));
}

TEST(ReadDashboardInputTest, RunFoldersKeepTheirResultFiles) {
  absl::StatusOr<DashboardInput> input =
      ReadDashboardInput(test_util::Runfile("analysis/testdata/history"));
  ASSERT_TRUE(input.ok()) << input.status();
  ASSERT_EQ(input->runs.size(), 1u);
  const std::string run_id = input->runs[0].info.run_id;
  EXPECT_EQ(run_id, "gpu-node-07-GPU-1111aaaa-20261123T020000Z");
  ASSERT_EQ(input->raw_files.count(run_id), 1u);
  std::vector<std::string> paths;
  for (const ResultFile& file : input->raw_files.at(run_id)) paths.push_back(file.path);
  // Named relative to the history folder; the corrupt one left out and named.
  EXPECT_THAT(paths, ElementsAre("run_h100_night1/memory_latency_l2.json",
                                 "run_h100_night1/shared_latency.json"));
  EXPECT_THAT(input->bad, Contains(HasSubstr("relu_bandwidth.json")));
}

TEST(ReadDashboardInputTest, MissingOrForeignHistoryIsAnError) {
  const fs::path dir = test_util::FreshTempDir("bad_history");
  EXPECT_FALSE(ReadDashboardInput((dir / "none.db").string()).ok());
  EXPECT_FALSE(fs::exists(dir / "none.db"));  // not created
  std::ofstream(dir / "notes.txt") << "not a database, just text\n";
  absl::StatusOr<DashboardInput> foreign = ReadDashboardInput((dir / "notes.txt").string());
  EXPECT_FALSE(foreign.ok());
}

TEST(WriteDashboardTest, FindAndTrendsSeeTheLastHistoryRunsOfEachDevice) {
  DashboardInput input;
  input.runs = History();
  DashboardOptions options;
  options.history_runs = 2;
  std::map<std::string, std::vector<std::string>> seen;  // night -> run ids given to find
  options.find = [&seen](const std::vector<RunData>& night,
                         const std::map<std::string, std::vector<RunData>>& history) {
    for (const auto& [key, runs] : history) {
      for (const RunData& run : runs) seen[NightOf(night[0].info)].push_back(run.info.run_id);
    }
    return DashboardFindings{};
  };
  const fs::path out = test_util::FreshTempDir("history_runs");
  ASSERT_TRUE(WriteDashboard(input, out.string(), options).ok());
  EXPECT_THAT(seen["2026-11-22"], ElementsAre("a-2", "a-3", "b-1", "b-3", "c-3", "d-3", "e-3"));
  EXPECT_THAT(seen["2026-11-21"], ElementsAre("a-1", "a-2"));
  const std::string html = test_util::ReadText((out / "2026-11-22/index.html").string());
  EXPECT_THAT(html, Not(HasSubstr("run a-1</title>")));
  EXPECT_THAT(html, HasSubstr("run a-2</title>"));
}

TEST(WriteDashboardTest, EmptyHistoryIsAnError) {
  absl::StatusOr<DashboardSummary> summary =
      WriteDashboard({}, test_util::FreshTempDir("empty").string(), DashboardOptions());
  EXPECT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(), HasSubstr("holds no runs"));
}

}  // namespace
}  // namespace dissect::analysis
