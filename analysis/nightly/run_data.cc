#include "analysis/nightly/run_data.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "analysis/nightly/result_points.h"
#include "analysis/results/results.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr std::string_view kManifestFormat = "dissect.manifest.v1";

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file or directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  return text.str();
}

// The string member `key` of `object`, or "" when absent or not a string.
std::string StringMember(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

void FillFromContext(const ResultFile& file, RunInfo& info) {
  auto fill = [&](std::string& field, const char* key) {
    if (field.empty()) field = file.ContextOr(key, "");
  };
  fill(info.git_commit, "git_commit");
  fill(info.driver_version, "driver_version");
  fill(info.device_name, "device_name");
  fill(info.host, "host_name");
  if (info.started.empty()) info.started = NormalizeUtc(file.ContextOr("date", ""));
}

// What a manifest entry that is not ok, or has no readable result file,
// says; `file_error` is why its file could not be read ("" if it could).
std::optional<EntryProblem> ProblemOfEntry(const Json& entry, const std::string& file_error) {
  std::string status = StringMember(entry, "status");
  if (status == "ok" && file_error.empty()) return std::nullopt;
  EntryProblem problem;
  problem.entry = StringMember(entry, "id");
  problem.experiment = StringMember(entry, "experiment");
  problem.reason = StringMember(entry, "reason");
  if (status == "ok") {
    problem.status = "unreadable";
    problem.reason = file_error;
    return problem;
  }
  problem.status = status.empty() ? "pending" : status;
  if (problem.reason.empty()) {
    const auto code = entry.find("exit_code");
    problem.reason =
        problem.status == "pending"
            ? "never finished: the runner stopped before this entry ended"
            : code != entry.end() && code->is_number_integer()
                  ? absl::StrCat("the manifest gives no reason (exit code ", code->get<int>(), ")")
                  : "the manifest gives no reason";
  }
  if (!file_error.empty()) absl::StrAppend(&problem.reason, "; ", file_error);
  return problem;
}

// Reads the result file of one manifest entry into `run`; a corrupt one is
// named in `bad`. Entries that never wrote their file (failed, skipped,
// pending) are passed over. Every entry that is not ok, or whose file
// cannot be read, is one of the run's problems.
void ReadEntry(const std::string& dir, const Json& entry, bool& context_used, RunData& run,
               std::vector<std::string>* bad, int& files_read) {
  if (!entry.is_object()) return;
  ++run.entries;
  std::string file_error;
  auto record = [&] {
    if (std::optional<EntryProblem> p = ProblemOfEntry(entry, file_error)) {
      run.problems.push_back(*std::move(p));
    }
  };
  const std::string result_file = StringMember(entry, "result_file");
  if (result_file.empty()) {
    if (StringMember(entry, "status") == "ok") file_error = "the manifest names no result file";
    return record();
  }
  const std::string path = (fs::path(dir) / result_file).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (StringMember(entry, "status") == "ok") {
      file_error = absl::StrCat(path, ": no such file (its manifest entry \"",
                                StringMember(entry, "id"), "\" has status ok)");
      if (bad != nullptr) bad->push_back(file_error);
    }
    return record();
  }
  absl::StatusOr<ResultFile> file = ReadResultFile(path);
  if (!file.ok()) {
    file_error = std::string(file.status().message());
    if (bad != nullptr) bad->push_back(file_error);
    return record();
  }
  record();
  ++files_read;
  if (!context_used) {
    FillFromContext(*file, run.info);
    context_used = true;
  }
  std::vector<RunPoint> points = PointsOfResultFile(*file);
  std::move(points.begin(), points.end(), std::back_inserter(run.points));
  RecordHeadlineMetric(*file, run);
}

// The runner's device check failed (manifest preflight_failure): no entry
// ran this time. One problem says why, in place of the entries it left
// pending.
void AddPreflightFailure(const Json& manifest, RunData& run) {
  const std::string failure = StringMember(manifest, "preflight_failure");
  if (failure.empty()) return;
  std::vector<EntryProblem> kept = {{kDeviceCheckEntry, "", "failed", failure}};
  for (EntryProblem& problem : run.problems) {
    if (problem.status != "pending") kept.push_back(std::move(problem));
  }
  run.problems = std::move(kept);
}

absl::StatusOr<RunData> ReadWithManifest(const std::string& dir, const std::string& manifest_path,
                                         std::vector<std::string>* bad, int& files_read) {
  absl::StatusOr<std::string> text = ReadWholeFile(manifest_path);
  if (!text.ok()) return text.status();
  Json manifest = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat(manifest_path, ": not a dissect manifest (not valid JSON)"));
  }
  if (!manifest.is_object() || StringMember(manifest, "format") != kManifestFormat) {
    return absl::InvalidArgumentError(absl::StrCat(
        manifest_path, ": not a dissect manifest (format is not \"", Sv(kManifestFormat), "\")"));
  }
  RunData run;
  RunInfo& info = run.info;
  info.run_id = StringMember(manifest, "run_id");
  if (info.run_id.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(manifest_path, ": manifest has no run_id"));
  }
  info.sweep = StringMember(manifest, "sweep");
  info.started = NormalizeUtc(StringMember(manifest, "started"));
  info.host = StringMember(manifest, "host");
  info.git_commit = StringMember(manifest, "git_commit");
  if (const auto device = manifest.find("device");
      device != manifest.end() && device->is_object()) {
    info.driver_version = StringMember(*device, "driver_version");
    info.device_name = StringMember(*device, "name");
    info.device_uuid = StringMember(*device, "uuid");
    info.device_serial = StringMember(*device, "serial");
    info.vbios = StringMember(*device, "vbios");
  }
  bool context_used = false;
  if (const auto entries = manifest.find("entries");
      entries != manifest.end() && entries->is_array()) {
    for (const Json& entry : *entries) ReadEntry(dir, entry, context_used, run, bad, files_read);
  }
  AddPreflightFailure(manifest, run);
  return run;
}

absl::StatusOr<RunData> ReadWithoutManifest(const std::string& dir, std::vector<std::string>* bad,
                                            int& files_read) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::error_code file_ec;
    if (it->path().extension() == ".json" && it->is_regular_file(file_ec)) {
      paths.push_back(it->path().string());
    }
  }
  if (ec) return absl::PermissionDeniedError(absl::StrCat(dir, ": cannot list: ", ec.message()));
  std::sort(paths.begin(), paths.end());
  RunData run;
  std::string earliest;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = ReadWholeFile(path);
    absl::StatusOr<ResultFile> file =
        text.ok() ? ParseResultJson(*text, path) : absl::StatusOr<ResultFile>(text.status());
    ++run.entries;
    if (!file.ok()) {
      if (bad != nullptr) bad->emplace_back(file.status().message());
      run.problems.push_back({fs::path(path).filename().string(), "", "unreadable",
                              std::string(file.status().message())});
      continue;
    }
    ++files_read;
    const RunInfo info = LooseRunInfo(*file, *text);
    if (run.info.run_id.empty() || (!info.started.empty() && info.started < earliest)) {
      run.info = info;
      earliest = info.started;
    }
    std::vector<RunPoint> points = PointsOfResultFile(*file);
    std::move(points.begin(), points.end(), std::back_inserter(run.points));
    RecordHeadlineMetric(*file, run);
  }
  if (run.info.run_id.empty()) {
    return absl::NotFoundError(absl::StrCat(dir, ": no manifest.json and no readable result file"));
  }
  return run;
}

}  // namespace

std::string PointKey(const ResultFile& file, const Row& row) {
  size_t size = file.experiment.size();
  for (const auto& [axis, value] : row.axes) size += axis.size() + value.size() + 2;
  std::string key;
  key.reserve(size);
  key += file.experiment;
  for (const auto& [axis, value] : row.axes) {
    key += '/';
    key += axis;
    key += ':';
    key += value;
  }
  return key;
}

void RecordHeadlineMetric(const ResultFile& file, RunData& run) {
  const std::string headline = file.ContextOr(kHeadlineMetricKey, "");
  if (!headline.empty()) run.headline_metrics[file.experiment] = headline;
}

std::vector<RunPoint> PointsOfResultFile(const ResultFile& file) {
  // Per metric, once per file: its spread counter and its unit.
  struct MetricKeys {
    const std::string& name;
    std::string spread;
    std::string unit;
  };
  std::vector<MetricKeys> keys;
  keys.reserve(file.metric_names.size());
  for (const std::string& name : file.metric_names) {
    keys.push_back({name, name + ".spread", file.MetricUnit(name)});
  }
  auto counter = [](const Row& row, const std::string& name) -> std::optional<double> {
    const auto it = row.counters.find(name);
    if (it == row.counters.end()) return std::nullopt;
    return it->second;
  };
  static const std::string kThrottled = "throttled", kAttempt = "attempt";
  std::vector<RunPoint> points;
  points.reserve(file.rows.size());
  for (const Row& row : file.rows) {
    if (row.error) continue;
    RunPoint point;
    point.experiment = file.experiment;
    point.point = PointKey(file, row);
    for (const auto& [axis, value] : row.axes) point.axes.emplace(axis, value);
    for (const MetricKeys& key : keys) {
      const std::optional<double> value = counter(row, key.name);
      if (!value.has_value() || !std::isfinite(*value)) continue;
      MetricValue& metric = point.metrics[key.name];
      metric.value = *value;
      if (const auto spread = counter(row, key.spread);
          spread.has_value() && std::isfinite(*spread)) {
        metric.spread = *spread;
      }
      metric.unit = key.unit;
    }
    point.throttled = counter(row, kThrottled).value_or(0) == 1;
    const double attempt = counter(row, kAttempt).value_or(1);
    point.attempt = std::isfinite(attempt) && attempt >= 1 ? static_cast<int>(attempt) : 1;
    points.push_back(std::move(point));
  }
  return points;
}

std::string NormalizeUtc(std::string_view time) {
  absl::Time parsed;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, Sv(time), &parsed, &error)) return std::string(time);
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", parsed, absl::UTCTimeZone());
}

std::string ContentHash(std::string_view content) {
  uint64_t hash = 14695981039346656037ull;
  for (const char c : content) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", hash);
}

RunInfo LooseRunInfo(const ResultFile& file, std::string_view content) {
  RunInfo info;
  FillFromContext(file, info);
  const std::string date = file.ContextOr("date", "");
  absl::Time parsed;
  std::string error;
  if (!info.host.empty() && absl::ParseTime(absl::RFC3339_full, Sv(date), &parsed, &error)) {
    info.run_id = absl::StrCat(info.host, "-", file.ContextOr("device_index", "0"), "-",
                               absl::FormatTime("%Y%m%dT%H%M%SZ", parsed, absl::UTCTimeZone()));
  } else {
    info.run_id = absl::StrCat("loose-", ContentHash(content));
  }
  return info;
}

absl::StatusOr<RunData> ReadRunFolder(const std::string& dir, std::vector<std::string>* bad) {
  int files_read = 0;
  return ReadRunFolderCounting(dir, bad, files_read);
}

absl::StatusOr<RunData> ReadRunFolderCounting(const std::string& dir, std::vector<std::string>* bad,
                                              int& files_read) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat(dir, ": not a folder"));
  }
  const std::string manifest = (fs::path(dir) / "manifest.json").string();
  if (fs::exists(manifest, ec)) return ReadWithManifest(dir, manifest, bad, files_read);
  return ReadWithoutManifest(dir, bad, files_read);
}

}  // namespace dissect::analysis
