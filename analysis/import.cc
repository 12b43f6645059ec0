#include "analysis/import.h"

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
#include "analysis/results.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kGpuBenches[] = "gpu-benches";
constexpr char kMt4g[] = "mt4g";
constexpr double kGibPerGb = 1.073741824;  // GiB/s -> GB/s

absl::Status LineError(absl::string_view path, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", what));
}

absl::Status FileError(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// --- text logs --------------------------------------------------------------

struct Line {
  int number = 0;
  absl::string_view text;
};

// The lines of `text` that are not blank, with their 1-based numbers.
std::vector<Line> NonBlankLines(absl::string_view text) {
  std::vector<Line> lines;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) lines.push_back({number, line});
  }
  return lines;
}

std::vector<std::string> Tokens(absl::string_view line) {
  return absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
}

// Splits a unit glued to a number ("103ms" -> "103", "ms"; "1.0%" -> "1.0",
// "%"; also "kB"); other tokens are kept as they are.
std::vector<std::string> SplitGluedUnits(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  for (const std::string& token : tokens) {
    size_t end = 0;
    while (end < token.size() && (std::isdigit(static_cast<unsigned char>(token[end])) ||
                                  token[end] == '.' || token[end] == '-' || token[end] == '+')) {
      ++end;
    }
    const std::string unit = token.substr(std::min(end, token.size()));
    if (end > 0 && (unit == "ms" || unit == "%" || unit == "kB")) {
      out.push_back(token.substr(0, end));
      out.push_back(token.substr(end));
    } else {
      out.push_back(token);
    }
  }
  return out;
}

std::optional<double> Number(absl::string_view token) {
  double value = 0;
  if (!absl::SimpleAtod(token, &value) || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool AllNumbers(const std::vector<std::string>& tokens) {
  if (tokens.empty()) return false;
  for (const std::string& token : tokens) {
    if (!Number(token).has_value()) return false;
  }
  return true;
}

int CountNumbers(const std::vector<std::string>& tokens) {
  return static_cast<int>(std::count_if(tokens.begin(), tokens.end(), [](const std::string& token) {
    return Number(token).has_value();
  }));
}

// A row of numbers each followed by its unit (`units[i]`, "" for none).
absl::StatusOr<std::vector<double>> ParseUnitRow(const Line& line, absl::string_view path,
                                                 const std::vector<std::string>& units) {
  const std::vector<std::string> tokens = SplitGluedUnits(Tokens(line.text));
  const auto count_error = [&]() {
    std::vector<std::string> layout;
    for (const std::string& unit : units) layout.push_back(unit.empty() ? "<number>" : unit);
    return LineError(path, line.number,
                     absl::StrCat("expected ", units.size(), " fields (",
                                  absl::StrJoin(layout, " "), "), found ", CountNumbers(tokens)));
  };
  std::vector<double> values;
  size_t t = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    if (t >= tokens.size()) return count_error();
    const std::optional<double> value = Number(tokens[t]);
    if (!value.has_value()) {
      return LineError(path, line.number,
                       absl::StrCat("field ", i + 1, " '", tokens[t], "' is not a number"));
    }
    values.push_back(*value);
    ++t;
    if (units[i].empty()) continue;
    if (t >= tokens.size()) return count_error();
    if (tokens[t] != units[i]) {
      return LineError(path, line.number,
                       absl::StrCat("field ", i + 1, ": expected unit '", units[i], "', found '",
                                    tokens[t], "'"));
    }
    ++t;
  }
  if (t != tokens.size()) return count_error();
  return values;
}

// Reads an optional `clock: <MHz>...` line at lines[*next]; advances *next.
absl::Status ReadClockLine(const std::vector<Line>& lines, absl::string_view path, size_t* next,
                           std::vector<double>* readings) {
  if (*next >= lines.size() || !absl::StartsWith(lines[*next].text, "clock:")) {
    return absl::OkStatus();
  }
  const Line& line = lines[*next];
  for (const std::string& token : Tokens(line.text.substr(6))) {
    const std::optional<double> value = Number(token);
    if (!value.has_value()) {
      return LineError(path, line.number,
                       absl::StrCat("clock reading '", token, "' is not a number"));
    }
    readings->push_back(*value);
  }
  ++*next;
  return absl::OkStatus();
}

absl::Status NoRows(absl::string_view path, absl::string_view format) {
  return FileError(path, absl::StrCat("no ", format, " rows"));
}

// Reads the `data set ...` header at lines[*next]; advances *next.
absl::Status ReadDataSetHeader(const std::vector<Line>& lines, absl::string_view path,
                               absl::string_view format, size_t* next) {
  if (*next >= lines.size()) return NoRows(path, format);
  if (!absl::StrContains(lines[*next].text, "data set")) {
    return LineError(path, lines[*next].number,
                     absl::StrCat("expected the ", format, " header (data set  exec time ...)"));
  }
  ++*next;
  if (*next >= lines.size()) return NoRows(path, format);
  return absl::OkStatus();
}

// --- result files -----------------------------------------------------------

struct AxisDecl {
  std::string name, unit, type;  // type: int64 or string
};

struct OutRow {
  std::vector<std::pair<std::string, std::string>> axes;  // in declaration order
  std::vector<std::pair<std::string, double>> counters;
  std::string label;
  double real_time = 0;  // ms
};

struct OutFile {
  std::string format, experiment, source_method, row_method;
  std::vector<AxisDecl> axes;
  std::vector<std::pair<std::string, std::string>> metrics;  // name, unit
  std::vector<std::pair<std::string, std::string>> extra_context;
  std::map<std::string, std::string> file_facts;  // device facts from the file
  std::vector<OutRow> rows;
};

std::string Int(double value) { return absl::StrCat(static_cast<int64_t>(std::llround(value))); }

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
  context["dissect_schema_version"] = "1";
  context["dissect_experiment"] = file.experiment;
  std::vector<std::string> axis_names, metric_names;
  for (const AxisDecl& axis : file.axes) axis_names.push_back(axis.name);
  for (const auto& metric : file.metrics) metric_names.push_back(metric.first);
  context["dissect_axes"] = absl::StrJoin(axis_names, ",");
  context["dissect_metrics"] = absl::StrJoin(metric_names, ",");
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
  // from the flags' (analysis/provenance.h).
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

// --- mt4g -------------------------------------------------------------------

std::optional<double> JsonNumber(const Json& object, absl::string_view key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

const Json* JsonChild(const Json& object, absl::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_object()) return nullptr;
  return &*it;
}

std::string JsonString(const Json& object, absl::string_view key) {
  if (!object.is_object()) return "";
  const auto it = object.find(std::string(key));
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// The value of `object.<key>.<member>` after checking `object.<key>.unit`
// against `units` (the first is the canonical one; each has its factor).
absl::StatusOr<std::optional<double>> UnitValue(
    const Json& object, absl::string_view key, absl::string_view member,
    const std::vector<std::pair<std::string, double>>& units, absl::string_view where,
    absl::string_view path) {
  const Json* child = JsonChild(object, key);
  if (child == nullptr) return std::optional<double>();
  std::optional<double> value = JsonNumber(*child, member);
  if (!value.has_value()) return std::optional<double>();
  const std::string unit = JsonString(*child, "unit");
  for (const auto& [name, factor] : units) {
    if (unit == name) return std::optional<double>(*value * factor);
  }
  return FileError(path, absl::StrCat(where, ".", key, ".unit is '", unit, "', expected '",
                                      units.front().first, "'"));
}

void NoteMethod(const Json& object, Mt4gLevel* level) {
  if (!object.is_object()) return;
  const std::string method = JsonString(object, "method");
  if (!method.empty() &&
      std::find(level->methods.begin(), level->methods.end(), method) == level->methods.end()) {
    level->methods.push_back(method);
  }
  const auto randomized = object.find("randomized");
  if (randomized != object.end() && randomized->is_boolean()) {
    const bool value = randomized->get<bool>();
    if (std::find(level->randomized.begin(), level->randomized.end(), value) ==
        level->randomized.end()) {
      level->randomized.push_back(value);
    }
  }
}

absl::StatusOr<Mt4gLevel> ParseMt4gLevel(const Json& json, std::string level_name,
                                         absl::string_view where, absl::string_view path) {
  Mt4gLevel level;
  level.level = std::move(level_name);
  const std::vector<std::pair<std::string, double>> cycles = {{"cycles", 1}};
  const std::vector<std::pair<std::string, double>> bytes = {{"bytes", 1}};
  const std::vector<std::pair<std::string, double>> bandwidth = {{"GiB/s", kGibPerGb}, {"GB/s", 1}};
  struct Member {
    const char* key;
    const char* member;
    const std::vector<std::pair<std::string, double>>* units;
    const char* counter;
  };
  const Member members[] = {
      {"latency", "mean", &cycles, "latency_cycles"},
      {"latency", "p50", &cycles, "latency_cycles.p50"},
      {"latency", "p95", &cycles, "latency_cycles.p95"},
      {"latency", "stdev", &cycles, "latency_cycles.stdev"},
      {"latency", "measurements", &cycles, "latency_measurements"},
      {"size", "size", &bytes, "capacity_bytes"},
      {"size", "value", &bytes, "capacity_bytes"},
      {"lineSize", "size", &bytes, "line_bytes"},
      {"fetchGranularity", "size", &bytes, "fetch_granularity_bytes"},
      {"missPenalty", "value", &cycles, "miss_penalty_cycles"},
      {"segmentSize", "size", &bytes, "segment_bytes"},
      {"readBandwidth", "value", &bandwidth, "read_bandwidth_gbps"},
      {"writeBandwidth", "value", &bandwidth, "write_bandwidth_gbps"},
  };
  for (const Member& m : members) {
    absl::StatusOr<std::optional<double>> value =
        UnitValue(json, m.key, m.member, *m.units, where, path);
    if (!value.ok()) return value.status();
    if (value->has_value()) level.values[m.counter] = **value;
  }
  if (const Json* size = JsonChild(json, "size"); size != nullptr) {
    if (std::optional<double> confidence = JsonNumber(*size, "confidence")) {
      level.values["capacity_confidence"] = *confidence;
    }
  }
  if (std::optional<double> amount = JsonNumber(json, "amountPerMultiprocessor")) {
    level.values["amount_per_sm"] = *amount;
  }
  for (const char* key : {"latency", "size", "lineSize", "fetchGranularity", "segmentSize"}) {
    if (const Json* child = JsonChild(json, key)) NoteMethod(*child, &level);
  }
  return level;
}

// 12020 -> "12.2" (CUDA's 1000 * major + 10 * minor).
std::string CudaVersion(double version) {
  const int64_t v = std::llround(version);
  return absl::StrCat(v / 1000, ".", (v % 1000) / 10);
}

// Line of byte offset `byte` in `text` (1-based).
int LineOfByte(absl::string_view text, size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + byte, '\n'));
}

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Join(const std::vector<std::string>& parts) { return absl::StrJoin(parts, ", "); }

}  // namespace

// --- public: helpers ---------------------------------------------------------

std::string ImportedFileName(std::string_view input_path_in) {
  const absl::string_view input_path = Sv(input_path_in);

  absl::string_view base = input_path;
  if (const size_t slash = base.rfind('/'); slash != base.npos) base = base.substr(slash + 1);
  if (const size_t dot = base.rfind('.'); dot != base.npos && dot > 0) base = base.substr(0, dot);
  return absl::StrCat(base, ".json");
}

absl::StatusOr<double> ParseByteCount(std::string_view text_in) {
  const absl::string_view text = Sv(text_in);

  absl::string_view number = absl::StripAsciiWhitespace(text);
  double factor = 1;
  for (const auto& [suffix, f] : std::vector<std::pair<absl::string_view, double>>{
           {"KiB", 1024.0}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}, {"B", 1}}) {
    if (absl::ConsumeSuffix(&number, suffix)) {
      factor = f;
      break;
    }
  }
  number = absl::StripAsciiWhitespace(number);
  const std::optional<double> value = Number(number);
  if (!value.has_value() || *value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a byte count (bytes, or a number with KiB, MiB or GiB)"));
  }
  return *value * factor;
}

// --- public: gpu-benches parsers ---------------------------------------------

absl::StatusOr<std::string> DetectGpuBenchesFormat(std::string_view text_in,
                                                   std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-benches output)");
  size_t next = 0;
  std::vector<double> clocks;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &clocks); !clock.ok()) return clock;
  if (next >= lines.size()) return FileError(path, "only a clock line, no gpu-benches rows");
  const Line& first = lines[next];
  if (absl::StartsWith(first.text, "blockSize")) return std::string("gpu-stream");
  if (absl::StrContains(first.text, "data set")) {
    if (next + 1 < lines.size()) {
      const std::vector<std::string> row = SplitGluedUnits(Tokens(lines[next + 1].text));
      if (row.size() >= 4 && row[1] == "kB" && row[3] == "kB") return std::string("gpu-l2-cache");
    }
    return std::string("gpu-cache");
  }
  if (AllNumbers(Tokens(first.text))) return std::string("gpu-latency");
  std::string excerpt(first.text.substr(0, 40));
  return LineError(path, first.number,
                   absl::StrCat("unknown format: not gpu-latency, gpu-cache, gpu-l2-cache or "
                                "gpu-stream output (starts '",
                                excerpt, "')"));
}

absl::StatusOr<GpuLatencyLog> ParseGpuLatencyLog(std::string_view text_in,
                                                 std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-latency output)");
  GpuLatencyLog log;
  size_t next = 0;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &log.clock_readings_mhz);
      !clock.ok()) {
    return clock;
  }
  if (next >= lines.size()) return NoRows(path, "gpu-latency");
  const std::vector<std::string> units(8, "");
  for (; next < lines.size(); ++next) {
    absl::StatusOr<std::vector<double>> v = ParseUnitRow(lines[next], path, units);
    if (!v.ok()) return v.status();
    GpuLatencyRow row;
    row.line = lines[next].number;
    row.iterations = (*v)[0];
    row.clock_mhz = (*v)[1];
    row.footprint_kb = (*v)[2];
    row.time_ms = (*v)[3];
    row.cycles_typical = (*v)[4];
    row.cycles_median = (*v)[5];
    row.cycles_p05 = (*v)[6];
    row.cycles_p95 = (*v)[7];
    if (row.clock_mhz <= 0) return LineError(path, row.line, "SM clock (field 2) is not positive");
    log.rows.push_back(row);
  }
  return log;
}

absl::StatusOr<GpuCacheLog> ParseGpuCacheLog(std::string_view text_in, std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-cache output)");
  GpuCacheLog log;
  size_t next = 0;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &log.clock_readings_mhz);
      !clock.ok()) {
    return clock;
  }
  if (absl::Status header = ReadDataSetHeader(lines, path, "gpu-cache", &next); !header.ok()) {
    return header;
  }
  const std::vector<std::string> units = {"kB", "ms", "%", "GB/s", "GB/s", "GB/s", "GB/s", "GB/s"};
  for (; next < lines.size(); ++next) {
    absl::StatusOr<std::vector<double>> v = ParseUnitRow(lines[next], path, units);
    if (!v.ok()) return v.status();
    GpuCacheRow row;
    row.line = lines[next].number;
    row.data_set_kb = (*v)[0];
    row.time_ms = (*v)[1];
    row.spread_pct = (*v)[2];
    row.bandwidth_gbps = (*v)[3];
    row.dram_read_gbps = (*v)[4];
    row.dram_write_gbps = (*v)[5];
    row.l2_read_gbps = (*v)[6];
    row.l2_write_gbps = (*v)[7];
    log.rows.push_back(row);
  }
  return log;
}

absl::StatusOr<GpuL2CacheLog> ParseGpuL2CacheLog(std::string_view text_in,
                                                 std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-l2-cache output)");
  GpuL2CacheLog log;
  size_t next = 0;
  if (absl::Status clock = ReadClockLine(lines, path, &next, &log.clock_readings_mhz);
      !clock.ok()) {
    return clock;
  }
  if (absl::Status header = ReadDataSetHeader(lines, path, "gpu-l2-cache", &next); !header.ok()) {
    return header;
  }
  const std::vector<std::string> units = {"kB",   "kB",   "ms",   "%",   "GB/s",
                                          "GB/s", "GB/s", "GB/s", "GB/s"};
  for (; next < lines.size(); ++next) {
    absl::StatusOr<std::vector<double>> v = ParseUnitRow(lines[next], path, units);
    if (!v.ok()) return v.status();
    GpuL2CacheRow row;
    row.line = lines[next].number;
    row.block_data_set_kb = (*v)[0];
    row.footprint_kb = (*v)[1];
    row.time_ms = (*v)[2];
    row.spread_pct = (*v)[3];
    row.bandwidth_gbps = (*v)[4];
    row.dram_read_gbps = (*v)[5];
    row.dram_write_gbps = (*v)[6];
    row.l2_read_gbps = (*v)[7];
    row.l2_write_gbps = (*v)[8];
    log.rows.push_back(row);
  }
  return log;
}

absl::StatusOr<GpuStreamLog> ParseGpuStreamLog(std::string_view text_in, std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  const std::vector<Line> lines = NonBlankLines(text);
  if (lines.empty()) return FileError(path, "empty file (no gpu-stream output)");
  const Line& header = lines.front();
  const std::vector<std::string> head = Tokens(header.text);
  const auto bar = std::find(head.begin(), head.end(), "|");
  if (head.empty() || head.front() != "blockSize" || bar == head.end() || bar + 1 == head.end()) {
    return LineError(path, header.number,
                     "expected the gpu-stream header (blockSize threads %occ | <kernels>)");
  }
  GpuStreamLog log;
  log.kernels.assign(bar + 1, head.end());
  if (lines.size() < 2) return NoRows(path, "gpu-stream");
  for (size_t i = 1; i < lines.size(); ++i) {
    const Line& line = lines[i];
    const std::vector<std::string> tokens = Tokens(line.text);
    // <blockSize> <threads> <occ> % | GB/s: then the values.
    if (tokens.size() < 6 || tokens[3] != "%" || tokens[4] != "|" || tokens[5] != "GB/s:") {
      return LineError(path, line.number,
                       "expected '<blockSize> <threads> <occ> % | GB/s: <values>'");
    }
    GpuStreamRow row;
    row.line = line.number;
    for (int f = 0; f < 3; ++f) {
      const std::optional<double> value = Number(tokens[f]);
      if (!value.has_value()) {
        return LineError(path, line.number,
                         absl::StrCat("field ", f + 1, " '", tokens[f], "' is not a number"));
      }
      if (f == 0) row.block_size = static_cast<int>(std::lround(*value));
      if (f == 1) row.threads = *value;
      if (f == 2) row.occupancy_pct = *value;
    }
    int note = 0;
    for (size_t t = 6; t < tokens.size(); ++t) {
      if (tokens[t] == "!") {
        // "! <n> blocks per SM" before a value.
        std::optional<double> blocks = t + 1 < tokens.size() ? Number(tokens[t + 1]) : std::nullopt;
        if (!blocks.has_value() || t + 4 >= tokens.size() || tokens[t + 2] != "blocks" ||
            tokens[t + 3] != "per" || tokens[t + 4] != "SM") {
          return LineError(path, line.number, "malformed '! <n> blocks per SM' note");
        }
        note = static_cast<int>(std::lround(*blocks));
        t += 4;
        continue;
      }
      const std::optional<double> value = Number(tokens[t]);
      if (!value.has_value()) {
        return LineError(path, line.number,
                         absl::StrCat("bandwidth '", tokens[t], "' is not a number"));
      }
      row.gbps.push_back(*value);
      row.blocks_per_sm_note.push_back(note);
      note = 0;
    }
    if (row.gbps.size() != log.kernels.size()) {
      return LineError(path, line.number,
                       absl::StrCat("expected ", log.kernels.size(), " bandwidths (",
                                    absl::StrJoin(log.kernels, " "), "), found ", row.gbps.size()));
    }
    log.rows.push_back(std::move(row));
  }
  return log;
}

// --- public: mt4g parser -------------------------------------------------------

absl::StatusOr<Mt4gResult> ParseMt4gJson(std::string_view text_in, std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);

  if (absl::StripAsciiWhitespace(text).empty()) {
    return FileError(path, "empty file (no mt4g result)");
  }
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    return LineError(path, LineOfByte(text, error.byte == 0 ? 0 : error.byte - 1),
                     "not an mt4g result (malformed JSON)");
  }
  const Json* general = JsonChild(doc, "general");
  const Json* memory = JsonChild(doc, "memory");
  const Json* compute = JsonChild(doc, "compute");
  if (general == nullptr || memory == nullptr || compute == nullptr) {
    return FileError(path, "not an mt4g result (no general, compute and memory objects)");
  }
  Mt4gResult result;
  auto& facts = result.facts;
  if (std::string name = JsonString(*general, "name"); !name.empty()) facts["device_name"] = name;
  if (const Json* cc = JsonChild(*general, "computeCapability")) {
    const std::optional<double> major = JsonNumber(*cc, "major");
    const std::optional<double> minor = JsonNumber(*cc, "minor");
    if (major.has_value() && minor.has_value()) {
      facts["device_compute_capability"] = absl::StrCat(Int(*major), ".", Int(*minor));
    }
  }
  if (std::optional<double> sms = JsonNumber(*compute, "multiProcessorCount")) {
    facts["device_sm_count"] = Int(*sms);
  }
  {
    absl::StatusOr<std::optional<double>> khz =
        UnitValue(*general, "clockRate", "value", {{"kHz", 1}, {"MHz", 1000}}, "general", path);
    if (!khz.ok()) return khz.status();
    if (khz->has_value()) facts["device_sm_clock_max_khz"] = Int(**khz);
  }
  const Json* l2 = JsonChild(*memory, "l2");
  const Json* main = JsonChild(*memory, "main");
  if (l2 != nullptr) {
    absl::StatusOr<std::optional<double>> size =
        UnitValue(*l2, "size", "value", {{"bytes", 1}}, "memory.l2", path);
    if (!size.ok()) return size.status();
    if (!size->has_value()) {
      size = UnitValue(*l2, "size", "size", {{"bytes", 1}}, "memory.l2", path);
      if (!size.ok()) return size.status();
    }
    if (size->has_value()) facts["device_l2_bytes"] = Int(**size);
  }
  if (main != nullptr) {
    absl::StatusOr<std::optional<double>> clock = UnitValue(
        *main, "memoryClockRate", "value", {{"kHz", 1}, {"MHz", 1000}}, "memory.main", path);
    if (!clock.ok()) return clock.status();
    absl::StatusOr<std::optional<double>> width =
        UnitValue(*main, "memoryBusWidth", "value", {{"bit", 1}}, "memory.main", path);
    if (!width.ok()) return width.status();
    if (clock->has_value()) facts["device_memory_clock_khz"] = Int(**clock);
    if (width->has_value()) facts["device_memory_bus_width_bits"] = Int(**width);
    if (clock->has_value() && width->has_value()) {
      facts["device_dram_peak_gbps"] =
          absl::StrFormat("%.1f", 2 * **clock * 1e3 * **width / 8 / 1e9);
    }
  }
  if (const Json* meta = JsonChild(doc, "meta")) {
    if (std::optional<double> driver = JsonNumber(*meta, "driver")) {
      facts["driver_version"] = CudaVersion(*driver);
    }
    if (std::optional<double> runtime = JsonNumber(*meta, "runtime")) {
      facts["runtime_version"] = CudaVersion(*runtime);
    }
    if (std::string timestamp = JsonString(*meta, "timestamp"); !timestamp.empty()) {
      facts["source_date"] = timestamp;
    }
  }

  struct LevelSpec {
    const Json* json;
    const char* name;
    const char* where;
  };
  const Json* constant = JsonChild(*memory, "constant");
  const LevelSpec specs[] = {
      {JsonChild(*memory, "l1"), "L1", "memory.l1"},
      {l2, "L2", "memory.l2"},
      {main, "DRAM", "memory.main"},
      {JsonChild(*memory, "shared"), "shared", "memory.shared"},
      {JsonChild(*memory, "readOnly"), "ldg", "memory.readOnly"},
      {JsonChild(*memory, "texture"), "tex", "memory.texture"},
      {constant != nullptr ? JsonChild(*constant, "l1") : nullptr, "const", "memory.constant.l1"},
      {constant != nullptr ? JsonChild(*constant, "l1.5") : nullptr, "const_l1.5",
       "memory.constant.l1.5"},
  };
  for (const LevelSpec& spec : specs) {
    if (spec.json == nullptr) continue;
    absl::StatusOr<Mt4gLevel> level = ParseMt4gLevel(*spec.json, spec.name, spec.where, path);
    if (!level.ok()) return level.status();
    if (level->values.empty()) continue;
    result.levels.push_back(*std::move(level));
  }
  if (result.levels.empty()) {
    return FileError(path, "not an mt4g result (no memory level has a measured value)");
  }
  return result;
}

// --- public: mappings ----------------------------------------------------------

absl::StatusOr<ImportedFile> MapGpuLatency(const GpuLatencyLog& log, std::string_view path_in,
                                           const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  const double stride = options.stride_bytes.value_or(128);
  OutFile file;
  file.format = "gpu-latency";
  file.experiment = "memory_latency";
  file.source_method = absl::StrCat(
      "pointer chase (64-bit addresses, one random cycle over the footprint) by one block of 64 "
      "threads; host wall-clock time of the whole launch over >= 1e6 chased loads (column 1; "
      "minimum of 7 runs in the source read), converted to cycles per load at the fixed SM clock "
      "of column 2; columns 5-8 are the typical value, median, 5th and 95th percentile of cycles "
      "per load, cycles_per_load is the median; the loads are plain ld.global (L1-cached: path "
      "global_ca); ",
      options.stride_bytes.has_value()
          ? absl::StrCat("stride_bytes ", Int(stride), " as given by --stride_bytes")
          : absl::StrCat("stride_bytes ", Int(stride),
                         " is the importer's assumption, not in the log (the source read "
                         "places the chased pointers 64 B apart; pass --stride_bytes)"));
  file.row_method = "pointer chase, 1 block x 64 threads, host-timed launch, cycles at column 2";
  file.axes = {{"path", "-", "string"},
               {"footprint_bytes", "B", "int64"},
               {"stride_bytes", "B", "int64"},
               {"order", "-", "string"},
               {"loads", "loads", "int64"}};
  file.metrics = {
      {"cycles_per_load", "cycles/load"}, {"ns_per_load", "ns/load"}, {"clock_mhz", "MHz"}};
  for (const GpuLatencyRow& r : log.rows) {
    OutRow row;
    row.axes = {{"path", "global_ca"},
                {"footprint_bytes", Int(r.footprint_kb * 1024)},
                {"stride_bytes", Int(stride)},
                {"order", "random"},
                {"loads", Int(r.iterations)}};
    row.counters = {{"cycles_per_load", r.cycles_median},
                    {"ns_per_load", r.cycles_median / r.clock_mhz * 1000},
                    {"clock_mhz", r.clock_mhz},
                    {"cycles_per_load.typical", r.cycles_typical},
                    {"cycles_per_load.p05", r.cycles_p05},
                    {"cycles_per_load.p95", r.cycles_p95}};
    row.real_time = r.time_ms;
    file.rows.push_back(std::move(row));
  }
  // Duplicate footprints merge in Render; the loads axis is part of the
  // name, so rows of one footprint must agree on it first: take the median.
  std::map<std::string, std::vector<double>> loads;
  for (const OutRow& row : file.rows) {
    loads[row.axes[1].second].push_back(std::stod(row.axes[4].second));
  }
  for (OutRow& row : file.rows) row.axes[4].second = Int(Median(loads[row.axes[1].second]));
  return Render(std::move(file), kGpuBenches, path, options);
}

absl::StatusOr<ImportedFile> MapGpuCache(const GpuCacheLog& log, std::string_view path_in,
                                         const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  OutFile file;
  file.format = "gpu-cache";
  file.experiment = "memory_bandwidth";
  file.source_method =
      "one block of 256 threads per SM, every block sums the same data set of floats (32-bit "
      "loads) over and over (about 1e9 / elements passes); host wall-clock time of one launch, 15 "
      "runs; Eff. bw = data set x blocks x passes / fastest run; exec time (real_time) = mean of "
      "the runs without the fastest and slowest; spread = (slowest - fastest) / that mean; the "
      "DRAM and L2 columns are the suite's hardware-counter volumes over the fastest time (0 "
      "where the build did not collect them); footprint_bytes is the data set of each SM, shared "
      "by all SMs (bandwidth_footprint per_sm_shared)";
  file.row_method = "1 block x 256 threads per SM re-reading one shared data set, host-timed";
  file.axes = {
      {"op", "-", "string"}, {"width_bits", "bits", "int64"}, {"footprint_bytes", "B", "int64"}};
  file.metrics = {{"bandwidth_gbps", "GB/s"}};
  file.extra_context = {{"bandwidth_footprint", "per_sm_shared"}};
  for (const GpuCacheRow& r : log.rows) {
    OutRow row;
    row.axes = {
        {"op", "read"}, {"width_bits", "32"}, {"footprint_bytes", Int(r.data_set_kb * 1024)}};
    row.counters = {{"bandwidth_gbps", r.bandwidth_gbps}, {"spread_pct", r.spread_pct},
                    {"dram_read_gbps", r.dram_read_gbps}, {"dram_write_gbps", r.dram_write_gbps},
                    {"l2_read_gbps", r.l2_read_gbps},     {"l2_write_gbps", r.l2_write_gbps}};
    row.real_time = r.time_ms;
    file.rows.push_back(std::move(row));
  }
  return Render(std::move(file), kGpuBenches, path, options);
}

absl::StatusOr<ImportedFile> MapGpuL2Cache(const GpuL2CacheLog& log, std::string_view path_in,
                                           const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  OutFile file;
  file.format = "gpu-l2-cache";
  file.experiment = "memory_bandwidth";
  file.source_method =
      "100000 blocks each sum one block data set (column 1, doubles: 64-bit loads); block b "
      "reads chunk b mod (footprint / block data set) of the total footprint (column 2), so "
      "every SM reads across the whole footprint (bandwidth_footprint total_roaming); host "
      "wall-clock time of one launch, fastest of 7 runs (exec time, real_time); Eff. bw = block "
      "data set x 100000 / fastest run; spread = (slowest - fastest) / mean of the runs without "
      "the fastest and slowest; the DRAM and L2 columns are the suite's hardware-counter volumes "
      "over the fastest time (0 where the build did not collect them)";
  file.row_method = "100000 blocks roaming the footprint in block-sized chunks, host-timed";
  file.axes = {
      {"op", "-", "string"}, {"width_bits", "bits", "int64"}, {"footprint_bytes", "B", "int64"}};
  file.metrics = {{"bandwidth_gbps", "GB/s"}};
  file.extra_context = {{"bandwidth_footprint", "total_roaming"}};
  for (const GpuL2CacheRow& r : log.rows) {
    OutRow row;
    row.axes = {
        {"op", "read"}, {"width_bits", "64"}, {"footprint_bytes", Int(r.footprint_kb * 1024)}};
    row.counters = {{"bandwidth_gbps", r.bandwidth_gbps},
                    {"block_data_set_bytes", std::round(r.block_data_set_kb * 1024)},
                    {"spread_pct", r.spread_pct},
                    {"dram_read_gbps", r.dram_read_gbps},
                    {"dram_write_gbps", r.dram_write_gbps},
                    {"l2_read_gbps", r.l2_read_gbps},
                    {"l2_write_gbps", r.l2_write_gbps}};
    row.real_time = r.time_ms;
    file.rows.push_back(std::move(row));
  }
  return Render(std::move(file), kGpuBenches, path, options);
}

absl::StatusOr<ImportedFile> MapGpuStream(const GpuStreamLog& log, std::string_view path_in,
                                          const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  if (absl::Status named = RequireDeviceName(path, options); !named.ok()) return named;
  // gpu-stream's kernels: dissect op and the arrays of 128 Mi + 2 doubles
  // each moves per launch (the source's streamCount).
  struct Kernel {
    const char* name;
    const char* op;
    int streams;
  };
  constexpr Kernel kKernels[] = {{"init", "write", 1},     {"read", "read", 1},
                                 {"scale", "copy", 2},     {"triad", "triad", 3},
                                 {"3pt", "stencil3pt", 2}, {"5pt", "stencil5pt", 2}};
  constexpr double kArrayBytes = (128.0 * 1024 * 1024 + 2) * 8;
  std::vector<const Kernel*> kernels;
  for (const std::string& name : log.kernels) {
    const Kernel* found = nullptr;
    for (const Kernel& k : kKernels) {
      if (name == k.name) found = &k;
    }
    if (found == nullptr) {
      return FileError(path, absl::StrCat("unknown gpu-stream kernel '", name,
                                          "' (known: init read scale triad 3pt 5pt)"));
    }
    kernels.push_back(found);
  }
  OutFile file;
  file.format = "gpu-stream";
  file.experiment = "memory_bandwidth";
  file.source_method =
      "one thread per double over arrays of 128 Mi + 2 doubles (64-bit loads and stores), grid "
      "= elements / blockSize, 2 blocks per SM intended (threads column = SM count x blockSize; "
      "'! <n> blocks per SM' where the occupancy differs); host wall-clock time of two "
      "back-to-back launches / 2, median of 9; GB/s = streams x array bytes / time, where "
      "streams is what the source counts per kernel (init 1 write, read 1, scale 1 read + 1 "
      "write, triad 2 reads + 1 write, 3pt and 5pt stencils 1 read + 1 write, neighbours assumed "
      "cached); footprint_bytes = streams x (128 Mi + 2) x 8 B, the bytes moved per launch "
      "(bandwidth_footprint total_split); real_time = footprint / bandwidth; the device's SM "
      "count comes from the threads column";
  file.row_method = "1 double per thread, 2 blocks/SM, host-timed, median of 9";
  file.axes = {{"op", "-", "string"},
               {"width_bits", "bits", "int64"},
               {"threads_per_block", "threads", "int64"},
               {"footprint_bytes", "B", "int64"}};
  file.metrics = {{"bandwidth_gbps", "GB/s"}};
  file.extra_context = {{"bandwidth_footprint", "total_split"}};
  std::optional<int64_t> sm_count;
  for (const GpuStreamRow& r : log.rows) {
    if (r.block_size > 0) {
      const int64_t sms = std::llround(r.threads / r.block_size);
      if (sm_count.has_value() && *sm_count != sms) {
        return LineError(
            path, r.line,
            absl::StrCat("threads / blockSize = ", sms, " SMs, earlier rows say ", *sm_count));
      }
      sm_count = sms;
    }
    for (size_t k = 0; k < kernels.size(); ++k) {
      OutRow row;
      const double footprint = kernels[k]->streams * kArrayBytes;
      row.axes = {{"op", kernels[k]->op},
                  {"width_bits", "64"},
                  {"threads_per_block", absl::StrCat(r.block_size)},
                  {"footprint_bytes", Int(footprint)}};
      row.counters = {{"bandwidth_gbps", r.gbps[k]}, {"occupancy_pct", r.occupancy_pct}};
      if (r.blocks_per_sm_note[k] != 0) {
        row.counters.emplace_back("blocks_per_sm", r.blocks_per_sm_note[k]);
        row.label =
            absl::StrCat(file.row_method, "; ", r.blocks_per_sm_note[k], " blocks per SM, not 2");
      }
      row.real_time = r.gbps[k] > 0 ? footprint / (r.gbps[k] * 1e9) * 1e3 : 0;
      file.rows.push_back(std::move(row));
    }
  }
  if (sm_count.has_value()) file.file_facts["device_sm_count"] = absl::StrCat(*sm_count);
  return Render(std::move(file), kGpuBenches, path, options);
}

absl::StatusOr<ImportedFile> MapMt4g(const Mt4gResult& result, std::string_view path_in,
                                     const ImportOptions& options) {
  const absl::string_view path = Sv(path_in);

  OutFile file;
  file.format = "mt4g";
  file.experiment = "hierarchy_summary";
  file.source_method =
      "mt4g's summary per memory level: latency_cycles is the mean of mt4g's p-chase latency "
      "samples (its headline figure, mt4g's timing overhead included; .p50, .p95, .stdev and "
      "latency_measurements beside it), capacity_bytes, line_bytes, fetch_granularity_bytes and "
      "segment_bytes from its p-chase detection (capacity_confidence its confidence), "
      "miss_penalty_cycles as mt4g reports it, read/write bandwidths converted from mt4g's GiB/s "
      "to GB/s (x 1.073741824)";
  file.axes = {{"level", "-", "string"}};
  file.metrics = {{"latency_cycles", "cycles"},
                  {"capacity_bytes", "B"},
                  {"line_bytes", "B"},
                  {"read_bandwidth_gbps", "GB/s"},
                  {"write_bandwidth_gbps", "GB/s"}};
  for (const auto& [key, value] : result.facts) {
    if (key == "source_date") {
      file.extra_context.emplace_back(key, value);
    } else {
      file.file_facts[key] = value;
    }
  }
  const std::vector<std::string> order = {
      "latency_cycles",       "latency_cycles.p50",   "latency_cycles.p95",
      "latency_cycles.stdev", "latency_measurements", "capacity_bytes",
      "capacity_confidence",  "line_bytes",           "fetch_granularity_bytes",
      "miss_penalty_cycles",  "segment_bytes",        "read_bandwidth_gbps",
      "write_bandwidth_gbps", "amount_per_sm"};
  for (const Mt4gLevel& level : result.levels) {
    OutRow row;
    row.axes = {{"level", level.level}};
    for (const std::string& counter : order) {
      if (const auto it = level.values.find(counter); it != level.values.end()) {
        row.counters.emplace_back(counter, it->second);
      }
    }
    std::string randomized = "n/a";
    if (level.randomized.size() == 1) randomized = level.randomized[0] ? "true" : "false";
    if (level.randomized.size() > 1) randomized = "mixed";
    row.label = absl::StrCat(level.methods.empty() ? "not stated" : Join(level.methods),
                             ", randomized: ", randomized);
    file.rows.push_back(std::move(row));
  }
  return Render(std::move(file), kMt4g, path, options);
}

absl::StatusOr<ImportedFile> ImportPeerText(std::string_view text, std::string_view path,
                                            const ImportOptions& options) {
  if (options.from == kMt4g) {
    absl::StatusOr<Mt4gResult> result = ParseMt4gJson(text, path);
    if (!result.ok()) return result.status();
    return MapMt4g(*result, path, options);
  }
  if (options.from != kGpuBenches) {
    return FileError(Sv(path), absl::StrCat("unknown suite '", options.from,
                                            "' (--from must be gpu-benches or mt4g)"));
  }
  absl::StatusOr<std::string> format = DetectGpuBenchesFormat(text, path);
  if (!format.ok()) return format.status();
  if (*format == "gpu-latency") {
    absl::StatusOr<GpuLatencyLog> log = ParseGpuLatencyLog(text, path);
    if (!log.ok()) return log.status();
    return MapGpuLatency(*log, path, options);
  }
  if (*format == "gpu-cache") {
    absl::StatusOr<GpuCacheLog> log = ParseGpuCacheLog(text, path);
    if (!log.ok()) return log.status();
    return MapGpuCache(*log, path, options);
  }
  if (*format == "gpu-l2-cache") {
    absl::StatusOr<GpuL2CacheLog> log = ParseGpuL2CacheLog(text, path);
    if (!log.ok()) return log.status();
    return MapGpuL2Cache(*log, path, options);
  }
  absl::StatusOr<GpuStreamLog> log = ParseGpuStreamLog(text, path);
  if (!log.ok()) return log.status();
  return MapGpuStream(*log, path, options);
}

}  // namespace dissect::analysis
