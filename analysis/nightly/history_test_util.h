// Helpers of the history database's tests (history_db_test,
// history_migration_test).

#ifndef DISSECT_ANALYSIS_NIGHTLY_HISTORY_TEST_UTIL_H_
#define DISSECT_ANALYSIS_NIGHTLY_HISTORY_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/nightly/history_db.h"
#include "tools/testing/test_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis::history_testing {

namespace fs = std::filesystem;
using Json = nlohmann::json;

inline const std::string kPoint = "shared_latency/footprint_bytes:4096/stride_bytes:4";

inline std::string TempDir(const std::string& name) {
  return test_util::FreshTempDir(name).string();
}

inline std::string History(const std::string& name) {
  return test_util::Runfile("analysis/testdata/history/" + name);
}

inline void WriteJson(const fs::path& path, const Json& json) {
  std::ofstream out(path);
  out << json.dump(2);
}

// A run folder of one shared_latency file: two points, the second measured
// twice when `rethrottle` (attempt 1 throttled, attempt 2 not).
inline std::string WriteRun(const std::string& root, const std::string& run_id,
                            const std::string& uuid, const std::string& started, double cycles,
                            bool rethrottle = false, const std::string& driver = "580.65.06") {
  const fs::path dir = fs::path(root) / run_id;
  fs::create_directories(dir);
  Json manifest = {{"format", "dissect.manifest.v1"},
                   {"run_id", run_id},
                   {"sweep", "nightly"},
                   {"host", "node"},
                   {"started", started},
                   {"git_commit", "c0ffee"},
                   {"device",
                    {{"index", 0},
                     {"name", "NVIDIA H100 80GB HBM3"},
                     {"uuid", uuid},
                     {"driver_version", driver}}},
                   {"entries",
                    {{{"id", "shared_latency"},
                      {"experiment", "shared_latency"},
                      {"status", "ok"},
                      {"result_file", "shared_latency.json"}}}}};
  WriteJson(dir / "manifest.json", manifest);
  Json rows = Json::array();
  auto row = [](int footprint, double cycles, int throttled, int attempt) {
    Json r = {{"name", absl::StrCat("shared_latency/footprint_bytes:", footprint,
                                    "/stride_bytes:4/iterations:1/manual_time")},
              {"run_type", "iteration"},
              {"iterations", 1},
              {"real_time", 1.0},
              {"time_unit", "us"},
              {"cycles_per_load", cycles},
              {"cycles_per_load.spread", 0.01},
              {"throttled", throttled}};
    if (attempt > 1) r["attempt"] = attempt;
    return r;
  };
  rows.push_back(row(4096, cycles, 0, 1));
  if (rethrottle) {
    rows.push_back(row(8192, cycles * 2, 1, 1));
    rows.push_back(row(8192, cycles, 0, 2));
  }
  Json file = {{"context",
                {{"dissect_schema_version", "1"},
                 {"dissect_experiment", "shared_latency"},
                 {"dissect_axes", "footprint_bytes,stride_bytes"},
                 {"dissect_metrics", "cycles_per_load"},
                 {"metric.cycles_per_load.unit", "cycles/load"},
                 {"device_name", "NVIDIA H100 80GB HBM3"},
                 {"date", started}}},
               {"benchmarks", rows}};
  WriteJson(dir / "shared_latency.json", file);
  return dir.string();
}

inline std::unique_ptr<HistoryDb> OpenOrDie(const std::string& path) {
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(path);
  EXPECT_TRUE(db.ok()) << db.status();
  return db.ok() ? *std::move(db) : nullptr;
}

// A file //analysis:import wrote from a peer suite's result.
inline std::string ImportedFile(const std::string& dir) {
  const std::string path = dir + "/mt4g_excerpt.json";
  WriteJson(path, {{"context",
                    {{"dissect_schema_version", "1"},
                     {"dissect_experiment", "hierarchy_summary"},
                     {"dissect_axes", "level"},
                     {"dissect_metrics", "latency_cycles"},
                     {"device_name", "NVIDIA H100 80GB HBM3"},
                     {"driver_version", "12.2"},
                     {"source", "mt4g@4cc55662a954"},
                     {"source_format", "mt4g"},
                     {"source_method", "p-chase mean"},
                     {"source_date", "2025-08-10T00:03:09Z"},
                     {"imported_by", "dissect analysis/import"}}},
                   {"benchmarks",
                    {{{"name", "hierarchy_summary/level:L1/iterations:1/manual_time"},
                      {"run_type", "iteration"},
                      {"iterations", 1},
                      {"real_time", 0.0},
                      {"time_unit", "ms"},
                      {"latency_cycles", 38.0},
                      {"label", "source: mt4g@4cc55662a954; method: p-chase"}}}}});
  return path;
}

}  // namespace dissect::analysis::history_testing

#endif  // DISSECT_ANALYSIS_NIGHTLY_HISTORY_TEST_UTIL_H_
