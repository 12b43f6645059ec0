// Reader for dissect result files (see results.h and SCHEMA.md).

#include "experiments/result_format/reader.h"

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
#include <string_view>
#include <unordered_set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "experiments/result_format/headline_metrics.h"
#include "experiments/result_format/renamed_metrics.h"
#include "experiments/result_format/row_encoding.h"
#include "nlohmann/json.hpp"

namespace dissect::result_format {
namespace {

using Json = nlohmann::json;

using internal::CheckContext;
using internal::IsFixedRowMember;
using internal::NonFiniteToken;
using internal::ParseRowAxes;
using internal::Quote;
using internal::Sanitized;
using internal::SplitList;
using internal::Sv;

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

absl::StatusOr<Row> ParseRow(const Json& j, size_t index, const ResultFile& file) {
  // The row as error messages name it; built only for an error.
  auto where = [&file, index] { return absl::StrCat(file.path, ": benchmarks[", index, "]"); };
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where(), " is not an object"));
  }
  Row row;
  const auto name = j.find("name");
  if (name == j.end() || !name->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where(), " has no name"));
  }
  row.name = name->get<std::string>();
  auto where_named = [&where, &row] { return absl::StrCat(where(), " ", Quote(row.name)); };

  if (const auto run_type = j.find("run_type"); run_type != j.end() && *run_type == "aggregate") {
    return absl::InvalidArgumentError(
        absl::StrCat(where_named(),
                     " is an aggregate row; dissect rows are single runs (was the "
                     "experiment run with --benchmark_repetitions?)"));
  }

  if (absl::Status status = ParseRowAxes(index, file, row); !status.ok()) {
    return status;
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

}  // namespace

namespace internal {

// The dissect keys of a file's context (already in file.context): schema
// version, experiment, axes and metrics.
absl::Status CheckContext(absl::string_view path, ResultFile& file) {
  const auto version = file.context.find("dissect_schema_version");
  if (version == file.context.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a dissect result (context has no dissect_schema_version)"));
  }
  if (version->second != kSupportedSchemaVersion &&
      version->second != kOldestSupportedSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": unsupported dissect_schema_version ", Quote(version->second),
        " (this reader supports ", Quote(Sv(kOldestSupportedSchemaVersion)), " and ",
        Quote(Sv(kSupportedSchemaVersion)), ")"));
  }
  file.experiment = file.ContextOr("dissect_experiment", "");
  if (file.experiment.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": context has no dissect_experiment"));
  }
  file.axis_names = SplitList(file.ContextOr("dissect_axes", ""));
  file.metric_names = SplitList(file.ContextOr("dissect_metrics", ""));
  return absl::OkStatus();
}

}  // namespace internal

namespace {

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
  if (absl::Status status = CheckContext(path, file); !status.ok()) {
    return status;
  }

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

namespace {

// The file as written, whatever its version's names.
absl::StatusOr<ResultFile> ParseAsWritten(absl::string_view text, absl::string_view path) {
  // Most files have no non-finite value: they are parsed as they are.
  const bool as_is = internal::NeedsNoSanitizing(text);
  if (as_is) {
    if (std::optional<ResultFile> file = internal::ParseCommonShape(text, path)) {
      return *std::move(file);
    }
  }
  const Sanitized sanitized = as_is ? Sanitized() : internal::Sanitize(text);
  Json doc;
  try {
    if (as_is) {
      doc = Json::parse(text.begin(), text.end());
    } else {
      doc = Json::parse(sanitized.text);
    }
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

}  // namespace

absl::StatusOr<ResultFile> ParseResultJson(std::string_view text, std::string_view path) {
  absl::StatusOr<ResultFile> file = ParseAsWritten(Sv(text), Sv(path));
  if (file.ok()) {
    RenameVersion1Metrics(*file);
    AddHeadlineOfOlderFile(*file);
  }
  return file;
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
      // A sweep run folder's manifest.json (experiments/drivers/sweep) is not a
      // result file; named on its own it is read (and refused) as given.
      if (it->path().extension() == ".json" && it->path().filename() != "manifest.json" &&
          it->is_regular_file(file_ec)) {
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

}  // namespace dissect::result_format
