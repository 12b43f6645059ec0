#include "analysis/history_db.h"

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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
  EXPECT_EQ(*version, 1);
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
  EXPECT_EQ(*version, 1);
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

  // Migrated once: opening again finds version 1, and new runs go in beside.
  db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({History("run_h100_night1")});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->runs, 1);
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
