// The plausible ranges //analysis:verdict judges headline numbers with
// (configs/verdict/h100.json, format "dissect.verdict_ranges.v1", documented
// in configs/README.md): which rows give each headline, how they reduce to
// one number, the range per device set with why its bounds were chosen, the
// published values with their sources, the likely causes of a value outside,
// the peer files to show beside it, and the ncu cross-checks.

#ifndef DISSECT_ANALYSIS_SECTIONS_VERDICT_RANGES_H_
#define DISSECT_ANALYSIS_SECTIONS_VERDICT_RANGES_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::analysis {

inline constexpr std::string_view kVerdictRangesFormat = "dissect.verdict_ranges.v1";

// Which rows of which experiment give a number, and how they reduce to one.
struct VerdictSelector {
  std::string experiment;
  // Axis values the row must have, exactly as in the row name.
  std::vector<std::pair<std::string, std::string>> axes;
  // Numeric axes the row's value must lie in, inclusive; an open bound is
  // nullopt.
  struct Between {
    std::string axis;
    std::optional<double> low, high;
  };
  std::vector<Between> between;
  std::string metric;  // a metric or counter of the row (cupti/... too)
  // median: of the rows' values; max: the largest; best_of_medians: the
  // median per value of `knob`, then the largest (results.h BestOfMedians).
  std::string reduce;
  std::string knob;
};

// A set of devices a range applies to: every given condition must hold.
struct VerdictDeviceSet {
  std::string id;
  std::vector<std::string> name_contains;  // any of them, case-insensitive
  std::string compute_capability;          // "" = any
  std::optional<int> sm_count;
  std::string about;
};

// A published value, as the source states it (text, never converted).
struct VerdictPublished {
  std::string value;
  std::string unit;
  std::string source;  // "<key of sources>, <GPU> [at <clock>]"
};

struct VerdictJudgement {
  std::string devices;  // a VerdictDeviceSet id
  double low = 0, high = 0;
  std::string why;
  std::vector<VerdictPublished> published;
};

struct VerdictHeadline {
  std::string id, title, unit;
  std::vector<VerdictSelector> measure;  // tried in order; the first with rows wins
  std::vector<std::string> peer_levels;  // memory-hierarchy levels, tried in order
  std::string peer_quantity;             // latency_cycles or bandwidth
  std::vector<VerdictJudgement> judge;   // the first whose device set matches
  std::vector<std::string> causes_low, causes_high;
};

// A peer suite's published file (../shared/data/peers/<file>), imported
// with analysis/importers/import.h and shown beside headlines of the same kind.
struct VerdictPeer {
  std::string file, from, source_version, kind, note;
  std::optional<std::string> device_name, compute_capability;
  std::optional<int> sm_count;
  std::optional<double> l2_bytes;
};

// A device kind for matching peers (the first whose name_contains fits).
struct VerdictKind {
  std::string kind;
  std::vector<std::string> name_contains;
};

// ncu's value of one metric against the CUPTI counter of the same point.
struct VerdictCrossCheck {
  std::string id, title, ncu_metric, why;
  VerdictSelector row;
  double max_difference_pct = 0;
  std::vector<std::string> causes;
};

struct VerdictRanges {
  std::string origin;  // the file, as named in messages and the output
  std::map<std::string, std::string> sources;  // key -> description
  std::vector<VerdictDeviceSet> device_sets;
  std::vector<VerdictKind> kinds;
  std::vector<VerdictPeer> peers;
  std::vector<VerdictHeadline> headlines;
  std::vector<VerdictCrossCheck> cross_checks;

  const VerdictDeviceSet* FindDeviceSet(std::string_view id) const;
};

// Parses and checks a ranges file. Errors are one line starting with
// `origin`, naming the entry at fault.
absl::StatusOr<VerdictRanges> ParseVerdictRanges(std::string_view text, std::string_view origin);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_VERDICT_RANGES_H_
