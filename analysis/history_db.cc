#include "analysis/history_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/result_points.h"
#include "analysis/results.h"
#include "analysis/run_data.h"

namespace dissect::analysis {
namespace history_internal {

void SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

}  // namespace history_internal

namespace {

namespace fs = std::filesystem;

// How long a writer waits for another process's lock (e.g. Slurm array
// tasks ingesting into one database) before giving up.
constexpr int kBusyTimeoutMs = 120000;

// Runs (or loose result files) read ahead of the inserts in Ingest.
constexpr size_t kIngestQueueItems = 8;

absl::Status SqlError(sqlite3* db, const char* what) {
  return absl::InternalError(absl::StrCat(what, ": ", sqlite3_errmsg(db)));
}

absl::Status Exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) {
    return absl::OkStatus();
  }
  std::string text = message != nullptr ? message : sqlite3_errmsg(db);
  sqlite3_free(message);
  return absl::InternalError(absl::StrCat("sqlite: ", text));
}

// An owned prepared statement. Bind indexes start at 1, columns at 0.
class Statement {
 public:
  static absl::StatusOr<Statement> Prepare(sqlite3* db, std::string_view sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
        SQLITE_OK) {
      return SqlError(db, "sqlite prepare");
    }
    return Statement(db, stmt);
  }

  Statement& Bind(int index, const std::string& text) {
    sqlite3_bind_text(stmt_.get(), index, text.data(), static_cast<int>(text.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Bind(int index, long long value) {
    sqlite3_bind_int64(stmt_.get(), index, value);
    return *this;
  }
  Statement& Bind(int index, int value) { return Bind(index, static_cast<long long>(value)); }
  Statement& Bind(int index, double value) {
    sqlite3_bind_double(stmt_.get(), index, value);
    return *this;
  }
  Statement& Bind(int index, std::optional<double> value) {
    if (value.has_value()) return Bind(index, *value);
    sqlite3_bind_null(stmt_.get(), index);
    return *this;
  }

  // True while there is a row to read; false when done.
  absl::StatusOr<bool> Step() {
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqlError(db_, "sqlite step");
  }
  // Runs a statement that returns no rows, then resets it for reuse.
  absl::Status Run() {
    absl::StatusOr<bool> row = Step();
    Reset();
    return row.status();
  }
  void Reset() {
    sqlite3_reset(stmt_.get());
    sqlite3_clear_bindings(stmt_.get());
  }

  long long Int(int column) const { return sqlite3_column_int64(stmt_.get(), column); }
  double Double(int column) const { return sqlite3_column_double(stmt_.get(), column); }
  bool IsNull(int column) const { return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL; }
  std::optional<double> OptionalDouble(int column) const {
    if (IsNull(column)) return std::nullopt;
    return Double(column);
  }
  std::string Text(int column) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_.get(), column));
    return text == nullptr
               ? std::string()
               : std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), column)));
  }

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
  };
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}

  sqlite3* db_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

// BEGIN IMMEDIATE (takes the write lock at once, waiting up to the busy
// timeout); rolls back unless committed.
class Transaction {
 public:
  static absl::StatusOr<Transaction> Begin(sqlite3* db) {
    if (absl::Status status = Exec(db, "BEGIN IMMEDIATE"); !status.ok()) return status;
    return Transaction(db);
  }
  Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction() {
    if (db_ != nullptr) Exec(db_, "ROLLBACK").IgnoreError();
  }
  absl::Status Commit() {
    absl::Status status = Exec(db_, "COMMIT");
    if (status.ok()) db_ = nullptr;
    return status;
  }

 private:
  explicit Transaction(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// ---- Schema and migrations -------------------------------------------------

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

// Axes as one text, "name:value/name:value" in name order (the point key's
// form without the experiment); '%', '/' and ':' inside a name or value are
// written %25, %2F and %3A.
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

// The schema version of `db`: -1 for an empty database, 0 for the
// prototype layout (runs + results, no schema_version table).
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

std::string DeviceKey(const RunInfo& info) {
  if (!info.device_uuid.empty()) return info.device_uuid;
  if (!info.device_serial.empty()) return info.device_serial;
  return absl::StrCat(info.device_name.empty() ? "unknown" : info.device_name, "@", info.host);
}

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

struct Migration {
  int from;  // migrates version `from` to `from` + 1
  absl::Status (*apply)(sqlite3* db);
};

constexpr Migration kMigrations[] = {
    {0, MigrateV0ToV1},
    {1, MigrateV1ToV2},
};

// Creates or migrates to kHistorySchemaVersion, in one transaction.
absl::Status Upgrade(sqlite3* db) {
  absl::StatusOr<Transaction> transaction = Transaction::Begin(db);
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<int> version = DetectVersion(db);  // again, now under the lock
  if (!version.ok()) return version.status();
  if (*version == -1) {
    if (absl::Status status = Exec(db, kSchemaV2); !status.ok()) return status;
  } else {
    for (int v = *version; v < kHistorySchemaVersion; ++v) {
      const Migration* migration = nullptr;
      for (const Migration& m : kMigrations) {
        if (m.from == v) migration = &m;
      }
      if (migration == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat("no migration from schema version ", v));
      }
      if (absl::Status status = migration->apply(db); !status.ok()) {
        return absl::Status(status.code(), absl::StrCat("migrating from schema version ", v, ": ",
                                                        status.message()));
      }
    }
    if (absl::Status status = Exec(db, absl::StrCat("DELETE FROM schema_version; "
                                                    "INSERT INTO schema_version (version) VALUES (",
                                                    kHistorySchemaVersion, ")"));
        !status.ok()) {
      return status;
    }
  }
  return transaction->Commit();
}

// ---- Ingest ----------------------------------------------------------------

// The prepared statements of one ingest, and the point and metric-name ids
// seen so far.
class Inserter {
 public:
  static absl::StatusOr<std::unique_ptr<Inserter>> Create(sqlite3* db) {
    auto inserter = std::unique_ptr<Inserter>(new Inserter(db));
    const std::pair<std::optional<Statement>*, const char*> statements[] = {
        {&inserter->find_device_, "SELECT id FROM devices WHERE key = ?"},
        {&inserter->insert_device_,
         "INSERT INTO devices (key, uuid, name, serial, vbios) VALUES (?, ?, ?, ?, ?)"},
        {&inserter->update_device_,
         "UPDATE devices SET uuid = COALESCE(NULLIF(?2, ''), uuid), "
         "name = COALESCE(NULLIF(?3, ''), name), serial = COALESCE(NULLIF(?4, ''), serial), "
         "vbios = COALESCE(NULLIF(?5, ''), vbios) WHERE id = ?1"},
        {&inserter->find_run_, "SELECT id FROM runs WHERE run_id = ?"},
        {&inserter->insert_run_,
         "INSERT INTO runs (run_id, device_id, sweep, started, host, git_commit, driver_version) "
         "VALUES (?, ?, ?, ?, ?, ?, ?)"},
        {&inserter->update_run_,
         "UPDATE runs SET sweep = COALESCE(NULLIF(?2, ''), sweep), "
         "started = COALESCE(NULLIF(?3, ''), started), host = COALESCE(NULLIF(?4, ''), host), "
         "git_commit = COALESCE(NULLIF(?5, ''), git_commit), "
         "driver_version = COALESCE(NULLIF(?6, ''), driver_version) WHERE id = ?1"},
        {&inserter->find_point_, "SELECT id FROM points WHERE point = ?"},
        {&inserter->insert_point_,
         "INSERT OR IGNORE INTO points (experiment, point, axes) VALUES (?, ?, ?)"},
        {&inserter->find_metric_name_, "SELECT id FROM metric_names WHERE name = ?"},
        {&inserter->insert_metric_name_, "INSERT INTO metric_names (name) VALUES (?)"},
        {&inserter->insert_measurement_,
         "INSERT OR IGNORE INTO measurements (run_id, point_id, attempt, throttled) "
         "VALUES (?, ?, ?, ?)"},
        {&inserter->insert_metric_,
         "INSERT OR REPLACE INTO metrics (measurement_id, metric_id, value, spread, unit) "
         "VALUES (?, ?, ?, ?, ?)"},
    };
    for (const auto& [slot, sql] : statements) {
      absl::StatusOr<Statement> stmt = Statement::Prepare(db, sql);
      if (!stmt.ok()) return stmt.status();
      slot->emplace(*std::move(stmt));
    }
    return inserter;
  }

  absl::Status Add(const RunData& run, IngestStats& stats) {
    absl::StatusOr<long long> device = DeviceId(run.info);
    if (!device.ok()) return device.status();
    absl::StatusOr<long long> run_id = RunId(run.info, *device, stats);
    if (!run_id.ok()) return run_id.status();
    for (const RunPoint& point : run.points) {
      absl::StatusOr<long long> point_id = PointId(point);
      if (!point_id.ok()) return point_id.status();
      if (absl::Status status = insert_measurement_->Bind(1, *run_id)
                                    .Bind(2, *point_id)
                                    .Bind(3, point.attempt)
                                    .Bind(4, point.throttled ? 1 : 0)
                                    .Run();
          !status.ok()) {
        return status;
      }
      if (sqlite3_changes(db_) == 0) {
        ++stats.skipped_duplicates;
        continue;
      }
      ++stats.rows;
      const long long measurement = sqlite3_last_insert_rowid(db_);
      for (const auto& [name, metric] : point.metrics) {
        absl::StatusOr<long long> metric_id = MetricId(name);
        if (!metric_id.ok()) return metric_id.status();
        if (absl::Status status = insert_metric_->Bind(1, measurement)
                                      .Bind(2, *metric_id)
                                      .Bind(3, metric.value)
                                      .Bind(4, metric.spread)
                                      .Bind(5, metric.unit)
                                      .Run();
            !status.ok()) {
          return status;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  explicit Inserter(sqlite3* db) : db_(db) {}

  // The id of the row `find` selects, or nullopt.
  static absl::StatusOr<std::optional<long long>> Find(Statement& find, const std::string& key) {
    find.Bind(1, key);
    absl::StatusOr<bool> row = find.Step();
    std::optional<long long> id;
    if (row.ok() && *row) id = find.Int(0);
    find.Reset();
    if (!row.ok()) return row.status();
    return id;
  }

  absl::StatusOr<long long> DeviceId(const RunInfo& info) {
    const std::string key = DeviceKey(info);
    absl::StatusOr<std::optional<long long>> id = Find(*find_device_, key);
    if (!id.ok()) return id.status();
    Statement& write = id->has_value() ? *update_device_ : *insert_device_;
    if (id->has_value()) {
      write.Bind(1, **id);
    } else {
      write.Bind(1, key);
    }
    absl::Status status = write.Bind(2, info.device_uuid)
                              .Bind(3, info.device_name)
                              .Bind(4, info.device_serial)
                              .Bind(5, info.vbios)
                              .Run();
    if (!status.ok()) return status;
    return id->has_value() ? **id : sqlite3_last_insert_rowid(db_);
  }

  absl::StatusOr<long long> RunId(const RunInfo& info, long long device, IngestStats& stats) {
    absl::StatusOr<std::optional<long long>> id = Find(*find_run_, info.run_id);
    if (!id.ok()) return id.status();
    if (id->has_value()) {
      absl::Status status = update_run_->Bind(1, **id)
                                .Bind(2, info.sweep)
                                .Bind(3, info.started)
                                .Bind(4, info.host)
                                .Bind(5, info.git_commit)
                                .Bind(6, info.driver_version)
                                .Run();
      if (!status.ok()) return status;
      return **id;
    }
    absl::Status status = insert_run_->Bind(1, info.run_id)
                              .Bind(2, device)
                              .Bind(3, info.sweep)
                              .Bind(4, info.started)
                              .Bind(5, info.host)
                              .Bind(6, info.git_commit)
                              .Bind(7, info.driver_version)
                              .Run();
    if (!status.ok()) return status;
    ++stats.runs;
    return sqlite3_last_insert_rowid(db_);
  }

  // A new point is inserted at once (one statement); one already in the
  // database is ignored by the insert and then looked up.
  absl::StatusOr<long long> PointId(const RunPoint& point) {
    if (const auto it = point_ids_.find(point.point); it != point_ids_.end()) return it->second;
    if (absl::Status status = insert_point_->Bind(1, point.experiment)
                                  .Bind(2, point.point)
                                  .Bind(3, EncodeAxes(point.axes))
                                  .Run();
        !status.ok()) {
      return status;
    }
    long long id = 0;
    if (sqlite3_changes(db_) > 0) {
      id = sqlite3_last_insert_rowid(db_);
    } else {
      absl::StatusOr<std::optional<long long>> found = Find(*find_point_, point.point);
      if (!found.ok()) return found.status();
      if (!found->has_value()) return absl::InternalError("sqlite: point neither new nor found");
      id = **found;
    }
    point_ids_.emplace(point.point, id);
    return id;
  }

  absl::StatusOr<long long> MetricId(const std::string& name) {
    if (const auto it = metric_ids_.find(name); it != metric_ids_.end()) return it->second;
    absl::StatusOr<std::optional<long long>> found = Find(*find_metric_name_, name);
    if (!found.ok()) return found.status();
    long long id = 0;
    if (found->has_value()) {
      id = **found;
    } else {
      if (absl::Status status = insert_metric_name_->Bind(1, name).Run(); !status.ok()) {
        return status;
      }
      id = sqlite3_last_insert_rowid(db_);
    }
    metric_ids_.emplace(name, id);
    return id;
  }

  sqlite3* db_;
  std::optional<Statement> find_device_, insert_device_, update_device_, find_run_, insert_run_,
      update_run_, find_point_, insert_point_, find_metric_name_, insert_metric_name_,
      insert_measurement_, insert_metric_;
  std::unordered_map<std::string, long long> point_ids_;
  std::unordered_map<std::string, long long> metric_ids_;
};

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open"));
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  return text;
}

// What the reading side of an ingest hands to the writing side, in walk
// order: the bad files met, the result files read, and a run to insert.
struct IngestItem {
  std::vector<std::string> bad;
  int files = 0;
  std::optional<RunData> run;
};

// A bounded queue of items from the reading thread to the writing one.
// Close() ends it: Push then returns false (the writer stopped early) and
// Pop returns nullopt once the queue is empty.
class ItemQueue {
 public:
  explicit ItemQueue(size_t capacity) : capacity_(capacity) {}

  bool Push(IngestItem item) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [this] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }
  std::optional<IngestItem> Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [this] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    IngestItem item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

 private:
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<IngestItem> items_;
  bool closed_ = false;
};

// Walks the paths of one Ingest call and reads the runs, handing each
// bad file and run to `emit` in walk order; remembers run folders already
// read. Touches no database, so it runs on a thread of its own. Stops when
// `emit` returns false.
class IngestWalk {
 public:
  explicit IngestWalk(std::function<bool(IngestItem)> emit) : emit_(std::move(emit)) {}

  // False when emit asked to stop.
  bool Path(const std::string& path) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) return Bad(absl::StrCat(path, ": no such file or directory"));
    if (fs::is_directory(status)) {
      int found = 0;
      if (!Folder(path, found)) return false;
      if (found == 0) return Bad(absl::StrCat(path, ": no manifest.json and no .json file in it"));
      return true;
    }
    const fs::path file(path);
    const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
    // A manifest, or a result file of a run folder: the run folder.
    if (file.filename() == "manifest.json" || fs::exists(parent / "manifest.json", ec)) {
      return RunFolder(parent.string());
    }
    return LooseFile(path);
  }

 private:
  bool Bad(std::string message) {
    IngestItem item;
    item.bad.push_back(std::move(message));
    return emit_(std::move(item));
  }

  bool Folder(const std::string& dir, int& found) {
    std::error_code ec;
    if (fs::exists(fs::path(dir) / "manifest.json", ec)) {
      ++found;
      return RunFolder(dir);
    }
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      entries.push_back(it->path());
    }
    if (ec) return Bad(absl::StrCat(dir, ": cannot list folder: ", ec.message()));
    std::sort(entries.begin(), entries.end());
    for (const fs::path& entry : entries) {
      std::error_code entry_ec;
      bool go_on = true;
      if (fs::is_directory(entry, entry_ec)) {
        go_on = Folder(entry.string(), found);
      } else if (entry.extension() == ".json" && fs::is_regular_file(entry, entry_ec)) {
        ++found;
        go_on = LooseFile(entry.string());
      }
      if (!go_on) return false;
    }
    return true;
  }

  bool RunFolder(const std::string& dir) {
    std::error_code ec;
    const std::string canonical = fs::weakly_canonical(dir, ec).string();
    if (!folders_done_.insert(ec ? dir : canonical).second) return true;
    IngestItem item;
    absl::StatusOr<RunData> run = ReadRunFolderCounting(dir, &item.bad, item.files);
    if (run.ok()) {
      item.run = *std::move(run);
    } else {
      item.files = 0;
      item.bad.emplace_back(run.status().message());
    }
    return emit_(std::move(item));
  }

  bool LooseFile(const std::string& path) {
    absl::StatusOr<std::string> text = ReadWholeFile(path);
    if (!text.ok()) return Bad(std::string(text.status().message()));
    absl::StatusOr<ResultFile> file = ParseResultJson(*text, path);
    if (!file.ok()) return Bad(std::string(file.status().message()));
    IngestItem item;
    item.files = 1;
    RunData& run = item.run.emplace();
    run.info = LooseRunInfo(*file, *text);
    run.points = PointsOfResultFile(*file);
    return emit_(std::move(item));
  }

  std::function<bool(IngestItem)> emit_;
  std::set<std::string> folders_done_;
};

// "IN (1, 2, 3)" for integer ids.
std::string InList(const std::vector<long long>& ids) {
  return absl::StrCat("(", absl::StrJoin(ids, ", "), ")");
}

}  // namespace

HistoryDb::HistoryDb(Handle db) : db_(std::move(db)) {}

absl::StatusOr<std::unique_ptr<HistoryDb>> HistoryDb::Open(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  Handle db(raw);
  if (rc != SQLITE_OK) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": cannot open: ", raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  auto fail = [&path, &db](const absl::Status& status) {
    if (sqlite3_errcode(db.get()) == SQLITE_NOTADB) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": not a SQLite database"));
    }
    return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
  };
  // A 64 MiB page cache: a night's ingest touches far more than the default
  // 2 MiB. The REFERENCES clauses document the schema; SQLite leaves them
  // unenforced by default, and enforcing them (PRAGMA foreign_keys) cost a
  // quarter of the insert time in //analysis:history_benchmark. Inserter is
  // the only writer and inserts parents first.
  if (absl::Status status = Exec(db.get(), "PRAGMA cache_size = -65536"); !status.ok()) {
    return fail(status);
  }
  absl::StatusOr<int> version = DetectVersion(db.get());
  if (!version.ok()) return fail(version.status());
  if (*version > kHistorySchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": history schema version ", *version, " is newer than this build's ",
                     kHistorySchemaVersion, "; use a newer dissect"));
  }
  if (*version < kHistorySchemaVersion) {
    if (absl::Status status = Upgrade(db.get()); !status.ok()) return fail(status);
  }
  return std::unique_ptr<HistoryDb>(new HistoryDb(std::move(db)));
}

absl::StatusOr<int> HistoryDb::SchemaVersion() const { return DetectVersion(db_.get()); }

absl::StatusOr<IngestStats> HistoryDb::Ingest(const std::vector<std::string>& paths) {
  IngestStats stats;
  absl::StatusOr<Transaction> transaction = Transaction::Begin(db_.get());
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<std::unique_ptr<Inserter>> inserter = Inserter::Create(db_.get());
  if (!inserter.ok()) return inserter.status();
  // Reading and parsing the files (a thread of its own) overlaps inserting
  // the runs already read (this thread, the only one using the database).
  ItemQueue queue(kIngestQueueItems);
  std::thread reader([&queue, &paths] {
    IngestWalk walk([&queue](IngestItem item) { return queue.Push(std::move(item)); });
    for (const std::string& path : paths) {
      if (!walk.Path(path)) break;
    }
    queue.Close();
  });
  absl::Status status = absl::OkStatus();
  while (std::optional<IngestItem> item = queue.Pop()) {
    stats.bad += static_cast<int>(item->bad.size());
    for (std::string& message : item->bad) stats.bad_files.push_back(std::move(message));
    stats.files += item->files;
    if (item->run.has_value()) {
      status = (*inserter)->Add(*item->run, stats);
      if (!status.ok()) break;
    }
  }
  queue.Close();
  reader.join();
  if (!status.ok()) return status;
  inserter->reset();
  if (absl::Status commit = transaction->Commit(); !commit.ok()) return commit;
  return stats;
}

absl::StatusOr<IngestStats> HistoryDb::AddRuns(const std::vector<RunData>& runs) {
  IngestStats stats;
  absl::StatusOr<Transaction> transaction = Transaction::Begin(db_.get());
  if (!transaction.ok()) return transaction.status();
  absl::StatusOr<std::unique_ptr<Inserter>> inserter = Inserter::Create(db_.get());
  if (!inserter.ok()) return inserter.status();
  for (const RunData& run : runs) {
    if (absl::Status status = (*inserter)->Add(run, stats); !status.ok()) return status;
  }
  inserter->reset();
  if (absl::Status status = transaction->Commit(); !status.ok()) return status;
  return stats;
}

absl::StatusOr<std::vector<long long>> HistoryDb::DeviceIds(const std::string& device) const {
  std::vector<long long> ids;
  for (const char* sql :
       {"SELECT id FROM devices WHERE ?1 = '' OR uuid = ?1 OR key = ?1 OR serial = ?1 ORDER BY id",
        "SELECT id FROM devices WHERE name = ?1 ORDER BY id"}) {
    absl::StatusOr<Statement> stmt = Statement::Prepare(db_.get(), sql);
    if (!stmt.ok()) return stmt.status();
    stmt->Bind(1, device);
    for (;;) {
      absl::StatusOr<bool> row = stmt->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      ids.push_back(stmt->Int(0));
    }
    if (!ids.empty() || device.empty()) return ids;
  }
  return absl::NotFoundError(absl::StrCat("no device \"", device, "\" in the history"));
}

absl::StatusOr<long long> HistoryDb::OneDevice(const std::string& device) const {
  if (device.empty()) return absl::InvalidArgumentError("no device given");
  absl::StatusOr<std::vector<long long>> ids = DeviceIds(device);
  if (!ids.ok()) return ids.status();
  if (ids->size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(ids->size(), " devices are named \"", device,
                                                   "\"; name one by its uuid or key"));
  }
  return ids->front();
}

namespace {

constexpr char kRunInfoColumns[] =
    "r.run_id, r.sweep, r.started, r.host, r.git_commit, r.driver_version, d.name, d.uuid, "
    "d.serial, d.vbios";

RunInfo ReadRunInfo(const Statement& stmt) {
  RunInfo info;
  info.run_id = stmt.Text(0);
  info.sweep = stmt.Text(1);
  info.started = stmt.Text(2);
  info.host = stmt.Text(3);
  info.git_commit = stmt.Text(4);
  info.driver_version = stmt.Text(5);
  info.device_name = stmt.Text(6);
  info.device_uuid = stmt.Text(7);
  info.device_serial = stmt.Text(8);
  info.vbios = stmt.Text(9);
  return info;
}

}  // namespace

absl::StatusOr<std::vector<RunInfo>> HistoryDb::Runs(const std::string& device) const {
  absl::StatusOr<std::vector<long long>> ids = DeviceIds(device);
  if (!ids.ok()) return ids.status();
  std::vector<RunInfo> runs;
  if (ids->empty()) return runs;
  absl::StatusOr<Statement> stmt = Statement::Prepare(
      db_.get(), absl::StrCat("SELECT ", kRunInfoColumns,
                              " FROM runs r JOIN devices d ON d.id = r.device_id WHERE r.device_id "
                              "IN ",
                              InList(*ids), " ORDER BY r.started, r.run_id"));
  if (!stmt.ok()) return stmt.status();
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    runs.push_back(ReadRunInfo(*stmt));
  }
  return runs;
}

absl::StatusOr<RunData> HistoryDb::LoadRun(const std::string& run_id) const {
  RunData run;
  long long id = 0;
  {
    absl::StatusOr<Statement> stmt = Statement::Prepare(
        db_.get(), absl::StrCat("SELECT ", kRunInfoColumns,
                                ", r.id FROM runs r JOIN devices d ON d.id = r.device_id "
                                "WHERE r.run_id = ?"));
    if (!stmt.ok()) return stmt.status();
    stmt->Bind(1, run_id);
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::NotFoundError(absl::StrCat("no run \"", run_id, "\" in the history"));
    run.info = ReadRunInfo(*stmt);
    id = stmt->Int(10);
  }
  std::unordered_map<long long, size_t> by_measurement;
  absl::StatusOr<Statement> measurements = Statement::Prepare(
      db_.get(),
      "SELECT m.id, p.axes, p.experiment, p.point, m.attempt, m.throttled "
      "FROM measurements m JOIN points p ON p.id = m.point_id WHERE m.run_id = ? ORDER BY m.id");
  if (!measurements.ok()) return measurements.status();
  measurements->Bind(1, id);
  for (;;) {
    absl::StatusOr<bool> row = measurements->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    RunPoint point;
    point.experiment = measurements->Text(2);
    point.point = measurements->Text(3);
    point.attempt = static_cast<int>(measurements->Int(4));
    point.throttled = measurements->Int(5) != 0;
    point.axes = DecodeAxes(measurements->Text(1));
    by_measurement[measurements->Int(0)] = run.points.size();
    run.points.push_back(std::move(point));
  }
  absl::StatusOr<Statement> metrics = Statement::Prepare(
      db_.get(),
      "SELECT x.measurement_id, n.name, x.value, x.spread, x.unit FROM metrics x "
      "JOIN measurements m ON m.id = x.measurement_id "
      "JOIN metric_names n ON n.id = x.metric_id WHERE m.run_id = ?");
  if (!metrics.ok()) return metrics.status();
  metrics->Bind(1, id);
  for (;;) {
    absl::StatusOr<bool> row = metrics->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    MetricValue& metric = run.points[by_measurement.at(metrics->Int(0))].metrics[metrics->Text(1)];
    metric.value = metrics->Double(2);
    metric.spread = metrics->OptionalDouble(3);
    metric.unit = metrics->Text(4);
  }
  return run;
}

absl::StatusOr<std::vector<RunData>> HistoryDb::LastRuns(const std::string& device, int n,
                                                         const std::string& before_run_id) const {
  absl::StatusOr<long long> device_id = OneDevice(device);
  if (!device_id.ok()) return device_id.status();
  std::string sql = "SELECT r.run_id FROM runs r WHERE r.device_id = ?1 ";
  if (!before_run_id.empty()) {
    absl::StatusOr<Statement> check =
        Statement::Prepare(db_.get(), "SELECT 1 FROM runs WHERE run_id = ?");
    if (!check.ok()) return check.status();
    check->Bind(1, before_run_id);
    absl::StatusOr<bool> found = check->Step();
    if (!found.ok()) return found.status();
    if (!*found) {
      return absl::NotFoundError(absl::StrCat("no run \"", before_run_id, "\" in the history"));
    }
    sql += "AND (r.started, r.run_id) < (SELECT started, run_id FROM runs WHERE run_id = ?2) ";
  }
  sql += "ORDER BY r.started DESC, r.run_id DESC LIMIT ?3";
  absl::StatusOr<Statement> stmt = Statement::Prepare(db_.get(), sql);
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, *device_id).Bind(3, std::max(n, 0));
  if (!before_run_id.empty()) stmt->Bind(2, before_run_id);
  std::vector<std::string> run_ids;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    run_ids.push_back(stmt->Text(0));
  }
  std::vector<RunData> runs;
  for (auto it = run_ids.rbegin(); it != run_ids.rend(); ++it) {
    absl::StatusOr<RunData> run = LoadRun(*it);
    if (!run.ok()) return run.status();
    runs.push_back(*std::move(run));
  }
  return runs;
}

absl::StatusOr<std::vector<TrendPoint>> HistoryDb::Trend(const std::string& device,
                                                         const std::string& point,
                                                         const std::string& metric) const {
  absl::StatusOr<long long> device_id = OneDevice(device);
  if (!device_id.ok()) return device_id.status();
  absl::StatusOr<Statement> stmt = Statement::Prepare(
      db_.get(),
      "SELECT r.run_id, r.started, x.value, x.spread, r.driver_version, r.git_commit "
      "FROM points p JOIN measurements m ON m.point_id = p.id "
      "JOIN runs r ON r.id = m.run_id "
      "JOIN metrics x ON x.measurement_id = m.id "
      "AND x.metric_id = (SELECT id FROM metric_names WHERE name = ?3) "
      "WHERE p.point = ?2 AND r.device_id = ?1 "
      "ORDER BY r.started, r.run_id, m.attempt");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, *device_id).Bind(2, point).Bind(3, metric);
  std::vector<TrendPoint> trend;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    TrendPoint value;
    value.run_id = stmt->Text(0);
    value.started = stmt->Text(1);
    value.value = stmt->Double(2);
    value.spread = stmt->OptionalDouble(3);
    value.driver_version = stmt->Text(4);
    value.git_commit = stmt->Text(5);
    // A later attempt of the same run replaces the earlier one.
    if (!trend.empty() && trend.back().run_id == value.run_id) {
      trend.back() = std::move(value);
    } else {
      trend.push_back(std::move(value));
    }
  }
  return trend;
}

absl::StatusOr<std::vector<DeviceSummary>> HistoryDb::Devices() const {
  absl::StatusOr<Statement> stmt = Statement::Prepare(
      db_.get(),
      "SELECT d.key, d.uuid, d.name, d.serial, COUNT(r.id), COALESCE(MIN(r.started), ''), "
      "COALESCE(MAX(r.started), '') FROM devices d LEFT JOIN runs r ON r.device_id = d.id "
      "GROUP BY d.id ORDER BY d.name, d.key");
  if (!stmt.ok()) return stmt.status();
  std::vector<DeviceSummary> devices;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    DeviceSummary device;
    device.key = stmt->Text(0);
    device.uuid = stmt->Text(1);
    device.name = stmt->Text(2);
    device.serial = stmt->Text(3);
    device.runs = static_cast<int>(stmt->Int(4));
    device.first_started = stmt->Text(5);
    device.last_started = stmt->Text(6);
    devices.push_back(std::move(device));
  }
  return devices;
}

absl::StatusOr<std::vector<std::string>> HistoryDb::Points(const std::string& device) const {
  absl::StatusOr<std::vector<long long>> ids = DeviceIds(device);
  if (!ids.ok()) return ids.status();
  std::vector<std::string> points;
  if (ids->empty()) return points;
  absl::StatusOr<Statement> stmt = Statement::Prepare(
      db_.get(), absl::StrCat("SELECT DISTINCT p.point FROM points p "
                              "JOIN measurements m ON m.point_id = p.id "
                              "JOIN runs r ON r.id = m.run_id WHERE r.device_id IN ",
                              InList(*ids), " ORDER BY p.point"));
  if (!stmt.ok()) return stmt.status();
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    points.push_back(stmt->Text(0));
  }
  return points;
}

absl::StatusOr<std::vector<std::string>> HistoryDb::Metrics(const std::string& device,
                                                            const std::string& point) const {
  absl::StatusOr<std::vector<long long>> ids = DeviceIds(device);
  if (!ids.ok()) return ids.status();
  std::vector<std::string> metrics;
  if (ids->empty()) return metrics;
  absl::StatusOr<Statement> stmt =
      Statement::Prepare(db_.get(), absl::StrCat("SELECT DISTINCT n.name FROM points p "
                                                 "JOIN measurements m ON m.point_id = p.id "
                                                 "JOIN runs r ON r.id = m.run_id "
                                                 "JOIN metrics x ON x.measurement_id = m.id "
                                                 "JOIN metric_names n ON n.id = x.metric_id "
                                                 "WHERE p.point = ? AND r.device_id IN ",
                                                 InList(*ids), " ORDER BY n.name"));
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, point);
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    metrics.push_back(stmt->Text(0));
  }
  return metrics;
}

}  // namespace dissect::analysis
