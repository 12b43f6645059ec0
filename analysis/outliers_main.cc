// `outliers`: the cards of one night whose metrics sit outside their
// fleet's band. See analysis/README.md.

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/outliers.h"
#include "analysis/nightly/regression.h"
#include "analysis/results/results.h"
#include "analysis/nightly/run_data.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(db, "", "the history database (//analysis:ingest writes it)");
DEFINE_string(night, "", "the runs whose start (UTC) falls on that date (with --db)");
DEFINE_string(thresholds, "", "thresholds instead of the built-in ones");
DEFINE_string(markdown, "", "write the markdown report there instead of stdout");
DEFINE_string(junit, "",
              "also write JUnit XML (a testsuite per model, a testcase per card, a failure "
              "listing a card's outlying metrics)");

namespace {

using dissect::analysis::HistoryDb;
using dissect::analysis::OutlierReport;
using dissect::analysis::RunData;
using dissect::analysis::RunInfo;
using dissect::analysis::Thresholds;

// The command line: run folders, or a night of the history database.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "outliers";
  program.args = "RUN_DIR...";
  program.about = R"(  outliers [flags] RUN_DIR...
  outliers [flags] --db=DB --night=YYYY-MM-DD

Across the cards of one model (device_name) measured in one night, flags
every card whose value of a (point, metric) lies outside the fleet's
median +- max(fleet_k x scaled MAD, relative_tolerance x median), scaled MAD
= 1.4826 x the median absolute deviation, fleet_k and the tolerance per
metric from configs/regression/thresholds.json (built in). Both sides of the
band are flagged (a card better than its fleet is marked so). Models with
fewer than 5 cards, and (point, metric) pairs measured on fewer than 5
cards, are not checked (the report says so). Throttled points are included
and marked: a throttling card is what this looks for.

Each RUN_DIR is one card's run folder (manifest.json + result files); with
--db, the runs of the night come from the history database.
)";
  program.flags = {{"db", "DB"},
                   {"night", "YYYY-MM-DD"},
                   {"thresholds", "FILE"},
                   {"markdown", "FILE"},
                   {"junit", "FILE"}};
  program.more = R"(Exit status: 0 no outlier, 1 outlier(s), 2 bad input (a missing or
unreadable run folder or database, no run on that night, a bad thresholds
file, bad usage). Result files a run folder names but that cannot be read
are named on stderr and left out.

Examples:
  bazel run //analysis:outliers -- nightly/2026-11-23/*/
  bazel run //analysis:outliers -- --db=history.sqlite --night=2026-11-23 --junit=outliers.xml
)";
  return program;
}

int Fail(const std::string& message, int status = 2) {
  return dissect::cli::Fail(Cli(), message, status);
}

bool IsDate(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i != 4 && i != 7 && !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

absl::StatusOr<std::vector<RunData>> NightFromDb(const std::string& db_path,
                                                 const std::string& night) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(db_path, error)) {
    return absl::NotFoundError(db_path + ": no such database");
  }
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(db_path);
  if (!db.ok()) return db.status();
  absl::StatusOr<std::vector<RunInfo>> runs = (*db)->Runs("");
  if (!runs.ok()) return runs.status();
  std::vector<RunData> loaded;
  for (const RunInfo& info : *runs) {
    if (info.started.rfind(night, 0) != 0) continue;
    absl::StatusOr<RunData> run = (*db)->LoadRun(info.run_id);
    if (!run.ok()) return run.status();
    loaded.push_back(*std::move(run));
  }
  if (loaded.empty()) return absl::NotFoundError(db_path + ": no run started on " + night);
  return loaded;
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  const std::string thresholds_path = FLAGS_thresholds, markdown_path = FLAGS_markdown,
                    junit_path = FLAGS_junit, db_path = FLAGS_db, night = FLAGS_night;
  if (!night.empty() && !IsDate(night)) {
    return Fail("--night=" + night + ": want a date YYYY-MM-DD");
  }
  if (db_path.empty()) {
    if (!night.empty()) return Fail("--night needs --db");
    if (args.empty()) return dissect::cli::UsageOnStderr(Cli());
  } else {
    if (night.empty()) return Fail("--db needs --night=YYYY-MM-DD");
    if (!args.empty()) {
      return Fail("with --db, the runs are the night's, not folders ('" + args[0] + "')");
    }
  }
  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  absl::StatusOr<Thresholds> thresholds = dissect::analysis::LoadThresholds(thresholds_path);
  if (!thresholds.ok()) return Fail(std::string(thresholds.status().message()));

  std::vector<RunData> runs;
  if (db_path.empty()) {
    for (const std::string& dir : args) {
      std::vector<std::string> bad;
      absl::StatusOr<RunData> run = dissect::analysis::ReadRunFolder(dir, &bad);
      for (const std::string& problem : bad) std::cerr << "outliers: " << problem << "\n";
      if (!run.ok()) return Fail(std::string(run.status().message()));
      runs.push_back(*std::move(run));
    }
  } else {
    absl::StatusOr<std::vector<RunData>> from_db = NightFromDb(db_path, night);
    if (!from_db.ok()) return Fail(std::string(from_db.status().message()));
    runs = *std::move(from_db);
  }
  const OutlierReport report = dissect::analysis::FindFleetOutliers(runs, *thresholds);
  if (absl::Status s = dissect::analysis::WriteReportOutputs(
          dissect::analysis::RenderOutliersMarkdown(report), markdown_path,
          junit_path.empty() ? "" : dissect::analysis::RenderOutliersJUnit(report), junit_path);
      !s.ok()) {
    return Fail(std::string(s.message()));
  }
  return report.outliers.empty() ? 0 : 1;
}
