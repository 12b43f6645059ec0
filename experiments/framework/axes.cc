// Axis declarations, value parsing and the point space.
#include "experiments/framework/axes.h"

#include <cstdlib>
#include <limits>

#include "absl/strings/string_view.h"
#include "absl/base/internal/raw_logging.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dissect {
namespace {

constexpr size_t kMaxAxisValues = 100000;

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '-' || c == '.';
}

absl::Status CheckToken(absl::string_view what, absl::string_view token) {
  if (token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is empty"));
  }
  for (char c : token) {
    if (!IsNameChar(c)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " '", token,
                       "' may hold only letters, digits, '_', '-' and '.'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseOneInt(absl::string_view text) {
  absl::string_view t = absl::StripAsciiWhitespace(text);
  int64_t multiplier = 1;
  struct Suffix {
    const char* text;
    int64_t factor;
  };
  static constexpr Suffix kSuffixes[] = {
      {"KiB", int64_t{1} << 10}, {"MiB", int64_t{1} << 20},
      {"GiB", int64_t{1} << 30}, {"K", int64_t{1} << 10},
      {"M", int64_t{1} << 20},   {"G", int64_t{1} << 30},
  };
  for (const Suffix& s : kSuffixes) {
    if (absl::ConsumeSuffix(&t, s.text)) {
      multiplier = s.factor;
      break;
    }
  }
  int64_t value = 0;
  if (t.empty() || !absl::SimpleAtoi(t, &value)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text,
        "' is not an integer (suffixes K/KiB, M/MiB, G/GiB are binary)"));
  }
  if (value != 0 && std::llabs(value) > std::numeric_limits<int64_t>::max() /
                                            multiplier) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' overflows"));
  }
  return value * multiplier;
}

absl::StatusOr<std::vector<int64_t>> ParseRange(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "range '", text, "' must be start:stop:*factor or start:stop:+step"));
  }
  absl::StatusOr<int64_t> start = ParseOneInt(parts[0]);
  if (!start.ok()) return start.status();
  absl::StatusOr<int64_t> stop = ParseOneInt(parts[1]);
  if (!stop.ok()) return stop.status();
  absl::string_view step_text = absl::StripAsciiWhitespace(parts[2]);
  const bool geometric = absl::ConsumePrefix(&step_text, "*");
  const bool linear = !geometric && absl::ConsumePrefix(&step_text, "+");
  if (!geometric && !linear) {
    return absl::InvalidArgumentError(absl::StrCat(
        "range '", text, "': step must start with '*' (geometric) or '+' (linear)"));
  }
  absl::StatusOr<int64_t> step = ParseOneInt(step_text);
  if (!step.ok()) return step.status();
  if (*stop < *start) {
    return absl::InvalidArgumentError(
        absl::StrCat("range '", text, "': stop is below start"));
  }
  if (geometric && (*step < 2 || *start <= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "range '", text, "': a geometric range needs start > 0 and factor >= 2"));
  }
  if (linear && *step < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("range '", text, "': a linear step must be >= 1"));
  }
  std::vector<int64_t> values;
  for (int64_t v = *start; v <= *stop;) {
    values.push_back(v);
    if (values.size() > kMaxAxisValues) {
      return absl::InvalidArgumentError(
          absl::StrCat("range '", text, "' has more than ", kMaxAxisValues,
                       " values"));
    }
    if (geometric) {
      if (v > std::numeric_limits<int64_t>::max() / *step) break;
      v *= *step;
    } else {
      if (v > std::numeric_limits<int64_t>::max() - *step) break;
      v += *step;
    }
  }
  return values;
}

}  // namespace

AxisSpec IntAxis(std::string name, std::string unit,
                 std::vector<int64_t> defaults, std::string help) {
  AxisSpec a;
  a.name = std::move(name);
  a.unit = std::move(unit);
  a.type = AxisType::kInt64;
  a.int_values = std::move(defaults);
  a.help = std::move(help);
  return a;
}

AxisSpec StringAxis(std::string name, std::vector<std::string> choices,
                    std::vector<std::string> defaults, std::string help) {
  AxisSpec a;
  a.name = std::move(name);
  a.unit = "-";
  a.type = AxisType::kString;
  a.string_values = defaults.empty() ? choices : std::move(defaults);
  a.choices = std::move(choices);
  a.help = std::move(help);
  return a;
}

absl::Status ValidateAxisSpec(const AxisSpec& axis) {
  if (absl::Status s = CheckToken("axis name", axis.name); !s.ok()) return s;
  if (axis.unit.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis '", axis.name, "' has no unit (use \"-\")"));
  }
  if (axis.type == AxisType::kInt64 && axis.int_values.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis '", axis.name, "' has no values"));
  }
  if (axis.type == AxisType::kString) {
    if (axis.string_values.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis '", axis.name, "' has no values"));
    }
    for (const std::string& v : axis.choices) {
      if (absl::Status s = CheckToken("axis value", v); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> ParseIntValues(absl::string_view text) {
  std::vector<int64_t> values;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    if (absl::StrContains(item, ':')) {
      absl::StatusOr<std::vector<int64_t>> range = ParseRange(item);
      if (!range.ok()) return range.status();
      values.insert(values.end(), range->begin(), range->end());
    } else {
      absl::StatusOr<int64_t> v = ParseOneInt(item);
      if (!v.ok()) return v.status();
      values.push_back(*v);
    }
    if (values.size() > kMaxAxisValues) {
      return absl::InvalidArgumentError(
          absl::StrCat("more than ", kMaxAxisValues, " values"));
    }
  }
  return values;
}

absl::Status ApplyAxisOverride(std::vector<AxisSpec>& axes,
                               absl::string_view spec) {
  const size_t eq = spec.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--axis '", spec, "' must look like name=values"));
  }
  const absl::string_view name = absl::StripAsciiWhitespace(spec.substr(0, eq));
  const absl::string_view values = spec.substr(eq + 1);
  for (AxisSpec& axis : axes) {
    if (axis.name != name) continue;
    if (axis.type == AxisType::kInt64) {
      absl::StatusOr<std::vector<int64_t>> parsed = ParseIntValues(values);
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--axis ", name, ": ", parsed.status().message()));
      }
      axis.int_values = *std::move(parsed);
      return absl::OkStatus();
    }
    std::vector<std::string> chosen;
    for (absl::string_view v : absl::StrSplit(values, ',')) {
      v = absl::StripAsciiWhitespace(v);
      bool known = false;
      for (const std::string& c : axis.choices) known |= (c == v);
      if (!known) {
        return absl::InvalidArgumentError(
            absl::StrCat("--axis ", name, ": unknown value '", v,
                         "' (choices: ", absl::StrJoin(axis.choices, ", "), ")"));
      }
      chosen.emplace_back(v);
    }
    axis.string_values = std::move(chosen);
    return absl::OkStatus();
  }
  std::vector<std::string> names;
  for (const AxisSpec& axis : axes) names.push_back(axis.name);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown axis '", name, "' (axes: ",
                   names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
}

void Point::Add(std::string name, Value value) {
  values_.emplace_back(std::move(name), std::move(value));
}

const Point::Value& Point::Find(absl::string_view axis) const {
  for (const auto& [name, value] : values_) {
    if (name == axis) return value;
  }
  ABSL_RAW_LOG(FATAL, "experiment asked for undeclared axis '%.*s'",
               static_cast<int>(axis.size()), axis.data());
  std::abort();
}

int64_t Point::Int(absl::string_view axis) const {
  const Value& v = Find(axis);
  ABSL_RAW_CHECK(std::holds_alternative<int64_t>(v), "axis is not int64");
  return std::get<int64_t>(v);
}

const std::string& Point::Str(absl::string_view axis) const {
  const Value& v = Find(axis);
  ABSL_RAW_CHECK(std::holds_alternative<std::string>(v),
                 "axis is not a string axis");
  return std::get<std::string>(v);
}

std::string Point::Name(absl::string_view prefix) const {
  std::string name(prefix);
  for (const auto& [axis, value] : values_) {
    absl::StrAppend(&name, "/", axis, ":");
    if (std::holds_alternative<int64_t>(value)) {
      absl::StrAppend(&name, std::get<int64_t>(value));
    } else {
      absl::StrAppend(&name, std::get<std::string>(value));
    }
  }
  return name;
}

std::vector<Point> CartesianProduct(const std::vector<AxisSpec>& axes) {
  std::vector<Point> points(1);
  for (const AxisSpec& axis : axes) {
    std::vector<Point> next;
    for (const Point& p : points) {
      if (axis.type == AxisType::kInt64) {
        for (int64_t v : axis.int_values) {
          Point q = p;
          q.Add(axis.name, v);
          next.push_back(std::move(q));
        }
      } else {
        for (const std::string& v : axis.string_values) {
          Point q = p;
          q.Add(axis.name, v);
          next.push_back(std::move(q));
        }
      }
    }
    points = std::move(next);
  }
  return points;
}

std::string DescribeValues(const AxisSpec& axis) {
  if (axis.type == AxisType::kInt64) return absl::StrJoin(axis.int_values, ", ");
  return absl::StrJoin(axis.string_values, ", ");
}

}  // namespace dissect
