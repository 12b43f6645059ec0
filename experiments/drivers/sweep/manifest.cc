// manifest.json; see manifest.h.
#include "experiments/drivers/sweep/manifest.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "experiments/result_format/atomic_file.h"

namespace dissect::sweep {
namespace {

template <typename T>
absl::Status Get(const nlohmann::ordered_json& j, const char* key, T* value,
                 const std::string& path, bool required) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (!required) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(path, ": key '", key, "' is missing"));
  }
  try {
    *value = it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": key '", key, "' has the wrong type"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view EntryStatusName(EntryStatus status) {
  switch (status) {
    case EntryStatus::kPending:
      return "pending";
    case EntryStatus::kOk:
      return "ok";
    case EntryStatus::kFailed:
      return "failed";
    case EntryStatus::kTimeout:
      return "timeout";
    case EntryStatus::kSkipped:
      return "skipped";
  }
  return "pending";
}

std::optional<EntryStatus> ParseEntryStatus(std::string_view name) {
  for (EntryStatus s : {EntryStatus::kPending, EntryStatus::kOk, EntryStatus::kFailed,
                        EntryStatus::kTimeout, EntryStatus::kSkipped}) {
    if (EntryStatusName(s) == name) return s;
  }
  return std::nullopt;
}

EntryRecord* Manifest::Find(std::string_view id) {
  for (EntryRecord& e : entries) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

nlohmann::ordered_json ManifestToJson(const Manifest& m) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["format"] = kManifestFormat;
  j["run_id"] = m.run_id;
  j["sweep"] = m.sweep;
  j["sweep_file"] = m.sweep_file;
  j["host"] = m.host;
  j["started"] = m.started;
  if (!m.finished.empty()) j["finished"] = m.finished;
  j["git_commit"] = m.git_commit;
  j["device"] = m.device;
  if (!m.preflight_failure.empty()) j["preflight_failure"] = m.preflight_failure;
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const EntryRecord& e : m.entries) {
    nlohmann::ordered_json r = nlohmann::ordered_json::object();
    r["id"] = e.id;
    r["experiment"] = e.experiment;
    r["status"] = std::string(EntryStatusName(e.status));
    r["exit_code"] = e.exit_code;
    r["signal"] = e.signal;
    r["result_file"] = e.result_file;
    r["log_file"] = e.log_file;
    if (!e.started.empty()) r["started"] = e.started;
    r["seconds"] = std::round(e.seconds * 1000) / 1000;
    r["attempts"] = e.attempts;
    if (!e.reason.empty()) r["reason"] = e.reason;
    entries.push_back(std::move(r));
  }
  j["entries"] = std::move(entries);
  return j;
}

absl::StatusOr<Manifest> ParseManifest(std::string_view text, std::string_view path_view) {
  const std::string path(path_view);
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not JSON: ", e.what()));
  }
  if (!j.is_object() || j.value("format", "") != kManifestFormat) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a sweep manifest (format is not ", kManifestFormat, ")"));
  }
  Manifest m;
  for (auto [key, field, required] :
       {std::tuple{"run_id", &m.run_id, true}, std::tuple{"sweep", &m.sweep, true},
        std::tuple{"sweep_file", &m.sweep_file, false}, std::tuple{"host", &m.host, false},
        std::tuple{"started", &m.started, true}, std::tuple{"finished", &m.finished, false},
        std::tuple{"git_commit", &m.git_commit, false},
        std::tuple{"preflight_failure", &m.preflight_failure, false}}) {
    if (absl::Status s = Get(j, key, field, path, required); !s.ok()) return s;
  }
  if (auto it = j.find("device"); it != j.end() && it->is_object()) m.device = *it;
  auto entries = j.find("entries");
  if (entries == j.end() || !entries->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": 'entries' is not an array"));
  }
  for (const nlohmann::ordered_json& r : *entries) {
    if (!r.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": an entry is not an object"));
    }
    EntryRecord e;
    std::string status;
    absl::Status s = Get(r, "id", &e.id, path, true);
    if (s.ok()) s = Get(r, "experiment", &e.experiment, path, false);
    if (s.ok()) s = Get(r, "status", &status, path, true);
    if (s.ok()) s = Get(r, "exit_code", &e.exit_code, path, false);
    if (s.ok()) s = Get(r, "signal", &e.signal, path, false);
    if (s.ok()) s = Get(r, "result_file", &e.result_file, path, false);
    if (s.ok()) s = Get(r, "log_file", &e.log_file, path, false);
    if (s.ok()) s = Get(r, "started", &e.started, path, false);
    if (s.ok()) s = Get(r, "seconds", &e.seconds, path, false);
    if (s.ok()) s = Get(r, "attempts", &e.attempts, path, false);
    if (s.ok()) s = Get(r, "reason", &e.reason, path, false);
    if (!s.ok()) return s;
    std::optional<EntryStatus> parsed = ParseEntryStatus(status);
    if (!parsed.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": entry '", e.id, "' has unknown status '", status, "'"));
    }
    e.status = *parsed;
    m.entries.push_back(std::move(e));
  }
  return m;
}

absl::StatusOr<std::optional<Manifest>> ReadManifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::optional<Manifest>();
    return absl::UnavailableError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<Manifest> m = ParseManifest(text.str(), path);
  if (!m.ok()) return m.status();
  return std::optional<Manifest>(*std::move(m));
}

absl::Status WriteManifest(const Manifest& manifest, const std::string& path) {
  return result_format::WriteFileAtomically(path, ManifestToJson(manifest).dump(2) + "\n");
}

}  // namespace dissect::sweep
