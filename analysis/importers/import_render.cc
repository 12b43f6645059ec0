// A peer suite's values (OutFile) rendered as a dissect result file: row
// names, merged duplicate rows, the device facts from the file and the flags.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "analysis/importers/import_internal.h"
#include "analysis/results/results.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis::import_internal {
namespace {

using Json = nlohmann::ordered_json;

std::string Source(absl::string_view suite, const ImportOptions& options) {
  return absl::StrCat(suite, "@",
                      options.source_version.empty() ? "unknown" : options.source_version);
}

std::string RowName(const std::string& experiment, const OutRow& row) {
  std::string name = experiment;
  for (const auto& [axis, value] : row.axes) absl::StrAppend(&name, "/", axis, ":", value);
  absl::StrAppend(&name, "/iterations:1/manual_time");
  return name;
}

// Rows with the same name (the same axis point after rounding) become one:
// the median of each value. Returns how many input rows were merged away.
int MergeDuplicateRows(const std::string& experiment, std::vector<OutRow>* rows) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const OutRow*>> by_name;
  for (const OutRow& row : *rows) {
    const std::string name = RowName(experiment, row);
    if (by_name.find(name) == by_name.end()) order.push_back(name);
    by_name[name].push_back(&row);
  }
  if (order.size() == rows->size()) return 0;
  std::vector<OutRow> merged;
  for (const std::string& name : order) {
    const std::vector<const OutRow*>& group = by_name[name];
    OutRow row = *group.front();
    if (group.size() > 1) {
      std::vector<double> times;
      for (const OutRow* r : group) times.push_back(r->real_time);
      row.real_time = Median(times);
      for (auto& [counter, value] : row.counters) {
        std::vector<double> values;
        for (const OutRow* r : group) {
          for (const auto& [c, v] : r->counters) {
            if (c == counter) values.push_back(v);
          }
        }
        value = Median(values);
      }
      row.counters.emplace_back("merged_rows", static_cast<double>(group.size()));
    }
    merged.push_back(std::move(row));
  }
  const int merged_away = static_cast<int>(rows->size() - merged.size());
  *rows = std::move(merged);
  return merged_away;
}

struct FactSpec {
  const char* key;
  const char* flag;
};
constexpr FactSpec kDeviceFacts[] = {
    {"device_name", "--device_name"},
    {"device_compute_capability", "--compute_capability"},
    {"device_sm_count", "--sm_count"},
    {"device_l2_bytes", "--l2_bytes"},
    {"device_sm_clock_max_khz", "--sm_clock_mhz"},
    {"device_dram_peak_gbps", "--dram_peak_gbps"},
};

// Adds the flags' device facts to `facts` (from the file); a flag that
// contradicts the file is an error.
absl::Status AddFlagFacts(absl::string_view path, const ImportOptions& options,
                          std::map<std::string, std::string>* facts) {
  struct FlagFact {
    std::string key, flag, value;
    std::optional<double> number;  // compared with a tolerance
  };
  std::vector<FlagFact> flags;
  if (options.device_name.has_value()) {
    flags.push_back({"device_name", "--device_name", *options.device_name, std::nullopt});
  }
  if (options.compute_capability.has_value()) {
    const std::vector<std::string> parts = absl::StrSplit(*options.compute_capability, '.');
    int part = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &part) ||
        !absl::SimpleAtoi(parts[1], &part)) {
      return FileError(path, absl::StrCat("--compute_capability='", *options.compute_capability,
                                          "' is not major.minor (e.g. 9.0)"));
    }
    flags.push_back({"device_compute_capability", "--compute_capability",
                     *options.compute_capability, std::nullopt});
  }
  if (options.sm_count.has_value()) {
    flags.push_back(
        {"device_sm_count", "--sm_count", absl::StrCat(*options.sm_count), *options.sm_count});
  }
  if (options.l2_bytes.has_value()) {
    flags.push_back({"device_l2_bytes", "--l2_bytes", Int(*options.l2_bytes), *options.l2_bytes});
  }
  if (options.sm_clock_mhz.has_value()) {
    const double khz = *options.sm_clock_mhz * 1000;
    flags.push_back({"device_sm_clock_max_khz", "--sm_clock_mhz", Int(khz), khz});
  }
  if (options.dram_peak_gbps.has_value()) {
    flags.push_back({"device_dram_peak_gbps", "--dram_peak_gbps",
                     absl::StrFormat("%.1f", *options.dram_peak_gbps), *options.dram_peak_gbps});
  }
  for (const FlagFact& flag : flags) {
    const auto known = facts->find(flag.key);
    if (known == facts->end()) {
      (*facts)[flag.key] = flag.value;
      continue;
    }
    bool agrees = known->second == flag.value;
    if (!agrees && flag.number.has_value()) {
      const std::optional<double> file_value = Number(known->second);
      agrees = file_value.has_value() &&
               std::abs(*file_value - *flag.number) <= 1e-3 * std::abs(*file_value);
    }
    if (!agrees) {
      return FileError(path,
                       absl::StrCat(flag.flag, " (", flag.key, " ", flag.value,
                                    ") contradicts the file's ", flag.key, " ", known->second));
    }
  }
  return absl::OkStatus();
}

void SetNumber(Json& row, const std::string& key, double value) {
  if (std::isfinite(value)) {
    row[key] = value;
  } else {
    row[key] = std::isnan(value) ? "NaN" : (value > 0 ? "Infinity" : "-Infinity");
  }
}

// The rows of `file` as Google Benchmark entries, labelled with `source`
// and their method.
Json RenderBenchmarks(const OutFile& file, const std::string& source) {
  Json benchmarks = Json::array();
  int family = 0;
  for (const OutRow& row : file.rows) {
    Json j = Json::object();
    const std::string name = RowName(file.experiment, row);
    j["name"] = name;
    j["family_index"] = family;
    j["per_family_instance_index"] = 0;
    j["run_name"] = name;
    j["run_type"] = "iteration";
    j["repetitions"] = 1;
    j["repetition_index"] = 0;
    j["threads"] = 1;
    j["iterations"] = 1;
    SetNumber(j, "real_time", row.real_time);
    SetNumber(j, "cpu_time", row.real_time);
    j["time_unit"] = "ms";
    for (const auto& [counter, value] : row.counters) SetNumber(j, counter, value);
    j["label"] = absl::StrCat("source: ", source,
                              "; method: ", row.label.empty() ? file.row_method : row.label);
    benchmarks.push_back(std::move(j));
    ++family;
  }
  return benchmarks;
}

}  // namespace

absl::StatusOr<ImportedFile> Render(OutFile file, absl::string_view suite, absl::string_view path,
                                    const ImportOptions& options) {
  ImportedFile out;
  out.format = file.format;
  out.experiment = file.experiment;
  const std::string source = Source(suite, options);
  if (options.source_version.empty()) {
    out.warnings.push_back(absl::StrCat(path, ": source version unknown (pass --source_version=",
                                        "<commit>); writing source = ", source));
  }
  std::map<std::string, std::string> facts = file.file_facts;
  if (absl::Status added = AddFlagFacts(path, options, &facts); !added.ok()) return added;
  std::vector<std::string> missing;
  for (const FactSpec& fact : kDeviceFacts) {
    if (facts.find(fact.key) == facts.end()) {
      missing.push_back(fact.key);
      out.warnings.push_back(absl::StrCat(path, ": ", fact.key, " unknown (pass ", fact.flag, ")"));
    }
  }
  const int merged = MergeDuplicateRows(file.experiment, &file.rows);

  Json context = Json::object();
  // The current version: imported metrics already have version 2's names.
  context["dissect_schema_version"] = std::string(kSupportedSchemaVersion);
  context["dissect_experiment"] = file.experiment;
  std::vector<std::string> axis_names, metric_names;
  for (const AxisDecl& axis : file.axes) axis_names.push_back(axis.name);
  for (const auto& metric : file.metrics) metric_names.push_back(metric.first);
  context["dissect_axes"] = absl::StrJoin(axis_names, ",");
  context["dissect_metrics"] = absl::StrJoin(metric_names, ",");
  if (!file.headline_metric.empty()) {
    context[std::string(kHeadlineMetricKey)] = file.headline_metric;
  }
  for (const AxisDecl& axis : file.axes) {
    context[absl::StrCat("axis.", axis.name, ".unit")] = axis.unit;
    context[absl::StrCat("axis.", axis.name, ".type")] = axis.type;
  }
  for (const auto& [metric, unit] : file.metrics) {
    context[absl::StrCat("metric.", metric, ".unit")] = unit;
  }
  for (const auto& [key, value] : facts) context[key] = value;
  if (!missing.empty()) context["device_facts_missing"] = absl::StrJoin(missing, ",");
  // Written even when empty: a reader can then tell the file's own facts
  // from the flags' (analysis/sections/provenance.h).
  std::vector<std::string> from_flags;
  for (const auto& [key, value] : facts) {
    if (file.file_facts.count(key) == 0) from_flags.push_back(key);
  }
  context["device_facts_from_flags"] = absl::StrJoin(from_flags, ",");
  context["source"] = source;
  context["source_file"] = std::string(path);
  context["source_format"] = file.format;
  context["source_method"] = file.source_method;
  for (const auto& [key, value] : file.extra_context) context[key] = value;
  if (merged > 0) context["import_merged_rows"] = absl::StrCat(merged);
  context["imported_by"] = "dissect analysis/import";
  context["import_date"] = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());

  Json benchmarks = RenderBenchmarks(file, source);
  Json doc = Json::object();
  doc["context"] = std::move(context);
  doc["benchmarks"] = std::move(benchmarks);
  out.json = doc.dump(2) + "\n";
  out.rows = static_cast<int>(file.rows.size());
  return out;
}

absl::Status RequireDeviceName(absl::string_view path, const ImportOptions& options) {
  if (!options.device_name.has_value() || options.device_name->empty()) {
    return FileError(path, "gpu-benches logs name no device: pass --device_name");
  }
  return absl::OkStatus();
}

}  // namespace dissect::analysis::import_internal
