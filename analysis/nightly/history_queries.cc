// HistoryDb's queries of one device's values (analysis/nightly/history_db.h): a
// point's trend, the devices, their points and metrics.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/nightly/history_db.h"
#include "analysis/nightly/history_sql.h"

namespace dissect::analysis {

using history_internal::InList;
using history_internal::Statement;

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
