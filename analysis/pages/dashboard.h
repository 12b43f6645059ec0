// Static HTML dashboard of the nightly characterization history:
// OUT_DIR/index.html lists the nights, newest first; OUT_DIR/<night>/index.html
// shows one night: the regressions and fleet outliers on top, the
// characterization tables (RenderReport), the SVG figures (BuildFigures +
// gnuplot) and trend plots per metric and device (inline SVG). The pages
// need no server and contain no JavaScript.

#ifndef DISSECT_ANALYSIS_PAGES_DASHBOARD_H_
#define DISSECT_ANALYSIS_PAGES_DASHBOARD_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "analysis/pages/night_status.h"
#include "analysis/nightly/regression.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

// ---------------------------------------------------------------------------
// HTML building blocks.

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(absl::string_view text);

// Converts the markdown that RenderReport writes to HTML: `#` headings,
// pipe tables (the `---:` rule right-aligns a column), `- ` lists and
// paragraphs, with `code` spans and _emphasis_ inline. Every character of
// the input is escaped; nothing else is interpreted.
std::string MarkdownToHtml(absl::string_view markdown);

// The local files that `html` references and that do not exist. References
// are the src, href (also xlink:href) and data attributes of every tag (CSS
// url() targets are not looked at), each resolved against `page_dir`
// (file:// URLs by their path; entities and %XX decoded, ?query and
// #fragment dropped). Links with another scheme (http:, data:, mailto:, ...)
// and pure #fragments are not local. One entry per broken reference:
// "<reference> (<resolved path>)".
std::vector<std::string> BrokenLocalLinks(absl::string_view html, const std::string& page_dir);

// The start of every dashboard page: doctype, <title>, the style sheet
// and <body>.
std::string PageHead(const std::string& title);

// ---------------------------------------------------------------------------
// Trend plots.

struct TrendSample {
  std::string run_id;
  std::string started;  // UTC ISO 8601
  double value = 0;
  std::optional<double> spread;  // fraction of value, (max - min) / median
  std::string driver_version;
  std::string git_commit;
};

// One metric of one point on one device over the nights, oldest first.
struct TrendSeries {
  std::string device;  // as shown
  std::string experiment;
  std::string point;
  std::string metric;
  std::string unit;
  std::vector<TrendSample> samples;
};

// Where TrendSvg draws everything, in SVG user units (y grows downwards).
struct TrendLayout {
  double width = 0, height = 0;
  double plot_left = 0, plot_right = 0, plot_top = 0, plot_bottom = 0;
  double y_min = 0, y_max = 0;  // the value range of the plot area
  std::vector<double> x, y;     // one per sample
  // The spread band: value * (1 +- spread / 2), 0 where a sample has none.
  std::vector<double> band_upper_y, band_lower_y;
  struct Change {
    double x = 0;       // between the two samples
    std::string title;  // e.g. "driver 550.54 -> 560.35"
  };
  std::vector<Change> changes;  // driver or suite-commit changes
};

// Samples evenly spaced in x (one slot per night); y scaled to the values
// and their spread band with 5% headroom (a flat series gets +-1% of its
// value, or +-1 around 0). A change mark stands halfway between two
// consecutive samples whose driver_version or git_commit differ (both
// known).
TrendLayout LayoutTrend(const TrendSeries& series);

// A self-contained <svg> element: the band as a polygon, the values as a
// polyline with a circle per night (its <title> gives night, value, spread,
// driver and commit), the change marks as dashed vertical lines with a
// <title>, the y range and the first and last night as labels.
std::string TrendSvg(const TrendSeries& series);

// The metric plotted for `experiment`'s points in `run`: the headline its
// result files name (RunData::headline_metrics, context
// dissect_headline_metric), else, for values kept without their files, the
// one files of that time stand for (result_format::HeadlineBeforeDeclared);
// "" when neither says (the caller then takes the point's first metric by
// name).
std::string HeadlineMetric(const RunData& run, const std::string& experiment);

// ---------------------------------------------------------------------------
// One night.

// A regression or fleet outlier, as the night page shows it (converted from
// analysis/nightly/regression.h and analysis/nightly/outliers.h findings).
struct DashboardFinding {
  std::string device;
  std::string run_id;
  std::string point;
  std::string metric;
  std::string unit;
  double value = 0;
  std::optional<double> baseline;    // the nights' or fleet's reference
  std::optional<double> change_pct;  // signed, of the baseline
  std::string annotation;            // e.g. "driver changed 550 -> 560"
};

struct DashboardFindings {
  // False when the check could not run; the page then says
  // "regression check not available: <unavailable_reason>".
  bool available = false;
  std::string unavailable_reason;
  std::vector<DashboardFinding> regressions;
  std::vector<DashboardFinding> outliers;
  // What the check could not do, a line each (e.g. a fleet too small).
  std::vector<std::string> notes;
};

// The regressions and fleet outliers of one night, from analysis/nightly/regression.h
// and analysis/nightly/outliers.h: each of `night_runs` (CompareSides) against the
// median of its device's last `nights` runs before it in `history` (keyed by
// DeviceKey, oldest first), the verdict-kRegression rows, annotated with the
// identity changes (driver, suite commit, ...); and FindFleetOutliers over
// `night_runs`, every flagged card (better or worse than its fleet, and
// whether it was throttled). A run without earlier nights, or a model with
// fewer than kMinFleetCards cards, is a note.
DashboardFindings CheckNight(const std::vector<RunData>& night_runs,
                             const std::map<std::string, std::vector<RunData>>& history,
                             const Thresholds& thresholds, int nights);

// A figure the page links: `src` relative to the night page's folder.
struct DashboardFigure {
  std::string device;
  std::string title;
  std::string src;
};

struct NightPage {
  std::string night;  // YYYY-MM-DD
  std::vector<RunInfo> runs;
  NightStatus status;  // entries that measured nothing: shown first, in red
  DashboardFindings findings;
  std::string report_markdown;       // RenderReport of the night's files
  std::string report_error;          // why there are no tables, if so
  std::vector<std::string> sources;  // where the tables come from, a line each
  std::vector<DashboardFigure> figures;
  std::vector<std::string> figure_problems;  // e.g. gnuplot failures
  std::vector<TrendSeries> trends;
  std::vector<std::string> trend_notes;  // e.g. plots left out
};

std::string RenderNightPage(const NightPage& page);

struct NightSummary {
  std::string night;
  std::vector<std::string> devices;
  NightStatus status;
  bool findings_available = false;
  int regressions = 0;
  int outliers = 0;
};

// Nights in the given order (the caller sorts newest first); the nights
// with entries that measured nothing listed above the table, in red.
// `imported_section` (HTML: the link to the results imported from other
// suites) comes first.
std::string RenderIndexPage(const std::vector<NightSummary>& nights,
                            const std::string& imported_section = "");

// ---------------------------------------------------------------------------
// History to pages.

// The night of a run: the date part of `started` (YYYY-MM-DD), "unknown"
// if it has none.
std::string NightOf(const RunInfo& info);

// How the trend plots and findings group runs, as the history database keys
// devices: the device UUID, else its serial, else "<name>@<host>".
std::string DeviceKey(const RunInfo& info);
// The device as shown: name, and the host and UUID prefix where known.
std::string DeviceLabel(const RunInfo& info);

// Result files rebuilt from a run's points, for RenderReport and
// BuildFigures when the raw files are not at hand (the history database
// keeps values, not files): one file per experiment with the run's device
// name, git commit and driver; the axes in the point's name order; every
// metric as a row counter with `<metric>.spread` and its unit; throttled
// points carry counter throttled = 1. Per point the last attempt is kept.
std::vector<ResultFile> ResultFilesFromRun(const RunData& run);

// The trend plots for `device_history` (one device's runs up to and
// including the night, oldest first; the night's runs last): the headline
// metric of every point measured that night, the (point, metric) pairs of
// `findings` first; the last `max_nights` runs each; at most `max_plots`
// plots, with a note in `notes` about any left out.
std::vector<TrendSeries> SelectTrends(const std::vector<RunData>& device_history,
                                      const std::string& night,
                                      const std::vector<DashboardFinding>& findings, int max_nights,
                                      int max_plots, std::vector<std::string>* notes);

struct DashboardOptions {
  ReportOptions report;
  // Finds the regressions and outliers of a night: its runs and, per
  // DeviceKey, the device's last `history_runs` runs up to the night,
  // oldest first. When
  // unset, every page says the regression check is not available and why
  // (`findings_unavailable_reason`).
  std::function<DashboardFindings(const std::vector<RunData>& night_runs,
                                  const std::map<std::string, std::vector<RunData>>& history)>
      find;
  std::string findings_unavailable_reason =
      "no regression library in this build (analysis/nightly/regression.h, "
      "analysis/nightly/outliers.h)";
  // Runs gnuplot on a script in a folder; returns "" or why it failed.
  // When unset, figures are not drawn and the page says so.
  std::function<std::string(const std::string& dir, const std::string& script)> run_gnuplot;
  int trend_nights = 30;
  int trend_plots_per_device = 120;
  // How many runs per device (up to and including the night) `find` and the
  // trends see; at least the regression baseline's nights plus one.
  int history_runs = 31;
};

// The history: every run, and where known the raw result files of a run
// (by run_id, e.g. read from its run folder); runs without them get
// ResultFilesFromRun.
struct DashboardInput {
  std::vector<RunData> runs;
  std::map<std::string, std::vector<ResultFile>> raw_files;
  std::string origin;  // e.g. "history database /x/history.db"
  // Files that could not be read, one "<path>: <why>" each (left out).
  std::vector<std::string> bad;
};

// Reads the history: a folder (searched recursively for run folders, each a
// folder with manifest.json, read with ReadRunFolder; their result files are
// the raw files, named by RunFileName), else a history database file
// (ReadHistoryDatabase: every run, the result files it kept as the raw
// files). Fails on a database or manifest that cannot be read; a file that
// does not exist is an error (HistoryDb::Open would create it).
absl::StatusOr<DashboardInput> ReadDashboardInput(const std::string& history);

// What WriteDashboard wrote.
struct DashboardSummary {
  std::vector<std::string> pages;  // paths, index first
  std::vector<std::string> warnings;
  // Every night with an entry that measured nothing, newest first:
  // "<night>: <NightStatus summary> (see <night>/index.html)".
  std::vector<std::string> broken_nights;
  // The newest night is one of them: the history's latest night failed.
  bool newest_night_broken = false;
};

// Writes OUT_DIR/index.html and OUT_DIR/<night>/index.html (with
// OUT_DIR/<night>/figures/...) for every night of `input`, then checks
// every page for broken local links (an error naming them). Fails on an
// empty history or a file that cannot be written. Nights with an entry
// that measured nothing (NightStatus) are listed in `broken_nights`. Runs
// imported from other suites (IsImported) are no night: they get
// OUT_DIR/imported/index.html (WriteImportedPage), linked from the index.
absl::StatusOr<DashboardSummary> WriteDashboard(const DashboardInput& input,
                                                const std::string& out_dir,
                                                const DashboardOptions& options);

// Runs `gnuplot script` with `dir` as working directory, as //analysis:figures
// does; "" on success (and the SVG exists), else why not.
std::string RunGnuplotScript(const std::string& dir, const std::string& script);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_PAGES_DASHBOARD_H_
