#include "analysis/pages/dashboard.h"

#include <sys/wait.h>
#include <unistd.h>

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
#include "analysis/pages/dashboard_history.h"
#include "analysis/plots/figures.h"
#include "analysis/format/format.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/outliers.h"
#include "experiments/result_format/atomic_file.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;

// Per device of `night_runs` its last `history_runs` runs of `runs` up to
// `night` (not the whole history: every night page would copy it).
std::map<std::string, std::vector<RunData>> NightHistory(
    const std::vector<const RunData*>& night_runs, const std::vector<const RunData*>& runs,
    const std::string& night, int history_runs) {
  std::map<std::string, std::vector<RunData>> history;
  for (const RunData* run : night_runs) history[DeviceKey(run->info)];
  std::map<std::string, std::vector<const RunData*>> upto;
  for (const RunData* run : runs) {
    auto h = history.find(DeviceKey(run->info));
    if (h != history.end() && NightOf(run->info) <= night) upto[h->first].push_back(run);
  }
  const size_t keep = static_cast<size_t>(std::max(1, history_runs));
  for (auto& [key, device_runs] : upto) {
    for (size_t i = device_runs.size() > keep ? device_runs.size() - keep : 0;
         i < device_runs.size(); ++i) {
      history[key].push_back(*device_runs[i]);
    }
  }
  return history;
}

// The result files of a night's runs: a run's own files where the input
// has them, else rebuilt from the stored values; `page` names which.
std::vector<ResultFile> NightResultFiles(const std::vector<const RunData*>& night_runs,
                                         const DashboardInput& input, NightPage* page) {
  std::vector<ResultFile> files;
  for (const RunData* run : night_runs) {
    auto raw = input.raw_files.find(run->info.run_id);
    if (raw != input.raw_files.end() && !raw->second.empty()) {
      files.insert(files.end(), raw->second.begin(), raw->second.end());
      page->sources.push_back(absl::StrCat(DeviceLabel(run->info), ", run ", run->info.run_id,
                                           ": the run's result files"));
    } else {
      std::vector<ResultFile> rebuilt = ResultFilesFromRun(*run);
      files.insert(files.end(), rebuilt.begin(), rebuilt.end());
      page->sources.push_back(
          absl::StrCat(DeviceLabel(run->info), ", run ", run->info.run_id,
                       ": rebuilt from the stored values (medians, spreads, units; no clocks, "
                       "labels or device facts)"));
    }
  }
  return files;
}

// The figures of `files` written and drawn under `night_dir`/figures; what
// could not be drawn goes to the page and `summary`'s warnings.
absl::Status DrawNightFigures(const std::vector<ResultFile>& files, const fs::path& night_dir,
                              const std::string& night, const DashboardOptions& options,
                              NightPage* page, DashboardSummary* summary) {
  std::error_code ec;
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(files);
  if (!figures.ok()) {
    page->figure_problems.push_back(absl::StrCat("no figures: ", figures.status().message()));
    return absl::OkStatus();
  }
  if (!options.run_gnuplot) {
    page->figure_problems.push_back("figures not drawn: no gnuplot runner");
    return absl::OkStatus();
  }
  for (const DeviceFigures& device : *figures) {
    const fs::path dir = night_dir / "figures" / device.folder;
    fs::create_directories(dir, ec);
    if (ec) {
      return absl::InternalError(absl::StrCat(dir.string(), ": cannot create: ", ec.message()));
    }
    for (const FigureFile& file : device.files) {
      if (absl::Status s =
              result_format::WriteFileAtomically((dir / file.name).string(), file.contents);
          !s.ok())
        return s;
    }
    for (const std::string& script : device.scripts) {
      const std::string stem = fs::path(script).stem().string();
      const std::string why = options.run_gnuplot(dir.string(), script);
      if (why.empty() && fs::exists(dir / (stem + ".svg"), ec)) {
        page->figures.push_back(
            {device.device_name, stem, absl::StrCat("figures/", device.folder, "/", stem, ".svg")});
      } else {
        const std::string message = absl::StrCat(device.device_name, ": ", stem,
                                                 " not drawn: ", why.empty() ? "no SVG" : why);
        page->figure_problems.push_back(message);
        summary->warnings.push_back(absl::StrCat(night, ": ", message));
      }
    }
  }
  return absl::OkStatus();
}

// The index's line for a night's page.
NightSummary SummaryOf(const NightPage& page) {
  NightSummary night_summary;
  night_summary.night = page.night;
  for (const RunInfo& info : page.runs) night_summary.devices.push_back(DeviceLabel(info));
  night_summary.status = page.status;
  night_summary.findings_available = page.findings.available;
  night_summary.regressions = static_cast<int>(page.findings.regressions.size());
  night_summary.outliers = static_cast<int>(page.findings.outliers.size());
  return night_summary;
}

// The page of `night` (runs `night_runs`, the newest night if `newest`)
// written under `out_dir`; returns it for the index, adds its path and
// HTML to `written`.
absl::StatusOr<NightSummary> WriteNight(const std::string& night,
                                        const std::vector<const RunData*>& night_runs, bool newest,
                                        const std::vector<const RunData*>& runs,
                                        const DashboardInput& input, const std::string& out_dir,
                                        const DashboardOptions& options, DashboardSummary* summary,
                                        std::vector<std::pair<std::string, std::string>>* written) {
  std::error_code ec;
  const fs::path night_dir = fs::path(out_dir) / night;
  fs::remove_all(night_dir / "figures", ec);
  fs::create_directories(night_dir, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat(night_dir.string(), ": cannot create: ", ec.message()));
  }
  NightPage page;
  page.night = night;
  std::vector<RunData> night_copies;
  for (const RunData* run : night_runs) {
    page.runs.push_back(run->info);
    night_copies.push_back(*run);
  }
  page.status = NightStatusOf(night_copies);
  if (page.status.Broken()) {
    summary->broken_nights.push_back(NightStatusWarning(night, page.status));
    summary->newest_night_broken = summary->newest_night_broken || newest;
  }
  const std::map<std::string, std::vector<RunData>> history =
      NightHistory(night_runs, runs, night, options.history_runs);
  if (options.find) {
    page.findings = options.find(night_copies, history);
  } else {
    page.findings.unavailable_reason = options.findings_unavailable_reason;
  }

  const std::vector<ResultFile> files = NightResultFiles(night_runs, input, &page);
  absl::StatusOr<std::string> report = RenderReport(files, options.report);
  if (report.ok()) {
    page.report_markdown = *report;
  } else {
    page.report_error = std::string(report.status().message());
  }
  if (absl::Status s = DrawNightFigures(files, night_dir, night, options, &page, summary);
      !s.ok()) {
    return s;
  }

  std::vector<DashboardFinding> all_findings = page.findings.regressions;
  all_findings.insert(all_findings.end(), page.findings.outliers.begin(),
                      page.findings.outliers.end());
  for (const auto& [key, device_history] : history) {
    std::vector<TrendSeries> trends =
        SelectTrends(device_history, night, all_findings, options.trend_nights,
                     options.trend_plots_per_device, &page.trend_notes);
    page.trends.insert(page.trends.end(), trends.begin(), trends.end());
  }

  const std::string html = RenderNightPage(page);
  if (absl::Status s =
          result_format::WriteFileAtomically((night_dir / "index.html").string(), html);
      !s.ok())
    return s;
  written->push_back({(night_dir / "index.html").string(), html});
  return SummaryOf(page);
}

}  // namespace

std::string RunGnuplotScript(const std::string& dir, const std::string& script) {
  const int status = RunGnuplot(dir, script);
  if (status == 127) return "gnuplot could not be run (not on PATH? Debian package gnuplot-nox)";
  if (status != 0) return absl::StrCat("gnuplot failed on ", script, " (status ", status, ")");
  const fs::path svg = fs::path(dir) / fs::path(script).replace_extension(".svg");
  std::error_code ec;
  if (!fs::exists(svg, ec)) return absl::StrCat("gnuplot wrote no ", svg.filename().string());
  return "";
}

absl::StatusOr<DashboardSummary> WriteDashboard(const DashboardInput& input,
                                                const std::string& out_dir,
                                                const DashboardOptions& options) {
  if (input.runs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(input.origin.empty() ? "the history" : input.origin, " holds no runs"));
  }
  std::vector<const RunData*> runs, imported;  // our nights' runs; other suites' results
  for (const RunData& run : input.runs) (IsImported(run.info) ? imported : runs).push_back(&run);
  std::stable_sort(runs.begin(), runs.end(), [](const RunData* a, const RunData* b) {
    return a->info.started < b->info.started;
  });
  std::map<std::string, std::vector<const RunData*>> by_night;
  for (const RunData* run : runs) by_night[NightOf(run->info)].push_back(run);

  DashboardSummary summary;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(out_dir, ": cannot create: ", ec.message()));

  std::vector<NightSummary> nights;
  std::vector<std::pair<std::string, std::string>> written;  // night pages: path, html
  for (auto night_it = by_night.rbegin(); night_it != by_night.rend(); ++night_it) {
    absl::StatusOr<NightSummary> night =
        WriteNight(night_it->first, night_it->second, night_it == by_night.rbegin(), runs, input,
                   out_dir, options, &summary, &written);
    if (!night.ok()) return night.status();
    nights.push_back(*std::move(night));
  }
  if (!imported.empty()) {
    absl::StatusOr<std::pair<std::string, std::string>> page =
        WriteImportedPage(imported, input, out_dir, options.report);
    if (!page.ok()) return page.status();
    written.push_back(*std::move(page));
  }
  const fs::path index = fs::path(out_dir) / "index.html";
  const std::string index_html = RenderIndexPage(nights, ImportedIndexHtml(imported));
  if (absl::Status s = result_format::WriteFileAtomically(index.string(), index_html); !s.ok())
    return s;
  written.insert(written.begin(), {index.string(), index_html});

  std::vector<std::string> broken;
  for (const auto& [page, html] : written) {
    summary.pages.push_back(page);
    for (const std::string& link : BrokenLocalLinks(html, fs::path(page).parent_path().string())) {
      broken.push_back(absl::StrCat(page, ": ", link));
    }
  }
  if (!broken.empty()) {
    return absl::InternalError(absl::StrCat("broken local links: ", absl::StrJoin(broken, "; ")));
  }
  return summary;
}

}  // namespace dissect::analysis
