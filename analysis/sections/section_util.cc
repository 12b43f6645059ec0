// Helpers shared by report sections (see section_util.h).

#include "analysis/sections/section_util.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace dissect::analysis {

std::string SectionDeviceKey(const ResultFile& file) {
  return absl::StrCat(file.ContextOr("device_name", ""), "\n",
                      file.ContextOr("device_compute_capability", ""), "\n",
                      file.ContextOr("device_sm_count", ""), "\n", file.ContextOr("source", ""));
}

std::string SectionTitle(const ResultFile& file) {
  std::string title = file.ContextOr("device_name", "unknown device");
  if (const std::string source = file.ContextOr("source", ""); !source.empty()) {
    absl::StrAppend(&title, " (", source, ")");
  }
  return title;
}

std::string SectionDeviceLine(const ResultFile& file) {
  return absl::StrCat(file.ContextOr("device_name", "unknown device"), " · cc ",
                      file.ContextOr("device_compute_capability", "?"), " · ",
                      file.ContextOr("device_sm_count", "?"), " SMs");
}

std::optional<double> FiniteCounter(const Row& row, std::string_view counter) {
  const std::optional<double> value = row.Counter(counter);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

std::optional<double> RowRealTimeUs(const Row& row) {
  static const std::map<std::string, double> kPerUs = {
      {"ns", 1e-3}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}};
  const auto it = kPerUs.find(row.time_unit);
  if (row.error || it == kPerUs.end()) return std::nullopt;
  return row.real_time * it->second;
}

std::optional<std::string> LabelNote(std::string_view label, std::string_view key,
                                     char separator) {
  const std::string prefix = absl::StrCat(std::string(key), std::string(1, separator));
  for (absl::string_view part :
       absl::StrSplit(absl::string_view(label.data(), label.size()), ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (absl::ConsumePrefix(&part, prefix)) {
      return std::string(absl::StripLeadingAsciiWhitespace(part));
    }
  }
  return std::nullopt;
}

std::string OptionalCell(const std::optional<double>& value) {
  return value ? FormatNumber(*value) : kEmptyCell;
}

std::string OptionalPercentCell(const std::optional<double>& fraction) {
  return fraction ? FormatPercent(*fraction) : kEmptyCell;
}

MarkdownTable ColumnsTable(const std::vector<std::pair<std::string, bool>>& columns) {
  MarkdownTable table;
  for (const auto& [header, right] : columns) table.columns.push_back({header, right});
  return table;
}

void AddOnce(std::vector<std::string>& list, const std::string& text) {
  if (std::find(list.begin(), list.end(), text) == list.end()) list.push_back(text);
}

}  // namespace dissect::analysis
