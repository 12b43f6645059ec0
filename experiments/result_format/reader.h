// Reader for dissect result files: Google Benchmark JSON with the dissect
// context keys and row naming described in analysis/SCHEMA.md (versions 1
// and 2).

#ifndef DISSECT_EXPERIMENTS_RESULT_FORMAT_READER_H_
#define DISSECT_EXPERIMENTS_RESULT_FORMAT_READER_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::result_format {

// The newest schema version this reader understands: the one the harness
// writes.
inline constexpr std::string_view kSupportedSchemaVersion = "2";
// The oldest one it reads. Version 1 named some metrics differently; the
// reader gives them their version-2 names (renamed_metrics.h), so that a
// ResultFile always holds version 2's names.
inline constexpr std::string_view kOldestSupportedSchemaVersion = "1";

// The context key of the metric that stands for the experiment's result
// (Experiment::Headline): one of dissect_metrics; absent when the
// experiment names none. The reader gives files written before experiments
// declared it their experiment's headline of that time (headline_metrics.h).
inline constexpr std::string_view kHeadlineMetricKey = "dissect_headline_metric";

// One benchmark row: one axis point of an experiment.
struct Row {
  std::string name;  // Full row name as written by Google Benchmark.
  // Axis values parsed from the name, in name order. Segments that Google
  // Benchmark appends itself (manual_time, iterations:N, ...) are not axes.
  std::vector<std::pair<std::string, std::string>> axes;
  // Every numeric member that is not one of Google Benchmark's fixed members.
  // NaN/Infinity (which Google Benchmark writes as bare tokens) are kept.
  std::map<std::string, double> counters;
  std::string label;
  bool error = false;  // error_occurred
  std::string error_message;
  double real_time = 0;
  std::string time_unit;

  // The value of counter `counter`, or nullopt if the row has none.
  std::optional<double> Counter(std::string_view counter) const;
  // The value of axis `axis`, or nullopt if the row name has no such axis.
  std::optional<std::string> Axis(std::string_view axis) const;
};

// The value of `row`'s axis `axis` as a finite number, or nullopt.
std::optional<double> AxisNumber(const Row& row, std::string_view axis);

// A per-index vector the harness writes as row counters `name[0]`,
// `name[1]`, ... (context `dissect_vectors`, see SCHEMA.md): the values up to
// the first missing index; empty when the row has no `name[0]`. NaN entries
// (an index that was not measured) are kept.
std::vector<double> RowVector(const Row& row, std::string_view name);

// The notes column of a row, as `report` writes it: `skipped: ...` or
// `error: ...` for a point that was not measured, `throttled: <label>`,
// `re-measured after throttling (attempt N)`, `clock moved A-B MHz`,
// joined with "; "; "" for none.
std::string RowNotes(const Row& row);

// The SM clock (MHz) behind a row: the median NVML reading polled during
// its samples (`sm_clock_mhz.median`), else the mean of the reads after the
// warm-up and after the samples, else whichever of those exists.
std::optional<double> RowSmClockMhz(const Row& row);

// The median of `values` (0 if empty).
double Median(std::vector<double> values);

// The device's figure where an axis is a tuning knob (memory_bandwidth's
// bytes_in_flight_per_thread): the median of each knob setting's values,
// then the largest of those medians. 0 if empty.
double BestOfMedians(const std::map<double, std::vector<double>>& by_knob);

// One parsed result file.
struct ResultFile {
  std::string path;  // As given to the reader; used in messages and reports.
  // Context values; non-string values (Google Benchmark's own num_cpus,
  // caches, ...) are stored as their compact JSON text.
  std::map<std::string, std::string> context;
  std::string experiment;                 // context dissect_experiment
  std::vector<std::string> axis_names;    // from dissect_axes
  std::vector<std::string> metric_names;  // from dissect_metrics
  std::vector<Row> rows;

  // Unit of an axis / metric from context `axis.<name>.unit` /
  // `metric.<name>.unit`; "" if the file does not say.
  std::string AxisUnit(std::string_view axis) const;
  std::string MetricUnit(std::string_view metric) const;
  // Context value of `key`, or `fallback` if absent.
  std::string ContextOr(std::string_view key, std::string_view fallback) const;
};

// Parses the text of a result file. `path` is only used to name the file in
// error messages and is stored in ResultFile::path. Errors are one line,
// starting with `path: `.
absl::StatusOr<ResultFile> ParseResultJson(std::string_view text,
                                           std::string_view path);

// Reads and parses the file at `path`.
absl::StatusOr<ResultFile> ReadResultFile(const std::string& path);

// Expands arguments into result file paths: a file is taken as is, a folder
// is searched recursively for `*.json` files (sorted within that folder)
// but the sweep runner's `manifest.json`.
// Order of arguments is kept. Fails on a non-existent path or a folder with
// no .json file.
absl::StatusOr<std::vector<std::string>> CollectResultPaths(
    const std::vector<std::string>& args);

// What ReadResultFiles found: the files that parsed, in order, and one
// message per file that did not ("<path>: <why>", as ReadResultFile words it).
struct ReadResults {
  std::vector<ResultFile> files;
  std::vector<std::string> bad;
};

// Every result file that `args` names (files, and folders searched for
// *.json as CollectResultPaths does), parsed. A file that cannot be read or
// parsed (corrupt, truncated, foreign) does not stop the others: it is named
// in `bad` and left out, so that one broken file in a nightly folder does not
// lose the whole report. The error is CollectResultPaths's (a path that does
// not exist, a folder without .json files). Callers name every bad file on
// stderr, exit 2 when no file was readable and 1 when some were not.
absl::StatusOr<ReadResults> ReadResultFiles(
    const std::vector<std::string>& args);

}  // namespace dissect::result_format

#endif  // DISSECT_EXPERIMENTS_RESULT_FORMAT_READER_H_
