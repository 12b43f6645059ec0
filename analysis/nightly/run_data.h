// One night's run of one device, as the history tools see it: the run's
// identity (from the sweep runner's manifest.json) and every measured point
// with its metrics. Read from a run folder (manifest.json + result files)
// or from the history database (analysis/nightly/history_db.h); consumed by the
// regression and fleet-outlier checks and the dashboard.

#ifndef DISSECT_ANALYSIS_NIGHTLY_RUN_DATA_H_
#define DISSECT_ANALYSIS_NIGHTLY_RUN_DATA_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::analysis {

// A metric of one point: its median and, where the file has it, its spread
// ((max - min) / median over the samples, a fraction).
struct MetricValue {
  double value = 0;
  std::optional<double> spread;
  std::string unit;
};

// One measured point (one result row that is neither skipped nor failed).
struct RunPoint {
  std::string experiment;
  // The row name without Google Benchmark's own segments, e.g.
  // "memory_latency/path:global_cg/footprint_bytes:1024/stride_bytes:128/order:random/loads:4096".
  // The key that matches a point across runs.
  std::string point;
  std::map<std::string, std::string> axes;
  std::map<std::string, MetricValue> metrics;
  bool throttled = false;  // counter throttled == 1
  // 1 for the first measurement; 2 for a re-measurement after a cool-down
  // (the sweep runner re-measures throttled points).
  int attempt = 1;
};

// Who, what and when. Empty strings where the manifest or the result files
// do not say.
struct RunInfo {
  std::string run_id;   // manifest run_id; unique per (host, device, start)
  std::string sweep;    // sweep name, e.g. "nightly"
  std::string started;  // UTC ISO 8601
  std::string host;
  std::string git_commit;      // the suite's commit (result files' git_commit)
  std::string driver_version;  // NVML driver version, else the result files'
  std::string device_name;
  std::string device_uuid;
  std::string device_serial;
  std::string vbios;
  // Set only for results another suite measured (//analysis:import): the
  // suite and its version ("mt4g@4cc55662a954", context `source`), the
  // suite's program (`source_format`, e.g. gpu-latency) and its method
  // (`source_method`). Such a run is never a night of ours.
  std::string source;
  std::string source_program;
  std::string source_method;
};

// True for a run of results imported from another suite.
inline bool IsImported(const RunInfo& info) { return !info.source.empty(); }

// An entry of a run that gave no (or not all of its) measurements: the
// sweep runner's status of the entry (manifest.json) when it is not "ok", or
// "unreadable" when its result file could not be read.
struct EntryProblem {
  std::string entry;       // the manifest's entry id, else the result file's name
  std::string experiment;  // "" when not known
  // "failed", "timeout", "skipped", "pending" (never finished: the runner
  // was stopped) or "unreadable".
  std::string status;
  std::string reason;  // the manifest's reason, or why the file could not be read
};

// EntryProblem::entry of the runner's failed device check (manifest
// preflight_failure): a problem of the whole run, not of one entry.
inline constexpr char kDeviceCheckEntry[] = "device check";

struct RunData {
  RunInfo info;
  std::vector<RunPoint> points;
  // Entries that failed, timed out, were skipped, never finished or whose
  // result file could not be read, in manifest order; when the runner's
  // device check failed (manifest preflight_failure), first a "device
  // check" problem with its reason instead of the entries it left pending.
  // A failed entry's points that its file kept are in `points` all the same.
  std::vector<EntryProblem> problems;
  // The run's entries (manifest entries, else result files); 0 when not
  // known (a run from the history database).
  int entries = 0;
  // Per experiment, the headline metric its result files name (context
  // dissect_headline_metric); empty where the files are not at hand (a
  // history database's run that kept only its values).
  std::map<std::string, std::string> headline_metrics;
};

// True when the run measured no point at all (whatever its entries say).
inline bool NothingMeasured(const RunData& run) { return run.points.empty(); }

// Reads a run folder written by the sweep runner: DIR/manifest.json and the
// result files it names (or, without a manifest, every *.json result file in
// DIR, with the identity taken from their context). Fails on an unreadable
// or corrupt manifest; a corrupt result file is skipped and named in
// `bad` when given. Every entry that is not ok, and every result file that
// cannot be read, is also an EntryProblem of the run.
absl::StatusOr<RunData> ReadRunFolder(const std::string& dir,
                                      std::vector<std::string>* bad = nullptr);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_NIGHTLY_RUN_DATA_H_
