// The dashboard's side of the history database and of imported results:
// reading the database with the result files each run kept, so that its
// pages are those a folder of run folders gives; and the page of results
// imported from other suites (RunInfo::source), which are never a night.

#ifndef DISSECT_ANALYSIS_PAGES_DASHBOARD_HISTORY_H_
#define DISSECT_ANALYSIS_PAGES_DASHBOARD_HISTORY_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/pages/dashboard.h"
#include "analysis/sections/report.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

// Every run of the history database at `path` (analysis/nightly/history_db.h),
// ours and imported, with the result files it kept (HistoryDb::ResultFiles,
// named as ingested) as its raw files; a kept file that no longer parses is
// named in `bad` and left out. Runs ingested before the database kept files
// have none (their tables are rebuilt from the values). Fails on a database
// that cannot be read.
absl::StatusOr<DashboardInput> ReadHistoryDatabase(const std::string& path);

// The folder of the imported results' page, under OUT_DIR.
inline constexpr char kImportedFolder[] = "imported";

// OUT_DIR/imported/index.html: each imported run (device, suite and
// version, program, method, when it was measured, the file it came from),
// then the tables of their files (RenderReport). Returns the page's path
// and HTML. Fails on a file that cannot be written.
absl::StatusOr<std::pair<std::string, std::string>> WriteImportedPage(
    const std::vector<const RunData*>& imported, const DashboardInput& input,
    const std::string& out_dir, const ReportOptions& options);

// The index's section on imported results: a link to their page and the
// suites they come from; "" when there are none.
std::string ImportedIndexHtml(const std::vector<const RunData*>& imported);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_PAGES_DASHBOARD_HISTORY_H_
