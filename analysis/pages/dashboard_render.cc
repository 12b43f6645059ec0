// The dashboard's pages: trend charts (SVG), a night's page and the index.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "analysis/pages/dashboard.h"
#include "analysis/pages/dashboard_history.h"
#include "analysis/plots/figures.h"
#include "analysis/format/format.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/outliers.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Trends.

constexpr double kTrendWidth = 420;
constexpr double kTrendHeight = 150;
constexpr double kTrendLeft = 64;
constexpr double kTrendRight = 12;
constexpr double kTrendTop = 12;
constexpr double kTrendBottom = 30;

std::string Coord(double v) { return absl::StrFormat("%.1f", v); }

std::string FindingValue(double value, const std::string& unit) {
  return unit.empty() ? FormatNumber(value) : absl::StrCat(FormatNumber(value), " ", unit);
}

std::string FindingsTable(const std::vector<DashboardFinding>& findings, const char* reference) {
  std::string out =
      absl::StrCat("<table class=\"findings\">\n<thead><tr><th>device</th><th>point</th>",
                   "<th>metric</th><th class=\"num\">value</th><th class=\"num\">", reference,
                   "</th><th class=\"num\">change</th><th>notes</th></tr></thead>\n<tbody>\n");
  for (const DashboardFinding& f : findings) {
    absl::StrAppend(
        &out, "<tr><td>", HtmlEscape(f.device), "</td><td><code>", HtmlEscape(f.point),
        "</code></td><td>", HtmlEscape(f.metric), "</td><td class=\"num\">",
        HtmlEscape(FindingValue(f.value, f.unit)), "</td><td class=\"num\">",
        f.baseline ? HtmlEscape(FindingValue(*f.baseline, f.unit)) : kEmptyCell,
        "</td><td class=\"num\">",
        f.change_pct ? HtmlEscape(absl::StrFormat("%+.1f%%", *f.change_pct)) : kEmptyCell,
        "</td><td>", HtmlEscape(f.annotation), "</td></tr>\n");
  }
  out += "</tbody>\n</table>\n";
  return out;
}

// The regressions and fleet outliers of a night.
std::string FindingsSection(const NightPage& page) {
  std::string out;
  out += "<section id=\"findings\">\n<h2>Regressions and fleet outliers</h2>\n";
  const DashboardFindings& f = page.findings;
  if (!f.available) {
    absl::StrAppend(&out, "<p class=\"unavailable\">regression check not available: ",
                    HtmlEscape(f.unavailable_reason), "</p>\n");
  } else {
    absl::StrAppend(&out, "<h3>Regressions (", f.regressions.size(), ")</h3>\n");
    out += f.regressions.empty() ? NoFindingsHtml(page.status, "regressions")
                                 : FindingsTable(f.regressions, "recent nights");
    absl::StrAppend(&out, "<h3>Fleet outliers (", f.outliers.size(), ")</h3>\n");
    out += f.outliers.empty() ? NoFindingsHtml(page.status, "fleet outliers")
                              : FindingsTable(f.outliers, "fleet");
    if (!f.notes.empty()) {
      out += "<ul class=\"notes\">\n";
      for (const std::string& note : f.notes)
        absl::StrAppend(&out, "<li>", HtmlEscape(note), "</li>\n");
      out += "</ul>\n";
    }
  }
  out += "</section>\n";
  return out;
}

// The report's tables of a night, with where their values come from.
std::string TablesSection(const NightPage& page) {
  std::string out;
  out += "<section id=\"tables\">\n<h2>Characterization tables</h2>\n";
  if (!page.sources.empty()) {
    out += "<ul class=\"sources\">\n";
    for (const std::string& source : page.sources) {
      absl::StrAppend(&out, "<li>", HtmlEscape(source), "</li>\n");
    }
    out += "</ul>\n";
  }
  if (!page.report_error.empty()) {
    absl::StrAppend(&out, "<p class=\"unavailable\">no tables: ", HtmlEscape(page.report_error),
                    "</p>\n");
  } else {
    out += MarkdownToHtml(page.report_markdown);
  }
  out += "</section>\n";
  return out;
}

// The figures of a night, or why they are missing.
std::string FiguresSection(const NightPage& page) {
  std::string out;
  out += "<section id=\"figures\">\n<h2>Figures</h2>\n";
  for (const std::string& problem : page.figure_problems) {
    absl::StrAppend(&out, "<p class=\"unavailable\">", HtmlEscape(problem), "</p>\n");
  }
  for (const DashboardFigure& figure : page.figures) {
    const std::string caption = figure.device + ": " + figure.title;
    absl::StrAppend(&out, "<figure><img src=\"", HtmlEscape(figure.src), "\" alt=\"",
                    HtmlEscape(caption), "\"><figcaption>", HtmlEscape(caption),
                    "</figcaption></figure>\n");
  }
  if (page.figures.empty() && page.figure_problems.empty()) out += "<p>no figures</p>\n";
  out += "</section>\n";
  return out;
}

// The trend charts of a night, per device.
std::string TrendsSection(const NightPage& page) {
  std::string out;
  out += "<section id=\"trends\">\n<h2>Trends</h2>\n";
  for (const std::string& note : page.trend_notes) {
    absl::StrAppend(&out, "<p>", HtmlEscape(note), "</p>\n");
  }
  std::string device;
  for (const TrendSeries& series : page.trends) {
    if (series.device != device) {
      device = series.device;
      absl::StrAppend(&out, "<h3>", HtmlEscape(device), "</h3>\n");
    }
    absl::StrAppend(&out, "<figure class=\"trend\">", TrendSvg(series), "<figcaption><code>",
                    HtmlEscape(series.point), "</code> ", HtmlEscape(series.metric),
                    series.unit.empty() ? "" : " (" + HtmlEscape(series.unit) + ")",
                    "</figcaption></figure>\n");
  }
  if (page.trends.empty()) out += "<p>no trends</p>\n";
  return out;
}

}  // namespace

TrendLayout LayoutTrend(const TrendSeries& series) {
  TrendLayout layout;
  layout.width = kTrendWidth;
  layout.height = kTrendHeight;
  layout.plot_left = kTrendLeft;
  layout.plot_right = kTrendWidth - kTrendRight;
  layout.plot_top = kTrendTop;
  layout.plot_bottom = kTrendHeight - kTrendBottom;
  const size_t n = series.samples.size();
  if (n == 0) return layout;
  double lo = INFINITY, hi = -INFINITY;
  std::vector<double> upper, lower;
  for (const TrendSample& s : series.samples) {
    const double half = s.spread ? std::fabs(s.value) * *s.spread / 2 : 0;
    upper.push_back(s.value + half);
    lower.push_back(s.value - half);
    lo = std::min({lo, s.value, s.value - half});
    hi = std::max({hi, s.value, s.value + half});
  }
  if (!(hi > lo)) {
    const double d = lo != 0 ? std::fabs(lo) * 0.01 : 1;
    lo -= d;
    hi += d;
  } else {
    const double pad = 0.05 * (hi - lo);
    lo -= pad;
    hi += pad;
  }
  layout.y_min = lo;
  layout.y_max = hi;
  const double plot_w = layout.plot_right - layout.plot_left;
  const double plot_h = layout.plot_bottom - layout.plot_top;
  auto y_of = [&](double v) { return layout.plot_bottom - (v - lo) / (hi - lo) * plot_h; };
  for (size_t i = 0; i < n; ++i) {
    layout.x.push_back(n == 1 ? layout.plot_left + plot_w / 2
                              : layout.plot_left + plot_w * static_cast<double>(i) / (n - 1));
    layout.y.push_back(y_of(series.samples[i].value));
    layout.band_upper_y.push_back(y_of(upper[i]));
    layout.band_lower_y.push_back(y_of(lower[i]));
  }
  for (size_t i = 1; i < n; ++i) {
    const TrendSample& a = series.samples[i - 1];
    const TrendSample& b = series.samples[i];
    std::vector<std::string> what;
    if (!a.driver_version.empty() && !b.driver_version.empty() &&
        a.driver_version != b.driver_version) {
      what.push_back(absl::StrCat("driver ", a.driver_version, " -> ", b.driver_version));
    }
    if (!a.git_commit.empty() && !b.git_commit.empty() && a.git_commit != b.git_commit) {
      what.push_back(absl::StrCat("suite commit ", ShortCommit(a.git_commit), " -> ",
                                  ShortCommit(b.git_commit)));
    }
    if (!what.empty()) {
      layout.changes.push_back({(layout.x[i - 1] + layout.x[i]) / 2, absl::StrJoin(what, "; ")});
    }
  }
  return layout;
}

std::string TrendSvg(const TrendSeries& series) {
  const TrendLayout l = LayoutTrend(series);
  const std::string title =
      absl::StrCat(series.device, " · ", series.point, " · ", series.metric,
                   series.unit.empty() ? "" : absl::StrCat(" (", series.unit, ")"));
  std::string out = absl::StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend\" width=\"", Coord(l.width),
      "\" height=\"", Coord(l.height), "\" viewBox=\"0 0 ", Coord(l.width), " ", Coord(l.height),
      "\" role=\"img\">\n<title>", HtmlEscape(title), "</title>\n", "<rect x=\"",
      Coord(l.plot_left), "\" y=\"", Coord(l.plot_top), "\" width=\"",
      Coord(l.plot_right - l.plot_left), "\" height=\"", Coord(l.plot_bottom - l.plot_top),
      "\" fill=\"none\" stroke=\"#bbb\"/>\n");
  if (series.samples.empty()) {
    absl::StrAppend(&out, "<text x=\"", Coord(l.width / 2), "\" y=\"", Coord(l.height / 2),
                    "\" text-anchor=\"middle\" font-size=\"11\">no data</text>\n</svg>\n");
    return out;
  }
  const size_t n = series.samples.size();
  std::vector<std::string> band;
  for (size_t i = 0; i < n; ++i) band.push_back(Coord(l.x[i]) + "," + Coord(l.band_upper_y[i]));
  for (size_t i = n; i-- > 0;) band.push_back(Coord(l.x[i]) + "," + Coord(l.band_lower_y[i]));
  absl::StrAppend(&out, "<polygon class=\"band\" points=\"", absl::StrJoin(band, " "),
                  "\" fill=\"#9ecae1\" fill-opacity=\"0.5\" stroke=\"none\"/>\n");
  for (const TrendLayout::Change& change : l.changes) {
    absl::StrAppend(&out, "<line class=\"change\" x1=\"", Coord(change.x), "\" y1=\"",
                    Coord(l.plot_top), "\" x2=\"", Coord(change.x), "\" y2=\"",
                    Coord(l.plot_bottom),
                    "\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"4,3\"><title>",
                    HtmlEscape(change.title), "</title></line>\n");
  }
  std::vector<std::string> line;
  for (size_t i = 0; i < n; ++i) line.push_back(Coord(l.x[i]) + "," + Coord(l.y[i]));
  absl::StrAppend(&out, "<polyline class=\"value\" points=\"", absl::StrJoin(line, " "),
                  "\" fill=\"none\" stroke=\"#08519c\" stroke-width=\"1.5\"/>\n");
  for (size_t i = 0; i < n; ++i) {
    const TrendSample& s = series.samples[i];
    std::string tip = absl::StrCat(s.started.substr(0, 10), ": ", FormatNumber(s.value),
                                   series.unit.empty() ? "" : " " + series.unit);
    if (s.spread) absl::StrAppend(&tip, ", spread ", FormatPercent(*s.spread));
    if (!s.driver_version.empty()) absl::StrAppend(&tip, ", driver ", s.driver_version);
    if (!s.git_commit.empty()) absl::StrAppend(&tip, ", commit ", ShortCommit(s.git_commit));
    if (!s.run_id.empty()) absl::StrAppend(&tip, ", run ", s.run_id);
    absl::StrAppend(&out, "<circle cx=\"", Coord(l.x[i]), "\" cy=\"", Coord(l.y[i]),
                    "\" r=\"3\" fill=\"#08519c\"><title>", HtmlEscape(tip), "</title></circle>\n");
  }
  const std::string unit = series.unit.empty() ? "" : " " + series.unit;
  absl::StrAppend(&out, "<text x=\"", Coord(l.plot_left - 4), "\" y=\"", Coord(l.plot_top + 8),
                  "\" text-anchor=\"end\" font-size=\"10\">",
                  HtmlEscape(FormatNumber(l.y_max) + unit), "</text>\n");
  absl::StrAppend(&out, "<text x=\"", Coord(l.plot_left - 4), "\" y=\"", Coord(l.plot_bottom),
                  "\" text-anchor=\"end\" font-size=\"10\">",
                  HtmlEscape(FormatNumber(l.y_min) + unit), "</text>\n");
  absl::StrAppend(&out, "<text x=\"", Coord(l.plot_left), "\" y=\"", Coord(l.plot_bottom + 14),
                  "\" font-size=\"10\">", HtmlEscape(series.samples.front().started.substr(0, 10)),
                  "</text>\n");
  if (n > 1) {
    absl::StrAppend(&out, "<text x=\"", Coord(l.plot_right), "\" y=\"", Coord(l.plot_bottom + 14),
                    "\" text-anchor=\"end\" font-size=\"10\">",
                    HtmlEscape(series.samples.back().started.substr(0, 10)), "</text>\n");
  }
  out += "</svg>\n";
  return out;
}

std::string RenderNightPage(const NightPage& page) {
  std::string out = PageHead("dissect nightly " + page.night);
  absl::StrAppend(&out, "<p><a href=\"../index.html\">all nights</a></p>\n",
                  "<h1>dissect nightly characterization: ", HtmlEscape(page.night), "</h1>\n");
  out +=
      "<table class=\"runs\">\n<thead><tr><th>device</th><th>host</th><th>run</th><th>sweep</th>"
      "<th>started</th><th>driver</th><th>commit</th></tr></thead>\n<tbody>\n";
  for (const RunInfo& run : page.runs) {
    absl::StrAppend(&out, "<tr><td>", HtmlEscape(DeviceLabel(run)), "</td><td>",
                    HtmlEscape(run.host), "</td><td><code>", HtmlEscape(run.run_id),
                    "</code></td><td>", HtmlEscape(run.sweep), "</td><td>", HtmlEscape(run.started),
                    "</td><td>", HtmlEscape(run.driver_version), "</td><td><code>",
                    HtmlEscape(ShortCommit(run.git_commit)), "</code></td></tr>\n");
  }
  out += "</tbody>\n</table>\n";
  out += NightStatusHtml(page.status);

  out += FindingsSection(page);
  out += TablesSection(page);
  out += FiguresSection(page);
  out += TrendsSection(page);
  out += "</section>\n</body>\n</html>\n";
  return out;
}

std::string RenderIndexPage(const std::vector<NightSummary>& nights,
                            const std::string& imported_section) {
  std::string out = PageHead("dissect nightly characterization");
  out += "<h1>dissect nightly characterization</h1>\n";
  out += imported_section;
  std::vector<std::pair<std::string, NightStatus>> statuses;
  for (const NightSummary& night : nights) statuses.push_back({night.night, night.status});
  out += BrokenNightsHtml(statuses);
  out +=
      "<table class=\"nights\">\n<thead><tr><th>night</th><th>devices</th><th>entries</th>"
      "<th class=\"num\">regressions</th><th class=\"num\">fleet outliers</th></tr></thead>\n"
      "<tbody>\n";
  for (const NightSummary& night : nights) {
    // Nothing measured: no count, not even 0, reads as a checked night.
    const bool counted = night.findings_available && !night.status.NothingMeasured();
    const std::string na = "<td class=\"num\">n/a</td>";
    absl::StrAppend(
        &out, "<tr><td><a href=\"", HtmlEscape(night.night), "/index.html\">",
        HtmlEscape(night.night), "</a></td><td>", HtmlEscape(absl::StrJoin(night.devices, ", ")),
        "</td>", NightStatusCell(night.status),
        counted ? absl::StrCat("<td class=\"num\">", night.regressions, "</td>") : na,
        counted ? absl::StrCat("<td class=\"num\">", night.outliers, "</td>") : na, "</tr>\n");
  }
  out += "</tbody>\n</table>\n</body>\n</html>\n";
  return out;
}

}  // namespace dissect::analysis
