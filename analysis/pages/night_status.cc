#include "analysis/pages/night_status.h"

#include "absl/strings/str_cat.h"
#include "analysis/pages/dashboard.h"
#include "analysis/nightly/entry_problems.h"
#include "analysis/format/format.h"

namespace dissect::analysis {
namespace {

std::vector<EntryProblem> Problems(const NightStatus& status) {
  std::vector<EntryProblem> problems;
  for (const NightStatus::Entry& entry : status.entries) problems.push_back(entry.problem);
  return problems;
}

// The rows of the entries table, one per entry that measured nothing.
std::string EntryRows(const NightStatus& status) {
  std::string out;
  for (const NightStatus::Entry& e : status.entries) {
    absl::StrAppend(&out, "<tr><td>", HtmlEscape(e.device), "</td><td><code>", HtmlEscape(e.run_id),
                    "</code></td><td>", HtmlEscape(e.sweep), "</td><td><code>",
                    HtmlEscape(e.problem.entry), "</code></td><td>",
                    e.problem.experiment.empty() ? kEmptyCell : HtmlEscape(e.problem.experiment),
                    "</td><td class=\"status\">", HtmlEscape(e.problem.status), "</td><td>",
                    HtmlEscape(e.problem.reason), "</td></tr>\n");
  }
  return out;
}

std::string EntriesTable(const NightStatus& status) {
  if (status.entries.empty()) return "";
  return absl::StrCat(
      "<table class=\"failures\">\n<thead><tr><th>device</th><th>run</th><th>sweep</th>"
      "<th>entry</th><th>experiment</th><th>status</th><th>reason</th></tr></thead>\n<tbody>\n",
      EntryRows(status), "</tbody>\n</table>\n");
}

std::string RunsWithoutPointsList(const NightStatus& status) {
  if (status.runs_without_points.empty()) return "";
  std::string out = "<ul class=\"failures\">\n";
  for (const std::string& run : status.runs_without_points) {
    absl::StrAppend(&out, "<li>", HtmlEscape(run), ": nothing measured</li>\n");
  }
  return out + "</ul>\n";
}

}  // namespace

std::string NightStatus::Summary() const {
  if (!Broken()) return "";
  std::string summary = NothingMeasured() ? "nothing measured" : "";
  if (!entries.empty()) {
    absl::StrAppend(&summary, summary.empty() ? "" : ": ", ProblemsSummary(Problems(*this)));
  } else if (!NothingMeasured()) {
    absl::StrAppend(&summary, runs_without_points.size(),
                    runs_without_points.size() == 1 ? " run" : " runs", " measured nothing");
  }
  return summary;
}

NightStatus NightStatusOf(const std::vector<RunData>& runs) {
  NightStatus status;
  status.runs = static_cast<int>(runs.size());
  for (const RunData& run : runs) {
    const std::string device = DeviceLabel(run.info);
    status.entries_known = status.entries_known || run.entries > 0;
    for (const EntryProblem& problem : run.problems) {
      status.entries.push_back({device, run.info.run_id, run.info.sweep, problem});
    }
    if (NothingMeasured(run)) {
      status.runs_without_points.push_back(absl::StrCat(device, ", run ", run.info.run_id));
    }
  }
  return status;
}

std::string NightStatusHtml(const NightStatus& status) {
  if (!status.Broken()) return "";
  return absl::StrCat(
      "<section id=\"failures\" class=\"failed\">\n<h2>",
      status.NothingMeasured() ? "Nothing measured" : "Entries not measured",
      status.entries.empty() ? "" : absl::StrCat(" (", status.entries.size(), ")"),
      "</h2>\n<p><strong>", HtmlEscape(status.Summary()),
      ".</strong> These entries have no measurements on this page; their regressions were "
      "not checked.</p>\n",
      RunsWithoutPointsList(status), EntriesTable(status), "</section>\n");
}

std::string NoFindingsHtml(const NightStatus& status, const std::string& what) {
  if (status.NothingMeasured()) {
    return absl::StrCat("<p class=\"failed\">no ", HtmlEscape(what),
                        " checked: nothing was measured (above)</p>\n");
  }
  if (status.Broken()) {
    return absl::StrCat("<p class=\"unavailable\">no ", HtmlEscape(what),
                        " among the points measured; ", HtmlEscape(status.Summary()),
                        " (above)</p>\n");
  }
  return absl::StrCat("<p class=\"ok\">no ", HtmlEscape(what), "</p>\n");
}

std::string BrokenNightsHtml(const std::vector<std::pair<std::string, NightStatus>>& nights) {
  std::string body;
  int broken = 0;
  for (const auto& [night, status] : nights) {
    if (!status.Broken()) continue;
    ++broken;
    absl::StrAppend(&body, "<h3><a href=\"", HtmlEscape(night), "/index.html\">", HtmlEscape(night),
                    "</a>: ", HtmlEscape(status.Summary()), "</h3>\n",
                    RunsWithoutPointsList(status), EntriesTable(status));
  }
  if (broken == 0) return "";
  return absl::StrCat("<section id=\"failures\" class=\"failed\">\n<h2>Nights with entries not ",
                      "measured (", broken, ")</h2>\n", body, "</section>\n");
}

std::string NightStatusCell(const NightStatus& status) {
  if (status.Broken()) {
    return absl::StrCat("<td class=\"failed\">", HtmlEscape(status.Summary()), "</td>");
  }
  return status.entries_known ? "<td>all measured</td>" : absl::StrCat("<td>", kEmptyCell, "</td>");
}

std::string NightStatusWarning(const std::string& night, const NightStatus& status) {
  return absl::StrCat(night, ": ", status.Summary(), " (see ", night, "/index.html)");
}

}  // namespace dissect::analysis
