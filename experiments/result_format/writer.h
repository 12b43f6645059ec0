// Result files: Google Benchmark's JSON, rewritten atomically after every
// point so that a crash mid-sweep keeps every point already measured.
#ifndef DISSECT_EXPERIMENTS_RESULT_FORMAT_WRITER_H_
#define DISSECT_EXPERIMENTS_RESULT_FORMAT_WRITER_H_

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"

namespace dissect::result_format {

// The point a row measured: its name without the segments Google Benchmark
// appends ("selftest/point:3/iterations:1/manual_time" -> "selftest/point:3").
std::string RowPointName(absl::string_view row_name);

// The rows of an existing result file that --resume keeps.
struct ResumedRows {
  // Each row's JSON object, in file order, byte for byte as in the file.
  std::vector<std::string> rows;
  // RowPointName of every row.
  std::set<std::string> point_names;
  // Rows of points that failed with an error (not skipped ones).
  int failed = 0;
};

// Reads the result file at `path` for --resume: it must be a JSON object
// that ParseResultJson accepts (analysis/SCHEMA.md), whose
// dissect_experiment is `experiment` and whose dissect_schema_version is the
// one this build writes (kSupportedSchemaVersion). Anything else is an InvalidArgument
// error of one line naming the file.
absl::StatusOr<ResumedRows> ReadResumedRows(const std::string& path,
                                            absl::string_view experiment);

// A reporter producing Google Benchmark's JSON. After every ReportRuns the
// complete document so far (closed as Finalize would close it) is written
// atomically to `path`; with an empty path nothing is written and the
// document is only available through Snapshot().
class AtomicJsonReporter : public benchmark::BenchmarkReporter {
 public:
  explicit AtomicJsonReporter(std::string path);

  // Rows kept from an earlier run (--resume, ResumedRows::rows): written
  // first, unchanged, in every snapshot from the context on; this run's
  // rows follow them. Call before the run starts.
  void CarryRows(std::vector<std::string> rows);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // The JSON document as of now: always complete and valid.
  std::string Snapshot() const;
  // The first write failure, if any.
  const absl::Status& status() const { return status_; }
  // Rows in the document: the carried ones and this run's.
  int rows() const { return static_cast<int>(carried_.size()) + rows_; }
  int carried_rows() const { return static_cast<int>(carried_.size()); }

 private:
  void Flush();

  std::string path_;
  std::ostringstream buffer_;
  benchmark::JSONReporter json_;
  bool finalized_ = false;
  std::vector<std::string> carried_;
  // A carried row was written and this run's first row needs the comma
  // that the JSON reporter, seeing its own first row, does not write.
  bool needs_separator_ = false;
  int rows_ = 0;
  absl::Status status_;
};

// Forwards every report to a display reporter and, if set, a file reporter.
class TeeReporter : public benchmark::BenchmarkReporter {
 public:
  TeeReporter(benchmark::BenchmarkReporter* display,
              benchmark::BenchmarkReporter* file)
      : display_(display), file_(file) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  benchmark::BenchmarkReporter* display_;
  benchmark::BenchmarkReporter* file_;
};

}  // namespace dissect::result_format

#endif  // DISSECT_EXPERIMENTS_RESULT_FORMAT_WRITER_H_
