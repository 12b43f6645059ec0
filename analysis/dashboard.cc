#include "analysis/dashboard.h"

#include <sys/wait.h>
#include <unistd.h>

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
#include "analysis/dashboard_history.h"
#include "analysis/figures.h"
#include "analysis/format.h"
#include "analysis/history_db.h"
#include "analysis/outliers.h"
#include "experiments/result_format/atomic_file.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Markdown.

// Text with `code` spans and _emphasis_, escaped.
std::string InlineHtml(absl::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '`') {
      const size_t end = text.find('`', i + 1);
      if (end != absl::string_view::npos) {
        absl::StrAppend(&out, "<code>", HtmlEscape(text.substr(i + 1, end - i - 1)), "</code>");
        i = end + 1;
        continue;
      }
    }
    if (c == '_' && (i == 0 || text[i - 1] == ' ') && i + 1 < text.size() && text[i + 1] != ' ') {
      // The closing '_' is followed by the end, a space or punctuation.
      size_t end = i + 1;
      while ((end = text.find('_', end + 1)) != absl::string_view::npos) {
        const bool at_end = end + 1 == text.size() || absl::string_view(" .,;:)").find(
                                                          text[end + 1]) != absl::string_view::npos;
        if (at_end && text[end - 1] != ' ') break;
      }
      if (end != absl::string_view::npos) {
        absl::StrAppend(&out, "<em>", HtmlEscape(text.substr(i + 1, end - i - 1)), "</em>");
        i = end + 1;
        continue;
      }
    }
    out += HtmlEscape(text.substr(i, 1));
    ++i;
  }
  return out;
}

// The cells of a pipe-table line; `\|` is a '|' inside a cell.
std::vector<std::string> TableCells(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  absl::ConsumePrefix(&line, "|");
  if (absl::EndsWith(line, "|") && !absl::EndsWith(line, "\\|")) line.remove_suffix(1);
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(std::string(absl::StripAsciiWhitespace(cell)));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  cells.push_back(std::string(absl::StripAsciiWhitespace(cell)));
  return cells;
}

bool IsRuleRow(const std::vector<std::string>& cells) {
  for (const std::string& cell : cells) {
    if (cell.empty() || cell.find_first_not_of("-:") != std::string::npos) return false;
  }
  return true;
}

std::string TableHtml(const std::vector<absl::string_view>& lines) {
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : lines) rows.push_back(TableCells(line));
  std::vector<bool> right;
  size_t body_start = 1;
  if (rows.size() >= 2 && IsRuleRow(rows[1])) {
    for (const std::string& cell : rows[1]) right.push_back(absl::EndsWith(cell, ":"));
    body_start = 2;
  }
  auto cell_html = [&](const char* tag, size_t column, const std::string& text) {
    const bool num = column < right.size() && right[column];
    return absl::StrCat("<", tag, num ? " class=\"num\"" : "", ">", InlineHtml(text), "</", tag,
                        ">");
  };
  std::string out = "<table>\n<thead><tr>";
  for (size_t c = 0; c < rows[0].size(); ++c) out += cell_html("th", c, rows[0][c]);
  out += "</tr></thead>\n<tbody>\n";
  for (size_t r = body_start; r < rows.size(); ++r) {
    out += "<tr>";
    for (size_t c = 0; c < rows[r].size(); ++c) out += cell_html("td", c, rows[r][c]);
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out;
}

// ---------------------------------------------------------------------------
// Links.

std::string UnescapeEntities(absl::string_view text) {
  static const std::pair<absl::string_view, char> kEntities[] = {{"&amp;", '&'},  {"&lt;", '<'},
                                                                 {"&gt;", '>'},   {"&quot;", '"'},
                                                                 {"&#39;", '\''}, {"&#x27;", '\''}};
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text[i] == '&') {
      for (const auto& [entity, c] : kEntities) {
        if (text.substr(i, entity.size()) == entity) {
          out += c;
          i += entity.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

std::string PercentDecode(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && absl::ascii_isxdigit(text[i + 1]) &&
        absl::ascii_isxdigit(text[i + 2])) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The link targets of one tag's text (between '<' and '>'): values of src,
// href (also xlink:href) and data attributes.
void TagLinks(absl::string_view tag, std::vector<std::string>* links) {
  size_t i = 0;
  // Skip the tag name.
  while (i < tag.size() && !absl::ascii_isspace(tag[i])) ++i;
  while (i < tag.size()) {
    while (i < tag.size() && (absl::ascii_isspace(tag[i]) || tag[i] == '/')) ++i;
    const size_t name_start = i;
    while (i < tag.size() && !absl::ascii_isspace(tag[i]) && tag[i] != '=' && tag[i] != '/') ++i;
    const std::string name = absl::AsciiStrToLower(tag.substr(name_start, i - name_start));
    if (name.empty()) {
      ++i;
      continue;
    }
    while (i < tag.size() && absl::ascii_isspace(tag[i])) ++i;
    if (i >= tag.size() || tag[i] != '=') continue;
    ++i;
    while (i < tag.size() && absl::ascii_isspace(tag[i])) ++i;
    absl::string_view value;
    if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
      const char quote = tag[i];
      const size_t end = tag.find(quote, i + 1);
      const size_t stop = end == absl::string_view::npos ? tag.size() : end;
      value = tag.substr(i + 1, stop - i - 1);
      i = stop + 1;
    } else {
      const size_t start = i;
      while (i < tag.size() && !absl::ascii_isspace(tag[i])) ++i;
      value = tag.substr(start, i - start);
    }
    if (name == "src" || name == "href" || name == "xlink:href" || name == "data") {
      links->push_back(UnescapeEntities(value));
    }
  }
}

// ---------------------------------------------------------------------------
// Trends.

constexpr double kTrendWidth = 420;
constexpr double kTrendHeight = 150;
constexpr double kTrendLeft = 64;
constexpr double kTrendRight = 12;
constexpr double kTrendTop = 12;
constexpr double kTrendBottom = 30;

std::string Coord(double v) { return absl::StrFormat("%.1f", v); }

std::string ShortCommit(const std::string& commit) { return commit.substr(0, 12); }

// Per run: point -> its last attempt.
std::map<std::string, const RunPoint*> LastAttempts(const RunData& run) {
  std::map<std::string, const RunPoint*> out;
  for (const RunPoint& point : run.points) {
    auto [it, inserted] = out.emplace(point.point, &point);
    if (!inserted && point.attempt >= it->second->attempt) it->second = &point;
  }
  return out;
}

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

constexpr char kStyle[] = R"(body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
th.num, td.num { text-align: right; }
code { font-size: 0.95em; }
.unavailable { background: #fff4e5; border-left: 4px solid #e69500; padding: 0.5em; }
.ok { background: #eef8ee; border-left: 4px solid #3a3; padding: 0.5em; }
.failed { background: #fdecea; border-left: 4px solid #c00; color: #900; padding: 0.5em; }
td.failed { border-left: 4px solid #c00; }
#findings h3 { margin-bottom: 0.2em; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; }
figure img { max-width: 640px; border: 1px solid #ddd; }
figure.trend figcaption { font-size: 0.75em; max-width: 420px; word-break: break-all; }
)";

// Every run folder at or below `root` (a folder with manifest.json).
std::vector<fs::path> RunFolders(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::exists(root / "manifest.json", ec)) out.push_back(root);
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && fs::exists(it->path() / "manifest.json", ec)) {
      out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string PageHead(const std::string& title) {
  return absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
                      "<title>", HtmlEscape(title), "</title>\n<style>\n", kStyle,
                      "</style>\n</head>\n<body>\n");
}

std::string HtmlEscape(absl::string_view text) {
  // The five markup characters, as in JUnit XML (&apos; is valid HTML5).
  return XmlEscape(std::string_view(text.data(), text.size()));
}

std::string MarkdownToHtml(absl::string_view markdown) {
  const std::vector<absl::string_view> lines = absl::StrSplit(markdown, '\n');
  std::string out;
  std::vector<absl::string_view> paragraph;
  auto flush_paragraph = [&] {
    if (paragraph.empty()) return;
    out += "<p>";
    for (size_t i = 0; i < paragraph.size(); ++i) {
      if (i > 0) out += "<br>\n";
      out += InlineHtml(paragraph[i]);
    }
    out += "</p>\n";
    paragraph.clear();
  };
  for (size_t i = 0; i < lines.size();) {
    const absl::string_view line = absl::StripTrailingAsciiWhitespace(lines[i]);
    if (line.empty()) {
      flush_paragraph();
      ++i;
      continue;
    }
    size_t level = 0;
    while (level < line.size() && line[level] == '#') ++level;
    if (level >= 1 && level <= 6 && level < line.size() && line[level] == ' ') {
      flush_paragraph();
      absl::StrAppend(&out, "<h", level, ">", InlineHtml(line.substr(level + 1)), "</h", level,
                      ">\n");
      ++i;
      continue;
    }
    if (line[0] == '|') {
      flush_paragraph();
      std::vector<absl::string_view> table;
      while (i < lines.size() && absl::StartsWith(lines[i], "|")) {
        table.push_back(absl::StripTrailingAsciiWhitespace(lines[i]));
        ++i;
      }
      out += TableHtml(table);
      continue;
    }
    if (absl::StartsWith(line, "- ")) {
      flush_paragraph();
      out += "<ul>\n";
      while (i < lines.size() && absl::StartsWith(lines[i], "- ")) {
        absl::StrAppend(&out, "<li>",
                        InlineHtml(absl::StripTrailingAsciiWhitespace(lines[i].substr(2))),
                        "</li>\n");
        ++i;
      }
      out += "</ul>\n";
      continue;
    }
    paragraph.push_back(line);
    ++i;
  }
  flush_paragraph();
  return out;
}

std::vector<std::string> BrokenLocalLinks(absl::string_view html, const std::string& page_dir) {
  std::vector<std::string> links;
  for (size_t i = 0; i < html.size();) {
    if (html[i] != '<' || i + 1 >= html.size() || !absl::ascii_isalpha(html[i + 1])) {
      ++i;
      continue;
    }
    // The tag runs to the first '>' outside quotes.
    size_t j = i + 1;
    char quote = 0;
    for (; j < html.size(); ++j) {
      if (quote != 0) {
        if (html[j] == quote) quote = 0;
      } else if (html[j] == '"' || html[j] == '\'') {
        quote = html[j];
      } else if (html[j] == '>') {
        break;
      }
    }
    TagLinks(html.substr(i + 1, j - i - 1), &links);
    i = j + 1;
  }
  std::vector<std::string> broken;
  for (const std::string& link : links) {
    absl::string_view target = link;
    if (absl::StartsWith(target, "#")) continue;
    const size_t colon = target.find(':');
    const size_t slash = target.find('/');
    const bool has_scheme = colon != absl::string_view::npos && colon > 0 &&
                            (slash == absl::string_view::npos || colon < slash);
    if (has_scheme) {
      if (!absl::StartsWithIgnoreCase(target, "file://")) continue;
      target.remove_prefix(7);
      // file://host/path: only the local host (empty or localhost) is local.
      const size_t path_start = target.find('/');
      target = path_start == absl::string_view::npos ? "" : target.substr(path_start);
    }
    target = target.substr(0, std::min(target.find('#'), target.find('?')));
    const std::string decoded = PercentDecode(target);
    const fs::path path = decoded.empty()     ? fs::path(page_dir)
                          : decoded[0] == '/' ? fs::path(decoded)
                                              : fs::path(page_dir) / decoded;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      broken.push_back(absl::StrCat(link, " (", path.lexically_normal().string(), ")"));
    }
  }
  return broken;
}

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

std::string HeadlineMetric(absl::string_view experiment) {
  static const std::map<absl::string_view, absl::string_view> kHeadline = {
      {"memory_latency", "cycles_per_load"},
      {"shared_latency", "cycles_per_load"},
      {"latency_trace", "level1_cycles"},
      {"memory_bandwidth", "bandwidth_gbps"},
      {"relu", "bandwidth_gbps"},
      {"relu_bandwidth", "bandwidth_gbps"},
      {"shared_bandwidth", "bytes_per_clk_per_sm"},
      {"l1_bypass", "kernel_us"},
      {"mma_sync", "cycles_per_mma"},
      {"wgmma", "cycles_per_wgmma"},
      {"cublaslt_gemm", "tflops"},
      {"hierarchy_summary", "latency_cycles"},
  };
  auto it = kHeadline.find(experiment);
  return it == kHeadline.end() ? "" : std::string(it->second);
}

DashboardFindings CheckNight(const std::vector<RunData>& night_runs,
                             const std::map<std::string, std::vector<RunData>>& history,
                             const Thresholds& thresholds, int nights) {
  DashboardFindings findings;
  findings.available = true;
  for (const RunData& run : night_runs) {
    std::vector<RunData> before;
    auto h = history.find(DeviceKey(run.info));
    if (h != history.end()) {
      for (const RunData& earlier : h->second) {
        if (earlier.info.started < run.info.started) before.push_back(earlier);
      }
    }
    if (nights > 0 && before.size() > static_cast<size_t>(nights)) {
      before.erase(before.begin(), before.end() - nights);
    }
    if (before.empty()) {
      findings.notes.push_back(absl::StrCat(DeviceLabel(run.info), ", run ", run.info.run_id,
                                            ": no earlier night to compare with"));
      continue;
    }
    absl::StatusOr<ComparisonSide> baseline = SideOfNights(before);
    if (!baseline.ok()) {
      findings.notes.push_back(absl::StrCat(DeviceLabel(run.info), ", run ", run.info.run_id, ": ",
                                            baseline.status().message()));
      continue;
    }
    const RegressionReport report = CompareSides(*baseline, SideOfRun(run), thresholds);
    for (const MetricComparison& c : report.comparisons) {
      if (c.verdict != Verdict::kRegression) continue;
      DashboardFinding f;
      f.device = DeviceLabel(run.info);
      f.run_id = run.info.run_id;
      f.point = c.point;
      f.metric = c.metric;
      f.unit = c.unit;
      f.value = c.candidate;
      f.baseline = c.baseline;
      f.change_pct = c.change * 100;
      std::vector<std::string> notes = {absl::StrCat(
          "threshold ", FormatPercent(c.threshold), " (", DirectionName(c.direction), "); ",
          "median of ", before.size(), before.size() == 1 ? " night" : " nights")};
      notes.insert(notes.end(), c.annotations.begin(), c.annotations.end());
      f.annotation = absl::StrJoin(notes, "; ");
      findings.regressions.push_back(std::move(f));
    }
  }
  const OutlierReport outliers = FindFleetOutliers(night_runs, thresholds);
  for (const FleetModel& model : outliers.models) {
    if (!model.enough_cards) {
      findings.notes.push_back(absl::StrCat("fleet outliers: ", model.device_name, ": ",
                                            model.cards.size(), " card(s), fewer than ",
                                            kMinFleetCards, ": not checked"));
    }
  }
  for (const std::string& note : outliers.notes) findings.notes.push_back(note);
  for (const OutlierFinding& o : outliers.outliers) {
    DashboardFinding f;
    f.device =
        absl::StrCat(o.device_name, " (card ", o.card, o.host.empty() ? "" : ", ", o.host, ")");
    f.run_id = o.run_id;
    f.point = o.point;
    f.metric = o.metric;
    f.unit = o.unit;
    f.value = o.value;
    f.baseline = o.fleet_median;
    f.change_pct = o.deviation * 100;
    f.annotation = absl::StrCat(o.worse ? "worse" : "better", " than the fleet of ", o.fleet_cards,
                                " cards (threshold ", FormatPercent(o.threshold), ")",
                                o.throttled ? "; throttled" : "");
    findings.outliers.push_back(std::move(f));
  }
  return findings;
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

std::string NightOf(const RunInfo& info) {
  const std::string& s = info.started;
  const bool date = s.size() >= 10 && s[4] == '-' && s[7] == '-' &&
                    std::all_of(s.begin(), s.begin() + 4, absl::ascii_isdigit) &&
                    absl::ascii_isdigit(s[5]) && absl::ascii_isdigit(s[6]) &&
                    absl::ascii_isdigit(s[8]) && absl::ascii_isdigit(s[9]);
  return date ? s.substr(0, 10) : "unknown";
}

std::string DeviceKey(const RunInfo& info) {
  if (!info.device_uuid.empty()) return info.device_uuid;
  if (!info.device_serial.empty()) return info.device_serial;
  return absl::StrCat(info.device_name, "@", info.host);
}

std::string DeviceLabel(const RunInfo& info) {
  std::string label = info.device_name.empty() ? "unknown device" : info.device_name;
  std::vector<std::string> where;
  if (!info.host.empty()) where.push_back(info.host);
  if (!info.device_uuid.empty()) where.push_back(info.device_uuid.substr(0, 12));
  if (!where.empty()) absl::StrAppend(&label, " (", absl::StrJoin(where, ", "), ")");
  return label;
}

std::vector<ResultFile> ResultFilesFromRun(const RunData& run) {
  std::vector<ResultFile> files;
  std::map<std::string, size_t> file_of;              // experiment -> index
  std::vector<std::map<std::string, size_t>> row_of;  // per file: point -> row index
  std::vector<std::map<std::string, int>> attempt_of;
  std::vector<std::set<std::string>> metrics_of;
  for (const RunPoint& point : run.points) {
    auto [it, inserted] = file_of.emplace(point.experiment, files.size());
    if (inserted) {
      ResultFile file;
      file.path = absl::StrCat("history:", run.info.run_id, "/", point.experiment);
      file.experiment = point.experiment;
      file.context = {{"dissect_experiment", point.experiment},
                      {"dissect_schema_version", std::string(kSupportedSchemaVersion)},
                      {"device_name", run.info.device_name},
                      {"git_commit", run.info.git_commit},
                      {"driver_version", run.info.driver_version},
                      {"host_name", run.info.host},
                      {"date", run.info.started}};
      files.push_back(std::move(file));
      row_of.emplace_back();
      attempt_of.emplace_back();
      metrics_of.emplace_back();
    }
    const size_t f = it->second;
    ResultFile& file = files[f];
    Row row;
    row.name = point.point + "/manual_time";
    const std::vector<absl::string_view> segments = absl::StrSplit(point.point, '/');
    for (size_t s = 1; s < segments.size(); ++s) {
      const size_t colon = segments[s].find(':');
      if (colon == absl::string_view::npos) continue;
      const std::string name(segments[s].substr(0, colon));
      row.axes.emplace_back(name, std::string(segments[s].substr(colon + 1)));
      if (std::find(file.axis_names.begin(), file.axis_names.end(), name) ==
          file.axis_names.end()) {
        file.axis_names.push_back(name);
      }
    }
    for (const auto& [metric, value] : point.metrics) {
      row.counters[metric] = value.value;
      if (value.spread) row.counters[metric + ".spread"] = *value.spread;
      if (metrics_of[f].insert(metric).second && !value.unit.empty()) {
        file.context["metric." + metric + ".unit"] = value.unit;
      }
    }
    if (point.throttled) row.counters["throttled"] = 1;
    if (point.attempt > 1) row.counters["attempt"] = point.attempt;
    row.time_unit = "ms";
    auto [row_it, new_row] = row_of[f].emplace(point.point, file.rows.size());
    if (new_row) {
      file.rows.push_back(std::move(row));
      attempt_of[f][point.point] = point.attempt;
    } else if (point.attempt >= attempt_of[f][point.point]) {
      file.rows[row_it->second] = std::move(row);
      attempt_of[f][point.point] = point.attempt;
    }
  }
  for (size_t f = 0; f < files.size(); ++f) {
    std::vector<std::string> metrics(metrics_of[f].begin(), metrics_of[f].end());
    const std::string headline = HeadlineMetric(files[f].experiment);
    auto head = std::find(metrics.begin(), metrics.end(), headline);
    if (head != metrics.end()) std::rotate(metrics.begin(), head, head + 1);
    files[f].metric_names = metrics;
    files[f].context["dissect_metrics"] = absl::StrJoin(metrics, ",");
    files[f].context["dissect_axes"] = absl::StrJoin(files[f].axis_names, ",");
  }
  return files;
}

std::vector<TrendSeries> SelectTrends(const std::vector<RunData>& device_history,
                                      const std::string& night,
                                      const std::vector<DashboardFinding>& findings, int max_nights,
                                      int max_plots, std::vector<std::string>* notes) {
  std::vector<std::map<std::string, const RunPoint*>> points;
  for (const RunData& run : device_history) points.push_back(LastAttempts(run));
  std::set<std::string> night_run_ids;
  for (const RunData& run : device_history) {
    if (NightOf(run.info) == night) night_run_ids.insert(run.info.run_id);
  }
  // (point, metric) pairs: the findings', then the headline of every point.
  std::vector<std::pair<std::string, std::string>> pairs;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](const std::string& point, const std::string& metric) {
    if (seen.insert({point, metric}).second) pairs.push_back({point, metric});
  };
  for (const DashboardFinding& finding : findings) {
    if (night_run_ids.count(finding.run_id) > 0) add(finding.point, finding.metric);
  }
  for (size_t r = 0; r < device_history.size(); ++r) {
    if (night_run_ids.count(device_history[r].info.run_id) == 0) continue;
    for (const auto& [name, point] : points[r]) {
      if (point->metrics.empty()) continue;
      const std::string headline = HeadlineMetric(point->experiment);
      add(name, point->metrics.count(headline) > 0 ? headline : point->metrics.begin()->first);
    }
  }
  if (max_plots >= 0 && pairs.size() > static_cast<size_t>(max_plots)) {
    if (notes != nullptr) {
      notes->push_back(absl::StrCat(pairs.size() - max_plots, " of ", pairs.size(),
                                    " trend plots left out (at most ", max_plots,
                                    " per device; the findings' first)"));
    }
    pairs.resize(max_plots);
  }
  const std::string device = device_history.empty() ? "" : DeviceLabel(device_history.back().info);
  std::vector<TrendSeries> out;
  for (const auto& [point_name, metric] : pairs) {
    TrendSeries series;
    series.device = device;
    series.point = point_name;
    series.metric = metric;
    for (size_t r = 0; r < device_history.size(); ++r) {
      if (NightOf(device_history[r].info) > night) continue;
      auto p = points[r].find(point_name);
      if (p == points[r].end()) continue;
      auto m = p->second->metrics.find(metric);
      if (m == p->second->metrics.end()) continue;
      series.experiment = p->second->experiment;
      if (!m->second.unit.empty()) series.unit = m->second.unit;
      const RunInfo& info = device_history[r].info;
      series.samples.push_back({info.run_id, info.started, m->second.value, m->second.spread,
                                info.driver_version, info.git_commit});
    }
    if (max_nights > 0 && series.samples.size() > static_cast<size_t>(max_nights)) {
      series.samples.erase(series.samples.begin(), series.samples.end() - max_nights);
    }
    out.push_back(std::move(series));
  }
  return out;
}

std::string RunGnuplotScript(const std::string& dir, const std::string& script) {
  const int status = RunGnuplot(dir, script);
  if (status == 127) return "gnuplot could not be run (not on PATH? Debian package gnuplot-nox)";
  if (status != 0) return absl::StrCat("gnuplot failed on ", script, " (status ", status, ")");
  const fs::path svg = fs::path(dir) / fs::path(script).replace_extension(".svg");
  std::error_code ec;
  if (!fs::exists(svg, ec)) return absl::StrCat("gnuplot wrote no ", svg.filename().string());
  return "";
}

absl::StatusOr<DashboardSummary> WriteDashboard(const DashboardInput& input,
                                                const std::string& out_dir,
                                                const DashboardOptions& options) {
  if (input.runs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(input.origin.empty() ? "the history" : input.origin, " holds no runs"));
  }
  std::vector<const RunData*> runs, imported;  // our nights' runs; other suites' results
  for (const RunData& run : input.runs) (IsImported(run.info) ? imported : runs).push_back(&run);
  std::stable_sort(runs.begin(), runs.end(), [](const RunData* a, const RunData* b) {
    return a->info.started < b->info.started;
  });
  std::map<std::string, std::vector<const RunData*>> by_night;
  for (const RunData* run : runs) by_night[NightOf(run->info)].push_back(run);

  DashboardSummary summary;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(out_dir, ": cannot create: ", ec.message()));

  std::vector<NightSummary> nights;
  std::vector<std::pair<std::string, std::string>> written;  // night pages: path, html
  for (auto night_it = by_night.rbegin(); night_it != by_night.rend(); ++night_it) {
    const std::string& night = night_it->first;
    const fs::path night_dir = fs::path(out_dir) / night;
    fs::remove_all(night_dir / "figures", ec);
    fs::create_directories(night_dir, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat(night_dir.string(), ": cannot create: ", ec.message()));
    }
    NightPage page;
    page.night = night;
    std::vector<RunData> night_runs;
    std::map<std::string, std::vector<RunData>> history;
    for (const RunData* run : night_it->second) {
      page.runs.push_back(run->info);
      night_runs.push_back(*run);
      history[DeviceKey(run->info)];
    }
    page.status = NightStatusOf(night_runs);
    if (page.status.Broken()) {
      summary.broken_nights.push_back(NightStatusWarning(night, page.status));
      summary.newest_night_broken = summary.newest_night_broken || night_it == by_night.rbegin();
    }
    // Per device its last `history_runs` runs up to the night (not the
    // whole history: every night page would copy it).
    std::map<std::string, std::vector<const RunData*>> upto;
    for (const RunData* run : runs) {
      auto h = history.find(DeviceKey(run->info));
      if (h != history.end() && NightOf(run->info) <= night) upto[h->first].push_back(run);
    }
    const size_t keep = static_cast<size_t>(std::max(1, options.history_runs));
    for (auto& [key, device_runs] : upto) {
      for (size_t i = device_runs.size() > keep ? device_runs.size() - keep : 0;
           i < device_runs.size(); ++i) {
        history[key].push_back(*device_runs[i]);
      }
    }
    if (options.find) {
      page.findings = options.find(night_runs, history);
    } else {
      page.findings.unavailable_reason = options.findings_unavailable_reason;
    }

    std::vector<ResultFile> files;
    for (const RunData* run : night_it->second) {
      auto raw = input.raw_files.find(run->info.run_id);
      if (raw != input.raw_files.end() && !raw->second.empty()) {
        files.insert(files.end(), raw->second.begin(), raw->second.end());
        page.sources.push_back(absl::StrCat(DeviceLabel(run->info), ", run ", run->info.run_id,
                                            ": the run's result files"));
      } else {
        std::vector<ResultFile> rebuilt = ResultFilesFromRun(*run);
        files.insert(files.end(), rebuilt.begin(), rebuilt.end());
        page.sources.push_back(
            absl::StrCat(DeviceLabel(run->info), ", run ", run->info.run_id,
                         ": rebuilt from the stored values (medians, spreads, units; no clocks, "
                         "labels or device facts)"));
      }
    }
    absl::StatusOr<std::string> report = RenderReport(files, options.report);
    if (report.ok()) {
      page.report_markdown = *report;
    } else {
      page.report_error = std::string(report.status().message());
    }

    absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(files);
    if (!figures.ok()) {
      page.figure_problems.push_back(absl::StrCat("no figures: ", figures.status().message()));
    } else if (!options.run_gnuplot) {
      page.figure_problems.push_back("figures not drawn: no gnuplot runner");
    } else {
      for (const DeviceFigures& device : *figures) {
        const fs::path dir = night_dir / "figures" / device.folder;
        fs::create_directories(dir, ec);
        if (ec) {
          return absl::InternalError(absl::StrCat(dir.string(), ": cannot create: ", ec.message()));
        }
        for (const FigureFile& file : device.files) {
          if (absl::Status s = result_format::WriteFileAtomically((dir / file.name).string(), file.contents);
              !s.ok())
            return s;
        }
        for (const std::string& script : device.scripts) {
          const std::string stem = fs::path(script).stem().string();
          const std::string why = options.run_gnuplot(dir.string(), script);
          if (why.empty() && fs::exists(dir / (stem + ".svg"), ec)) {
            page.figures.push_back({device.device_name, stem,
                                    absl::StrCat("figures/", device.folder, "/", stem, ".svg")});
          } else {
            const std::string message = absl::StrCat(device.device_name, ": ", stem,
                                                     " not drawn: ", why.empty() ? "no SVG" : why);
            page.figure_problems.push_back(message);
            summary.warnings.push_back(absl::StrCat(night, ": ", message));
          }
        }
      }
    }

    std::vector<DashboardFinding> all_findings = page.findings.regressions;
    all_findings.insert(all_findings.end(), page.findings.outliers.begin(),
                        page.findings.outliers.end());
    for (const auto& [key, device_history] : history) {
      std::vector<TrendSeries> trends =
          SelectTrends(device_history, night, all_findings, options.trend_nights,
                       options.trend_plots_per_device, &page.trend_notes);
      page.trends.insert(page.trends.end(), trends.begin(), trends.end());
    }

    const std::string html = RenderNightPage(page);
    if (absl::Status s = result_format::WriteFileAtomically((night_dir / "index.html").string(), html); !s.ok())
      return s;
    written.push_back({(night_dir / "index.html").string(), html});

    NightSummary night_summary;
    night_summary.night = night;
    for (const RunInfo& info : page.runs) night_summary.devices.push_back(DeviceLabel(info));
    night_summary.status = page.status;
    night_summary.findings_available = page.findings.available;
    night_summary.regressions = static_cast<int>(page.findings.regressions.size());
    night_summary.outliers = static_cast<int>(page.findings.outliers.size());
    nights.push_back(std::move(night_summary));
  }
  if (!imported.empty()) {
    absl::StatusOr<std::pair<std::string, std::string>> page =
        WriteImportedPage(imported, input, out_dir, options.report);
    if (!page.ok()) return page.status();
    written.push_back(*std::move(page));
  }
  const fs::path index = fs::path(out_dir) / "index.html";
  const std::string index_html = RenderIndexPage(nights, ImportedIndexHtml(imported));
  if (absl::Status s = result_format::WriteFileAtomically(index.string(), index_html); !s.ok()) return s;
  written.insert(written.begin(), {index.string(), index_html});

  std::vector<std::string> broken;
  for (const auto& [page, html] : written) {
    summary.pages.push_back(page);
    for (const std::string& link : BrokenLocalLinks(html, fs::path(page).parent_path().string())) {
      broken.push_back(absl::StrCat(page, ": ", link));
    }
  }
  if (!broken.empty()) {
    return absl::InternalError(absl::StrCat("broken local links: ", absl::StrJoin(broken, "; ")));
  }
  return summary;
}

absl::StatusOr<DashboardInput> ReadDashboardInput(const std::string& history) {
  DashboardInput input;
  std::error_code ec;
  if (!fs::exists(history, ec)) {
    return absl::NotFoundError(
        absl::StrCat(history, ": no such history database or folder of run folders"));
  }
  if (!fs::is_directory(history, ec)) return ReadHistoryDatabase(history);
  input.origin = "run folders under " + history;
  for (const fs::path& dir : RunFolders(history)) {
    absl::StatusOr<RunData> run = ReadRunFolder(dir.string(), &input.bad);
    if (!run.ok()) return run.status();
    std::vector<ResultFile> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".json" || entry.path().filename() == "manifest.json") {
        continue;
      }
      absl::StatusOr<ResultFile> file = ReadResultFile(entry.path().string());
      if (!file.ok()) continue;  // ReadRunFolder named it in `bad`
      // Named on the page as the history database names it, not by this
      // machine's path.
      file->path = RunFileName(dir.string(), entry.path().string());
      files.push_back(*std::move(file));
    }
    std::sort(files.begin(), files.end(),
              [](const ResultFile& a, const ResultFile& b) { return a.path < b.path; });
    input.raw_files[run->info.run_id] = std::move(files);
    input.runs.push_back(*std::move(run));
  }
  return input;
}

}  // namespace dissect::analysis
