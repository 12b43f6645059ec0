#include "analysis/pages/dashboard_history.h"

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/result_points.h"
#include "analysis/results/results.h"
#include "experiments/result_format/atomic_file.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;

// The context value `key` of the first of `files` that has it, else "".
std::string FirstContext(const std::vector<ResultFile>& files, const std::string& key) {
  for (const ResultFile& file : files) {
    const std::string value = file.ContextOr(key, "");
    if (!value.empty()) return value;
  }
  return "";
}

std::string ImportedRunsTable(const std::vector<const RunData*>& imported,
                              const DashboardInput& input) {
  std::string out =
      "<table class=\"imported\">\n<thead><tr><th>device</th><th>suite</th><th>program</th>"
      "<th>method</th><th>measured</th><th>imported</th><th>file</th></tr></thead>\n<tbody>\n";
  for (const RunData* run : imported) {
    const RunInfo& info = run->info;
    std::vector<ResultFile> none;
    auto raw = input.raw_files.find(info.run_id);
    const std::vector<ResultFile>& files = raw != input.raw_files.end() ? raw->second : none;
    absl::StrAppend(&out, "<tr><td>", HtmlEscape(DeviceLabel(info)), "</td><td>",
                    HtmlEscape(info.source), "</td><td>", HtmlEscape(info.source_program),
                    "</td><td>", HtmlEscape(info.source_method), "</td><td>",
                    HtmlEscape(info.started.empty() ? "not given" : info.started), "</td><td>",
                    HtmlEscape(FirstContext(files, "import_date")), "</td><td><code>",
                    HtmlEscape(FirstContext(files, "source_file")), "</code></td></tr>\n");
  }
  out += "</tbody>\n</table>\n";
  return out;
}

// The distinct suites of the imported runs, in first-seen order.
std::vector<std::string> Suites(const std::vector<const RunData*>& imported) {
  std::vector<std::string> suites;
  std::set<std::string> seen;
  for (const RunData* run : imported) {
    if (seen.insert(run->info.source).second) suites.push_back(run->info.source);
  }
  return suites;
}

}  // namespace

absl::StatusOr<DashboardInput> ReadHistoryDatabase(const std::string& path) {
  DashboardInput input;
  input.origin = "history database " + path;
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(path);
  if (!db.ok()) return db.status();
  absl::StatusOr<std::vector<RunInfo>> runs = (*db)->Runs("", /*with_imported=*/true);
  if (!runs.ok()) return runs.status();
  for (const RunInfo& info : *runs) {
    absl::StatusOr<RunData> run = (*db)->LoadRun(info.run_id);
    if (!run.ok()) return run.status();
    absl::StatusOr<std::vector<StoredResultFile>> kept = (*db)->ResultFiles(info.run_id);
    if (!kept.ok()) return kept.status();
    std::vector<ResultFile> files;
    for (const StoredResultFile& stored : *kept) {
      absl::StatusOr<ResultFile> file = ParseResultJson(stored.text, stored.name);
      if (file.ok()) {
        RecordHeadlineMetric(*file, *run);
        files.push_back(*std::move(file));
      } else {
        input.bad.push_back(
            absl::StrCat(path, ": run ", info.run_id, ": ", file.status().message()));
      }
    }
    if (!files.empty()) input.raw_files[info.run_id] = std::move(files);
    input.runs.push_back(*std::move(run));
  }
  return input;
}

absl::StatusOr<std::pair<std::string, std::string>> WriteImportedPage(
    const std::vector<const RunData*>& imported, const DashboardInput& input,
    const std::string& out_dir, const ReportOptions& options) {
  const fs::path dir = fs::path(out_dir) / kImportedFolder;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(dir.string(), ": cannot create: ", ec.message()));
  std::string out = PageHead("results imported from other suites");
  absl::StrAppend(
      &out, "<p><a href=\"../index.html\">all nights</a></p>\n",
      "<h1>Results imported from other suites</h1>\n", "<p>Measured by other suites (",
      HtmlEscape(absl::StrJoin(Suites(imported), ", ")),
      ") and imported with <code>//analysis:import</code>: not dissect's measurements and not "
      "nights of ours, so no regression, fleet or trend check reads them.</p>\n",
      ImportedRunsTable(imported, input));
  std::vector<ResultFile> files;
  for (const RunData* run : imported) {
    auto raw = input.raw_files.find(run->info.run_id);
    if (raw != input.raw_files.end())
      files.insert(files.end(), raw->second.begin(), raw->second.end());
  }
  out += "<section id=\"tables\">\n<h2>Tables</h2>\n";
  absl::StatusOr<std::string> report =
      files.empty() ? absl::StatusOr<std::string>(absl::NotFoundError(
                          "the history database kept no result file of these runs"))
                    : RenderReport(files, options);
  if (report.ok()) {
    out += MarkdownToHtml(*report);
  } else {
    absl::StrAppend(&out,
                    "<p class=\"unavailable\">no tables: ", HtmlEscape(report.status().message()),
                    "</p>\n");
  }
  out += "</section>\n</body>\n</html>\n";
  const std::string page = (dir / "index.html").string();
  if (absl::Status status = result_format::WriteFileAtomically(page, out); !status.ok()) return status;
  return std::make_pair(page, out);
}

std::string ImportedIndexHtml(const std::vector<const RunData*>& imported) {
  if (imported.empty()) return "";
  return absl::StrCat(
      "<section id=\"imported\">\n<h2>Imported from other suites</h2>\n<p><a href=\"",
      kImportedFolder, "/index.html\">", imported.size(), " imported result file(s)</a> from ",
      HtmlEscape(absl::StrJoin(Suites(imported), ", ")),
      ": measured by other suites, shown apart from dissect's nights.</p>\n"
      "</section>\n");
}

}  // namespace dissect::analysis
