// The dashboard's HTML: the Markdown subset the reports use rendered as
// HTML, the page head and style, and the check for broken local links.

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

}  // namespace dissect::analysis
