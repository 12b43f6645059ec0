// Provenance of result files' numbers (see provenance.h).

#include "analysis/sections/provenance.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace dissect::analysis {
namespace {

// The suite of a source: "gpu-benches@1038c5d0d0f4" -> "gpu-benches".
std::string Suite(const std::string& source) { return source.substr(0, source.find('@')); }

}  // namespace

std::string MeasuringProgram(const ResultFile& file) {
  const std::string source = file.ContextOr("source", "");
  if (source.empty()) return absl::StrCat("dissect ", file.experiment);
  const std::string suite = Suite(source);
  const std::string format = file.ContextOr("source_format", "");
  if (format.empty() || format == suite) return suite;
  return absl::StrCat(suite, " ", format);
}

std::string DeviceFactOrigin(const ResultFile& file, std::string_view key) {
  const std::string source = file.ContextOr("source", "");
  if (source.empty()) {
    if (key == "device_dram_peak_gbps") return "from the driver's memory clock and bus width";
    return "reported by the driver";
  }
  const auto from_flags = file.context.find("device_facts_from_flags");
  if (from_flags == file.context.end()) {
    return "given by a flag of //analysis:import or read from the peer's file";
  }
  for (absl::string_view flagged : absl::StrSplit(from_flags->second, ',')) {
    if (flagged == absl::string_view(key.data(), key.size())) return "given to //analysis:import by a flag";
  }
  return absl::StrCat("read from the ", Suite(source), " file");
}

std::string LabelMethod(const Row& row) {
  constexpr std::string_view kMethod = "method: ";
  const size_t at = row.label.find(kMethod);
  if (at == std::string::npos) return "";
  return row.label.substr(at + kMethod.size());
}

}  // namespace dissect::analysis
