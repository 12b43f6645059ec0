// Number formatting (see format.h).

#include "analysis/format.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dissect::analysis {

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  // Whole numbers up to 15 digits read better than 1.235e+05.
  if (magnitude >= 1e4 && magnitude < 1e15) {
    return absl::StrFormat("%.0f", value);
  }
  return absl::StrFormat("%.4g", value);
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return FormatNumber(fraction);
  const double percent = fraction * 100;
  if (percent > 0 && percent < 0.05) return "<0.1%";
  return absl::StrFormat("%.1f%%", percent);
}

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes)) return FormatNumber(bytes);
  static constexpr struct {
    double size;
    const char* name;
  } kUnits[] = {{1024.0 * 1024 * 1024 * 1024, "TiB"},
                {1024.0 * 1024 * 1024, "GiB"},
                {1024.0 * 1024, "MiB"},
                {1024.0, "KiB"}};
  for (const auto& unit : kUnits) {
    if (std::fabs(bytes) >= unit.size) {
      return absl::StrCat(FormatNumber(bytes / unit.size), " ", unit.name);
    }
  }
  return absl::StrCat(FormatNumber(bytes), " B");
}

}  // namespace dissect::analysis
