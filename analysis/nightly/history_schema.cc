// The history database's schema: the tables of each version, the migrations
// from every older version, and the encodings its columns use. See
// analysis/nightly/history_db.h for the layout.

#include "analysis/nightly/history_schema.h"

#include <sqlite3.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/history_sql.h"
#include "analysis/nightly/run_data.h"
#include "experiments/result_format/renamed_metrics.h"

namespace dissect::analysis::history_internal {
namespace {

constexpr char kSchemaV1[] = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  uuid TEXT NOT NULL DEFAULT '',
  name TEXT NOT NULL DEFAULT '',
  serial TEXT NOT NULL DEFAULT '',
  vbios TEXT NOT NULL DEFAULT '');
CREATE INDEX devices_by_uuid ON devices(uuid);
CREATE INDEX devices_by_name ON devices(name);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  sweep TEXT NOT NULL DEFAULT '',
  started TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  git_commit TEXT NOT NULL DEFAULT '',
  driver_version TEXT NOT NULL DEFAULT '');
CREATE INDEX runs_by_device ON runs(device_id, started, run_id);
CREATE TABLE points (
  id INTEGER PRIMARY KEY,
  experiment TEXT NOT NULL,
  point TEXT NOT NULL UNIQUE);
CREATE TABLE point_axes (
  point_id INTEGER NOT NULL REFERENCES points(id),
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (point_id, name)) WITHOUT ROWID;
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  point_id INTEGER NOT NULL REFERENCES points(id),
  attempt INTEGER NOT NULL,
  throttled INTEGER NOT NULL,
  UNIQUE (run_id, point_id, attempt));
CREATE INDEX measurements_by_point ON measurements(point_id, run_id);
CREATE TABLE metrics (
  measurement_id INTEGER NOT NULL REFERENCES measurements(id),
  name TEXT NOT NULL,
  value REAL NOT NULL,
  spread REAL,
  unit TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (measurement_id, name)) WITHOUT ROWID;
INSERT INTO schema_version (version) VALUES (1);
)sql";

// Version 2: a point's axes are a column of `points` (EncodeAxes) instead of
// rows of point_axes, and metric names are integer ids (metric_names).
constexpr char kSchemaV2[] = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  uuid TEXT NOT NULL DEFAULT '',
  name TEXT NOT NULL DEFAULT '',
  serial TEXT NOT NULL DEFAULT '',
  vbios TEXT NOT NULL DEFAULT '');
CREATE INDEX devices_by_uuid ON devices(uuid);
CREATE INDEX devices_by_name ON devices(name);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  sweep TEXT NOT NULL DEFAULT '',
  started TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  git_commit TEXT NOT NULL DEFAULT '',
  driver_version TEXT NOT NULL DEFAULT '');
CREATE INDEX runs_by_device ON runs(device_id, started, run_id);
CREATE TABLE points (
  id INTEGER PRIMARY KEY,
  experiment TEXT NOT NULL,
  point TEXT NOT NULL UNIQUE,
  axes TEXT NOT NULL DEFAULT '');
CREATE TABLE metric_names (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  point_id INTEGER NOT NULL REFERENCES points(id),
  attempt INTEGER NOT NULL,
  throttled INTEGER NOT NULL,
  UNIQUE (run_id, point_id, attempt));
CREATE INDEX measurements_by_point ON measurements(point_id, run_id);
CREATE TABLE metrics (
  measurement_id INTEGER NOT NULL REFERENCES measurements(id),
  metric_id INTEGER NOT NULL REFERENCES metric_names(id),
  value REAL NOT NULL,
  spread REAL,
  unit TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (measurement_id, metric_id)) WITHOUT ROWID;
INSERT INTO schema_version (version) VALUES (2);
)sql";

void AppendEscaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '/':
        out += "%2F";
        break;
      case ':':
        out += "%3A";
        break;
      default:
        out += c;
    }
  }
}

std::string Unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const std::string_view code = text.substr(i + 1, 2);
      const char c = code == "25" ? '%' : code == "2F" ? '/' : code == "3A" ? ':' : '\0';
      if (c != '\0') {
        out += c;
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

absl::StatusOr<std::set<std::string>> TableNames(sqlite3* db) {
  absl::StatusOr<Statement> stmt =
      Statement::Prepare(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!stmt.ok()) return stmt.status();
  std::set<std::string> names;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    names.insert(stmt->Text(0));
  }
  return names;
}

}  // namespace

std::string EncodeAxes(const std::map<std::string, std::string>& axes) {
  std::string out;
  for (const auto& [name, value] : axes) {
    if (!out.empty()) out += '/';
    AppendEscaped(out, name);
    out += ':';
    AppendEscaped(out, value);
  }
  return out;
}

std::map<std::string, std::string> DecodeAxes(std::string_view text) {
  std::map<std::string, std::string> axes;
  if (text.empty()) return axes;
  for (absl::string_view segment :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '/')) {
    const size_t colon = segment.find(':');
    if (colon == absl::string_view::npos) continue;
    axes.emplace(
        Unescape(std::string_view(segment.data(), colon)),
        Unescape(std::string_view(segment.data() + colon + 1, segment.size() - colon - 1)));
  }
  return axes;
}

absl::StatusOr<int> DetectVersion(sqlite3* db) {
  absl::StatusOr<std::set<std::string>> tables = TableNames(db);
  if (!tables.ok()) return tables.status();
  if (tables->empty()) return -1;
  if (tables->count("schema_version") > 0) {
    absl::StatusOr<Statement> stmt =
        Statement::Prepare(db, "SELECT MAX(version) FROM schema_version");
    if (!stmt.ok()) return stmt.status();
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row || stmt->IsNull(0)) {
      return absl::InvalidArgumentError("its schema_version table is empty");
    }
    return static_cast<int>(stmt->Int(0));
  }
  if (tables->count("runs") > 0 && tables->count("results") > 0) return 0;
  return absl::InvalidArgumentError(
      absl::StrCat("not a dissect history database (tables: ", absl::StrJoin(*tables, ", "), ")"));
}

std::string StoredDeviceKey(const RunInfo& info) {
  if (!info.device_uuid.empty()) return info.device_uuid;
  if (!info.device_serial.empty()) return info.device_serial;
  return absl::StrCat(info.device_name.empty() ? "unknown" : info.device_name, "@", info.host);
}

namespace {

// Version 0, the prototype: one flat table of values.
//   runs(run_id TEXT PRIMARY KEY, device TEXT, started TEXT,
//        driver_version TEXT, git_commit TEXT)
//   results(run_id TEXT, point TEXT, metric TEXT, value REAL, spread REAL,
//           unit TEXT)
// Its rows become attempt-1 measurements of unthrottled points; the device
// (a name) becomes its key.
absl::Status MigrateV0ToV1(sqlite3* db) {
  for (const char* sql : {"ALTER TABLE runs RENAME TO v0_runs",
                          "ALTER TABLE results RENAME TO v0_results", kSchemaV1}) {
    if (absl::Status status = Exec(db, sql); !status.ok()) return status;
  }
  for (const char* sql : {
           "INSERT OR IGNORE INTO devices (key, name) "
           "SELECT DISTINCT COALESCE(device, 'unknown'), COALESCE(device, '') FROM v0_runs",
           "INSERT INTO runs (run_id, device_id, started, driver_version, git_commit) "
           "SELECT r.run_id, d.id, COALESCE(r.started, ''), COALESCE(r.driver_version, ''), "
           "COALESCE(r.git_commit, '') FROM v0_runs r "
           "JOIN devices d ON d.key = COALESCE(r.device, 'unknown')",
           "INSERT OR IGNORE INTO points (experiment, point) "
           "SELECT DISTINCT CASE WHEN instr(point, '/') > 0 "
           "THEN substr(point, 1, instr(point, '/') - 1) ELSE point END, point FROM v0_results",
           "INSERT OR IGNORE INTO measurements (run_id, point_id, attempt, throttled) "
           "SELECT DISTINCT r.id, p.id, 1, 0 FROM v0_results v "
           "JOIN runs r ON r.run_id = v.run_id JOIN points p ON p.point = v.point",
           "INSERT OR REPLACE INTO metrics (measurement_id, name, value, spread, unit) "
           "SELECT m.id, v.metric, v.value, v.spread, COALESCE(v.unit, '') FROM v0_results v "
           "JOIN runs r ON r.run_id = v.run_id JOIN points p ON p.point = v.point "
           "JOIN measurements m ON m.run_id = r.id AND m.point_id = p.id AND m.attempt = 1 "
           "WHERE v.value IS NOT NULL",
       }) {
    if (absl::Status status = Exec(db, sql); !status.ok()) return status;
  }
  // Axes from the point names (experiment/axis:value/...).
  absl::StatusOr<Statement> points = Statement::Prepare(db, "SELECT id, point FROM points");
  absl::StatusOr<Statement> insert = Statement::Prepare(
      db, "INSERT OR IGNORE INTO point_axes (point_id, name, value) VALUES (?, ?, ?)");
  if (!points.ok()) return points.status();
  if (!insert.ok()) return insert.status();
  for (;;) {
    absl::StatusOr<bool> row = points->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    const std::string point = points->Text(1);
    std::vector<std::string> segments = absl::StrSplit(point, '/');
    for (size_t i = 1; i < segments.size(); ++i) {
      std::pair<std::string, std::string> axis =
          absl::StrSplit(segments[i], absl::MaxSplits(':', 1));
      if (axis.first.empty() || axis.second.empty()) continue;
      if (absl::Status status =
              insert->Bind(1, points->Int(0)).Bind(2, axis.first).Bind(3, axis.second).Run();
          !status.ok()) {
        return status;
      }
    }
  }
  return Exec(db, "DROP TABLE v0_results; DROP TABLE v0_runs;");
}

// Version 1 to 2: point_axes becomes the points.axes column, metric names
// move to metric_names and metrics refers to them by id.
absl::Status MigrateV1ToV2(sqlite3* db) {
  for (const char* sql : {
           "ALTER TABLE points ADD COLUMN axes TEXT NOT NULL DEFAULT ''",
           "CREATE TABLE metric_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
           "INSERT INTO metric_names (name) SELECT DISTINCT name FROM metrics ORDER BY name",
           "ALTER TABLE metrics RENAME TO v1_metrics",
           "CREATE TABLE metrics ("
           "measurement_id INTEGER NOT NULL REFERENCES measurements(id), "
           "metric_id INTEGER NOT NULL REFERENCES metric_names(id), "
           "value REAL NOT NULL, spread REAL, unit TEXT NOT NULL DEFAULT '', "
           "PRIMARY KEY (measurement_id, metric_id)) WITHOUT ROWID",
           "INSERT INTO metrics (measurement_id, metric_id, value, spread, unit) "
           "SELECT v.measurement_id, n.id, v.value, v.spread, v.unit FROM v1_metrics v "
           "JOIN metric_names n ON n.name = v.name ORDER BY v.measurement_id, n.id",
           "DROP TABLE v1_metrics",
       }) {
    if (absl::Status status = Exec(db, sql); !status.ok()) return status;
  }
  {
    absl::StatusOr<Statement> axes = Statement::Prepare(
        db, "SELECT point_id, name, value FROM point_axes ORDER BY point_id, name");
    absl::StatusOr<Statement> update =
        Statement::Prepare(db, "UPDATE points SET axes = ? WHERE id = ?");
    if (!axes.ok()) return axes.status();
    if (!update.ok()) return update.status();
    long long point = -1;
    std::map<std::string, std::string> values;
    auto flush = [&]() -> absl::Status {
      if (point < 0) return absl::OkStatus();
      absl::Status status = update->Bind(1, EncodeAxes(values)).Bind(2, point).Run();
      values.clear();
      return status;
    };
    for (;;) {
      absl::StatusOr<bool> row = axes->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      if (axes->Int(0) != point) {
        if (absl::Status status = flush(); !status.ok()) return status;
        point = axes->Int(0);
      }
      values[axes->Text(1)] = axes->Text(2);
    }
    if (absl::Status status = flush(); !status.ok()) return status;
  }
  return Exec(db, "DROP TABLE point_axes");
}

// Version 2 to 3: what a run's result files held beyond the values. A run
// imported from another suite says so (runs.source, source_program,
// source_method); a run knows its entries (runs.entries) and those that
// measured nothing (run_problems); result_files keeps each result file as
// ingested, its context (device facts, build, clocks source) and rows
// (labels, clocks, counters, skipped and failed points) with it. Runs
// ingested before keep none of these: their files are gone.
absl::Status MigrateV2ToV3(sqlite3* db) {
  return Exec(db, R"sql(
ALTER TABLE runs ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN source_program TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN source_method TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN entries INTEGER NOT NULL DEFAULT 0;
CREATE TABLE run_problems (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  position INTEGER NOT NULL,
  entry TEXT NOT NULL,
  experiment TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (run_id, position)) WITHOUT ROWID;
CREATE TABLE result_files (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  text TEXT NOT NULL,
  UNIQUE (run_id, name));
)sql");
}

// Version 3 to 4: result schema version 2 gave some metrics their one name
// (experiments/result_format/renamed_metrics.h). Measurements ingested from
// version-1 files move to the new name, so that a metric's history goes on
// across the rename; the old name goes once nothing uses it.
absl::Status MigrateV3ToV4(sqlite3* db) {
  // ?1: the old name, ?2: the new one, ?3: the experiment.
  constexpr char kMeasurementsOfExperiment[] =
      "(SELECT m.id FROM measurements m JOIN points p ON p.id = m.point_id "
      "WHERE p.experiment = ?3)";
  constexpr char kOldId[] = "(SELECT id FROM metric_names WHERE name = ?1)";
  absl::StatusOr<Statement> add = Statement::Prepare(
      db, absl::StrCat("INSERT OR IGNORE INTO metric_names (name) SELECT ?2 WHERE EXISTS "
                       "(SELECT 1 FROM metrics WHERE metric_id = ",
                       kOldId, " AND measurement_id IN ", kMeasurementsOfExperiment, ")"));
  absl::StatusOr<Statement> move = Statement::Prepare(
      db, absl::StrCat("UPDATE metrics SET metric_id = "
                       "(SELECT id FROM metric_names WHERE name = ?2) WHERE metric_id = ",
                       kOldId, " AND measurement_id IN ", kMeasurementsOfExperiment));
  absl::StatusOr<Statement> drop = Statement::Prepare(
      db, "DELETE FROM metric_names WHERE name = ?1 AND id NOT IN (SELECT metric_id FROM metrics)");
  if (!add.ok()) return add.status();
  if (!move.ok()) return move.status();
  if (!drop.ok()) return drop.status();
  for (const result_format::RenamedMetric& renamed : result_format::kRenamedInVersion2) {
    const std::string old_name(renamed.old_name), new_name(renamed.new_name);
    const std::string experiment(renamed.experiment);
    for (Statement* statement : {&*add, &*move}) {
      if (absl::Status status =
              statement->Bind(1, old_name).Bind(2, new_name).Bind(3, experiment).Run();
          !status.ok()) {
        return status;
      }
    }
    if (absl::Status status = drop->Bind(1, old_name).Run(); !status.ok()) return status;
  }
  return absl::OkStatus();
}

struct Migration {
  int from;  // migrates version `from` to `from` + 1
  absl::Status (*apply)(sqlite3* db);
};

constexpr Migration kMigrations[] = {
    {0, MigrateV0ToV1},
    {1, MigrateV1ToV2},
    {2, MigrateV2ToV3},
    {3, MigrateV3ToV4},
};

}  // namespace

absl::Status Upgrade(sqlite3* db) {
  absl::StatusOr<Transaction> transaction = Transaction::Begin(db);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<int> version = DetectVersion(db);  // again, now under the lock
  if (!version.ok()) return version.status();
  int from = *version;
  // A new database is version 2's tables, then the migrations from there:
  // one definition of every later table.
  if (from == -1) {
    if (absl::Status status = Exec(db, kSchemaV2); !status.ok()) return status;
    from = 2;
  }
  for (int v = from; v < kHistorySchemaVersion; ++v) {
    const Migration* migration = nullptr;
    for (const Migration& m : kMigrations) {
      if (m.from == v) migration = &m;
    }
    if (migration == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat("no migration from schema version ", v));
    }
    if (absl::Status status = migration->apply(db); !status.ok()) {
      return absl::Status(
          status.code(), absl::StrCat("migrating from schema version ", v, ": ", status.message()));
    }
  }
  if (absl::Status status = Exec(db, absl::StrCat("DELETE FROM schema_version; "
                                                  "INSERT INTO schema_version (version) VALUES (",
                                                  kHistorySchemaVersion, ")"));
      !status.ok()) {
    return status;
  }
  return transaction->Commit();
}

}  // namespace dissect::analysis::history_internal
