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
#include "analysis/history_db.h"
#include "analysis/outliers.h"
#include "analysis/regression.h"
#include "analysis/results.h"
#include "analysis/run_data.h"
#include "tools/cli/user_path.h"

namespace {

using dissect::analysis::HistoryDb;
using dissect::analysis::OutlierReport;
using dissect::analysis::RunData;
using dissect::analysis::RunInfo;
using dissect::analysis::Thresholds;

constexpr char kUsage[] =
    R"(usage: outliers [--help] [--thresholds=FILE] [--markdown=FILE] [--junit=FILE] RUN_DIR...
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
--db, the runs of the night come from the history database:

  --db=DB            the history database (//analysis:ingest writes it)
  --night=YYYY-MM-DD the runs whose start (UTC) falls on that date
  --thresholds=FILE  thresholds instead of the built-in ones
  --markdown=FILE    write the markdown report there instead of stdout
  --junit=FILE       also write JUnit XML (a testsuite per model, a testcase
                     per card, a failure listing a card's outlying metrics)

Exit status: 0 no outlier, 1 outlier(s), 2 bad input (a missing or
unreadable run folder or database, no run on that night, a bad thresholds
file, bad usage). Result files a run folder names but that cannot be read
are named on stderr and left out.

Examples:
  bazel run //analysis:outliers -- nightly/2026-11-23/*/
  bazel run //analysis:outliers -- --db=history.sqlite --night=2026-11-23 --junit=outliers.xml
)";

int Fail(const std::string& message, int status = 2) {
  std::cerr << "outliers: " << message << "\n";
  return status;
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
  std::vector<std::string> args;
  std::string thresholds_path, markdown_path, junit_path, db_path, night;
  bool flags_done = false;
  const auto value_of = [](const std::string& arg, const std::string& flag, std::string* value) {
    if (arg.rfind(flag + "=", 0) != 0) return false;
    *value = arg.substr(flag.size() + 1);
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_done || arg.empty() || arg[0] != '-' || arg == "-") {
      args.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (value_of(arg, "--thresholds", &thresholds_path) ||
               value_of(arg, "--markdown", &markdown_path) ||
               value_of(arg, "--junit", &junit_path) || value_of(arg, "--db", &db_path)) {
      if (arg.back() == '=') return Fail(arg + ": needs a file");
    } else if (value_of(arg, "--night", &night)) {
      if (!IsDate(night)) return Fail("--night=" + night + ": want a date YYYY-MM-DD");
    } else {
      return Fail("unknown flag '" + arg + "' (see --help)");
    }
  }
  if (db_path.empty()) {
    if (!night.empty()) return Fail("--night needs --db");
    if (args.empty()) {
      std::cerr << kUsage;
      return 2;
    }
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
