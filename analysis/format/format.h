// Number formatting and markdown tables shared by the report, the
// memory-hierarchy table, the comparison and the figures.

#ifndef DISSECT_ANALYSIS_FORMAT_FORMAT_H_
#define DISSECT_ANALYSIS_FORMAT_FORMAT_H_

#include <string>
#include <vector>

namespace dissect::analysis {

// A number with about four significant digits: "29.03", "0.5", "12346",
// "1.5e-05", "nan", "inf".
std::string FormatNumber(double value);
// A fraction as a percentage with one decimal: 0.0123 -> "1.2%",
// 0.0001 -> "<0.1%", 0 -> "0.0%".
std::string FormatPercent(double fraction);
// A byte count in binary units: 4 -> "4 B", 262144 -> "256 KiB",
// 50331648 -> "48 MiB", 1536 -> "1.5 KiB", 1073741824 -> "1 GiB".
std::string FormatBytes(double bytes);
// The first 12 characters of a git commit, as the tables show it.
std::string ShortCommit(const std::string& commit);

// Placeholder for a table cell without a value.
inline constexpr char kEmptyCell[] = "—";

struct MarkdownColumn {
  std::string header;
  bool right_aligned = false;
};

struct MarkdownTable {
  std::vector<MarkdownColumn> columns;
  // One cell per column.
  std::vector<std::vector<std::string>> rows;
};

// Width in characters of UTF-8 text (counts code points; enough for the
// dashes and similar characters used in tables).
size_t DisplayWidth(const std::string& s);
// Makes arbitrary text safe inside a markdown table cell ('|' escaped,
// line breaks turned into spaces).
std::string CellText(const std::string& s);
// The table with its columns padded to a common width (right-aligned
// columns get a `---:` rule); "_no rows_" for a table without rows. Ends
// with a newline.
std::string RenderMarkdownTable(const MarkdownTable& table);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_FORMAT_FORMAT_H_
