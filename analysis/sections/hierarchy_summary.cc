// Memory hierarchy: values of an imported summary (mt4g's hierarchy_summary)
// for the rows no curve filled.

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/sections/hierarchy_builder.h"
#include "analysis/sections/latency_levels.h"
#include "analysis/sections/provenance.h"
#include "analysis/sections/tlb.h"

namespace dissect::analysis::hierarchy_internal {

void Builder::Summary() {
  for (const Row* row : RowsOf(kHierarchySummary)) {
    const std::optional<std::string> level = row->Axis("level");
    if (!level || level->empty()) continue;
    const bool known = std::find(std::begin(kSummaryLevels), std::end(kSummaryLevels), *level) !=
                       std::end(kSummaryLevels);
    if (!known) {
      Basis(absl::StrCat(*level, " (summary)"), kHierarchySummary,
            "a level the table has no row for", "left out");
      continue;
    }
    HierarchyRow& out = RowOf(*level);
    const std::string method = MethodFor(kHierarchySummary);
    std::vector<std::string> taken;
    if (const std::optional<double> c = Positive(*row, "latency_cycles");
        c && !out.latency_cycles) {
      out.latency_cycles = c;
      out.latency_from = ProgramFor(kHierarchySummary);
      std::string detail = absl::StrCat("latency ", FormatNumber(*c), " cycles (mean");
      if (const std::optional<double> p50 = Positive(*row, "latency_cycles.p50")) {
        absl::StrAppend(&detail, "; p50 ", FormatNumber(*p50));
      }
      if (const std::optional<double> p95 = Positive(*row, "latency_cycles.p95")) {
        absl::StrAppend(&detail, "; p95 ", FormatNumber(*p95));
      }
      taken.push_back(absl::StrCat(detail, ")"));
    }
    if (const std::optional<double> bytes = Positive(*row, "capacity_bytes");
        bytes && !out.capacity_bytes) {
      const std::optional<double> confidence = row->Counter("capacity_confidence");
      if (confidence && *confidence < kMinSummaryConfidence) {
        taken.push_back(absl::StrCat("capacity ", FormatBytes(*bytes), " left out (confidence ",
                                     FormatNumber(*confidence), ")"));
      } else {
        out.capacity_bytes = bytes;
        out.capacity_from = ProgramFor(kHierarchySummary);
        taken.push_back(absl::StrCat("capacity ", FormatBytes(*bytes)));
      }
    }
    if (const std::optional<double> line = Positive(*row, "line_bytes"); line && !out.line_bytes) {
      out.line_bytes = line;
      taken.push_back(absl::StrCat("line ", FormatBytes(*line)));
    }
    if (const std::optional<double> gbps = Positive(*row, "read_bandwidth_gbps");
        gbps && !out.bandwidth) {
      out.bandwidth = gbps;
      out.bandwidth_unit = "GB/s";
      out.bandwidth_from = ProgramFor(kHierarchySummary);
      out.bandwidth_method = "read bandwidth as the summary gives it (it names no method)";
      if (*level == "DRAM") DramCeiling(out);
      taken.push_back(absl::StrCat("read bandwidth ", FormatNumber(*gbps), " GB/s"));
    }
    if (taken.empty()) continue;
    if (out.method.empty()) {
      const std::string own = LabelMethod(*row);
      out.method = own.empty() ? SourceMethod(kHierarchySummary) : own;
    }
    Basis(absl::StrCat(*level, " (summary)"), absl::StrCat(kHierarchySummary, " level ", *level),
          absl::StrJoin(taken, ", "),
          method.empty() ? std::string() : absl::StrCat("as reported: ", method));
  }
}

}  // namespace dissect::analysis::hierarchy_internal
