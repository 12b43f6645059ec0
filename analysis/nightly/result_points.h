// How a result file becomes history: the measured points of its rows and
// the run identity its context gives. Shared by ReadRunFolder
// (analysis/nightly/run_data.cc) and the history database's ingest of loose result
// files (analysis/nightly/history_db.cc).

#ifndef DISSECT_ANALYSIS_NIGHTLY_RESULT_POINTS_H_
#define DISSECT_ANALYSIS_NIGHTLY_RESULT_POINTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "analysis/results/results.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

// The row's point key: the experiment and its axis segments in name order,
// without Google Benchmark's own segments (iterations:N, manual_time, ...),
// e.g. "shared_latency/footprint_bytes:4096/stride_bytes:4".
std::string PointKey(const ResultFile& file, const Row& row);

// One RunPoint per row that is neither skipped nor failed (error_occurred):
// metrics are the file's declared metrics (dissect_metrics) the row has with
// a finite median (value = counter <metric>, spread = <metric>.spread when
// finite, unit = metric.<metric>.unit); throttled = counter throttled == 1;
// attempt = counter attempt, else 1.
std::vector<RunPoint> PointsOfResultFile(const ResultFile& file);

// Records `file`'s headline metric (context dissect_headline_metric) as
// its experiment's in `run`; a file without one changes nothing.
void RecordHeadlineMetric(const ResultFile& file, RunData& run);

// A UTC ISO 8601 time ("2026-11-20T14:03:11Z") from an RFC 3339 one with any
// offset ("2026-11-20T15:03:11+01:00"); the text unchanged if it does not
// parse.
std::string NormalizeUtc(std::string_view time);

// The identity of a run made of result files without a manifest, from the
// first file's context: host (host_name), started (date, as UTC),
// git_commit, driver_version, device_name. run_id is
// "<host_name>-<device_index>-<date as 20261120T140311Z>", the manifest's
// run_id form with the device index; where the context lacks host_name or
// date, "loose-<64-bit FNV-1a hash of `content`, 16 hex digits>".
RunInfo LooseRunInfo(const ResultFile& file, std::string_view content);

// ReadRunFolder (analysis/nightly/run_data.h) that also counts, in `files_read`,
// the result files it read (corrupt ones not counted).
absl::StatusOr<RunData> ReadRunFolderCounting(const std::string& dir, std::vector<std::string>* bad,
                                              int& files_read);

// 64-bit FNV-1a hash of `content` as 16 lower-case hex digits.
std::string ContentHash(std::string_view content);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_NIGHTLY_RESULT_POINTS_H_
