// The fast reader of a result file of the common shape; see row_encoding.h
// (ParseCommonShape).

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "experiments/result_format/reader.h"
#include "experiments/result_format/row_encoding.h"
#include "nlohmann/json.hpp"

namespace dissect::result_format::internal {
namespace {

using Json = nlohmann::json;

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

std::optional<ResultFile> ParseCommonShape(absl::string_view text, absl::string_view path) {
  return FastResultParser(text, path).Parse();
}

}  // namespace dissect::result_format::internal
