// The history database's schema versions: each older version migrates to
// the current one, a failed migration leaves the database as it was, and a
// newer or foreign database is refused.

#include <sqlite3.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/nightly/history_db.h"
#include "analysis/nightly/history_test_util.h"
#include "analysis/nightly/run_data.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using history_testing::History;
using history_testing::ImportedFile;
using history_testing::kPoint;
using history_testing::OpenOrDie;
using history_testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

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
  EXPECT_EQ(*version, 4);  // 0 -> 1 -> 2 -> 3 -> 4
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

  // Migrated once: opening again finds version 4, and new runs go in beside.
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

// The tables of the database at `path`, by name, comma-separated.
std::string Tables(const std::string& path) {
  return SqlText(path,
                 "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                 "WHERE type = 'table' ORDER BY name)");
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
  EXPECT_EQ(*version, 4);
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
  EXPECT_EQ(Tables(path),
            "devices,measurements,metric_names,metrics,points,result_files,run_problems,runs,"
            "schema_version");
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

TEST(HistoryDbMigrationTest, VersionTwoIsMigrated) {
  const std::string dir = TempDir("v2");
  const std::string path = dir + "/history.db";
  // Version 2: no source columns, entries, run_problems or result_files.
  Sql(path,
      "CREATE TABLE schema_version (version INTEGER NOT NULL);"
      "CREATE TABLE devices (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, "
      "uuid TEXT NOT NULL DEFAULT '', name TEXT NOT NULL DEFAULT '', "
      "serial TEXT NOT NULL DEFAULT '', vbios TEXT NOT NULL DEFAULT '');"
      "CREATE TABLE runs (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, "
      "device_id INTEGER NOT NULL REFERENCES devices(id), sweep TEXT NOT NULL DEFAULT '', "
      "started TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', "
      "git_commit TEXT NOT NULL DEFAULT '', driver_version TEXT NOT NULL DEFAULT '');"
      "CREATE INDEX runs_by_device ON runs(device_id, started, run_id);"
      "CREATE TABLE points (id INTEGER PRIMARY KEY, experiment TEXT NOT NULL, "
      "point TEXT NOT NULL UNIQUE, axes TEXT NOT NULL DEFAULT '');"
      "CREATE TABLE metric_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
      "CREATE TABLE measurements (id INTEGER PRIMARY KEY, "
      "run_id INTEGER NOT NULL REFERENCES runs(id), "
      "point_id INTEGER NOT NULL REFERENCES points(id), attempt INTEGER NOT NULL, "
      "throttled INTEGER NOT NULL, UNIQUE (run_id, point_id, attempt));"
      "CREATE TABLE metrics (measurement_id INTEGER NOT NULL REFERENCES measurements(id), "
      "metric_id INTEGER NOT NULL REFERENCES metric_names(id), value REAL NOT NULL, "
      "spread REAL, unit TEXT NOT NULL DEFAULT '', "
      "PRIMARY KEY (measurement_id, metric_id)) WITHOUT ROWID;"
      "INSERT INTO schema_version VALUES (2);"
      "INSERT INTO devices (id, key, uuid, name) VALUES (1, 'GPU-v2', 'GPU-v2', 'NVIDIA A100');"
      "INSERT INTO runs (id, run_id, device_id, started, git_commit, driver_version) VALUES "
      "(1, 'r1', 1, '2025-03-01T02:00:00Z', 'c1', '550.54');"
      "INSERT INTO points VALUES (1, 'shared_latency', "
      "'shared_latency/footprint_bytes:4096/stride_bytes:4', "
      "'footprint_bytes:4096/stride_bytes:4');"
      "INSERT INTO metric_names VALUES (1, 'cycles_per_load');"
      "INSERT INTO measurements VALUES (1, 1, 1, 1, 0);"
      "INSERT INTO metrics VALUES (1, 1, 30.5, 0.01, 'cycles/load');");
  auto db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<int> version = db->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 4);
  // The old run reads as before: ours, its values, no files, no problems.
  absl::StatusOr<std::vector<RunInfo>> runs = db->Runs("");
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_THAT(*runs, SizeIs(1));
  EXPECT_FALSE(IsImported((*runs)[0]));
  EXPECT_EQ((*runs)[0].driver_version, "550.54");
  absl::StatusOr<RunData> run = db->LoadRun("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_THAT(run->points, SizeIs(1));
  EXPECT_EQ(run->points[0].metrics.at("cycles_per_load").value, 30.5);
  EXPECT_EQ(run->entries, 0);
  EXPECT_THAT(run->problems, IsEmpty());
  absl::StatusOr<std::vector<StoredResultFile>> files = db->ResultFiles("r1");
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, IsEmpty());
  absl::StatusOr<std::vector<RunData>> last = db->LastRuns("GPU-v2", 7);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_THAT(*last, SizeIs(1));
  db.reset();
  EXPECT_EQ(Tables(path),
            "devices,measurements,metric_names,metrics,points,result_files,run_problems,runs,"
            "schema_version");

  // New runs, ours and imported, go in beside with everything they had.
  db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  absl::StatusOr<IngestStats> stats = db->Ingest({History("run_h100_night1"), ImportedFile(dir)});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->runs, 2);
  files = db->ResultFiles("gpu-node-07-GPU-1111aaaa-20261123T020000Z");
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, SizeIs(2));
  runs = db->Runs("", /*with_imported=*/true);
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_THAT(*runs, SizeIs(3));
}

TEST(HistoryDbMigrationTest, VersionThreeGivesVersionOneMetricsTheirNewNames) {
  const std::string path = TempDir("v3") + "/history.db";
  ASSERT_NE(OpenOrDie(path), nullptr);  // the current tables, empty
  // As version 3 held a run ingested from result-schema-1 files: cublaslt_gemm's
  // gbps and shared_bandwidth's aggregate_gbps under their old names, beside
  // another experiment's gbps, which no version renamed.
  Sql(path,
      "DELETE FROM schema_version; INSERT INTO schema_version VALUES (3);"
      "INSERT INTO devices (id, key, uuid, name) VALUES (1, 'GPU-v3', 'GPU-v3', 'NVIDIA H100');"
      "INSERT INTO runs (id, run_id, device_id, started) VALUES (1, 'r1', 1, '2026-11-01');"
      "INSERT INTO points VALUES (1, 'cublaslt_gemm', 'cublaslt_gemm/dtype:bf16', 'dtype:bf16'),"
      " (2, 'shared_bandwidth', 'shared_bandwidth/width_bits:128', 'width_bits:128'),"
      " (3, 'other', 'other/x:1', 'x:1');"
      "INSERT INTO metric_names VALUES (1, 'gbps'), (2, 'aggregate_gbps'), (3, 'tflops');"
      "INSERT INTO measurements VALUES (1, 1, 1, 1, 0), (2, 1, 2, 1, 0), (3, 1, 3, 1, 0);"
      "INSERT INTO metrics VALUES (1, 1, 283, 0.02, 'GB/s'), (1, 3, 772, 0.01, 'TFLOP/s'),"
      " (2, 2, 33000, 0.01, 'GB/s'), (3, 1, 5, NULL, 'GB/s');");
  auto db = OpenOrDie(path);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->SchemaVersion().value_or(-1), 4);
  absl::StatusOr<RunData> run = db->LoadRun("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  std::map<std::string, std::map<std::string, double>> values;  // experiment -> metric -> value
  for (const RunPoint& point : run->points) {
    for (const auto& [name, metric] : point.metrics) values[point.experiment][name] = metric.value;
  }
  EXPECT_EQ(values, (std::map<std::string, std::map<std::string, double>>{
                        {"cublaslt_gemm", {{"bandwidth_gbps", 283}, {"tflops", 772}}},
                        {"other", {{"gbps", 5}}},
                        {"shared_bandwidth", {{"bandwidth_gbps", 33000}}}}));
  db.reset();
  // aggregate_gbps is gone; gbps stays, for the experiment that still uses it.
  EXPECT_EQ(SqlText(path, "SELECT group_concat(name, ',') FROM "
                          "(SELECT name FROM metric_names ORDER BY name)"),
            "bandwidth_gbps,gbps,tflops");
}

TEST(HistoryDbMigrationTest, FailedMigrationFromVersionTwoLeavesTheDatabaseAsItWas) {
  const std::string path = TempDir("v2_bad") + "/history.db";
  // A version-2 database without a runs table: adding its columns fails.
  Sql(path,
      "CREATE TABLE schema_version (version INTEGER NOT NULL);"
      "INSERT INTO schema_version VALUES (2);"
      "CREATE TABLE points (id INTEGER PRIMARY KEY, experiment TEXT NOT NULL, "
      "point TEXT NOT NULL UNIQUE, axes TEXT NOT NULL DEFAULT '');");
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("migrating from schema version 2"));
  EXPECT_EQ(Tables(path), "points,schema_version");
  EXPECT_EQ(SqlText(path, "SELECT version FROM schema_version"), "2");
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
  EXPECT_EQ(Tables(path), "metrics,points,schema_version");
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
