// Whether a night measured what it was asked to, as the dashboard shows it:
// every entry of the night's runs that failed, timed out, was skipped,
// never finished or whose result file could not be read (RunData::problems),
// and the runs that measured nothing. The night page and the index show
// them in red above the regressions; a broken night never reads as healthy.

#ifndef DISSECT_ANALYSIS_PAGES_NIGHT_STATUS_H_
#define DISSECT_ANALYSIS_PAGES_NIGHT_STATUS_H_

#include <string>
#include <utility>
#include <vector>

#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

struct NightStatus {
  // An entry that measured nothing, with the run it belongs to.
  struct Entry {
    std::string device;  // DeviceLabel of the run
    std::string run_id;
    std::string sweep;
    EntryProblem problem;
  };
  std::vector<Entry> entries;
  // "<device>, run <run_id>" of every run that measured no point.
  std::vector<std::string> runs_without_points;
  int runs = 0;
  // Some run says how many entries it had (a run folder's manifest); runs
  // from the history database do not.
  bool entries_known = false;

  // Every run of the night measured nothing.
  bool NothingMeasured() const {
    return runs > 0 && runs_without_points.size() == static_cast<size_t>(runs);
  }
  bool Broken() const { return !entries.empty() || !runs_without_points.empty(); }
  // "nothing measured: 10 entries not measured (10 failed)", "2 entries not
  // measured (1 failed, 1 timeout)", "1 run measured nothing"; "" if healthy.
  std::string Summary() const;
};

NightStatus NightStatusOf(const std::vector<RunData>& runs);

// The night page's section (<section id="failures" class="failed">) above
// the findings: a heading, the summary and a table of device, run, entry,
// experiment, status and reason. "" for a healthy night.
std::string NightStatusHtml(const NightStatus& status);

// What the findings block says instead of a green "no regressions" (or "no
// fleet outliers": `what`) on a broken night; the green line otherwise.
std::string NoFindingsHtml(const NightStatus& status, const std::string& what);

// The index's section above the table of nights: each broken night (linked)
// with its entries and reasons, in red. "" when no night is broken.
std::string BrokenNightsHtml(const std::vector<std::pair<std::string, NightStatus>>& nights);

// The index table's cell for a night's entries: the summary in red, else
// "all measured" where the runs' entries are known, else "—".
std::string NightStatusCell(const NightStatus& status);

// One line per broken night for the dashboard's stderr (and its exit
// status): "<night>: <summary> (see <night>/index.html)".
std::string NightStatusWarning(const std::string& night, const NightStatus& status);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_PAGES_NIGHT_STATUS_H_
