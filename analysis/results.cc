// Reader for dissect result files (see results.h and SCHEMA.md).

#include "analysis/results.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

using Json = nlohmann::json;

// Debian's Abseil is built with its own absl::string_view, distinct from
// std::string_view; the public API uses std::string_view.
absl::string_view Sv(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// Members Google Benchmark writes itself; every other numeric member of a row
// is a counter.
bool IsFixedRowMember(absl::string_view key) {
  static constexpr absl::string_view kFixed[] = {"name",
                                                 "family_index",
                                                 "per_family_instance_index",
                                                 "run_name",
                                                 "run_type",
                                                 "repetitions",
                                                 "repetition_index",
                                                 "threads",
                                                 "iterations",
                                                 "real_time",
                                                 "cpu_time",
                                                 "time_unit",
                                                 "label",
                                                 "error_occurred",
                                                 "error_message",
                                                 "aggregate_name",
                                                 "aggregate_unit",
                                                 "cpu_coefficient",
                                                 "real_coefficient",
                                                 "big_o",
                                                 "rms",
                                                 "allocs_per_iter",
                                                 "max_bytes_used",
                                                 "total_allocated_bytes",
                                                 "net_heap_growth"};
  return std::find(std::begin(kFixed), std::end(kFixed), key) !=
         std::end(kFixed);
}

// `key:value` segments Google Benchmark appends to a row name by itself
// (e.g. `iterations:1` from ->Iterations(1)); they are not axes unless the
// experiment declares an axis of that name.
bool IsBenchmarkNameKey(absl::string_view key) {
  return key == "iterations" || key == "repeats" || key == "threads" ||
         key == "min_time" || key == "min_warmup_time";
}

// Time-type segments Google Benchmark appends to a row name.
bool IsBenchmarkTimeSegment(absl::string_view segment) {
  return segment == "manual_time" || segment == "real_time" ||
         segment == "process_time";
}

std::string Quote(absl::string_view s) {
  return absl::StrCat("\"", absl::CHexEscape(s), "\"");
}

// Google Benchmark writes non-finite doubles as bare NaN / Infinity /
// -Infinity, which is not JSON. Sanitize() wraps those tokens (outside
// strings) in quotes so the parser accepts them; counters read them back.
// `insert_ends` holds, for each wrapped token, its end offset in the
// sanitized text, so parser byte offsets can be mapped back.
struct Sanitized {
  std::string text;
  std::vector<size_t> insert_ends;
};

Sanitized Sanitize(absl::string_view in) {
  static constexpr absl::string_view kTokens[] = {"-Infinity", "Infinity",
                                                  "-NaN", "NaN"};
  auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  Sanitized out;
  out.text.reserve(in.size());
  bool in_string = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (in_string) {
      out.text.push_back(c);
      if (c == '\\' && i + 1 < in.size()) {
        out.text.push_back(in[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out.text.push_back(c);
      continue;
    }
    bool replaced = false;
    if ((c == 'N' || c == 'I' || c == '-') && (i == 0 || !is_word(in[i - 1]))) {
      for (absl::string_view token : kTokens) {
        const size_t end = i + token.size();
        if (in.substr(i, token.size()) == token &&
            (end == in.size() || !is_word(in[end]))) {
          absl::StrAppend(&out.text, "\"", token, "\"");
          out.insert_ends.push_back(out.text.size());
          i = end - 1;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out.text.push_back(c);
  }
  return out;
}

std::optional<double> NonFiniteToken(absl::string_view s) {
  if (s == "NaN" || s == "-NaN") {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

absl::Status ParseError(absl::string_view path, absl::string_view original,
                        const Sanitized& sanitized,
                        const Json::parse_error& e) {
  // e.byte is 1-based in the sanitized text; undo the inserted quotes.
  size_t index = e.byte > 0 ? e.byte - 1 : 0;
  const size_t inserted =
      2 *
      static_cast<size_t>(std::upper_bound(sanitized.insert_ends.begin(),
                                           sanitized.insert_ends.end(), index) -
                          sanitized.insert_ends.begin());
  index = std::min(index - std::min(index, inserted), original.size());
  const absl::string_view before = original.substr(0, index);
  const size_t line = 1 + std::count(before.begin(), before.end(), '\n');
  const size_t last_newline = before.rfind('\n');
  const size_t column = last_newline == absl::string_view::npos
                            ? index + 1
                            : index - last_newline;
  // what() reads "[json.exception.parse_error.101] parse error at line L,
  // column C: <detail>"; keep only the detail.
  absl::string_view detail = e.what();
  if (const size_t at = detail.find("parse error"); at != detail.npos) {
    if (const size_t colon = detail.find(": ", at); colon != detail.npos) {
      detail.remove_prefix(colon + 2);
    }
  }
  std::string one_line(detail);
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": malformed JSON at byte ", index + 1, " (line ",
                   line, ", column ", column, "): ", one_line));
}

std::vector<std::string> SplitList(absl::string_view list) {
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    out.emplace_back(absl::StripAsciiWhitespace(item));
  }
  return out;
}

absl::StatusOr<Row> ParseRow(const Json& j, size_t index,
                             const ResultFile& file) {
  const std::string where =
      absl::StrCat(file.path, ": benchmarks[", index, "]");
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is not an object"));
  }
  Row row;
  const auto name = j.find("name");
  if (name == j.end() || !name->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " has no name"));
  }
  row.name = name->get<std::string>();
  const std::string where_named = absl::StrCat(where, " ", Quote(row.name));

  if (const auto run_type = j.find("run_type");
      run_type != j.end() && *run_type == "aggregate") {
    return absl::InvalidArgumentError(absl::StrCat(
        where_named,
        " is an aggregate row; dissect rows are single runs (was the "
        "experiment run with --benchmark_repetitions?)"));
  }

  const std::string prefix = absl::StrCat(file.experiment, "/");
  if (!absl::StartsWith(row.name, prefix)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where_named, " does not start with the experiment name ",
                     Quote(prefix)));
  }
  const absl::string_view rest =
      absl::string_view(row.name).substr(prefix.size());
  for (absl::string_view segment : absl::StrSplit(rest, '/')) {
    if (IsBenchmarkTimeSegment(segment)) continue;
    const size_t colon = segment.find(':');
    if (colon == 0 || colon == segment.npos || colon + 1 == segment.size() ||
        segment.find(':', colon + 1) != segment.npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_named, ": malformed axis:value segment ", Quote(segment)));
    }
    const std::string axis(segment.substr(0, colon));
    const std::string value(segment.substr(colon + 1));
    const bool declared =
        std::find(file.axis_names.begin(), file.axis_names.end(), axis) !=
        file.axis_names.end();
    if (!declared) {
      if (IsBenchmarkNameKey(axis)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          where_named, ": axis ", Quote(axis), " is not in dissect_axes"));
    }
    if (row.Axis(axis).has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_named, ": axis ", Quote(axis), " appears twice"));
    }
    row.axes.emplace_back(axis, value);
  }

  for (const auto& [key, value] : j.items()) {
    if (IsFixedRowMember(key)) continue;
    if (value.is_number()) {
      row.counters[key] = value.get<double>();
    } else if (value.is_string()) {
      if (auto v = NonFiniteToken(value.get_ref<const std::string&>())) {
        row.counters[key] = *v;
      }
    }
  }
  if (const auto it = j.find("label"); it != j.end() && it->is_string()) {
    row.label = it->get<std::string>();
  }
  if (const auto it = j.find("error_occurred");
      it != j.end() && it->is_boolean()) {
    row.error = it->get<bool>();
  }
  if (const auto it = j.find("error_message");
      it != j.end() && it->is_string()) {
    row.error_message = it->get<std::string>();
  }
  if (const auto it = j.find("real_time"); it != j.end()) {
    if (it->is_number()) {
      row.real_time = it->get<double>();
    } else if (it->is_string()) {
      row.real_time =
          NonFiniteToken(it->get_ref<const std::string&>()).value_or(0.0);
    }
  }
  if (const auto it = j.find("time_unit"); it != j.end() && it->is_string()) {
    row.time_unit = it->get<std::string>();
  }
  return row;
}

absl::StatusOr<ResultFile> ParseParsed(const Json& doc,
                                       absl::string_view path) {
  ResultFile file;
  file.path = std::string(path);
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a dissect result (top level is ",
                     doc.type_name(), ", not an object)"));
  }
  const auto context = doc.find("context");
  if (context == doc.end() || !context->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a dissect result (no \"context\" object)"));
  }
  for (const auto& [key, value] : context->items()) {
    file.context[key] =
        value.is_string() ? value.get<std::string>() : value.dump();
  }
  const auto version = file.context.find("dissect_schema_version");
  if (version == file.context.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": not a dissect result (context has no dissect_schema_version)"));
  }
  if (version->second != kSupportedSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": unsupported dissect_schema_version ", Quote(version->second),
        " (this reader supports ", Quote(Sv(kSupportedSchemaVersion)), ")"));
  }
  file.experiment = file.ContextOr("dissect_experiment", "");
  if (file.experiment.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": context has no dissect_experiment"));
  }
  file.axis_names = SplitList(file.ContextOr("dissect_axes", ""));
  file.metric_names = SplitList(file.ContextOr("dissect_metrics", ""));

  const auto benchmarks = doc.find("benchmarks");
  if (benchmarks == doc.end() || !benchmarks->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no \"benchmarks\" array"));
  }
  for (size_t i = 0; i < benchmarks->size(); ++i) {
    absl::StatusOr<Row> row = ParseRow((*benchmarks)[i], i, file);
    if (!row.ok()) return row.status();
    file.rows.push_back(*std::move(row));
  }
  return file;
}

}  // namespace

std::optional<double> Row::Counter(std::string_view counter) const {
  const auto it = counters.find(std::string(counter));
  if (it == counters.end()) return std::nullopt;
  return it->second;
}

std::optional<double> AxisNumber(const Row& row, std::string_view axis) {
  const std::optional<std::string> value = row.Axis(axis);
  double number = 0;
  if (!value || !absl::SimpleAtod(*value, &number) || !std::isfinite(number)) {
    return std::nullopt;
  }
  return number;
}

std::optional<double> RowSmClockMhz(const Row& row) {
  if (const std::optional<double> median = row.Counter("sm_clock_mhz.median")) return median;
  const std::optional<double> before = row.Counter("sm_clock_mhz.before");
  const std::optional<double> after = row.Counter("sm_clock_mhz.after");
  if (before && after) return (*before + *after) / 2;
  return before ? before : after;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n == 0) return 0;
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double BestOfMedians(const std::map<double, std::vector<double>>& by_knob) {
  double best = 0;
  for (const auto& [knob, values] : by_knob) best = std::max(best, Median(values));
  return best;
}

std::optional<std::string> Row::Axis(std::string_view axis) const {
  for (const auto& [axis_name, value] : axes) {
    if (axis_name == axis) return value;
  }
  return std::nullopt;
}

std::string ResultFile::AxisUnit(std::string_view axis) const {
  return ContextOr(absl::StrCat("axis.", Sv(axis), ".unit"), "");
}

std::string ResultFile::MetricUnit(std::string_view metric) const {
  return ContextOr(absl::StrCat("metric.", Sv(metric), ".unit"), "");
}

std::string ResultFile::ContextOr(std::string_view key,
                                  std::string_view fallback) const {
  const auto it = context.find(std::string(key));
  return it == context.end() ? std::string(fallback) : it->second;
}

absl::StatusOr<ResultFile> ParseResultJson(std::string_view text_in,
                                           std::string_view path_in) {
  const absl::string_view text = Sv(text_in);
  const absl::string_view path = Sv(path_in);
  const Sanitized sanitized = Sanitize(text);
  Json doc;
  try {
    doc = Json::parse(sanitized.text);
  } catch (const Json::parse_error& e) {
    return ParseError(path, text, sanitized, e);
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": malformed JSON: ", e.what()));
  }
  try {
    return ParseParsed(doc, path);
  } catch (const Json::exception& e) {
    // Not expected: every access above checks the type first.
    return absl::InternalError(
        absl::StrCat(path, ": unexpected JSON error: ", e.what()));
  }
}

absl::StatusOr<ResultFile> ReadResultFile(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    return absl::NotFoundError(
        absl::StrCat(path, ": no such file or directory"));
  }
  if (std::filesystem::is_directory(status)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a folder, not a result file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat(path, ": read failed"));
  }
  return ParseResultJson(text.str(), path);
}

absl::StatusOr<std::vector<std::string>> CollectResultPaths(
    const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const std::string& arg : args) {
    std::error_code ec;
    const fs::file_status status = fs::status(arg, ec);
    if (!fs::exists(status)) {
      return absl::NotFoundError(
          absl::StrCat(arg, ": no such file or directory"));
    }
    if (!fs::is_directory(status)) {
      paths.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(
        arg, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code file_ec;
      if (it->path().extension() == ".json" && it->is_regular_file(file_ec)) {
        found.push_back(it->path().string());
      }
    }
    if (ec) {
      return absl::PermissionDeniedError(
          absl::StrCat(arg, ": cannot list folder: ", ec.message()));
    }
    if (found.empty()) {
      return absl::NotFoundError(
          absl::StrCat(arg, ": folder contains no .json file"));
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  return paths;
}

absl::StatusOr<ReadResults> ReadResultFiles(
    const std::vector<std::string>& args) {
  absl::StatusOr<std::vector<std::string>> paths = CollectResultPaths(args);
  if (!paths.ok()) return paths.status();
  ReadResults read;
  for (const std::string& path : *paths) {
    absl::StatusOr<ResultFile> file = ReadResultFile(path);
    if (file.ok()) {
      read.files.push_back(*std::move(file));
    } else {
      read.bad.emplace_back(file.status().message());
    }
  }
  return read;
}

absl::Status EnterBuildWorkingDirectory() {
  const char* dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (dir == nullptr || *dir == '\0' || chdir(dir) == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot enter BUILD_WORKING_DIRECTORY ", dir, ": ", std::strerror(errno)));
}

}  // namespace dissect::analysis
