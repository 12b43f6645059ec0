// How a result file encodes a row (row_encoding.h), and the row helpers of
// reader.h: counters, axes, vectors and notes of a row.

#include "experiments/result_format/row_encoding.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

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
#include "experiments/result_format/reader.h"

namespace dissect::result_format {
namespace internal {
namespace {

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

}  // namespace

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

std::string Quote(absl::string_view s) {
  return absl::StrCat("\"", absl::CHexEscape(s), "\"");
}

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

}  // namespace internal

using internal::Sv;

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

}  // namespace dissect::result_format
