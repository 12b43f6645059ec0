// `ingest`: loads run folders, manifests and result files into the history
// database (analysis/nightly/history_db.h). See analysis/README.md "History".

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/nightly/history_db.h"
#include "analysis/results/results.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

namespace {

// The command line: no flags of its own, DB and one PATH or more.
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "ingest";
  program.args = "DB PATH...";
  program.about = R"(Loads dissect results into the history database DB (SQLite; created if
missing, migrated if older). PATH is a run folder written by the sweep runner
(manifest.json + result files), a manifest.json, a result file, or a folder
searched recursively for run folders and loose result files (a loose result
file is a run of its own, named <host_name>-<device_index>-<UTC date> from
its context).

Each result file is kept whole beside its values (device facts, clocks,
labels, skipped points), named <run folder>/<file>, so that the dashboard
built from DB shows what it shows from the run folders. A run's
failed, timed-out, skipped and unreadable entries are kept too. A file
written by //analysis:import (results of another suite, e.g. gpu-benches or
mt4g) keeps its source, program and method and is never a night of ours:
the dashboard shows it apart, and compare never takes it as a baseline.

Ingesting is idempotent: a measurement is keyed by run, point and attempt, so
a file ingested twice adds nothing (its rows count as duplicates). Prints

  ingested N file(s), R run(s), P row(s); D duplicate(s) skipped; B bad

with the new runs and rows. A corrupt, foreign or missing file is named on
stderr, counted as bad and skipped; the rest still goes in, and the exit
status is 1. Bad usage, or a DB that is not a dissect history database:
exit status 2.
)";
  program.more = R"(Example:
  bazel run //analysis:ingest -- history.db nightly/2026-11-23/
)";
  program.min_args = 2;
  return program;
}

int Fail(const std::string& message, int status = 2) {
  return dissect::cli::Fail(Cli(), message, status);
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  if (absl::Status status = dissect::cli::EnterCallerDirectory(); !status.ok()) {
    return Fail(std::string(status.message()));
  }
  absl::StatusOr<std::unique_ptr<dissect::analysis::HistoryDb>> db =
      dissect::analysis::HistoryDb::Open(args[0]);
  if (!db.ok()) return Fail(std::string(db.status().message()));
  absl::StatusOr<dissect::analysis::IngestStats> stats =
      (*db)->Ingest(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!stats.ok()) return Fail(std::string(stats.status().message()), 1);
  for (const std::string& bad : stats->bad_files) std::cerr << "ingest: " << bad << "\n";
  std::cout << "ingested " << stats->files << " file(s), " << stats->runs << " run(s), "
            << stats->rows << " row(s); " << stats->skipped_duplicates << " duplicate(s) skipped; "
            << stats->bad << " bad\n";
  return stats->bad > 0 ? 1 : 0;
}
