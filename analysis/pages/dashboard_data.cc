// The dashboard's data: the history's runs read and grouped by night and
// device, a night checked against its history, and the trends selected.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "analysis/pages/dashboard.h"
#include "analysis/pages/dashboard_history.h"
#include "analysis/plots/figures.h"
#include "analysis/format/format.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/outliers.h"
#include "experiments/result_format/headline_metrics.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;

// Per run: point -> its last attempt.
std::map<std::string, const RunPoint*> LastAttempts(const RunData& run) {
  std::map<std::string, const RunPoint*> out;
  for (const RunPoint& point : run.points) {
    auto [it, inserted] = out.emplace(point.point, &point);
    if (!inserted && point.attempt >= it->second->attempt) it->second = &point;
  }
  return out;
}

// Every run folder at or below `root` (a folder with manifest.json).
std::vector<fs::path> RunFolders(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::exists(root / "manifest.json", ec)) out.push_back(root);
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && fs::exists(it->path() / "manifest.json", ec)) {
      out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string HeadlineMetric(const RunData& run, const std::string& experiment) {
  auto it = run.headline_metrics.find(experiment);
  if (it != run.headline_metrics.end()) return it->second;
  // Values kept without their files: what files of that time would say.
  return std::string(result_format::HeadlineBeforeDeclared(experiment));
}

DashboardFindings CheckNight(const std::vector<RunData>& night_runs,
                             const std::map<std::string, std::vector<RunData>>& history,
                             const Thresholds& thresholds, int nights) {
  DashboardFindings findings;
  findings.available = true;
  for (const RunData& run : night_runs) {
    std::vector<RunData> before;
    auto h = history.find(DeviceKey(run.info));
    if (h != history.end()) {
      for (const RunData& earlier : h->second) {
        if (earlier.info.started < run.info.started) before.push_back(earlier);
      }
    }
    if (nights > 0 && before.size() > static_cast<size_t>(nights)) {
      before.erase(before.begin(), before.end() - nights);
    }
    if (before.empty()) {
      findings.notes.push_back(absl::StrCat(DeviceLabel(run.info), ", run ", run.info.run_id,
                                            ": no earlier night to compare with"));
      continue;
    }
    absl::StatusOr<ComparisonSide> baseline = SideOfNights(before);
    if (!baseline.ok()) {
      findings.notes.push_back(absl::StrCat(DeviceLabel(run.info), ", run ", run.info.run_id, ": ",
                                            baseline.status().message()));
      continue;
    }
    const RegressionReport report = CompareSides(*baseline, SideOfRun(run), thresholds);
    for (const MetricComparison& c : report.comparisons) {
      if (c.verdict != Verdict::kRegression) continue;
      DashboardFinding f;
      f.device = DeviceLabel(run.info);
      f.run_id = run.info.run_id;
      f.point = c.point;
      f.metric = c.metric;
      f.unit = c.unit;
      f.value = c.candidate;
      f.baseline = c.baseline;
      f.change_pct = c.change * 100;
      std::vector<std::string> notes = {absl::StrCat(
          "threshold ", FormatPercent(c.threshold), " (", DirectionName(c.direction), "); ",
          "median of ", before.size(), before.size() == 1 ? " night" : " nights")};
      notes.insert(notes.end(), c.annotations.begin(), c.annotations.end());
      f.annotation = absl::StrJoin(notes, "; ");
      findings.regressions.push_back(std::move(f));
    }
  }
  const OutlierReport outliers = FindFleetOutliers(night_runs, thresholds);
  for (const FleetModel& model : outliers.models) {
    if (!model.enough_cards) {
      findings.notes.push_back(absl::StrCat("fleet outliers: ", model.device_name, ": ",
                                            model.cards.size(), " card(s), fewer than ",
                                            kMinFleetCards, ": not checked"));
    }
  }
  for (const std::string& note : outliers.notes) findings.notes.push_back(note);
  for (const OutlierFinding& o : outliers.outliers) {
    DashboardFinding f;
    f.device =
        absl::StrCat(o.device_name, " (card ", o.card, o.host.empty() ? "" : ", ", o.host, ")");
    f.run_id = o.run_id;
    f.point = o.point;
    f.metric = o.metric;
    f.unit = o.unit;
    f.value = o.value;
    f.baseline = o.fleet_median;
    f.change_pct = o.deviation * 100;
    f.annotation = absl::StrCat(o.worse ? "worse" : "better", " than the fleet of ", o.fleet_cards,
                                " cards (threshold ", FormatPercent(o.threshold), ")",
                                o.throttled ? "; throttled" : "");
    findings.outliers.push_back(std::move(f));
  }
  return findings;
}

std::string NightOf(const RunInfo& info) {
  const std::string& s = info.started;
  const bool date = s.size() >= 10 && s[4] == '-' && s[7] == '-' &&
                    std::all_of(s.begin(), s.begin() + 4, absl::ascii_isdigit) &&
                    absl::ascii_isdigit(s[5]) && absl::ascii_isdigit(s[6]) &&
                    absl::ascii_isdigit(s[8]) && absl::ascii_isdigit(s[9]);
  return date ? s.substr(0, 10) : "unknown";
}

std::string DeviceKey(const RunInfo& info) {
  if (!info.device_uuid.empty()) return info.device_uuid;
  if (!info.device_serial.empty()) return info.device_serial;
  return absl::StrCat(info.device_name, "@", info.host);
}

std::string DeviceLabel(const RunInfo& info) {
  std::string label = info.device_name.empty() ? "unknown device" : info.device_name;
  std::vector<std::string> where;
  if (!info.host.empty()) where.push_back(info.host);
  if (!info.device_uuid.empty()) where.push_back(info.device_uuid.substr(0, 12));
  if (!where.empty()) absl::StrAppend(&label, " (", absl::StrJoin(where, ", "), ")");
  return label;
}

std::vector<ResultFile> ResultFilesFromRun(const RunData& run) {
  std::vector<ResultFile> files;
  std::map<std::string, size_t> file_of;              // experiment -> index
  std::vector<std::map<std::string, size_t>> row_of;  // per file: point -> row index
  std::vector<std::map<std::string, int>> attempt_of;
  std::vector<std::set<std::string>> metrics_of;
  for (const RunPoint& point : run.points) {
    auto [it, inserted] = file_of.emplace(point.experiment, files.size());
    if (inserted) {
      ResultFile file;
      file.path = absl::StrCat("history:", run.info.run_id, "/", point.experiment);
      file.experiment = point.experiment;
      file.context = {{"dissect_experiment", point.experiment},
                      {"dissect_schema_version", std::string(kSupportedSchemaVersion)},
                      {"device_name", run.info.device_name},
                      {"git_commit", run.info.git_commit},
                      {"driver_version", run.info.driver_version},
                      {"host_name", run.info.host},
                      {"date", run.info.started}};
      files.push_back(std::move(file));
      row_of.emplace_back();
      attempt_of.emplace_back();
      metrics_of.emplace_back();
    }
    const size_t f = it->second;
    ResultFile& file = files[f];
    Row row;
    row.name = point.point + "/manual_time";
    const std::vector<absl::string_view> segments = absl::StrSplit(point.point, '/');
    for (size_t s = 1; s < segments.size(); ++s) {
      const size_t colon = segments[s].find(':');
      if (colon == absl::string_view::npos) continue;
      const std::string name(segments[s].substr(0, colon));
      row.axes.emplace_back(name, std::string(segments[s].substr(colon + 1)));
      if (std::find(file.axis_names.begin(), file.axis_names.end(), name) ==
          file.axis_names.end()) {
        file.axis_names.push_back(name);
      }
    }
    for (const auto& [metric, value] : point.metrics) {
      row.counters[metric] = value.value;
      if (value.spread) row.counters[metric + ".spread"] = *value.spread;
      if (metrics_of[f].insert(metric).second && !value.unit.empty()) {
        file.context["metric." + metric + ".unit"] = value.unit;
      }
    }
    if (point.throttled) row.counters["throttled"] = 1;
    if (point.attempt > 1) row.counters["attempt"] = point.attempt;
    row.time_unit = "ms";
    auto [row_it, new_row] = row_of[f].emplace(point.point, file.rows.size());
    if (new_row) {
      file.rows.push_back(std::move(row));
      attempt_of[f][point.point] = point.attempt;
    } else if (point.attempt >= attempt_of[f][point.point]) {
      file.rows[row_it->second] = std::move(row);
      attempt_of[f][point.point] = point.attempt;
    }
  }
  for (size_t f = 0; f < files.size(); ++f) {
    std::vector<std::string> metrics(metrics_of[f].begin(), metrics_of[f].end());
    const std::string headline = HeadlineMetric(run, files[f].experiment);
    auto head = std::find(metrics.begin(), metrics.end(), headline);
    if (head != metrics.end()) {
      std::rotate(metrics.begin(), head, head + 1);
      files[f].context[std::string(kHeadlineMetricKey)] = headline;
    }
    files[f].metric_names = metrics;
    files[f].context["dissect_metrics"] = absl::StrJoin(metrics, ",");
    files[f].context["dissect_axes"] = absl::StrJoin(files[f].axis_names, ",");
  }
  return files;
}

std::vector<TrendSeries> SelectTrends(const std::vector<RunData>& device_history,
                                      const std::string& night,
                                      const std::vector<DashboardFinding>& findings, int max_nights,
                                      int max_plots, std::vector<std::string>* notes) {
  std::vector<std::map<std::string, const RunPoint*>> points;
  for (const RunData& run : device_history) points.push_back(LastAttempts(run));
  std::set<std::string> night_run_ids;
  for (const RunData& run : device_history) {
    if (NightOf(run.info) == night) night_run_ids.insert(run.info.run_id);
  }
  // (point, metric) pairs: the findings', then the headline of every point.
  std::vector<std::pair<std::string, std::string>> pairs;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](const std::string& point, const std::string& metric) {
    if (seen.insert({point, metric}).second) pairs.push_back({point, metric});
  };
  for (const DashboardFinding& finding : findings) {
    if (night_run_ids.count(finding.run_id) > 0) add(finding.point, finding.metric);
  }
  for (size_t r = 0; r < device_history.size(); ++r) {
    if (night_run_ids.count(device_history[r].info.run_id) == 0) continue;
    for (const auto& [name, point] : points[r]) {
      if (point->metrics.empty()) continue;
      const std::string headline = HeadlineMetric(device_history[r], point->experiment);
      add(name, point->metrics.count(headline) > 0 ? headline : point->metrics.begin()->first);
    }
  }
  if (max_plots >= 0 && pairs.size() > static_cast<size_t>(max_plots)) {
    if (notes != nullptr) {
      notes->push_back(absl::StrCat(pairs.size() - max_plots, " of ", pairs.size(),
                                    " trend plots left out (at most ", max_plots,
                                    " per device; the findings' first)"));
    }
    pairs.resize(max_plots);
  }
  const std::string device = device_history.empty() ? "" : DeviceLabel(device_history.back().info);
  std::vector<TrendSeries> out;
  for (const auto& [point_name, metric] : pairs) {
    TrendSeries series;
    series.device = device;
    series.point = point_name;
    series.metric = metric;
    for (size_t r = 0; r < device_history.size(); ++r) {
      if (NightOf(device_history[r].info) > night) continue;
      auto p = points[r].find(point_name);
      if (p == points[r].end()) continue;
      auto m = p->second->metrics.find(metric);
      if (m == p->second->metrics.end()) continue;
      series.experiment = p->second->experiment;
      if (!m->second.unit.empty()) series.unit = m->second.unit;
      const RunInfo& info = device_history[r].info;
      series.samples.push_back({info.run_id, info.started, m->second.value, m->second.spread,
                                info.driver_version, info.git_commit});
    }
    if (max_nights > 0 && series.samples.size() > static_cast<size_t>(max_nights)) {
      series.samples.erase(series.samples.begin(), series.samples.end() - max_nights);
    }
    out.push_back(std::move(series));
  }
  return out;
}

absl::StatusOr<DashboardInput> ReadDashboardInput(const std::string& history) {
  DashboardInput input;
  std::error_code ec;
  if (!fs::exists(history, ec)) {
    return absl::NotFoundError(
        absl::StrCat(history, ": no such history database or folder of run folders"));
  }
  if (!fs::is_directory(history, ec)) return ReadHistoryDatabase(history);
  input.origin = "run folders under " + history;
  for (const fs::path& dir : RunFolders(history)) {
    absl::StatusOr<RunData> run = ReadRunFolder(dir.string(), &input.bad);
    if (!run.ok()) return run.status();
    std::vector<ResultFile> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".json" || entry.path().filename() == "manifest.json") {
        continue;
      }
      absl::StatusOr<ResultFile> file = ReadResultFile(entry.path().string());
      if (!file.ok()) continue;  // ReadRunFolder named it in `bad`
      // Named on the page as the history database names it, not by this
      // machine's path.
      file->path = RunFileName(dir.string(), entry.path().string());
      files.push_back(*std::move(file));
    }
    std::sort(files.begin(), files.end(),
              [](const ResultFile& a, const ResultFile& b) { return a.path < b.path; });
    input.raw_files[run->info.run_id] = std::move(files);
    input.runs.push_back(*std::move(run));
  }
  return input;
}

}  // namespace dissect::analysis
