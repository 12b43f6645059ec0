// Warp stall reasons per result row (see stalls.h).

#include "analysis/sections/stalls.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace dissect::analysis {
namespace {

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string CsvNumber(double value) { return absl::StrFormat("%.6g", value); }

}  // namespace

std::map<std::string, double> StallCounters(const Row& row) {
  std::map<std::string, double> out;
  for (const auto& [name, value] : row.counters) {
    if (name.rfind(kStallCounterPrefix, 0) != 0) continue;
    const std::string reason = name.substr(kStallCounterPrefix.size());
    if (!reason.empty()) out[reason] = value;
  }
  return out;
}

StallBreakdown NormalizeStalls(const std::map<std::string, double>& values) {
  StallBreakdown out;
  out.values = values;
  std::vector<std::string> invalid;
  for (const auto& [reason, value] : values) {
    if (!std::isfinite(value) || value < 0) {
      invalid.push_back(reason);
    } else {
      out.total += value;
    }
  }
  if (!invalid.empty()) {
    out.total = 0;
    out.valid = false;
    out.problem = absl::StrCat("negative or non-finite stall value (",
                               absl::StrJoin(invalid, ", "), ")");
    return out;
  }
  if (values.empty()) {
    out.problem = "no stall counters";
    return out;
  }
  if (!(out.total > 0)) {
    out.problem = "all stall counters are 0";
    return out;
  }
  double best = -1;
  for (const auto& [reason, value] : values) {
    const double fraction = value / out.total;
    out.fractions[reason] = fraction;
    if (fraction > best) {  // strict: the first by name wins a tie
      best = fraction;
      out.dominant = reason;
    }
  }
  return out;
}

std::string RowDisplayName(const ResultFile& file, const Row& row) {
  std::string out = file.experiment;
  for (const auto& [axis, value] : row.axes) {
    absl::StrAppend(&out, "/", axis, ":", value);
  }
  return out;
}

StallTable BuildStallTable(const std::vector<ResultFile>& files) {
  std::vector<const ResultFile*> pointers;
  for (const ResultFile& file : files) pointers.push_back(&file);
  return BuildStallTable(pointers);
}

StallTable BuildStallTable(const std::vector<const ResultFile*>& files) {
  StallTable table;
  std::map<std::string, double> share;
  for (const ResultFile* file_pointer : files) {
    const ResultFile& file = *file_pointer;
    if (auto it = file.context.find(std::string(kCountersUnavailableKey));
        it != file.context.end()) {
      table.unavailable.push_back({&file, it->second});
    }
    bool any = false;
    for (const Row& row : file.rows) {
      if (row.error) continue;
      std::map<std::string, double> values = StallCounters(row);
      if (values.empty()) continue;
      if (!any) {
        table.files.push_back(&file);
        any = true;
      }
      StallRow stall_row;
      stall_row.file = table.files.size() - 1;
      stall_row.name = RowDisplayName(file, row);
      stall_row.breakdown = NormalizeStalls(values);
      for (const auto& [reason, value] : values) share[reason] += 0;
      for (const auto& [reason, fraction] : stall_row.breakdown.fractions) {
        share[reason] += fraction;
      }
      table.rows.push_back(std::move(stall_row));
    }
  }
  for (const auto& [reason, total] : share) table.reasons.push_back(reason);
  std::stable_sort(table.reasons.begin(), table.reasons.end(),
                   [&](const std::string& a, const std::string& b) {
                     return share[a] > share[b];
                   });
  return table;
}

std::string StallsCsv(const StallTable& table) {
  std::vector<std::string> header = {"file", "device", "name", "total"};
  for (const std::string& reason : table.reasons) header.push_back(reason);
  header.push_back("dominant");
  header.push_back("problem");
  std::vector<std::string> fields;
  for (const std::string& h : header) fields.push_back(CsvField(h));
  std::string out = absl::StrCat(absl::StrJoin(fields, ","), "\n");
  for (const StallRow& row : table.rows) {
    const ResultFile& file = *table.files[row.file];
    const StallBreakdown& b = row.breakdown;
    fields = {CsvField(file.path), CsvField(file.ContextOr("device_name", "")),
              CsvField(row.name), b.valid ? CsvNumber(b.total) : ""};
    for (const std::string& reason : table.reasons) {
      auto it = b.fractions.find(reason);
      fields.push_back(it == b.fractions.end() ? "" : CsvNumber(it->second));
    }
    fields.push_back(CsvField(b.dominant));
    fields.push_back(CsvField(b.problem));
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  }
  return out;
}

}  // namespace dissect::analysis
