// `history`: a metric's trend for one device from the history database
// (analysis/nightly/history_db.h). See analysis/README.md "History".

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/nightly/history_db.h"
#include "analysis/results/results.h"
#include "gflags/gflags.h"
#include "tools/cli/flags.h"
#include "tools/cli/user_path.h"

DEFINE_string(device, "",
              "a device's uuid, serial or key, or its name when no other device has it "
              "(--list_devices shows them)");
DEFINE_string(point, "",
              "a point: the experiment and its axes as in the result rows, e.g. "
              "shared_latency/footprint_bytes:4096/stride_bytes:4 (--list_points shows them)");
DEFINE_string(metric, "", "a metric of that point, e.g. cycles_per_load");
DEFINE_bool(list_devices, false,
            "lists the devices: key, name, uuid, runs, first and last run");
DEFINE_bool(list_points, false, "lists the points measured (on DEVICE when given)");

namespace {

using dissect::analysis::HistoryDb;

// The command line: DB and one of three forms (see the help's first lines).
dissect::cli::Program Cli() {
  dissect::cli::Program program;
  program.name = "history";
  program.args = "DB";
  program.about = R"(  history DB --device=DEVICE --point=POINT --metric=METRIC
  history DB --list_devices
  history DB --list_points [--device=DEVICE]

Prints, as a markdown table, one metric of one point on one device for every
run in the history database DB (written by //analysis:ingest), oldest first:
run, date (UTC), value (median), spread, driver version and commit. A run that
re-measured a throttled point shows its re-measurement.
)";
  // Empty values are kept: "need --device, --point and --metric" names them.
  program.flags = {{"device", "DEVICE", true},
                   {"point", "POINT", true},
                   {"metric", "METRIC", true},
                   {"list_devices"},
                   {"list_points"}};
  program.more = R"(An unknown device, point or metric, a missing DB or bad usage: one line on
stderr and exit status 2.

Example:
  bazel run //analysis:history -- history.db --device=GPU-5f2c... \
      --point=shared_latency/footprint_bytes:4096/stride_bytes:4 --metric=cycles_per_load
)";
  program.min_args = 1;
  program.max_args = 1;
  return program;
}

int Fail(const std::string& message, int status = 2) {
  return dissect::cli::Fail(Cli(), message, status);
}

int ListDevices(const HistoryDb& db) {
  absl::StatusOr<std::vector<dissect::analysis::DeviceSummary>> devices = db.Devices();
  if (!devices.ok()) return Fail(std::string(devices.status().message()), 1);
  dissect::analysis::MarkdownTable table;
  table.columns = {{"device"}, {"name"}, {"uuid"}, {"runs", true}, {"first"}, {"last"}};
  for (const auto& device : *devices) {
    table.rows.push_back({device.key, device.name, device.uuid, std::to_string(device.runs),
                          device.first_started, device.last_started});
  }
  std::cout << RenderMarkdownTable(table);
  return 0;
}

int ListPoints(const HistoryDb& db, const std::string& device) {
  absl::StatusOr<std::vector<std::string>> points = db.Points(device);
  if (!points.ok()) return Fail(std::string(points.status().message()) + " (see --list_devices)");
  for (const std::string& point : *points) std::cout << point << "\n";
  return 0;
}

int PrintTrend(const HistoryDb& db, const std::string& device, const std::string& point,
               const std::string& metric) {
  absl::StatusOr<std::vector<std::string>> points = db.Points(device);
  if (!points.ok()) return Fail(std::string(points.status().message()) + " (see --list_devices)");
  if (std::find(points->begin(), points->end(), point) == points->end()) {
    return Fail("device \"" + device + "\" has no point \"" + point + "\" (see --list_points)");
  }
  absl::StatusOr<std::vector<std::string>> metrics = db.Metrics(device, point);
  if (!metrics.ok()) return Fail(std::string(metrics.status().message()), 1);
  if (std::find(metrics->begin(), metrics->end(), metric) == metrics->end()) {
    return Fail("point \"" + point + "\" has no metric \"" + metric +
                "\" (it has: " + absl::StrJoin(*metrics, ", ") + ")");
  }
  absl::StatusOr<std::vector<dissect::analysis::TrendPoint>> trend =
      db.Trend(device, point, metric);
  if (!trend.ok()) return Fail(std::string(trend.status().message()));
  dissect::analysis::MarkdownTable table;
  table.columns = {{"run"}, {"date"}, {"value", true}, {"spread", true}, {"driver"}, {"commit"}};
  for (const auto& p : *trend) {
    table.rows.push_back(
        {dissect::analysis::CellText(p.run_id), p.started, dissect::analysis::FormatNumber(p.value),
         p.spread.has_value() ? dissect::analysis::FormatPercent(*p.spread)
                              : dissect::analysis::kEmptyCell,
         dissect::analysis::CellText(p.driver_version), p.git_commit.substr(0, 12)});
  }
  std::cout << "## " << metric << " of " << point << " on " << device << "\n\n"
            << RenderMarkdownTable(table);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const dissect::cli::CommandLine line = dissect::cli::ParseCommandLine(Cli(), argc, argv);
  if (line.exit_status.has_value()) return *line.exit_status;
  const std::vector<std::string>& args = line.args;
  const std::string device = FLAGS_device, point = FLAGS_point, metric = FLAGS_metric;
  const bool list_devices = FLAGS_list_devices, list_points = FLAGS_list_points;
  if (list_devices && list_points)
    return Fail("--list_devices and --list_points exclude each other");
  if (!list_devices && !list_points && (device.empty() || point.empty() || metric.empty())) {
    return Fail("need --device, --point and --metric, or --list_devices or --list_points");
  }
  if (absl::Status status = dissect::cli::EnterCallerDirectory(); !status.ok()) {
    return Fail(std::string(status.message()));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(args[0], ec)) {
    return Fail(args[0] + ": no such database file");
  }
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = HistoryDb::Open(args[0]);
  if (!db.ok()) return Fail(std::string(db.status().message()));
  if (list_devices) return ListDevices(**db);
  if (list_points) return ListPoints(**db, device);
  return PrintTrend(**db, device, point, metric);
}
