// Warp stall reasons per result row: the `cupti/stall_<reason>` counters of
// SCHEMA.md normalized to fractions of the row's total stall, for the
// report's "stall reasons" section, its CSV export and the stall-breakdown
// figure.

#ifndef DISSECT_ANALYSIS_SECTIONS_STALLS_H_
#define DISSECT_ANALYSIS_SECTIONS_STALLS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/results/results.h"

namespace dissect::analysis {

// Row counters named kStallCounterPrefix + <reason> hold the stall of one
// reason.
inline constexpr std::string_view kStallCounterPrefix = "cupti/stall_";
// Context key of a file whose counters could not be collected; its value
// says why.
inline constexpr std::string_view kCountersUnavailableKey =
    "counters_unavailable";

// reason → value of the row's `cupti/stall_<reason>` counters (an empty
// reason, i.e. a counter named just `cupti/stall_`, is ignored).
std::map<std::string, double> StallCounters(const Row& row);

// One row's stalls as fractions of its total.
struct StallBreakdown {
  std::map<std::string, double> values;  // reason → counter value
  // False when a value is negative or not finite (then total is 0).
  bool valid = true;
  double total = 0;  // sum of values
  // reason → value / total for every reason in `values` (they sum to 1).
  // Empty when there is no stall to divide (total 0) or a value is negative
  // or not finite; `problem` then says which.
  std::map<std::string, double> fractions;
  // The reason with the largest fraction (ties: the first by name); "" when
  // there are no fractions.
  std::string dominant;
  std::string problem;
};

// Normalizes one row's stall values (reason → value).
StallBreakdown NormalizeStalls(const std::map<std::string, double>& values);

struct StallRow {
  size_t file = 0;   // index into StallTable::files
  std::string name;  // `<experiment>/<axis>:<value>/...` (no Google
                     // Benchmark suffixes)
  StallBreakdown breakdown;
};

struct StallTable {
  std::vector<const ResultFile*> files;  // files with stall rows, input order
  std::vector<StallRow> rows;            // in file, then row order
  // Every reason seen, by decreasing total share (the sum of its fractions
  // over the rows; ties by name).
  std::vector<std::string> reasons;
  // Files with a `counters_unavailable` context value, and that value.
  std::vector<std::pair<const ResultFile*, std::string>> unavailable;

  bool empty() const { return rows.empty() && unavailable.empty(); }
};

// The stall rows (rows without error that have at least one
// `cupti/stall_<reason>` counter) of `files`. Pointers refer into `files`.
StallTable BuildStallTable(const std::vector<ResultFile>& files);
StallTable BuildStallTable(const std::vector<const ResultFile*>& files);

// `<experiment>/<axis>:<value>/...` of a row: the benchmark name without the
// segments Google Benchmark adds (iterations:1, manual_time, ...).
std::string RowDisplayName(const ResultFile& file, const Row& row);

// The table as CSV (RFC 4180, "\n" line ends): a header
// `file,device,name,total,<reasons...>,dominant,problem`, then one line per
// row with the fractions (empty where the row has no counter for a reason or
// no fractions at all). `total` is the raw sum in the file's unit (empty
// for invalid values).
std::string StallsCsv(const StallTable& table);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_STALLS_H_
