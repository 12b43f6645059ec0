// Benchmarks of the history database against its targets (on the 2-core CI
// machine): ingesting 100,000 result rows in under 2 s, and a trend query
// over 365 nights in under 100 ms. Run with
//   ./bazelw run -c opt //analysis/nightly:history_benchmark
// Each benchmark reports its target beside the measured time (counter
// target_s / target_ms and the label).

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/run_data.h"
#include "benchmark/benchmark.h"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;

constexpr int kIngestRows = 100000;
constexpr int kRowsPerFile = 1000;
constexpr int kNights = 365;
constexpr int kPointsPerNight = 300;

// A scratch folder removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "history_benchmark.XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A result file of `rows` memory_latency rows shaped like the harness's
// (two metrics with min/max/spread, clock and throttle counters).
std::string ResultFileText(int file, int rows) {
  std::string text = absl::StrCat(
      R"({"context": {"date": "2026-11-23T02:00:00+00:00", "host_name": "bench",)",
      R"("dissect_schema_version": "1", "dissect_experiment": "memory_latency",)",
      R"("dissect_axes": "path,footprint_bytes,stride_bytes",)",
      R"("dissect_metrics": "cycles_per_load,ns_per_load",)",
      R"("metric.cycles_per_load.unit": "cycles/load", "metric.ns_per_load.unit": "ns/load",)",
      R"("device_name": "Bench GPU", "device_index": "0", "driver_version": "13.0"},)",
      R"("benchmarks": [)");
  for (int i = 0; i < rows; ++i) {
    const double cycles = 30 + (i % 97) * 0.5;
    absl::StrAppendFormat(
        &text,
        R"(%s{"name": "memory_latency/path:global_cg/footprint_bytes:%d/stride_bytes:%d/iterations:1/manual_time",)"
        R"("run_type": "iteration", "iterations": 1, "real_time": 12.5, "cpu_time": 13.1, "time_unit": "us",)"
        R"("cycles_per_load": %g, "cycles_per_load.min": %g, "cycles_per_load.max": %g, "cycles_per_load.spread": 0.01,)"
        R"("ns_per_load": %g, "ns_per_load.min": %g, "ns_per_load.max": %g, "ns_per_load.spread": 0.01,)"
        R"("samples": 21, "sm_clock_mhz.median": 1980, "clock_moved": 0, "throttled": 0})",
        i == 0 ? "" : ",", 1024 * (file + 1), 8 * (i + 1), cycles, cycles * 0.99, cycles * 1.01,
        cycles / 1.98, cycles / 1.98 * 0.99, cycles / 1.98 * 1.01);
  }
  text += "]}\n";
  return text;
}

void BM_Ingest100kRows(benchmark::State& state) {
  ScratchDir scratch;
  const fs::path run = fs::path(scratch.path()) / "files";
  fs::create_directories(run);
  for (int f = 0; f < kIngestRows / kRowsPerFile; ++f) {
    std::ofstream(run / absl::StrCat("memory_latency_", f, ".json"))
        << ResultFileText(f, kRowsPerFile);
  }
  const std::string db_path = scratch.path() + "/history.db";
  int rows = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(db_path);
    state.ResumeTiming();
    absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(db_path);
    if (!db.ok()) {
      state.SkipWithError(std::string(db.status().message()).c_str());
      return;
    }
    absl::StatusOr<IngestStats> stats = (*db)->Ingest({run.string()});
    if (!stats.ok() || stats->rows != kIngestRows) {
      state.SkipWithError("ingest did not add every row");
      return;
    }
    rows = stats->rows;
  }
  state.counters["rows"] = rows;
  state.counters["target_s"] = 2;
  state.SetLabel("target: 100,000 rows (parse + insert) in < 2 s");
}
BENCHMARK(BM_Ingest100kRows)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// The two halves of BM_Ingest100kRows: reading the result files, and
// inserting the rows already read.
void BM_Read100kRows(benchmark::State& state) {
  ScratchDir scratch;
  const fs::path run = fs::path(scratch.path()) / "files";
  fs::create_directories(run);
  for (int f = 0; f < kIngestRows / kRowsPerFile; ++f) {
    std::ofstream(run / absl::StrCat("memory_latency_", f, ".json"))
        << ResultFileText(f, kRowsPerFile);
  }
  for (auto _ : state) {
    absl::StatusOr<RunData> data = ReadRunFolder(run.string());
    if (!data.ok() || data->points.size() != kIngestRows) {
      state.SkipWithError("could not read every row");
      return;
    }
  }
}
BENCHMARK(BM_Read100kRows)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

void BM_Insert100kRows(benchmark::State& state) {
  ScratchDir scratch;
  const fs::path run = fs::path(scratch.path()) / "files";
  fs::create_directories(run);
  for (int f = 0; f < kIngestRows / kRowsPerFile; ++f) {
    std::ofstream(run / absl::StrCat("memory_latency_", f, ".json"))
        << ResultFileText(f, kRowsPerFile);
  }
  absl::StatusOr<RunData> data = ReadRunFolder(run.string());
  if (!data.ok()) {
    state.SkipWithError("could not read the rows");
    return;
  }
  const std::string db_path = scratch.path() + "/history.db";
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove(db_path);
    state.ResumeTiming();
    absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(db_path);
    if (!db.ok() || !(*db)->AddRuns({*data}).ok()) {
      state.SkipWithError("could not insert the rows");
      return;
    }
  }
}
BENCHMARK(BM_Insert100kRows)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

RunData Night(int night) {
  RunData run;
  run.info.run_id = absl::StrFormat("bench-GPU-0-night%03d", night);
  run.info.started = absl::StrFormat("2026-%02d-%02dT02:00:00Z", 1 + night / 28, 1 + night % 28);
  run.info.device_uuid = "GPU-bench";
  run.info.device_name = "Bench GPU";
  run.info.driver_version = "580.65.06";
  run.info.git_commit = "c0ffee";
  for (int p = 0; p < kPointsPerNight; ++p) {
    RunPoint point;
    point.experiment = "memory_latency";
    point.point = absl::StrCat("memory_latency/path:global_cg/footprint_bytes:", 1024 << (p % 20),
                               "/stride_bytes:", 8 * (p / 20 + 1));
    point.axes = {{"path", "global_cg"}, {"footprint_bytes", std::to_string(1024 << (p % 20))}};
    point.metrics["cycles_per_load"] = {30.0 + night * 0.01, 0.01, "cycles/load"};
    point.metrics["ns_per_load"] = {15.0 + night * 0.005, 0.01, "ns/load"};
    run.points.push_back(std::move(point));
  }
  return run;
}

void BM_Trend365Nights(benchmark::State& state) {
  ScratchDir scratch;
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(scratch.path() + "/history.db");
  if (!db.ok()) {
    state.SkipWithError(std::string(db.status().message()).c_str());
    return;
  }
  std::vector<RunData> nights;
  for (int night = 0; night < kNights; ++night) nights.push_back(Night(night));
  if (!(*db)->AddRuns(nights).ok()) {
    state.SkipWithError("could not fill the database");
    return;
  }
  const std::string point = nights[0].points[37].point;
  size_t values = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<TrendPoint>> trend =
        (*db)->Trend("GPU-bench", point, "cycles_per_load");
    if (!trend.ok()) {
      state.SkipWithError(std::string(trend.status().message()).c_str());
      return;
    }
    values = trend->size();
    benchmark::DoNotOptimize(trend);
  }
  state.counters["nights"] = static_cast<double>(values);
  state.counters["rows_in_db"] = kNights * kPointsPerNight;
  state.counters["target_ms"] = 100;
  state.SetLabel("target: trend over 365 nights in < 100 ms");
}
BENCHMARK(BM_Trend365Nights)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace dissect::analysis

BENCHMARK_MAIN();
