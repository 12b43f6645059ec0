// Number formatting and markdown tables (see format.h).

#include "analysis/format/format.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dissect::analysis {

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  // Whole numbers up to 15 digits read better than 1.235e+05.
  if (magnitude >= 1e4 && magnitude < 1e15) {
    return absl::StrFormat("%.0f", value);
  }
  return absl::StrFormat("%.4g", value);
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return FormatNumber(fraction);
  const double percent = fraction * 100;
  if (percent > 0 && percent < 0.05) return "<0.1%";
  return absl::StrFormat("%.1f%%", percent);
}

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes)) return FormatNumber(bytes);
  static constexpr struct {
    double size;
    const char* name;
  } kUnits[] = {{1024.0 * 1024 * 1024 * 1024, "TiB"},
                {1024.0 * 1024 * 1024, "GiB"},
                {1024.0 * 1024, "MiB"},
                {1024.0, "KiB"}};
  for (const auto& unit : kUnits) {
    if (std::fabs(bytes) >= unit.size) {
      return absl::StrCat(FormatNumber(bytes / unit.size), " ", unit.name);
    }
  }
  return absl::StrCat(FormatNumber(bytes), " B");
}

std::string ShortCommit(const std::string& commit) { return commit.substr(0, 12); }

size_t DisplayWidth(const std::string& s) {
  return std::count_if(s.begin(), s.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

std::string CellText(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

std::string Pad(const std::string& s, size_t width, bool right_aligned) {
  const std::string fill(width - std::min(width, DisplayWidth(s)), ' ');
  return right_aligned ? fill + s : s + fill;
}

}  // namespace

std::string RenderMarkdownTable(const MarkdownTable& table) {
  if (table.rows.empty()) return "_no rows_\n";
  std::vector<size_t> widths;
  for (const MarkdownColumn& column : table.columns) {
    widths.push_back(std::max<size_t>(3, DisplayWidth(column.header)));
  }
  for (const auto& row : table.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  std::string out = "|";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    absl::StrAppend(&out, " ", Pad(table.columns[i].header, widths[i], false), " |");
  }
  out += "\n|";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const std::string rule = table.columns[i].right_aligned
                                 ? std::string(widths[i] - 1, '-') + ":"
                                 : std::string(widths[i], '-');
    absl::StrAppend(&out, " ", rule, " |");
  }
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (size_t i = 0; i < row.size(); ++i) {
      absl::StrAppend(&out, " ", Pad(row[i], widths[i], table.columns[i].right_aligned), " |");
    }
    out += "\n";
  }
  return out;
}

}  // namespace dissect::analysis
