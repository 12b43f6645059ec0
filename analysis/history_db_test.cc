#include "analysis/history_db.h"

#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/results.h"
#include "analysis/run_data.h"
#include "analysis/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using Json = nlohmann::json;

const std::string kPoint = "shared_latency/footprint_bytes:4096/stride_bytes:4";

std::string TempDir(const std::string& name) {
  const fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string History(const std::string& name) {
  return testing::Runfile("analysis/testdata/history/" + name);
}

void WriteJson(const fs::path& path, const Json& json) {
  std::ofstream out(path);
  out << json.dump(2);
}

// A run folder of one shared_latency file: two points, the second measured
// twice when `rethrottle` (attempt 1 throttled, attempt 2 not).
std::string WriteRun(const std::string& root, const std::string& run_id, const std::string& uuid,
                     const std::string& started, double cycles, bool rethrottle = false,
                     const std::string& driver = "580.65.06") {
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

std::unique_ptr<HistoryDb> OpenOrDie(const std::string& path) {
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(path);
  EXPECT_TRUE(db.ok()) << db.status();
  return db.ok() ? *std::move(db) : nullptr;
}

TEST(HistoryDbTest, NewDatabaseHasTheCurrentSchemaVersion) {
  auto db = OpenOrDie(TempDir("new") + "/history.db");
  ASSERT_NE(db, nullptr);
  absl::StatusOr<int> version = db->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, kHistorySchemaVersion);
  EXPECT_EQ(*version, 2);
}

TEST(HistoryDbTest, IngestTwiceAddsNothingAndCountsTheSame) {
  auto db = OpenOrDie(TempDir("twice") + "/history.db");
  ASSERT_NE(db, nullptr);
  const std::vector<std::string> paths = {History("run_h100_night1"), History("loose"),
                                          History("foreign.json")};
  absl::StatusOr<IngestStats> first = db->Ingest(paths);
  ASSERT_TRUE(first.ok()) << first.status();
  // shared_latency + memory_latency_l2 of the run folder, the loose file.
  EXPECT_EQ(first->files, 3);
  EXPECT_EQ(first->runs, 2);
  EXPECT_EQ(first->rows, 5);  // 3 + 1 in the run (attempt 2 included), 1 loose
  EXPECT_EQ(first->skipped_duplicates, 0);
  EXPECT_EQ(first->bad, 2);
  ASSERT_THAT(first->bad_files, SizeIs(2));
  EXPECT_THAT(first->bad_files[0], HasSubstr("relu_bandwidth.json"));
  EXPECT_THAT(first->bad_files[1], HasSubstr("foreign.json: not a dissect result"));

  absl::StatusOr<IngestStats> second = db->Ingest(paths);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->files, 3);
  EXPECT_EQ(second->runs, 0);
  EXPECT_EQ(second->rows, 0);
  EXPECT_EQ(second->skipped_duplicates, 5);
  EXPECT_EQ(second->bad, 2);

  // The same run through its manifest or one of its result files.
  absl::StatusOr<IngestStats> third = db->Ingest(
      {History("run_h100_night1/manifest.json"), History("run_h100_night1/shared_latency.json")});
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->runs, 0);
  EXPECT_EQ(third->rows, 0);
  EXPECT_EQ(third->skipped_duplicates, 4);

  absl::StatusOr<std::vector<RunInfo>> runs = db->Runs("");
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_THAT(*runs, SizeIs(2));
  EXPECT_EQ((*runs)[0].run_id, "lab-box-0-20261120T140311Z");  // oldest first
  EXPECT_EQ((*runs)[1].run_id, "gpu-node-07-GPU-1111aaaa-20261123T020000Z");
}

TEST(HistoryDbTest, MissingPathIsBadAndTheRestGoesIn) {
  auto db = OpenOrDie(TempDir("missing") + "/history.db");
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({"/nonexistent/run", History("loose")});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->bad, 1);
  EXPECT_THAT(stats->bad_files[0], HasSubstr("/nonexistent/run: no such file"));
  EXPECT_EQ(stats->rows, 1);
}

TEST(HistoryDbTest, LoadRunGivesBackWhatTheFolderHolds) {
  auto db = OpenOrDie(TempDir("load") + "/history.db");
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Ingest({History("run_h100_night1")}).ok());
  absl::StatusOr<RunData> folder = ReadRunFolder(History("run_h100_night1"));
  ASSERT_TRUE(folder.ok()) << folder.status();
  absl::StatusOr<RunData> loaded = db->LoadRun(folder->info.run_id);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->info.device_uuid, "GPU-1111aaaa");
  EXPECT_EQ(loaded->info.driver_version, "580.65.06");
  EXPECT_EQ(loaded->info.vbios, folder->info.vbios);
  EXPECT_EQ(loaded->info.started, folder->info.started);
  ASSERT_EQ(loaded->points.size(), folder->points.size());
  for (size_t i = 0; i < folder->points.size(); ++i) {
    const RunPoint& want = folder->points[i];
    const RunPoint& got = loaded->points[i];
    EXPECT_EQ(got.point, want.point);
    EXPECT_EQ(got.experiment, want.experiment);
    EXPECT_EQ(got.axes, want.axes);
    EXPECT_EQ(got.attempt, want.attempt);
    EXPECT_EQ(got.throttled, want.throttled);
    ASSERT_EQ(got.metrics.size(), want.metrics.size()) << want.point;
    for (const auto& [name, metric] : want.metrics) {
      EXPECT_EQ(got.metrics.at(name).value, metric.value) << name;
      EXPECT_EQ(got.metrics.at(name).spread, metric.spread) << name;
      EXPECT_EQ(got.metrics.at(name).unit, metric.unit) << name;
    }
  }
  EXPECT_EQ(db->LoadRun("no-such-run").status().code(), absl::StatusCode::kNotFound);
}

TEST(HistoryDbTest, AxesWithSeparatorsComeBackAsTheyWent) {
  auto db = OpenOrDie(TempDir("odd_axes") + "/history.db");
  ASSERT_NE(db, nullptr);
  RunData run;
  run.info.run_id = "odd-run";
  run.info.device_uuid = "GPU-odd";
  RunPoint point;
  point.experiment = "odd";
  point.point = "odd/a:1";
  point.axes = {{"a", "1"}, {"b%2F", "x/y:z%"}, {"", ""}};
  point.metrics["m"] = {1.5, std::nullopt, "u"};
  run.points.push_back(point);
  RunPoint bare = point;
  bare.point = "bare";
  bare.axes.clear();
  run.points.push_back(bare);
  absl::StatusOr<IngestStats> stats = db->AddRuns({run});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->rows, 2);
  absl::StatusOr<RunData> loaded = db->LoadRun("odd-run");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_THAT(loaded->points, SizeIs(2));
  EXPECT_EQ(loaded->points[0].axes, point.axes);
  EXPECT_TRUE(loaded->points[1].axes.empty());
  EXPECT_EQ(loaded->points[1].metrics.at("m").unit, "u");
}

// Many loose files, some corrupt: read on one thread while inserted on
// another, the counts and the order of the bad files are the walk's.
TEST(HistoryDbTest, IngestOfManyFilesNamesTheBadOnesInOrder) {
  const std::string dir = TempDir("many");
  std::vector<std::string> want_bad;
  for (int f = 0; f < 40; ++f) {
    const std::string name = absl::StrCat(dir, "/f", f < 10 ? "0" : "", f, ".json");
    if (f % 7 == 3) {
      std::ofstream(name) << "{\"context\": {\"dissect_schema_version\": \"1\"";
      want_bad.push_back(name);
      continue;
    }
    WriteJson(
        name,
        {{"context",
          {{"dissect_schema_version", "1"},
           {"dissect_experiment", "shared_latency"},
           {"dissect_axes", "footprint_bytes"},
           {"dissect_metrics", "cycles_per_load"},
           {"host_name", "h"},
           {"date", absl::StrCat("2026-01-01T02:00:", f < 10 ? "0" : "", f, "Z")}}},
         {"benchmarks",
          {{{"name", absl::StrCat("shared_latency/footprint_bytes:", f)}, {"cycles_per_load", f}},
           {{"name", absl::StrCat("shared_latency/footprint_bytes:", f + 100)},
            {"cycles_per_load", f}}}}});
  }
  auto db = OpenOrDie(dir + "/history.db");
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({dir, "/nonexistent/x.json"});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->files, 40 - static_cast<int>(want_bad.size()));
  EXPECT_EQ(stats->runs, stats->files);
  EXPECT_EQ(stats->rows, 2 * stats->files);
  EXPECT_EQ(stats->bad, static_cast<int>(want_bad.size()) + 1);
  ASSERT_THAT(stats->bad_files, SizeIs(want_bad.size() + 1));
  for (size_t i = 0; i < want_bad.size(); ++i) {
    EXPECT_THAT(stats->bad_files[i], HasSubstr(want_bad[i] + ": malformed JSON"));
  }
  EXPECT_THAT(stats->bad_files.back(), HasSubstr("/nonexistent/x.json: no such file"));
}

// The result-file reader has a fast path for plain files and the full
// nlohmann::json one; a "NaN" anywhere in the text sends a file down the
// full one. Both give the same ResultFile.
TEST(HistoryDbTest, FastAndFullResultReadersAgree) {
  const std::string body =
      R"({"context": {"date": "2026-11-23T02:00:00+00:00", "host_name": "h",
  "num_cpus": 2, "mhz_per_cpu": 3000.5, "cpu_scaling_enabled": false, "x": null,
  "caches": [{"type": "Data", "level": 1, "size": 32768}], "big": 1e300,
  "dissect_schema_version": "1", "dissect_experiment": "memory_latency",
  "dissect_axes": "path, footprint_bytes", "dissect_metrics": "cycles_per_load,ns_per_load",
  "metric.cycles_per_load.unit": "cycles/load", "host_name": "h2"},
 "other": {"deep": [[1, 2], {"a": "b"}]},
 "benchmarks": [
  {"name": "memory_latency/path:global_cg/footprint_bytes:1024/iterations:1/manual_time",
   "run_type": "iteration", "iterations": 1, "real_time": 12.5, "cpu_time": 13, "time_unit": "us",
   "cycles_per_load": 30, "cycles_per_load.spread": 0.01, "ns_per_load": -0,
   "huge": 18446744073709551615, "huger": 98446744073709551615, "neg": -9223372036854775808,
   "tiny": 1.5e-320, "exp": 2E+3, "s": "text", "dup": 1, "dup": "x", "dup2": "a", "dup2": 4,
   "label": "first", "label": 3, "throttled": 1, "attempt": 2, "flag": true, "nothing": null},
  {"name": "memory_latency/path:global_ca/footprint_bytes:2048/repeats:3", "error_occurred": true,
   "error_message": "skipped: no", "real_time": "x", "label": "l", "time_unit": "ns"}
 ]})";
  absl::StatusOr<ResultFile> fast = ParseResultJson(body, "f.json");
  std::string slow_text = body;
  slow_text.insert(slow_text.find("\"date\""), "\"marker\": \"NaN\", ");
  absl::StatusOr<ResultFile> slow = ParseResultJson(slow_text, "f.json");
  ASSERT_TRUE(fast.ok()) << fast.status();
  ASSERT_TRUE(slow.ok()) << slow.status();
  slow->context.erase("marker");
  EXPECT_EQ(fast->context, slow->context);
  EXPECT_EQ(fast->context.at("caches"), R"([{"level":1,"size":32768,"type":"Data"}])");
  EXPECT_EQ(fast->context.at("host_name"), "h2");
  EXPECT_EQ(fast->experiment, slow->experiment);
  EXPECT_EQ(fast->axis_names, slow->axis_names);
  EXPECT_EQ(fast->metric_names, slow->metric_names);
  ASSERT_EQ(fast->rows.size(), slow->rows.size());
  for (size_t i = 0; i < fast->rows.size(); ++i) {
    const Row& a = fast->rows[i];
    const Row& b = slow->rows[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.axes, b.axes);
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.error_message, b.error_message);
    EXPECT_EQ(a.real_time, b.real_time);
    EXPECT_EQ(a.time_unit, b.time_unit);
    ASSERT_EQ(a.counters.size(), b.counters.size()) << a.name;
    for (const auto& [key, value] : b.counters) {
      ASSERT_EQ(a.counters.count(key), 1u) << key;
      EXPECT_EQ(std::signbit(a.counters.at(key)), std::signbit(value)) << key;
      EXPECT_EQ(a.counters.at(key), value) << key;
    }
  }
  EXPECT_EQ(fast->rows[0].counters.at("dup2"), 4);
  EXPECT_EQ(fast->rows[0].counters.count("dup"), 0u);

  // Errors are the full reader's, word for word.
  for (const std::string& bad :
       {std::string(R"({"context": {"dissect_schema_version": "1"}, "benchmarks": []})"),
        body.substr(0, body.size() / 2), std::string(R"({"context": {}} x)"),
        std::string(R"({"context": {"dissect_schema_version": "1", "dissect_experiment": "e"},)"
                    R"( "benchmarks": [{"name": "e/a:1"}]})")}) {
    absl::StatusOr<ResultFile> file = ParseResultJson(bad, "bad.json");
    ASSERT_FALSE(file.ok());
    EXPECT_THAT(std::string(file.status().message()), HasSubstr("bad.json: ")) << bad;
  }
}

class TrendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = TempDir("trend");
    db_ = OpenOrDie(root_ + "/history.db");
    ASSERT_NE(db_, nullptr);
    // Ingested out of order; night 3 re-measured a throttled point.
    std::vector<std::string> folders = {
        WriteRun(root_, "n3", "GPU-a", "2026-11-03T02:00:00Z", 33, /*rethrottle=*/true),
        WriteRun(root_, "n1", "GPU-a", "2026-11-01T02:00:00Z", 31),
        WriteRun(root_, "n2", "GPU-a", "2026-11-02T03:00:00+01:00", 32),
        WriteRun(root_, "n4", "GPU-a", "2026-11-04T02:00:00Z", 34, false, "590.10"),
        WriteRun(root_, "b1", "GPU-b", "2026-11-02T02:00:00Z", 99),
    };
    absl::StatusOr<IngestStats> stats = db_->Ingest(folders);
    ASSERT_TRUE(stats.ok()) << stats.status();
    ASSERT_EQ(stats->bad, 0);
  }
  std::string root_;
  std::unique_ptr<HistoryDb> db_;
};

TEST_F(TrendTest, OldestFirstWithValuesAndProvenance) {
  absl::StatusOr<std::vector<TrendPoint>> trend = db_->Trend("GPU-a", kPoint, "cycles_per_load");
  ASSERT_TRUE(trend.ok()) << trend.status();
  ASSERT_THAT(*trend, SizeIs(4));
  std::vector<std::string> ids;
  std::vector<double> values;
  for (const TrendPoint& p : *trend) {
    ids.push_back(p.run_id);
    values.push_back(p.value);
  }
  EXPECT_THAT(ids, ElementsAre("n1", "n2", "n3", "n4"));
  EXPECT_THAT(values, ElementsAre(31, 32, 33, 34));
  EXPECT_EQ((*trend)[1].started, "2026-11-02T02:00:00Z");  // normalized to UTC
  EXPECT_EQ((*trend)[0].spread, 0.01);
  EXPECT_EQ((*trend)[0].git_commit, "c0ffee");
  EXPECT_EQ((*trend)[3].driver_version, "590.10");
}

TEST_F(TrendTest, ReMeasurementReplacesTheThrottledAttempt) {
  absl::StatusOr<std::vector<TrendPoint>> trend =
      db_->Trend("GPU-a", "shared_latency/footprint_bytes:8192/stride_bytes:4", "cycles_per_load");
  ASSERT_TRUE(trend.ok()) << trend.status();
  ASSERT_THAT(*trend, SizeIs(1));
  EXPECT_EQ((*trend)[0].value, 33);  // attempt 2, not the throttled 66
}

TEST_F(TrendTest, UnknownPointOrMetricIsEmptyUnknownDeviceAnError) {
  absl::StatusOr<std::vector<TrendPoint>> trend = db_->Trend("GPU-a", "nope", "cycles_per_load");
  ASSERT_TRUE(trend.ok());
  EXPECT_TRUE(trend->empty());
  trend = db_->Trend("GPU-a", kPoint, "nope");
  ASSERT_TRUE(trend.ok());
  EXPECT_TRUE(trend->empty());
  EXPECT_EQ(db_->Trend("GPU-z", kPoint, "cycles_per_load").status().code(),
            absl::StatusCode::kNotFound);
  // Both devices share the name: ambiguous.
  absl::Status ambiguous = db_->Trend("NVIDIA H100 80GB HBM3", kPoint, "cycles_per_load").status();
  EXPECT_EQ(ambiguous.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(ambiguous.message()), HasSubstr("2 devices are named"));
}

TEST_F(TrendTest, RunsOfADeviceOrByName) {
  absl::StatusOr<std::vector<RunInfo>> runs = db_->Runs("GPU-b");
  ASSERT_TRUE(runs.ok());
  ASSERT_THAT(*runs, SizeIs(1));
  EXPECT_EQ((*runs)[0].run_id, "b1");
  runs = db_->Runs("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(runs.ok());
  EXPECT_THAT(*runs, SizeIs(5));
}

TEST_F(TrendTest, LastRunsBeforeARunOldestFirst) {
  absl::StatusOr<std::vector<RunData>> runs = db_->LastRuns("GPU-a", 2);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_THAT(*runs, SizeIs(2));
  EXPECT_EQ((*runs)[0].info.run_id, "n3");
  EXPECT_EQ((*runs)[1].info.run_id, "n4");
  EXPECT_THAT((*runs)[0].points, SizeIs(3));

  runs = db_->LastRuns("GPU-a", 2, "n3");
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_THAT(*runs, SizeIs(2));
  EXPECT_EQ((*runs)[0].info.run_id, "n1");
  EXPECT_EQ((*runs)[1].info.run_id, "n2");

  runs = db_->LastRuns("GPU-a", 10, "n1");
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  EXPECT_EQ(db_->LastRuns("GPU-a", 2, "nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TrendTest, DevicesPointsAndMetrics) {
  absl::StatusOr<std::vector<DeviceSummary>> devices = db_->Devices();
  ASSERT_TRUE(devices.ok());
  ASSERT_THAT(*devices, SizeIs(2));
  EXPECT_EQ((*devices)[0].key, "GPU-a");
  EXPECT_EQ((*devices)[0].runs, 4);
  EXPECT_EQ((*devices)[0].first_started, "2026-11-01T02:00:00Z");
  EXPECT_EQ((*devices)[0].last_started, "2026-11-04T02:00:00Z");
  absl::StatusOr<std::vector<std::string>> points = db_->Points("GPU-b");
  ASSERT_TRUE(points.ok());
  EXPECT_THAT(*points, ElementsAre(kPoint));
  absl::StatusOr<std::vector<std::string>> metrics = db_->Metrics("GPU-a", kPoint);
  ASSERT_TRUE(metrics.ok());
  EXPECT_THAT(*metrics, ElementsAre("cycles_per_load"));
}

// ---- Schema versions --------------------------------------------------------

void Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST(HistoryDbMigrationTest, VersionZeroIsMigrated) {
  const std::string path = TempDir("v0") + "/history.db";
  // The prototype layout: no schema_version table, one flat results table.
  Sql(path,
      "CREATE TABLE runs (run_id TEXT PRIMARY KEY, device TEXT, started TEXT, "
      "driver_version TEXT, git_commit TEXT);"
      "CREATE TABLE results (run_id TEXT, point TEXT, metric TEXT, value REAL, spread REAL, "
      "unit TEXT);"
      "INSERT INTO runs VALUES ('old2', 'NVIDIA A100', '2025-01-02T02:00:00Z', '550', 'c2');"
      "INSERT INTO runs VALUES ('old1', 'NVIDIA A100', '2025-01-01T02:00:00Z', '550', 'c1');"
      "INSERT INTO results VALUES ('old1', 'shared_latency/footprint_bytes:4096/stride_bytes:4', "
      "'cycles_per_load', 30.5, 0.01, 'cycles/load');"
      "INSERT INTO results VALUES ('old1', 'shared_latency/footprint_bytes:4096/stride_bytes:4', "
      "'ns_per_load', 15.0, NULL, 'ns/load');"
      "INSERT INTO results VALUES ('old2', 'shared_latency/footprint_bytes:4096/stride_bytes:4', "
      "'cycles_per_load', 31.5, 0.02, 'cycles/load');");
  auto db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<int> version = db->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 2);  // 0 -> 1 -> 2
  absl::StatusOr<std::vector<TrendPoint>> trend =
      db->Trend("NVIDIA A100", kPoint, "cycles_per_load");
  ASSERT_TRUE(trend.ok()) << trend.status();
  ASSERT_THAT(*trend, SizeIs(2));
  EXPECT_EQ((*trend)[0].run_id, "old1");
  EXPECT_EQ((*trend)[0].value, 30.5);
  EXPECT_EQ((*trend)[0].spread, 0.01);
  EXPECT_EQ((*trend)[0].git_commit, "c1");
  EXPECT_EQ((*trend)[1].value, 31.5);
  absl::StatusOr<RunData> run = db->LoadRun("old1");
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_THAT(run->points, SizeIs(1));
  EXPECT_EQ(run->points[0].experiment, "shared_latency");
  EXPECT_EQ(run->points[0].axes.at("footprint_bytes"), "4096");
  EXPECT_FALSE(run->points[0].metrics.at("ns_per_load").spread.has_value());
  db.reset();

  // Migrated once: opening again finds version 2, and new runs go in beside.
  db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({History("run_h100_night1")});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->runs, 1);
}

// The first value of `sql` as text ("" when there is no row).
std::string SqlText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  std::string text;
  if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
    text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return text;
}

TEST(HistoryDbMigrationTest, VersionOneIsMigrated) {
  const std::string path = TempDir("v1") + "/history.db";
  // Version 1: axes in point_axes, metrics keyed by name.
  Sql(path,
      "CREATE TABLE schema_version (version INTEGER NOT NULL);"
      "CREATE TABLE devices (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, "
      "uuid TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '', "
      "serial TEXT NOT NULL DEFAULT '', vbios TEXT NOT NULL DEFAULT '');"
      "CREATE INDEX devices_by_uuid ON devices(uuid);"
      "CREATE INDEX devices_by_name ON devices(name);"
      "CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, "
      "device_id INTEGER NOT NULL REFERENCES devices(id), sweep TEXT NOT NULL DEFAULT '', "
      "started TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', "
      "git_commit TEXT NOT NULL DEFAULT '', driver_version TEXT NOT NULL DEFAULT '');"
      "CREATE INDEX runs_by_device ON runs(device_id, started, run_id);"
      "CREATE TABLE points (id INTEGER PRIMARY KEY, experiment TEXT NOT NULL, "
      "point TEXT NOT NULL UNIQUE);"
      "CREATE TABLE point_axes (point_id INTEGER NOT NULL REFERENCES points(id), "
      "name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (point_id, name)) WITHOUT ROWID;"
      "CREATE TABLE measurements (id INTEGER PRIMARY KEY, "
      "run_id INTEGER NOT NULL REFERENCES runs(id), "
      "point_id INTEGER NOT NULL REFERENCES points(id), attempt INTEGER NOT NULL, "
      "throttled INTEGER NOT NULL, UNIQUE (run_id, point_id, attempt));"
      "CREATE INDEX measurements_by_point ON measurements(point_id, run_id);"
      "CREATE TABLE metrics (measurement_id INTEGER NOT NULL REFERENCES measurements(id), "
      "name TEXT NOT NULL, value REAL NOT NULL, spread REAL, unit TEXT NOT NULL DEFAULT '', "
      "PRIMARY KEY (measurement_id, name)) WITHOUT ROWID;"
      "INSERT INTO schema_version VALUES (1);"
      "INSERT INTO devices (id, key, uuid, name) VALUES (1, 'GPU-v1', 'GPU-v1', 'NVIDIA A100');"
      "INSERT INTO runs (id, run_id, device_id, started, git_commit) VALUES "
      "(1, 'r1', 1, '2025-02-01T02:00:00Z', 'c1'), (2, 'r2', 1, '2025-02-02T02:00:00Z', 'c2');"
      "INSERT INTO points VALUES (1, 'shared_latency', "
      "'shared_latency/footprint_bytes:4096/stride_bytes:4'), "
      "(2, 'odd', 'odd/mode:a%b'), (3, 'bare', 'bare');"
      "INSERT INTO point_axes VALUES (1, 'stride_bytes', '4'), (1, 'footprint_bytes', '4096'), "
      "(2, 'mode', 'a%b/c:d');"
      "INSERT INTO measurements VALUES (1, 1, 1, 1, 0), (2, 1, 2, 1, 0), (3, 1, 3, 1, 0), "
      "(4, 2, 1, 1, 1), (5, 2, 1, 2, 0);"
      "INSERT INTO metrics VALUES (1, 'cycles_per_load', 30.5, 0.01, 'cycles/load'), "
      "(1, 'ns_per_load', 15.0, NULL, 'ns/load'), (2, 'cycles_per_load', 7, NULL, ''), "
      "(3, 'ns_per_load', 1, NULL, 'ns/load'), (4, 'cycles_per_load', 60, 0.2, 'cycles/load'), "
      "(5, 'cycles_per_load', 31.5, 0.02, 'cycles/load');");
  auto db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<int> version = db->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 2);
  absl::StatusOr<RunData> run = db->LoadRun("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_THAT(run->points, SizeIs(3));
  EXPECT_EQ(run->points[0].point, kPoint);
  EXPECT_EQ(run->points[0].axes, (std::map<std::string, std::string>{{"footprint_bytes", "4096"},
                                                                     {"stride_bytes", "4"}}));
  EXPECT_EQ(run->points[0].metrics.at("cycles_per_load").value, 30.5);
  EXPECT_EQ(run->points[0].metrics.at("cycles_per_load").spread, 0.01);
  EXPECT_EQ(run->points[0].metrics.at("cycles_per_load").unit, "cycles/load");
  EXPECT_FALSE(run->points[0].metrics.at("ns_per_load").spread.has_value());
  EXPECT_EQ(run->points[1].axes, (std::map<std::string, std::string>{{"mode", "a%b/c:d"}}));
  EXPECT_TRUE(run->points[2].axes.empty());
  EXPECT_THAT(run->points[2].metrics, SizeIs(1));
  // The last attempt of r2 is its value.
  absl::StatusOr<std::vector<TrendPoint>> trend = db->Trend("GPU-v1", kPoint, "cycles_per_load");
  ASSERT_TRUE(trend.ok()) << trend.status();
  ASSERT_THAT(*trend, SizeIs(2));
  EXPECT_EQ((*trend)[0].value, 30.5);
  EXPECT_EQ((*trend)[1].value, 31.5);
  EXPECT_EQ((*trend)[1].git_commit, "c2");
  absl::StatusOr<std::vector<std::string>> metrics = db->Metrics("GPU-v1", kPoint);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_THAT(*metrics, ElementsAre("cycles_per_load", "ns_per_load"));
  db.reset();
  EXPECT_EQ(SqlText(path,
                    "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                    "WHERE type = 'table' ORDER BY name)"),
            "devices,measurements,metric_names,metrics,points,runs,schema_version");
  EXPECT_EQ(SqlText(path, "SELECT axes FROM points WHERE id = 1"),
            "footprint_bytes:4096/stride_bytes:4");
  EXPECT_EQ(SqlText(path, "SELECT axes FROM points WHERE id = 2"), "mode:a%25b%2Fc%3Ad");

  // New runs go in beside the migrated ones.
  db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({History("run_h100_night1")});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->runs, 1);
}

TEST(HistoryDbMigrationTest, FailedMigrationFromVersionOneLeavesTheDatabaseAsItWas) {
  const std::string path = TempDir("v1_bad") + "/history.db";
  // A version-1 database without point_axes: the migration fails and rolls
  // back, metrics and points as they were.
  Sql(path,
      "CREATE TABLE schema_version (version INTEGER NOT NULL);"
      "INSERT INTO schema_version VALUES (1);"
      "CREATE TABLE points (id INTEGER PRIMARY KEY, experiment TEXT NOT NULL, "
      "point TEXT NOT NULL UNIQUE);"
      "CREATE TABLE metrics (measurement_id INTEGER NOT NULL, name TEXT NOT NULL, "
      "value REAL NOT NULL, spread REAL, unit TEXT NOT NULL DEFAULT '', "
      "PRIMARY KEY (measurement_id, name)) WITHOUT ROWID;"
      "INSERT INTO metrics VALUES (1, 'cycles_per_load', 30.5, NULL, '');");
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("migrating from schema version 1"));
  EXPECT_EQ(SqlText(path,
                    "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                    "WHERE type = 'table' ORDER BY name)"),
            "metrics,points,schema_version");
  EXPECT_EQ(SqlText(path, "SELECT name FROM metrics"), "cycles_per_load");
  EXPECT_EQ(SqlText(path, "SELECT version FROM schema_version"), "1");
}

TEST(HistoryDbMigrationTest, FailedMigrationLeavesTheDatabaseAsItWas) {
  const std::string path = TempDir("v0_bad") + "/history.db";
  // A version-0 database whose results table lacks a column the migration
  // reads: the migration fails and rolls back.
  Sql(path,
      "CREATE TABLE runs (run_id TEXT PRIMARY KEY, device TEXT, started TEXT, "
      "driver_version TEXT, git_commit TEXT);"
      "CREATE TABLE results (run_id TEXT, point TEXT, metric TEXT);"
      "INSERT INTO runs VALUES ('old1', 'NVIDIA A100', '2025-01-01T02:00:00Z', '550', 'c1');");
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("migrating from schema version 0"));
  Sql(path, "SELECT run_id, device FROM runs; SELECT metric FROM results;");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'", -1,
                               &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 2);  // runs and results, nothing else
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
}

TEST(HistoryDbMigrationTest, NewerVersionIsRefused) {
  const std::string path = TempDir("v99") + "/history.db";
  Sql(path,
      "CREATE TABLE schema_version (version INTEGER); INSERT INTO schema_version VALUES (99);");
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("version 99 is newer"));
}

TEST(HistoryDbMigrationTest, ForeignDatabaseAndNonDatabaseAreRefused) {
  const std::string dir = TempDir("foreign_db");
  Sql(dir + "/other.db", "CREATE TABLE customers (id INTEGER);");
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(dir + "/other.db");
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(std::string(db.status().message()),
              HasSubstr("other.db: not a dissect history database (tables: customers)"));

  std::ofstream(dir + "/text.db") << "this is not a database, just some text of enough length\n";
  db = HistoryDb::Open(dir + "/text.db");
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("text.db: not a SQLite database"));
}

}  // namespace
}  // namespace dissect::analysis
