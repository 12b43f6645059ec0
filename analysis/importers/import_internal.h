// What the readers of peer suites' output (import_gpu_benches.cc,
// import_mt4g.cc) share: one-line errors, number helpers, and the result
// file they fill (OutFile) with its rendering as a dissect result file
// (import_render.cc). Internal to the import library.

#ifndef DISSECT_ANALYSIS_IMPORTERS_IMPORT_INTERNAL_H_
#define DISSECT_ANALYSIS_IMPORTERS_IMPORT_INTERNAL_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "analysis/importers/import.h"

namespace dissect::analysis::import_internal {

inline constexpr char kGpuBenches[] = "gpu-benches";
inline constexpr char kMt4g[] = "mt4g";

// "path:line: what" and "path: what" as InvalidArgument errors.
absl::Status LineError(absl::string_view path, int line, absl::string_view what);
absl::Status FileError(absl::string_view path, absl::string_view what);

// `token` as a finite number; nullopt otherwise.
std::optional<double> Number(absl::string_view token);

// `value` rounded to an integer, as text.
std::string Int(double value);

absl::string_view Sv(std::string_view s);

// `parts` joined with ", ".
std::string Join(const std::vector<std::string>& parts);

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
  std::string headline_metric;  // one of `metrics`, written as dissect_headline_metric
  std::vector<std::pair<std::string, std::string>> extra_context;
  std::map<std::string, std::string> file_facts;  // device facts from the file
  std::vector<OutRow> rows;
};

// `file` as a dissect result file of `suite` read from `path`.
absl::StatusOr<ImportedFile> Render(OutFile file, absl::string_view suite, absl::string_view path,
                                    const ImportOptions& options);

// An error unless the options name the device (gpu-benches logs do not).
absl::Status RequireDeviceName(absl::string_view path, const ImportOptions& options);

}  // namespace dissect::analysis::import_internal

#endif  // DISSECT_ANALYSIS_IMPORTERS_IMPORT_INTERNAL_H_
