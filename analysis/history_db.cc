#include "analysis/history_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/history_ingest.h"
#include "analysis/history_schema.h"
#include "analysis/history_sql.h"
#include "analysis/run_data.h"

namespace dissect::analysis {
namespace history_internal {

void SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

}  // namespace history_internal

namespace {

using history_internal::DecodeAxes;
using history_internal::DetectVersion;
using history_internal::EncodeAxes;
using history_internal::Exec;
using history_internal::IngestItem;
using history_internal::IngestWalk;
using history_internal::InList;
using history_internal::ItemQueue;
using history_internal::Statement;
using history_internal::StoredDeviceKey;
using history_internal::Transaction;
using history_internal::Upgrade;

// How long a writer waits for another process's lock (e.g. Slurm array
// tasks ingesting into one database) before giving up.
constexpr int kBusyTimeoutMs = 120000;

// Runs (or loose result files) read ahead of the inserts in Ingest.
constexpr size_t kIngestQueueItems = 8;

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
         "INSERT INTO runs (run_id, device_id, sweep, started, host, git_commit, driver_version, "
         "source, source_program, source_method) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
        {&inserter->update_run_,
         "UPDATE runs SET sweep = COALESCE(NULLIF(?2, ''), sweep), "
         "started = COALESCE(NULLIF(?3, ''), started), host = COALESCE(NULLIF(?4, ''), host), "
         "git_commit = COALESCE(NULLIF(?5, ''), git_commit), "
         "driver_version = COALESCE(NULLIF(?6, ''), driver_version), "
         "source = COALESCE(NULLIF(?7, ''), source), "
         "source_program = COALESCE(NULLIF(?8, ''), source_program), "
         "source_method = COALESCE(NULLIF(?9, ''), source_method) WHERE id = ?1"},
        {&inserter->set_entries_, "UPDATE runs SET entries = ? WHERE id = ?"},
        {&inserter->delete_problems_, "DELETE FROM run_problems WHERE run_id = ?"},
        {&inserter->insert_problem_,
         "INSERT INTO run_problems (run_id, position, entry, experiment, status, reason) "
         "VALUES (?, ?, ?, ?, ?, ?)"},
        {&inserter->keep_file_,
         "INSERT INTO result_files (run_id, name, text) VALUES (?, ?, ?) "
         "ON CONFLICT (run_id, name) DO UPDATE SET text = excluded.text"},
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

  // Adds a run: its identity, measurements and problems, and the result
  // files it keeps.
  absl::Status Add(const RunData& run, const std::vector<StoredResultFile>& kept,
                   IngestStats& stats) {
    absl::StatusOr<long long> device = DeviceId(run.info);
    if (!device.ok()) return device.status();
    absl::StatusOr<long long> run_id = RunId(run.info, *device, stats);
    if (!run_id.ok()) return run_id.status();
    for (const RunPoint& point : run.points) {
      if (absl::Status status = AddPoint(*run_id, point, stats); !status.ok()) return status;
    }
    if (absl::Status status = SetProblems(*run_id, run); !status.ok()) return status;
    for (const StoredResultFile& file : kept) {
      if (absl::Status status =
              keep_file_->Bind(1, *run_id).Bind(2, file.name).Bind(3, file.text).Run();
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }

 private:
  explicit Inserter(sqlite3* db) : db_(db) {}

  absl::Status AddPoint(long long run_id, const RunPoint& point, IngestStats& stats) {
    absl::StatusOr<long long> point_id = PointId(point);
    if (!point_id.ok()) return point_id.status();
    if (absl::Status status = insert_measurement_->Bind(1, run_id)
                                  .Bind(2, *point_id)
                                  .Bind(3, point.attempt)
                                  .Bind(4, point.throttled ? 1 : 0)
                                  .Run();
        !status.ok()) {
      return status;
    }
    if (sqlite3_changes(db_) == 0) {
      ++stats.skipped_duplicates;
      return absl::OkStatus();
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
    return absl::OkStatus();
  }

  // The run's entry count and problems, where it knows them (a run read
  // from a folder): they replace what an earlier ingest stored, so a run
  // ingested again after the runner resumed it shows its last state.
  absl::Status SetProblems(long long run_id, const RunData& run) {
    if (run.entries == 0 && run.problems.empty()) return absl::OkStatus();
    if (absl::Status status = set_entries_->Bind(1, run.entries).Bind(2, run_id).Run();
        !status.ok()) {
      return status;
    }
    if (absl::Status status = delete_problems_->Bind(1, run_id).Run(); !status.ok()) return status;
    for (size_t i = 0; i < run.problems.size(); ++i) {
      const EntryProblem& problem = run.problems[i];
      if (absl::Status status = insert_problem_->Bind(1, run_id)
                                    .Bind(2, static_cast<long long>(i))
                                    .Bind(3, problem.entry)
                                    .Bind(4, problem.experiment)
                                    .Bind(5, problem.status)
                                    .Bind(6, problem.reason)
                                    .Run();
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }

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
    const std::string key = StoredDeviceKey(info);
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
                                .Bind(7, info.source)
                                .Bind(8, info.source_program)
                                .Bind(9, info.source_method)
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
                              .Bind(8, info.source)
                              .Bind(9, info.source_program)
                              .Bind(10, info.source_method)
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
      insert_measurement_, insert_metric_, set_entries_, delete_problems_, insert_problem_,
      keep_file_;
  std::unordered_map<std::string, long long> point_ids_;
  std::unordered_map<std::string, long long> metric_ids_;
};

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
      status = (*inserter)->Add(*item->run, item->kept, stats);
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
    if (absl::Status status = (*inserter)->Add(run, {}, stats); !status.ok()) return status;
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
    "d.serial, d.vbios, r.source, r.source_program, r.source_method";

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
  info.source = stmt.Text(10);
  info.source_program = stmt.Text(11);
  info.source_method = stmt.Text(12);
  return info;
}

}  // namespace

absl::StatusOr<std::vector<RunInfo>> HistoryDb::Runs(const std::string& device,
                                                     bool with_imported) const {
  absl::StatusOr<std::vector<long long>> ids = DeviceIds(device);
  if (!ids.ok()) return ids.status();
  std::vector<RunInfo> runs;
  if (ids->empty()) return runs;
  absl::StatusOr<Statement> stmt = Statement::Prepare(
      db_.get(), absl::StrCat("SELECT ", kRunInfoColumns,
                              " FROM runs r JOIN devices d ON d.id = r.device_id WHERE r.device_id "
                              "IN ",
                              InList(*ids), with_imported ? "" : " AND r.source = ''",
                              " ORDER BY r.started, r.run_id"));
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
                                ", r.id, r.entries FROM runs r JOIN devices d ON "
                                "d.id = r.device_id WHERE r.run_id = ?"));
    if (!stmt.ok()) return stmt.status();
    stmt->Bind(1, run_id);
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::NotFoundError(absl::StrCat("no run \"", run_id, "\" in the history"));
    run.info = ReadRunInfo(*stmt);
    id = stmt->Int(13);
    run.entries = static_cast<int>(stmt->Int(14));
  }
  if (absl::Status status = LoadProblems(id, run); !status.ok()) return status;
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

absl::Status HistoryDb::LoadProblems(long long run, RunData& data) const {
  absl::StatusOr<Statement> stmt = Statement::Prepare(
      db_.get(),
      "SELECT entry, experiment, status, reason FROM run_problems WHERE run_id = ? "
      "ORDER BY position");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, run);
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    data.problems.push_back({stmt->Text(0), stmt->Text(1), stmt->Text(2), stmt->Text(3)});
  }
}

absl::StatusOr<std::vector<StoredResultFile>> HistoryDb::ResultFiles(
    const std::string& run_id) const {
  absl::StatusOr<Statement> stmt = Statement::Prepare(
      db_.get(),
      "SELECT r.id, f.name, f.text FROM runs r LEFT JOIN result_files f ON f.run_id = r.id "
      "WHERE r.run_id = ? ORDER BY f.name");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, run_id);
  std::vector<StoredResultFile> files;
  bool found = false;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    found = true;
    if (!stmt->IsNull(1)) files.push_back({stmt->Text(1), stmt->Text(2)});
  }
  if (!found) return absl::NotFoundError(absl::StrCat("no run \"", run_id, "\" in the history"));
  return files;
}

absl::StatusOr<std::vector<RunData>> HistoryDb::LastRuns(const std::string& device, int n,
                                                         const std::string& before_run_id) const {
  absl::StatusOr<long long> device_id = OneDevice(device);
  if (!device_id.ok()) return device_id.status();
  std::string sql = "SELECT r.run_id FROM runs r WHERE r.device_id = ?1 AND r.source = '' ";
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

}  // namespace dissect::analysis
