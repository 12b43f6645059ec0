// HistoryDb's reading of stored runs (analysis/nightly/history_db.h): a device's
// runs, one run with its values and problems, its result files, the last n
// runs of a device.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/history_schema.h"
#include "analysis/nightly/history_sql.h"
#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

using history_internal::DecodeAxes;
using history_internal::InList;
using history_internal::Statement;

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
