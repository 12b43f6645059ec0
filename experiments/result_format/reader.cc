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
#include "nlohmann/json.hpp"

namespace dissect::result_format {
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
  // Hashed once: every member of every row is looked up.
  static const auto* const kFixedSet = new std::unordered_set<std::string_view>([] {
    std::unordered_set<std::string_view> set;
    for (absl::string_view fixed : kFixed) {
      set.emplace(fixed.data(), fixed.size());
    }
    return set;
  }());
  return kFixedSet->count(std::string_view(key.data(), key.size())) > 0;
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

// True when `in` has no NaN / Infinity token to wrap: Sanitize would
// return it unchanged.
bool NeedsNoSanitizing(absl::string_view in) {
  return !absl::StrContains(in, "NaN") && !absl::StrContains(in, "Infinity");
}

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

// The axes of `row` (its name set) from its name: the experiment prefix and
// the axis:value segments. Errors name the row as benchmarks[index].
absl::Status ParseRowAxes(size_t index, const ResultFile& file, Row& row) {
  auto where_named = [&file, index, &row] {
    return absl::StrCat(file.path, ": benchmarks[", index, "] ", Quote(row.name));
  };
  const std::string prefix = absl::StrCat(file.experiment, "/");
  if (!absl::StartsWith(row.name, prefix)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where_named(), " does not start with the experiment name ", Quote(prefix)));
  }
  const absl::string_view rest =
      absl::string_view(row.name).substr(prefix.size());
  for (absl::string_view segment : absl::StrSplit(rest, '/')) {
    if (IsBenchmarkTimeSegment(segment)) continue;
    const size_t colon = segment.find(':');
    if (colon == 0 || colon == segment.npos || colon + 1 == segment.size() ||
        segment.find(':', colon + 1) != segment.npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_named(), ": malformed axis:value segment ", Quote(segment)));
    }
    const std::string axis(segment.substr(0, colon));
    const std::string value(segment.substr(colon + 1));
    const bool declared =
        std::find(file.axis_names.begin(), file.axis_names.end(), axis) !=
        file.axis_names.end();
    if (!declared) {
      if (IsBenchmarkNameKey(axis)) continue;
      return absl::InvalidArgumentError(
          absl::StrCat(where_named(), ": axis ", Quote(axis), " is not in dissect_axes"));
    }
    if (row.Axis(axis).has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_named(), ": axis ", Quote(axis), " appears twice"));
    }
    row.axes.emplace_back(axis, value);
  }
  return absl::OkStatus();
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

// The dissect keys of a file's context (already in file.context): schema
// version, experiment, axes and metrics.
absl::Status CheckContext(absl::string_view path, ResultFile& file) {
  const auto version = file.context.find("dissect_schema_version");
  if (version == file.context.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a dissect result (context has no dissect_schema_version)"));
  }
  if (version->second != kSupportedSchemaVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": unsupported dissect_schema_version ", Quote(version->second),
                     " (this reader supports ", Quote(Sv(kSupportedSchemaVersion)), ")"));
  }
  file.experiment = file.ContextOr("dissect_experiment", "");
  if (file.experiment.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": context has no dissect_experiment"));
  }
  file.axis_names = SplitList(file.ContextOr("dissect_axes", ""));
  file.metric_names = SplitList(file.ContextOr("dissect_metrics", ""));
  return absl::OkStatus();
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

// A fast reader for the common shape of a result file, used before the
// nlohmann::json one: no document tree, strings without escapes and plain
// ASCII, numbers, true/false/null, the rows' members scalars. It gives up
// (nullopt) on anything else and on anything wrong, and the caller then
// parses the file with ParseParsed, which words the error; where it
// succeeds the ResultFile is the one ParseParsed gives.
class FastResultParser {
 public:
  FastResultParser(absl::string_view text, absl::string_view path) : text_(text), path_(path) {}

  std::optional<ResultFile> Parse() {
    ResultFile file;
    file.path = std::string(path_);
    if (!Consume('{')) return std::nullopt;
    bool context_seen = false, benchmarks_seen = false;
    absl::string_view benchmarks;
    if (!Peek('}')) {
      for (;;) {
        absl::string_view key;
        if (!String(key) || !Consume(':')) return std::nullopt;
        if (key == "context") {
          if (context_seen || !Context(file)) return std::nullopt;
          context_seen = true;
        } else if (key == "benchmarks") {
          if (benchmarks_seen) return std::nullopt;
          SkipSpace();
          const size_t start = pos_;
          if (!Peek('[') || !SkipValue()) return std::nullopt;
          benchmarks = text_.substr(start, pos_ - start);
          benchmarks_seen = true;
        } else if (!SkipValue()) {
          return std::nullopt;
        }
        if (Consume(',')) continue;
        break;
      }
    }
    if (!Consume('}')) return std::nullopt;
    SkipSpace();
    if (pos_ != text_.size() || !context_seen || !benchmarks_seen) {
      return std::nullopt;
    }
    if (!CheckContext(path_, file).ok()) return std::nullopt;
    // The rows, now that the context says the experiment and axes.
    pos_ = static_cast<size_t>(benchmarks.data() - text_.data());
    if (!Consume('[')) return std::nullopt;
    if (!Consume(']')) {
      for (size_t index = 0;; ++index) {
        std::optional<Row> row = ParseRow(index, file);
        if (!row.has_value()) return std::nullopt;
        file.rows.push_back(*std::move(row));
        if (Consume(',')) continue;
        if (Consume(']')) break;
        return std::nullopt;
      }
    }
    return file;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Consume(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }

  // A string without escapes, control characters or non-ASCII bytes.
  bool String(absl::string_view& out) {
    if (!Consume('"')) return false;
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        out = text_.substr(start, pos_ - start);
        ++pos_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++pos_;
    }
    return false;
  }

  // A JSON number: its text, and whether it is an integer.
  bool NumberText(absl::string_view& out, bool& integer) {
    SkipSpace();
    const size_t start = pos_;
    auto digits = [this] {
      const size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        ++pos_;
      }
      return pos_ - from;
    };
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t int_start = pos_;
    const size_t int_digits = digits();
    if (int_digits == 0 || (int_digits > 1 && text_[int_start] == '0')) {
      return false;
    }
    integer = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return false;
      integer = false;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      if (digits() == 0) return false;
      integer = false;
    }
    out = text_.substr(start, pos_ - start);
    return true;
  }

  // The number as nlohmann::json's get<double>() gives it: integers as
  // int64 / uint64 converted, the rest (and integers out of range) strtod.
  static bool NumberValue(absl::string_view number, bool integer, double& value) {
    char buffer[128];
    if (number.size() >= sizeof(buffer)) return false;
    std::memcpy(buffer, number.data(), number.size());
    buffer[number.size()] = '\0';
    char* end = nullptr;
    if (integer) {
      errno = 0;
      if (buffer[0] == '-') {
        const long long v = std::strtoll(buffer, &end, 10);
        if (errno == 0 && end == buffer + number.size()) {
          value = static_cast<double>(v);
          return true;
        }
      } else {
        const unsigned long long v = std::strtoull(buffer, &end, 10);
        if (errno == 0 && end == buffer + number.size()) {
          value = static_cast<double>(v);
          return true;
        }
      }
    }
    errno = 0;
    value = std::strtod(buffer, &end);
    return end == buffer + number.size();
  }

  bool Literal(absl::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // Skips any value this reader takes (nested ones included).
  bool SkipValue(int depth = 0) {
    if (depth > 64) return false;
    SkipSpace();
    if (pos_ >= text_.size()) return false;
    const char c = text_[pos_];
    if (c == '"') {
      absl::string_view ignored;
      return String(ignored);
    }
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      if (Consume(close)) return true;
      for (;;) {
        if (c == '{') {
          absl::string_view key;
          if (!String(key) || !Consume(':')) return false;
        }
        if (!SkipValue(depth + 1)) return false;
        if (Consume(',')) continue;
        return Consume(close);
      }
    }
    if (c == 't') return Literal("true");
    if (c == 'f') return Literal("false");
    if (c == 'n') return Literal("null");
    absl::string_view number;
    bool integer = false;
    return NumberText(number, integer);
  }

  // The context object: string values as they are, any other value as its
  // compact JSON text (nlohmann::json's dump(), as ParseParsed stores it).
  bool Context(ResultFile& file) {
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    for (;;) {
      absl::string_view key;
      if (!String(key) || !Consume(':')) return false;
      SkipSpace();
      std::string& slot = file.context[std::string(key)];
      if (Peek('"')) {
        absl::string_view value;
        if (!String(value)) return false;
        slot.assign(value.data(), value.size());
      } else {
        const size_t start = pos_;
        if (!SkipValue()) return false;
        const absl::string_view raw = text_.substr(start, pos_ - start);
        const Json value = Json::parse(raw.begin(), raw.end(), nullptr,
                                       /*allow_exceptions=*/false);
        if (value.is_discarded()) return false;
        slot = value.dump();
      }
      if (Consume(',')) continue;
      return Consume('}');
    }
  }

  // One row; members of the same name: the last one counts, as in
  // nlohmann::json's object.
  std::optional<Row> ParseRow(size_t index, const ResultFile& file) {
    if (!Consume('{')) return std::nullopt;
    Row row;
    bool named = false, aggregate = false;
    if (!Consume('}')) {
      for (;;) {
        absl::string_view key;
        if (!String(key) || !Consume(':')) return std::nullopt;
        SkipSpace();
        if (pos_ >= text_.size()) return std::nullopt;
        const char c = text_[pos_];
        // The member's value: a string, a number, a boolean or null.
        absl::string_view string_value;
        bool is_string = false, is_number = false, is_bool = false;
        bool bool_value = false;
        double number = 0;
        if (c == '"') {
          if (!String(string_value)) return std::nullopt;
          is_string = true;
        } else if (c == 't' || c == 'f') {
          bool_value = c == 't';
          if (!Literal(bool_value ? "true" : "false")) return std::nullopt;
          is_bool = true;
        } else if (c == 'n') {
          if (!Literal("null")) return std::nullopt;
        } else {
          absl::string_view text;
          bool integer = false;
          if (!NumberText(text, integer) || !NumberValue(text, integer, number)) {
            return std::nullopt;
          }
          is_number = true;
        }
        if (key == "name") {
          named = is_string;
          if (is_string) row.name.assign(string_value.data(), string_value.size());
        } else if (key == "run_type") {
          aggregate = is_string && string_value == "aggregate";
        } else if (key == "label") {
          row.label = is_string ? std::string(string_value) : std::string();
        } else if (key == "error_occurred") {
          row.error = is_bool && bool_value;
        } else if (key == "error_message") {
          row.error_message = is_string ? std::string(string_value) : std::string();
        } else if (key == "real_time") {
          row.real_time = is_number   ? number
                          : is_string ? NonFiniteToken(string_value).value_or(0.0)
                                      : 0.0;
        } else if (key == "time_unit") {
          row.time_unit = is_string ? std::string(string_value) : std::string();
        } else if (!IsFixedRowMember(key)) {
          std::optional<double> counter;
          if (is_number) {
            counter = number;
          } else if (is_string) {
            counter = NonFiniteToken(string_value);
          }
          if (counter.has_value()) {
            row.counters[std::string(key)] = *counter;
          } else {
            row.counters.erase(std::string(key));
          }
        }
        if (Consume(',')) continue;
        if (Consume('}')) break;
        return std::nullopt;
      }
    }
    if (!named || aggregate) return std::nullopt;
    if (!ParseRowAxes(index, file, row).ok()) return std::nullopt;
    return row;
  }

  absl::string_view text_;
  absl::string_view path_;
  size_t pos_ = 0;
};

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

std::vector<double> RowVector(const Row& row, std::string_view name) {
  std::vector<double> values;
  for (size_t i = 0;; ++i) {
    const std::optional<double> value = row.Counter(absl::StrCat(std::string(name), "[", i, "]"));
    if (!value) return values;
    values.push_back(*value);
  }
}

std::string RowNotes(const Row& row) {
  std::vector<std::string> notes;
  if (row.error) {
    if (absl::StartsWith(row.error_message, "skipped: ") ||
        absl::StartsWith(row.error_message, "error: ")) {
      notes.push_back(row.error_message);
    } else {
      notes.push_back(absl::StrCat("error: ", row.error_message));
    }
  }
  const std::optional<double> throttled = row.Counter("throttled");
  const bool was_throttled = throttled.has_value() && *throttled != 0;
  if (was_throttled) {
    notes.push_back(row.label.empty() ? "throttled" : absl::StrCat("throttled: ", row.label));
  }
  // The harness's second measurement of a throttled point (counter attempt
  // 2). A throttled row's label names it already.
  const std::optional<double> attempt = row.Counter("attempt");
  if (attempt.has_value() && *attempt > 1 &&
      !(was_throttled && absl::StrContains(row.label, "re-measured"))) {
    notes.push_back(absl::StrFormat("re-measured after throttling (attempt %.0f)", *attempt));
  }
  // The SM clock moved while the samples ran (polled readings). A throttled
  // row's label names it already ("clock moved A-B MHz").
  const std::optional<double> moved = row.Counter("clock_moved");
  const std::optional<double> low = row.Counter("sm_clock_mhz.min");
  const std::optional<double> high = row.Counter("sm_clock_mhz.max");
  if (moved.has_value() && *moved != 0 &&
      !(was_throttled && absl::StrContains(row.label, "clock moved"))) {
    notes.push_back(low && high ? absl::StrFormat("clock moved %.0f-%.0f MHz", *low, *high)
                                : std::string("clock moved"));
  }
  return absl::StrJoin(notes, "; ");
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
  // Most files have no non-finite value: they are parsed as they are.
  const bool as_is = NeedsNoSanitizing(text);
  if (as_is) {
    if (std::optional<ResultFile> file = FastResultParser(text, path).Parse()) {
      return *std::move(file);
    }
  }
  const Sanitized sanitized = as_is ? Sanitized() : Sanitize(text);
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
      // A sweep run folder's manifest.json (experiments/sweep) is not a
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
