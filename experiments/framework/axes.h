// Named, typed experiment axes with units, their command-line overrides, and
// the points of their Cartesian product.
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_AXES_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_AXES_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dissect {

enum class AxisType { kInt64, kString };

struct AxisSpec {
  std::string name;
  std::string unit;  // "B", "cycles", ...; "-" for enumerations
  AxisType type = AxisType::kInt64;
  std::vector<int64_t> int_values;        // kInt64: the values swept
  std::vector<std::string> string_values; // kString: the values swept
  std::vector<std::string> choices;       // kString: every allowed value
  std::string help;
};

// An integer axis with default values, e.g. IntAxis("stride_bytes", "B", {4, 64}).
AxisSpec IntAxis(std::string name, std::string unit,
                 std::vector<int64_t> defaults, std::string help = "");
// A string axis: `choices` lists every allowed value, `defaults` the ones
// swept unless overridden (all choices when empty).
AxisSpec StringAxis(std::string name, std::vector<std::string> choices,
                    std::vector<std::string> defaults = {},
                    std::string help = "");

// Checks an axis declaration (name and values usable in a result row name).
absl::Status ValidateAxisSpec(const AxisSpec& axis);

// Parses an integer value list:
//   "4096"                 one value
//   "1KiB,4KiB,64K"        K/KiB, M/MiB, G/GiB are binary (×1024)
//   "1KiB:64KiB:*2"        geometric range, both ends inclusive
//   "0:256:+64"            linear range, both ends inclusive
absl::StatusOr<std::vector<int64_t>> ParseIntValues(absl::string_view text);

// Applies one "--axis name=values" override. Unknown axes and values outside
// a string axis's choices are errors that list what is allowed.
absl::Status ApplyAxisOverride(std::vector<AxisSpec>& axes,
                               absl::string_view spec);

// One point of the axis space.
class Point {
 public:
  using Value = std::variant<int64_t, std::string>;
  void Add(std::string name, Value value);
  // Return the value of an axis; the axis must exist with that type (a
  // mismatch is a programming error in the experiment and aborts).
  int64_t Int(absl::string_view axis) const;
  const std::string& Str(absl::string_view axis) const;
  // "<prefix>/axis:value/axis:value".
  std::string Name(absl::string_view prefix) const;
  const std::vector<std::pair<std::string, Value>>& values() const {
    return values_;
  }

 private:
  const Value& Find(absl::string_view axis) const;
  std::vector<std::pair<std::string, Value>> values_;
};

// All points, first axis outermost.
std::vector<Point> CartesianProduct(const std::vector<AxisSpec>& axes);

// "1, 2, 4" / "hot, cold": the values an axis sweeps, for --help.
std::string DescribeValues(const AxisSpec& axis);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_AXES_H_
