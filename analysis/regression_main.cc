// `compare`: noise-aware regression check of a nightly run against a
// baseline run or the median of the last N nights. See analysis/README.md.

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
#include "absl/strings/numbers.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/regression.h"
#include "analysis/results/results.h"
#include "analysis/nightly/run_data.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(db, "", "the history database (//analysis:ingest writes it)");
DEFINE_string(device, "", "uuid, serial or device key of the card (with --db)");
DEFINE_string(candidate, "latest", "the candidate run; latest: the device's newest (with --db)");
DEFINE_string(baseline, "last:7",
              "last:N: the median of the device's N runs before the candidate; or a RUN_ID "
              "(with --db)");
DEFINE_string(thresholds, "", "thresholds instead of the built-in ones");
DEFINE_string(markdown, "", "write the markdown report there instead of stdout");
DEFINE_string(junit, "",
              "also write JUnit XML (one testcase per compared point and metric, a failure "
              "per regression and per entry of the candidate that measured nothing)");

namespace {

using dissect::analysis::ComparisonSide;
using dissect::analysis::HistoryDb;
using dissect::analysis::RegressionReport;
using dissect::analysis::RunData;
using dissect::analysis::RunInfo;
using dissect::analysis::Thresholds;

// The command line: two run folders, or runs of the history database.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "compare";
  program.args = "BASELINE_DIR CANDIDATE_DIR";
  program.about = R"(  compare [flags] BASELINE_DIR CANDIDATE_DIR
  compare [flags] --db=DB --device=DEVICE [--candidate=RUN_ID|latest]
          [--baseline=last:N|RUN_ID]

Compares a candidate run with a baseline and reports every (point, metric)
whose change is significant: beyond the metric's relative tolerance AND
beyond k x the measured noise (the larger of the two runs' spreads, and for
an N-night baseline the nights' scaled MAD), with tolerance, k and the
metric's direction from configs/regression/thresholds.json (built in). A
significant change in the bad direction is a regression; in the good one an
improvement (reported, not failing). Points throttled in either run are
marked and not counted; a re-measurement (attempt 2) replaces its first
attempt. Driver, suite-commit, vbios and device changes between the runs are
noted on every flagged row.

Each side is a run folder (manifest.json + result files, as the sweep runner
writes them), or, with --db, runs from the history database.
)";
  program.flags = {{"db", "DB"},
                   {"device", "DEVICE"},
                   {"candidate", "RUN_ID|latest"},
                   {"baseline", "last:N|RUN_ID"},
                   {"thresholds", "FILE"},
                   {"markdown", "FILE"},
                   {"junit", "FILE"}};
  program.more = R"(The candidate's entries that measured nothing (failed, timeout, skipped or
never finished in its manifest, or a result file that cannot be read) are
listed first, with their reasons; in the JUnit XML each is a failure (a
skipped one is skipped).

Exit status: 0 no regression and every entry of the candidate measured;
1 regression(s), or an entry of the candidate failed, timed out, was
skipped, never finished or could not be read, or the candidate measured
nothing; 2 bad input (a missing or unreadable run folder or database,
unknown run or device, runs without a common point while the candidate
measured some, a bad thresholds file, bad usage). Result files a run folder
names but that cannot be read are also named on stderr.

Examples:
  bazel run //analysis:compare -- nightly/2026-11-22/node07-gpu0 nightly/2026-11-23/node07-gpu0
  bazel run //analysis:compare -- --db=history.sqlite --device=GPU-1111aaaa \
      --baseline=last:7 --junit=compare.xml --markdown=compare.md
)";
  return program;
}

int Fail(const std::string& message, int status = 2) {
  return dissect::cli::Fail(Cli(), message, status);
}

absl::StatusOr<RunData> ReadFolder(const std::string& dir) {
  std::vector<std::string> bad;
  absl::StatusOr<RunData> run = dissect::analysis::ReadRunFolder(dir, &bad);
  for (const std::string& problem : bad) std::cerr << "compare: " << problem << "\n";
  return run;
}

struct Sides {
  ComparisonSide baseline;
  ComparisonSide candidate;
};

absl::StatusOr<Sides> SidesFromDb(const std::string& db_path, std::string device,
                                  const std::string& candidate_id, const std::string& baseline) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(db_path, error)) {
    return absl::NotFoundError(db_path + ": no such database");
  }
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(db_path);
  if (!db.ok()) return db.status();
  RunData candidate;
  if (candidate_id == "latest") {
    if (device.empty()) return absl::InvalidArgumentError("--candidate=latest needs --device");
    absl::StatusOr<std::vector<RunInfo>> runs = (*db)->Runs(device);
    if (!runs.ok()) return runs.status();
    if (runs->empty()) return absl::NotFoundError("no runs of device " + device);
    absl::StatusOr<RunData> loaded = (*db)->LoadRun(runs->back().run_id);
    if (!loaded.ok()) return loaded.status();
    candidate = *std::move(loaded);
  } else {
    absl::StatusOr<RunData> loaded = (*db)->LoadRun(candidate_id);
    if (!loaded.ok()) return loaded.status();
    candidate = *std::move(loaded);
  }
  if (device.empty()) {
    device = !candidate.info.device_uuid.empty() ? candidate.info.device_uuid
                                                 : candidate.info.device_serial;
  }
  Sides sides;
  sides.candidate = dissect::analysis::SideOfRun(candidate);
  if (baseline.rfind("last:", 0) == 0) {
    int nights = 0;
    if (!absl::SimpleAtoi(baseline.substr(5), &nights) || nights < 1) {
      return absl::InvalidArgumentError("--baseline=" + baseline +
                                        ": want last:N with N >= 1, or a run id");
    }
    if (device.empty()) {
      return absl::InvalidArgumentError("--baseline=" + baseline +
                                        " needs --device (the candidate names no uuid or serial)");
    }
    absl::StatusOr<std::vector<RunData>> last =
        (*db)->LastRuns(device, nights, candidate.info.run_id);
    if (!last.ok()) return last.status();
    if (last->empty()) {
      return absl::NotFoundError("no run of device " + device + " before " + candidate.info.run_id +
                                 " to compare with");
    }
    absl::StatusOr<ComparisonSide> side = dissect::analysis::SideOfNights(*last);
    if (!side.ok()) return side.status();
    sides.baseline = *std::move(side);
  } else {
    absl::StatusOr<RunData> loaded = (*db)->LoadRun(baseline);
    if (!loaded.ok()) return loaded.status();
    sides.baseline = dissect::analysis::SideOfRun(*loaded);
  }
  return sides;
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  const std::string thresholds_path = FLAGS_thresholds, markdown_path = FLAGS_markdown,
                    junit_path = FLAGS_junit, db_path = FLAGS_db, device = FLAGS_device;
  const std::string candidate_id = FLAGS_candidate, baseline = FLAGS_baseline;
  const bool candidate_given = dissect::cli::Given("candidate"),
             baseline_given = dissect::cli::Given("baseline"),
             device_given = dissect::cli::Given("device");
  if (db_path.empty()) {
    if (candidate_given || baseline_given || device_given) {
      return Fail("--device, --candidate and --baseline need --db");
    }
    if (args.size() != 2) {
      if (args.empty()) return dissect::cli::UsageOnStderr(Cli());
      return Fail("want two run folders, BASELINE and CANDIDATE (got " +
                  std::to_string(args.size()) + "; see --help)");
    }
  } else if (!args.empty()) {
    return Fail("with --db, runs are chosen by --candidate and --baseline, not by folder ('" +
                args[0] + "')");
  }
  if (absl::Status entered = dissect::cli::EnterCallerDirectory(); !entered.ok()) {
    return Fail(std::string(entered.message()));
  }
  absl::StatusOr<Thresholds> thresholds = dissect::analysis::LoadThresholds(thresholds_path);
  if (!thresholds.ok()) return Fail(std::string(thresholds.status().message()));

  Sides sides;
  if (db_path.empty()) {
    absl::StatusOr<RunData> baseline_run = ReadFolder(args[0]);
    if (!baseline_run.ok()) return Fail(std::string(baseline_run.status().message()));
    absl::StatusOr<RunData> candidate_run = ReadFolder(args[1]);
    if (!candidate_run.ok()) return Fail(std::string(candidate_run.status().message()));
    sides.baseline = dissect::analysis::SideOfRun(*baseline_run);
    sides.candidate = dissect::analysis::SideOfRun(*candidate_run);
  } else {
    absl::StatusOr<Sides> from_db = SidesFromDb(db_path, device, candidate_id, baseline);
    if (!from_db.ok()) return Fail(std::string(from_db.status().message()));
    sides = *std::move(from_db);
  }
  const RegressionReport report =
      dissect::analysis::CompareSides(sides.baseline, sides.candidate, *thresholds);
  // A candidate that measured nothing is a broken night, not bad input: its
  // report and JUnit name every entry that measured nothing.
  if (report.comparisons.empty() && !report.candidate_measured_nothing) {
    return Fail("nothing to compare: " + sides.baseline.label + " and " + sides.candidate.label +
                " share no measured point and metric");
  }
  if (absl::Status s = dissect::analysis::WriteReportOutputs(
          dissect::analysis::RenderRegressionMarkdown(report), markdown_path,
          junit_path.empty() ? "" : dissect::analysis::RenderRegressionJUnit(report), junit_path);
      !s.ok()) {
    return Fail(std::string(s.message()));
  }
  return report.HasRegression() || report.CandidateIncomplete() ? 1 : 0;
}
