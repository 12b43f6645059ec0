// Noise-aware regression detection between nightly runs: a
// candidate run against a baseline run, or against the median of the last N
// nights of the same device. A (point, metric) counts as changed only when
// the change exceeds both the metric's relative tolerance and k x the
// measured noise (configs/regression/thresholds.json); a change in the
// metric's bad direction is a regression. Findings are structured
// (RegressionReport) for the dashboard; markdown and JUnit XML renderings
// are for people and CI servers.

#ifndef DISSECT_ANALYSIS_NIGHTLY_REGRESSION_H_
#define DISSECT_ANALYSIS_NIGHTLY_REGRESSION_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

// Which way a metric gets worse.
enum class Direction {
  kHigherIsBetter,  // bandwidth, TFLOP/s, clocks: a drop is bad
  kLowerIsBetter,   // latencies, cycles, kernel times: a rise is bad
  kEither,          // sizes and counts that should not move: any change is bad
};

// "higher_is_better", "lower_is_better", "either".
std::string DirectionName(Direction direction);

// The thresholds of one metric.
struct MetricThreshold {
  Direction direction = Direction::kEither;
  // A change counts only if |candidate - baseline| / |baseline| exceeds this.
  double relative_tolerance = 0.03;
  // ... and exceeds k x the noise (see CompareSides).
  double k = 1.5;
  // Fleet outliers: a card is flagged beyond median +- fleet_k x scaled MAD
  // (and beyond relative_tolerance of the median).
  double fleet_k = 6;
  // Not compared at all (e.g. clock_source, a code rather than a value).
  bool ignore = false;
};

struct Thresholds {
  MetricThreshold defaults;
  // Keyed by metric name, or "<experiment>/<metric>" for one experiment only
  // (which wins over the metric name).
  std::map<std::string, MetricThreshold> metrics;

  const MetricThreshold& For(const std::string& experiment, const std::string& metric) const;
};

// Parses a thresholds file (format "dissect.regression_thresholds.v1", see
// configs/README.md). `origin` names the file in errors.
absl::StatusOr<Thresholds> ParseThresholdsJson(std::string_view text, const std::string& origin);

// The thresholds file at `path`, or with an empty path the built-in
// configs/regression/thresholds.json. Errors name the file.
absl::StatusOr<Thresholds> LoadThresholds(const std::string& path);

// The points of `run` by point key. Of several points with the same key
// (a re-measurement after a cool-down) the one with the highest attempt.
std::map<std::string, const RunPoint*> LatestAttempts(const RunData& run);

// One metric of one point on one side of a comparison.
struct SideMetric {
  double value = 0;
  std::optional<double> spread;  // fraction, as in MetricValue
  std::string unit;
  // Baseline of several nights: 1.4826 x the median absolute deviation of
  // the nights' values (absolute, in the metric's unit), with 3+ nights.
  std::optional<double> nights_scaled_mad;
  int nights = 1;
};

struct SidePoint {
  std::string experiment;
  std::map<std::string, SideMetric> metrics;
  bool throttled = false;
  int attempt = 1;
};

// One side of a comparison: a run, or the median of several nights.
struct ComparisonSide {
  std::string label;                        // "run <run_id>" or "median of N nights (...)"
  std::vector<RunInfo> runs;                // the run, or the nights oldest first
  std::map<std::string, SidePoint> points;  // by RunPoint::point
  // A single run's entries that measured nothing (RunData::problems).
  std::vector<EntryProblem> problems;
};

// A single run as a side (the latest attempt of every point, its problems).
ComparisonSide SideOfRun(const RunData& run);

// Several nights of one device as a baseline: per point and metric the
// median of the nights' values (throttled nights left out where unthrottled
// ones exist), the median spread and the nights' scaled MAD. Fails on no
// nights.
absl::StatusOr<ComparisonSide> SideOfNights(const std::vector<RunData>& nights);

// What became of one compared (point, metric).
enum class Verdict {
  kUnchanged,      // within the noise
  kRegression,     // significant, in the bad direction
  kImprovement,    // significant, in the good direction
  kThrottled,      // significant, but a side was throttled: not counted
  kNotComparable,  // a value is not finite, or the baseline is 0
};

std::string VerdictName(Verdict verdict);

struct MetricComparison {
  std::string experiment;
  std::string point;  // full point key
  std::string metric;
  std::string unit;
  double baseline = 0;
  double candidate = 0;
  double change = 0;  // (candidate - baseline) / |baseline|
  Direction direction = Direction::kEither;
  double relative_tolerance = 0;
  // k x max(baseline spread, candidate spread, nights' scaled MAD / |baseline|).
  double noise_threshold = 0;
  double threshold = 0;  // max of the two: |change| must exceed it
  Verdict verdict = Verdict::kUnchanged;
  bool baseline_throttled = false;
  bool candidate_throttled = false;
  // On flagged rows (regression, improvement, throttled): the driver, suite
  // commit, vbios or device changes between the runs.
  std::vector<std::string> annotations;
};

struct RegressionReport {
  std::string baseline_label;
  std::string candidate_label;
  std::vector<RunInfo> baseline_runs;
  RunInfo candidate_run;
  // "driver 550.54 -> 555.42", "suite 0123456789ab -> ba9876543210", ...
  std::vector<std::string> context_changes;
  // Every compared (point, metric), by point key then metric.
  std::vector<MetricComparison> comparisons;
  std::vector<std::string> only_in_baseline;   // point keys
  std::vector<std::string> only_in_candidate;  // point keys
  // "<point> <metric>": a metric one side of a common point lacks.
  std::vector<std::string> metrics_only_in_one;
  // The candidate's entries that measured nothing, and whether it measured
  // no point at all.
  std::vector<EntryProblem> candidate_problems;
  bool candidate_measured_nothing = false;

  int Count(Verdict verdict) const;
  bool HasRegression() const { return Count(Verdict::kRegression) > 0; }
  // A candidate that measured nothing, or has an entry that failed, timed
  // out, was skipped, never finished or whose file could not be read.
  bool CandidateIncomplete() const {
    return candidate_measured_nothing || !candidate_problems.empty();
  }
};

// The identity changes between the baseline run(s) and the candidate:
// driver, suite commit (12 characters), vbios, device (name and uuid, else
// serial). A value unknown on either side is not a change.
std::vector<std::string> ContextChanges(const std::vector<RunInfo>& baseline,
                                        const RunInfo& candidate);

// Compares every metric of every point both sides have. With b the baseline
// and c the candidate value, a change is significant when
//   |c - b| > max(relative_tolerance x |b|,
//                 k x max(spread_b x |b|, spread_c x |b|, nights_scaled_mad))
// (a missing spread counts as 0).
RegressionReport CompareSides(const ComparisonSide& baseline, const ComparisonSide& candidate,
                              const Thresholds& thresholds);

// Markdown: the two sides, the context changes, the candidate's entries
// that measured nothing (analysis/nightly/entry_problems.h), a summary, then tables of
// regressions, improvements and throttled changes (each row annotated), and
// the points not compared.
std::string RenderRegressionMarkdown(const RegressionReport& report);

// JUnit XML: one testcase per entry of the candidate that measured nothing
// (a <failure>, or <skipped> for a skipped entry) and, when the candidate
// measured nothing and no entry says why, a failing "nothing measured"
// testcase; then one testcase per compared (point, metric) (classname = the
// experiment), a <failure> per regression, <skipped> for throttled and not
// comparable ones and for points only one side has.
std::string RenderRegressionJUnit(const RegressionReport& report);

// `text` escaped for XML attribute values and character data (&, <, >, ",
// '); control characters other than tab, newline and carriage return, which
// XML 1.0 cannot hold, become U+FFFD.
std::string XmlEscape(std::string_view text);

// Writes a report's outputs as compare and outliers do: `junit` to
// `junit_path` when that is given, and `markdown` to `markdown_path`, or to
// stdout when that is empty; files atomically. The first failure is
// returned.
absl::Status WriteReportOutputs(const std::string& markdown, const std::string& markdown_path,
                                const std::string& junit, const std::string& junit_path);

// The point key without its leading "<experiment>/".
std::string PointWithoutExperiment(const std::string& point, const std::string& experiment);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_NIGHTLY_REGRESSION_H_
