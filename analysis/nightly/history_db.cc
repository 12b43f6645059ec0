#include "analysis/nightly/history_db.h"

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
#include "analysis/nightly/history_ingest.h"
#include "analysis/nightly/history_schema.h"
#include "analysis/nightly/history_sql.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis {
namespace history_internal {

void SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

}  // namespace history_internal

namespace {

using history_internal::DetectVersion;
using history_internal::EncodeAxes;
using history_internal::Exec;
using history_internal::IngestItem;
using history_internal::IngestWalk;
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
  // quarter of the insert time in //analysis/nightly:history_benchmark. Inserter is
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

}  // namespace dissect::analysis
