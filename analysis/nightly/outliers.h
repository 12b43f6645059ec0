// Fleet outliers: across the cards of one model (device_name)
// measured in one night, the cards whose metric sits outside the fleet's
// median +- fleet_k x scaled MAD (and beyond the metric's relative tolerance
// of the median), with fleet_k and the tolerance per metric from
// configs/regression/thresholds.json. Structured findings for the
// dashboard; markdown and JUnit XML renderings for people and CI servers.

#ifndef DISSECT_ANALYSIS_NIGHTLY_OUTLIERS_H_
#define DISSECT_ANALYSIS_NIGHTLY_OUTLIERS_H_

#include <string>
#include <vector>

#include "analysis/nightly/regression.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

// The fewest cards of a model for which outliers are looked for.
inline constexpr int kMinFleetCards = 5;

// One card's metric outside its fleet's band.
struct OutlierFinding {
  std::string device_name;
  std::string card;  // device serial, else uuid, else host + run id
  std::string host;
  std::string run_id;
  std::string experiment;
  std::string point;
  std::string metric;
  std::string unit;
  double value = 0;
  double fleet_median = 0;
  double scaled_mad = 0;   // 1.4826 x the median absolute deviation
  double deviation = 0;    // (value - fleet_median) / |fleet_median|
  double threshold = 0;    // relative: max(fleet_k x scaled_mad, tolerance x |median|) / |median|
  int fleet_cards = 0;     // cards with a value for this (point, metric)
  bool worse = false;      // in the metric's bad direction (always, for "either")
  bool throttled = false;  // the card's point was throttled
};

// One model in the night.
struct FleetModel {
  std::string device_name;
  std::vector<RunInfo> cards;  // one per card, in input order
  bool enough_cards = false;   // >= kMinFleetCards: checked
  int checked = 0;             // (point, metric) pairs checked
  int skipped_few_cards = 0;   // (point, metric) pairs with fewer than kMinFleetCards values
};

struct OutlierReport {
  std::vector<FleetModel> models;        // by device name
  std::vector<OutlierFinding> outliers;  // by model, point, metric, card
  // Duplicate runs of one card (the later one is used), and the like.
  std::vector<std::string> notes;
};

// Looks for outliers among `runs` (one night; each run one card). Cards are
// identified by uuid, else serial, else host and run id; of two runs of one
// card the later (`started`) is used. Throttled points are included and
// marked (a throttling card is what this looks for).
OutlierReport FindFleetOutliers(const std::vector<RunData>& runs, const Thresholds& thresholds);

// Markdown: the models and their card counts, the flagged cards, then one
// row per outlying (card, point, metric).
std::string RenderOutliersMarkdown(const OutlierReport& report);

// JUnit XML: a testsuite per model, a testcase per card (classname = the
// model), with a <failure> listing the card's outlying metrics; a model with
// too few cards gets one skipped testcase saying so.
std::string RenderOutliersJUnit(const OutlierReport& report);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_NIGHTLY_OUTLIERS_H_
