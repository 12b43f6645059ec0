// Result files: Google Benchmark's JSON, rewritten atomically after every
// point so that a crash mid-sweep keeps every point already measured.
#ifndef DISSECT_EXPERIMENTS_HARNESS_RESULT_WRITER_H_
#define DISSECT_EXPERIMENTS_HARNESS_RESULT_WRITER_H_

#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"

namespace dissect {

// Writes `text` to `path` through `path.tmp` and rename(2): readers see the
// old file or the new one, never a torn one.
absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text);

// A reporter producing Google Benchmark's JSON. After every ReportRuns the
// complete document so far (closed as Finalize would close it) is written
// atomically to `path`; with an empty path nothing is written and the
// document is only available through Snapshot().
class AtomicJsonReporter : public benchmark::BenchmarkReporter {
 public:
  explicit AtomicJsonReporter(std::string path);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // The JSON document as of now: always complete and valid.
  std::string Snapshot() const;
  // The first write failure, if any.
  const absl::Status& status() const { return status_; }
  int rows() const { return rows_; }

 private:
  void Flush();

  std::string path_;
  std::ostringstream buffer_;
  benchmark::JSONReporter json_;
  bool finalized_ = false;
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

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_HARNESS_RESULT_WRITER_H_
