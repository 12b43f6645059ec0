#include "analysis/importers/import.h"

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

namespace dissect::analysis {
namespace import_internal {

absl::Status LineError(absl::string_view path, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", what));
}

absl::Status FileError(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

std::optional<double> Number(absl::string_view token) {
  double value = 0;
  if (!absl::SimpleAtod(token, &value) || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string Int(double value) { return absl::StrCat(static_cast<int64_t>(std::llround(value))); }

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Join(const std::vector<std::string>& parts) { return absl::StrJoin(parts, ", "); }

}  // namespace import_internal

namespace {

using import_internal::FileError;
using import_internal::kGpuBenches;
using import_internal::kMt4g;
using import_internal::Number;
using import_internal::Sv;

}  // namespace

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
