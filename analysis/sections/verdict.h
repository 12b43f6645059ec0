// The verdict on a first run's headline numbers (//analysis:verdict): each
// headline of the ranges file (verdict_ranges.h) found among the result
// rows by experiment, axes and metric (not by file name, so a reference
// run's folder works too), set against its plausible range, the published
// values with their sources and the peers' numbers for the same kind of
// device; the likely causes of every value outside; and the ncu
// cross-checks. See analysis/README.md, "verdict".

#ifndef DISSECT_ANALYSIS_SECTIONS_VERDICT_H_
#define DISSECT_ANALYSIS_SECTIONS_VERDICT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/sections/memory_hierarchy.h"
#include "analysis/results/results.h"
#include "analysis/sections/verdict_ranges.h"

namespace dissect::analysis {

// One peer file of the ranges, imported and inferred
// (InferMemoryHierarchies), or why not.
struct VerdictPeerTable {
  VerdictPeer peer;
  std::optional<DeviceHierarchy> hierarchy;
  std::string problem;  // why there is no hierarchy ("" when there is one)
};

// Where the peers came from, for the output: the folder, or why none.
struct VerdictPeers {
  std::string dir;   // "" = none
  std::string note;  // e.g. "no peers folder at ../shared/data/peers"
  std::vector<VerdictPeerTable> tables;
};

// Reads every peer file of `ranges` under `dir` (ImportPeerText, then
// InferMemoryHierarchies); a missing or bad file is a table with a problem.
VerdictPeers LoadVerdictPeers(const VerdictRanges& ranges, const std::string& dir);

// One ncu CSV (`ncu --csv [--log-file F]`, page details or raw): the value
// of each metric of its first profiled kernel, in base units (byte, not
// Kbyte/Mbyte/Gbyte). Lines before the header (==PROF== ...) are skipped.
struct NcuCsv {
  std::string path;
  std::map<std::string, double> values;
};
absl::StatusOr<NcuCsv> ParseNcuCsv(std::string_view text, std::string_view path);

// The *.csv files among `args` (files as given, folders searched
// recursively, sorted), the way CollectResultPaths finds *.json.
std::vector<std::string> CollectCsvPaths(const std::vector<std::string>& args);

struct VerdictInputs {
  std::vector<ResultFile> files;  // ours and any imported ones (left out)
  std::vector<NcuCsv> csvs;
  VerdictPeers peers;
  std::vector<std::string> unreadable;  // result files left out, named on stderr
};

struct Verdict {
  int in_range = 0, out_of_range = 0, missing = 0;
  // Starts with the summary line "verdict: N in range, M out of range, K
  // missing".
  std::string markdown;
};

Verdict JudgeHeadlines(const VerdictInputs& inputs, const VerdictRanges& ranges);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_VERDICT_H_
