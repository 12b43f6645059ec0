// Renaming version-1 metric names (see renamed_metrics.h).

#include "experiments/result_format/renamed_metrics.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_join.h"

namespace dissect::result_format {
namespace {

// The version-2 name of a row counter or context key: `old` itself, or `old`
// followed by `.` and more (a statistic such as `.max`, or `.unit` after
// `metric.`), with `old` replaced by `renamed`; nullopt for any other key.
std::optional<std::string> RenamedKey(std::string_view key, std::string_view prefix,
                                      std::string_view old_name, std::string_view renamed) {
  if (key.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string_view rest = key.substr(prefix.size());
  if (rest.substr(0, old_name.size()) != old_name) return std::nullopt;
  const std::string_view suffix = rest.substr(old_name.size());
  if (!suffix.empty() && suffix.front() != '.') return std::nullopt;
  std::string key_now(prefix);
  key_now.append(renamed).append(suffix);
  return key_now;
}

// Renames the keys of `values` that RenamedKey renames.
template <typename Value>
void RenameKeys(std::map<std::string, Value>& values, std::string_view prefix,
                std::string_view old_name, std::string_view renamed) {
  std::map<std::string, Value> kept;
  for (auto& [key, value] : values) {
    std::optional<std::string> new_key = RenamedKey(key, prefix, old_name, renamed);
    kept.emplace(new_key ? *std::move(new_key) : key, std::move(value));
  }
  values = std::move(kept);
}

}  // namespace

std::string_view Version2MetricName(std::string_view experiment, std::string_view name) {
  for (const RenamedMetric& renamed : kRenamedInVersion2) {
    if (renamed.experiment == experiment && renamed.old_name == name) return renamed.new_name;
  }
  return name;
}

void RenameVersion1Metrics(ResultFile& file) {
  if (file.ContextOr("dissect_schema_version", "") != kOldestSupportedSchemaVersion) return;
  bool renamed_any = false;
  for (const RenamedMetric& renamed : kRenamedInVersion2) {
    if (renamed.experiment != file.experiment) continue;
    renamed_any = true;
    for (std::string& name : file.metric_names) {
      if (name == renamed.old_name) name = std::string(renamed.new_name);
    }
    for (Row& row : file.rows) RenameKeys(row.counters, "", renamed.old_name, renamed.new_name);
    RenameKeys(file.context, "metric.", renamed.old_name, renamed.new_name);
  }
  if (const auto metrics = file.context.find("dissect_metrics");
      renamed_any && metrics != file.context.end()) {
    metrics->second = absl::StrJoin(file.metric_names, ",");
  }
}

}  // namespace dissect::result_format
