// The run folder's manifest.json (format dissect.manifest.v1, documented in
// analysis/SCHEMA.md): the run's identity and each entry's status, as the
// sweep runner (runner.h) keeps it.
#ifndef DISSECT_EXPERIMENTS_DRIVERS_SWEEP_MANIFEST_H_
#define DISSECT_EXPERIMENTS_DRIVERS_SWEEP_MANIFEST_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace dissect::sweep {

inline constexpr char kManifestFormat[] = "dissect.manifest.v1";
inline constexpr char kManifestName[] = "manifest.json";

enum class EntryStatus { kPending, kOk, kFailed, kTimeout, kSkipped };

// "pending", "ok", "failed", "timeout", "skipped".
std::string_view EntryStatusName(EntryStatus status);
std::optional<EntryStatus> ParseEntryStatus(std::string_view name);

// One entry of manifest.json.
struct EntryRecord {
  std::string id;
  std::string experiment;
  EntryStatus status = EntryStatus::kPending;
  int exit_code = -1;       // the child's exit status; -1 if killed by a signal or never run
  int signal = 0;           // the signal that ended the child, else 0
  std::string result_file;  // relative to the run folder
  std::string log_file;     // relative to the run folder
  std::string started;      // UTC start of the latest attempt; empty if never run
  double seconds = 0;       // wall time of the latest attempt
  int attempts = 0;         // child processes started for this entry, over all resumes
  std::string reason;       // why failed, timeout, skipped or pending after an interruption
};

struct Manifest {
  std::string run_id;
  std::string sweep;
  std::string sweep_file;
  std::string host;
  std::string started;
  std::string finished;  // empty while running
  std::string git_commit;
  nlohmann::ordered_json device = nlohmann::ordered_json::object();
  // Why no entry ran this time (the device check failed); empty otherwise,
  // and cleared by the next run that passes it.
  std::string preflight_failure;
  std::vector<EntryRecord> entries;

  EntryRecord* Find(std::string_view id);
};

nlohmann::ordered_json ManifestToJson(const Manifest& manifest);
// Parses manifest.json's text; `path` names the file in errors.
absl::StatusOr<Manifest> ParseManifest(std::string_view text, std::string_view path);
// Reads DIR/manifest.json: nullopt when it does not exist.
absl::StatusOr<std::optional<Manifest>> ReadManifest(const std::string& path);
absl::Status WriteManifest(const Manifest& manifest, const std::string& path);

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_DRIVERS_SWEEP_MANIFEST_H_
