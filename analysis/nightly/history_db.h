// The results history: every ingested night's run of every device in one
// SQLite file (Debian's libsqlite3, embedded, no server), for trends,
// regression checks (//analysis:compare) and the dashboard.
//
// Schema version 4 (see analysis/README.md "History"):
//   schema_version(version)                    one row
//   devices(id, key, uuid, name, serial, vbios) key = uuid, else serial, else name@host
//   runs(id, run_id, device_id, sweep, started, host, git_commit, driver_version,
//        source, source_program, source_method, entries)
//                                               source: "<suite>@<version>" for results
//                                               imported from another suite, else ''
//   run_problems(run_id, position, entry, experiment, status, reason)
//                                               the run's entries that measured nothing
//   result_files(id, run_id, name, text)        each result file as ingested (context:
//                                               device facts, build; rows: labels,
//                                               clocks, counters, skipped points)
//   points(id, experiment, point, axes)         a point's identity across runs; axes
//                                               "name:value/..." in name order ('%', '/'
//                                               and ':' escaped as %25, %2F, %3A)
//   metric_names(id, name)
//   measurements(id, run_id, point_id, attempt, throttled)  unique (run, point, attempt)
//   metrics(measurement_id, metric_id, value, spread, unit)
// Version 3 held measurements of result-schema-1 files under their metrics'
// old names (experiments/result_format/renamed_metrics.h). Version 2 had none
// of runs' source columns and entries, run_problems or
// result_files (its runs keep only their values); version 1 had
// point_axes(point_id, name, value) instead of points.axes and metrics keyed
// by name; version 0 was the prototype's flat results table. Opening an
// older database migrates it (0 -> 1 -> 2 -> 3 -> 4) to the current version in
// one transaction; a newer or foreign one is an error.

#ifndef DISSECT_ANALYSIS_NIGHTLY_HISTORY_DB_H_
#define DISSECT_ANALYSIS_NIGHTLY_HISTORY_DB_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/nightly/run_data.h"

struct sqlite3;

namespace dissect::analysis::history_internal {
struct SqliteCloser {
  void operator()(sqlite3* db) const;
};
}  // namespace dissect::analysis::history_internal

namespace dissect::analysis {

// The schema version this build writes and reads.
inline constexpr int kHistorySchemaVersion = 4;

// What one Ingest call did.
struct IngestStats {
  int files = 0;                       // result files read (corrupt ones not counted)
  int runs = 0;                        // runs new to the database
  int rows = 0;                        // measurements (point, attempt) new to the database
  int skipped_duplicates = 0;          // measurements already in the database
  int bad = 0;                         // corrupt, foreign or missing files and manifests
  std::vector<std::string> bad_files;  // one "<path>: <why>" per bad one
};

// One night's value of a metric.
struct TrendPoint {
  std::string run_id, started;
  double value = 0;
  std::optional<double> spread;
  std::string driver_version, git_commit;
};

// A result file as ingested: its name (RunFileName for a run folder's
// file, the file name for a loose one) and its text.
struct StoredResultFile {
  std::string name;
  std::string text;
};

// How a result file of a run folder is named, kept and shown:
// "<run folder's name>/<file name>", e.g. "run_a/memory_latency.json",
// whichever path led to the folder ("." included), so that the database and
// the folder name it alike.
std::string RunFileName(const std::string& run_folder, const std::string& file);

// A device as the database knows it.
struct DeviceSummary {
  std::string key;  // uuid, else serial, else "<name>@<host>"
  std::string uuid, name, serial;
  int runs = 0;
  std::string first_started, last_started;
};

class HistoryDb {
 public:
  // Opens the database at `path`, creating it (and nothing else: the folder
  // must exist) or migrating an older schema to kHistorySchemaVersion.
  static absl::StatusOr<std::unique_ptr<HistoryDb>> Open(const std::string& path);

  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // Loads run folders (manifest.json and the result files it names),
  // manifests (their folder is read) and loose result files (each a run of
  // its own, LooseRunInfo in analysis/nightly/result_points.h). A folder without a
  // manifest is searched recursively: each sub-folder with a manifest.json
  // is a run folder, every other *.json a loose result file. Idempotent: a
  // measurement is keyed by (run_id, point, attempt), so ingesting a file
  // again adds nothing (its rows count as skipped duplicates); a run seen
  // again gets its identity updated. A corrupt, foreign or missing file is
  // named in bad_files, counted and skipped; the rest goes in. All inserts
  // of one call are one transaction. Errors are database errors only. The
  // files are read and parsed on a second thread while this one inserts.
  // Each result file that parses is kept whole (ResultFiles), named as
  // StoredResultFile says; ingested again, its newer text replaces the
  // kept one. A loose file that //analysis:import wrote is a run imported
  // from its suite (RunInfo::source), never a night of ours.
  absl::StatusOr<IngestStats> Ingest(const std::vector<std::string>& paths);

  // Adds runs already read (what Ingest does after reading), in one
  // transaction, with the same idempotence; `files` stays 0 and no result
  // file is kept.
  absl::StatusOr<IngestStats> AddRuns(const std::vector<RunData>& runs);

  // Runs of `device` (a uuid, serial, device key or name; "" = all devices),
  // oldest first (by started, then run_id). Imported runs (RunInfo::source)
  // are left out unless `with_imported`.
  absl::StatusOr<std::vector<RunInfo>> Runs(const std::string& device,
                                            bool with_imported = false) const;
  // A run with all its measurements, in ingest order, its entry count and
  // problems. NotFound if unknown.
  absl::StatusOr<RunData> LoadRun(const std::string& run_id) const;
  // The result files kept of a run, by name; empty for a run ingested
  // before schema version 3 or added by AddRuns. NotFound if unknown.
  absl::StatusOr<std::vector<StoredResultFile>> ResultFiles(const std::string& run_id) const;
  // The n runs of `device` before `before_run_id` (or its newest n when
  // empty), oldest first; never an imported run. NotFound for an unknown
  // device or run; InvalidArgument when `device` is a name several devices
  // share.
  absl::StatusOr<std::vector<RunData>> LastRuns(const std::string& device, int n,
                                                const std::string& before_run_id = "") const;
  // A metric of a point on one device, one entry per run that measured it,
  // oldest first. Where a run re-measured the point (attempt 2 after
  // throttling) the last attempt is its value. NotFound for an unknown
  // device; InvalidArgument when `device` is ambiguous. Empty when the
  // device never measured the point or the metric.
  absl::StatusOr<std::vector<TrendPoint>> Trend(const std::string& device, const std::string& point,
                                                const std::string& metric) const;

  // Every device, ordered by name then key.
  absl::StatusOr<std::vector<DeviceSummary>> Devices() const;
  // The points measured on `device` ("" = any), sorted.
  absl::StatusOr<std::vector<std::string>> Points(const std::string& device) const;
  // The metrics recorded for `point` on `device` ("" = any), sorted.
  absl::StatusOr<std::vector<std::string>> Metrics(const std::string& device,
                                                   const std::string& point) const;

  // The schema version of the open database (kHistorySchemaVersion after
  // Open).
  absl::StatusOr<int> SchemaVersion() const;

 private:
  using Handle = std::unique_ptr<sqlite3, history_internal::SqliteCloser>;
  explicit HistoryDb(Handle db);
  // Device ids that `device` names (all when empty).
  absl::StatusOr<std::vector<long long>> DeviceIds(const std::string& device) const;
  // The one device `device` names.
  absl::StatusOr<long long> OneDevice(const std::string& device) const;
  // Appends the problems of run `run` (runs.id) to `data`.
  absl::Status LoadProblems(long long run, RunData& data) const;

  Handle db_;
};

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_NIGHTLY_HISTORY_DB_H_
