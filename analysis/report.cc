// Markdown report over dissect result files (see report.h).

#include "analysis/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace dissect::analysis {
namespace {

// Placeholder for values an error row does not have.
constexpr char kNoValue[] = "—";

struct Column {
  std::string header;
  bool right_aligned = false;
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
};

// Width in characters of UTF-8 text (counts code points; enough for the
// em dash and similar characters used here).
size_t DisplayWidth(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  });
}

// Makes arbitrary text safe inside a markdown table cell.
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

std::string Pad(const std::string& s, size_t width, bool right_aligned) {
  const std::string fill(width - std::min(width, DisplayWidth(s)), ' ');
  return right_aligned ? fill + s : s + fill;
}

std::string RenderTable(const Table& table) {
  if (table.rows.empty()) return "_no rows_\n";
  std::vector<size_t> widths;
  for (const Column& column : table.columns) {
    widths.push_back(std::max<size_t>(3, DisplayWidth(column.header)));
  }
  for (const auto& row : table.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  std::string out = "|";
  for (size_t i = 0; i < table.columns.size(); ++i) {
    absl::StrAppend(&out, " ", Pad(table.columns[i].header, widths[i], false),
                    " |");
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
      absl::StrAppend(&out, " ",
                      Pad(row[i], widths[i], table.columns[i].right_aligned),
                      " |");
    }
    out += "\n";
  }
  return out;
}

// `name (unit)`, or just `name` when the unit is unknown or `-`.
std::string Header(const std::string& name, const std::string& unit) {
  if (unit.empty() || unit == "-") return name;
  return absl::StrCat(name, " (", unit, ")");
}

std::string DeviceLine(const ResultFile& file) {
  std::string commit = file.ContextOr("git_commit", "").substr(0, 12);
  if (commit.empty()) commit = "unknown";
  if (file.ContextOr("git_dirty", "") == "true") commit += "+dirty";
  return absl::StrCat(file.ContextOr("device_name", "unknown device"), " · cc ",
                      file.ContextOr("device_compute_capability", "?"), " · ",
                      file.ContextOr("device_sm_count", "?"), " SMs · commit ",
                      commit, " · `", file.path, "`");
}

std::string DeviceKey(const ResultFile& file) {
  return absl::StrCat(file.ContextOr("device_name", ""), "\n",
                      file.ContextOr("device_compute_capability", ""), "\n",
                      file.ContextOr("device_sm_count", ""));
}

// True if `a` and `b` produce the same table columns.
bool SameColumns(const ResultFile& a, const ResultFile& b) {
  if (a.axis_names != b.axis_names || a.metric_names != b.metric_names) {
    return false;
  }
  for (const std::string& axis : a.axis_names) {
    if (a.AxisUnit(axis) != b.AxisUnit(axis)) return false;
    const std::string type_key = absl::StrCat("axis.", axis, ".type");
    if (a.ContextOr(type_key, "") != b.ContextOr(type_key, "")) return false;
  }
  for (const std::string& metric : a.metric_names) {
    if (a.MetricUnit(metric) != b.MetricUnit(metric)) return false;
  }
  return true;
}

std::string Notes(const Row& row) {
  std::vector<std::string> notes;
  if (row.error) {
    if (absl::StartsWith(row.error_message, "skipped: ") ||
        absl::StartsWith(row.error_message, "error: ")) {
      notes.push_back(row.error_message);
    } else {
      notes.push_back(absl::StrCat("error: ", row.error_message));
    }
  }
  if (const std::optional<double> throttled = row.Counter("throttled");
      throttled.has_value() && *throttled != 0) {
    notes.push_back(row.label.empty() ? "throttled"
                                      : absl::StrCat("throttled: ", row.label));
  }
  return absl::StrJoin(notes, "; ");
}

std::string SmClock(const Row& row) {
  const std::optional<double> before = row.Counter("sm_clock_mhz.before");
  const std::optional<double> after = row.Counter("sm_clock_mhz.after");
  if (before && after) return absl::StrFormat("%.0f", (*before + *after) / 2);
  if (before) return absl::StrFormat("%.0f", *before);
  if (after) return absl::StrFormat("%.0f", *after);
  return "";
}

// One table over `files`, which all have the columns of files[0]. With
// `file_column`, a leading column gives the 1-based index of each row's file.
Table BuildTable(const std::vector<const ResultFile*>& files,
                 bool file_column) {
  const ResultFile& shape = *files.front();
  Table table;
  if (file_column) table.columns.push_back({"file", false});
  for (const std::string& axis : shape.axis_names) {
    const bool numeric =
        shape.ContextOr(absl::StrCat("axis.", axis, ".type"), "") == "int64";
    table.columns.push_back({Header(axis, shape.AxisUnit(axis)), numeric});
  }
  for (const std::string& metric : shape.metric_names) {
    table.columns.push_back({Header(metric, shape.MetricUnit(metric)), true});
  }
  const bool has_spread = !shape.metric_names.empty();
  if (has_spread) table.columns.push_back({"spread", true});
  table.columns.push_back({"sm MHz", true});
  table.columns.push_back({"notes", false});

  for (size_t f = 0; f < files.size(); ++f) {
    for (const Row& row : files[f]->rows) {
      std::vector<std::string> cells;
      if (file_column) cells.push_back(absl::StrCat("[", f + 1, "]"));
      for (const std::string& axis : shape.axis_names) {
        cells.push_back(CellText(row.Axis(axis).value_or("")));
      }
      for (const std::string& metric : shape.metric_names) {
        const std::optional<double> value = row.Counter(metric);
        cells.push_back(row.error ? kNoValue
                        : value   ? FormatNumber(*value)
                                  : "");
      }
      if (has_spread) {
        const std::optional<double> spread =
            row.Counter(absl::StrCat(shape.metric_names.front(), ".spread"));
        cells.push_back(row.error ? kNoValue
                        : spread  ? FormatPercent(*spread)
                                  : "");
      }
      cells.push_back(SmClock(row));
      cells.push_back(CellText(Notes(row)));
      table.rows.push_back(std::move(cells));
    }
  }
  return table;
}

// The blocks (paragraphs, lists, tables) of one experiment's section.
std::vector<std::string> SectionBlocks(
    const std::vector<const ResultFile*>& files) {
  std::vector<std::string> blocks;
  const ResultFile& first = *files.front();
  blocks.push_back(absl::StrCat("## ", first.experiment, "\n"));
  const std::string question = first.ContextOr("dissect_question", "");
  if (!question.empty()) blocks.push_back(absl::StrCat(question, "\n"));

  const bool one_table =
      std::all_of(files.begin(), files.end(), [&](const ResultFile* f) {
        return DeviceKey(*f) == DeviceKey(first) && SameColumns(*f, first);
      });
  if (!one_table) {
    for (const ResultFile* file : files) {
      blocks.push_back(absl::StrCat(DeviceLine(*file), "\n"));
      blocks.push_back(RenderTable(BuildTable({file}, false)));
    }
    return blocks;
  }
  if (files.size() == 1) {
    blocks.push_back(absl::StrCat(DeviceLine(first), "\n"));
  } else {
    std::string list;
    for (size_t i = 0; i < files.size(); ++i) {
      absl::StrAppend(&list, "- [", i + 1, "] ", DeviceLine(*files[i]), "\n");
    }
    blocks.push_back(list);
  }
  blocks.push_back(RenderTable(BuildTable(files, files.size() > 1)));
  return blocks;
}

}  // namespace

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

std::string RenderMarkdown(const std::vector<ResultFile>& files) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ResultFile*>> by_experiment;
  for (const ResultFile& file : files) {
    auto& group = by_experiment[file.experiment];
    if (group.empty()) order.push_back(file.experiment);
    group.push_back(&file);
  }
  std::vector<std::string> blocks;
  for (const std::string& experiment : order) {
    for (std::string& block : SectionBlocks(by_experiment[experiment])) {
      blocks.push_back(std::move(block));
    }
  }
  // Blocks end in a newline; a blank line separates them.
  return absl::StrJoin(blocks, "\n");
}

}  // namespace dissect::analysis
