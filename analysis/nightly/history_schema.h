// The history database's schema (analysis/nightly/history_db.h): creating it,
// recognizing and migrating older versions, and the encoding of its axes
// column. Internal to //analysis/nightly:history_db.

#ifndef DISSECT_ANALYSIS_NIGHTLY_HISTORY_SCHEMA_H_
#define DISSECT_ANALYSIS_NIGHTLY_HISTORY_SCHEMA_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/nightly/run_data.h"

struct sqlite3;

namespace dissect::analysis::history_internal {

// The schema version of `db`: -1 for an empty database, 0 for the
// prototype layout (runs + results, no schema_version table); an error for
// a database of other tables.
absl::StatusOr<int> DetectVersion(sqlite3* db);

// Creates the tables of kHistorySchemaVersion in an empty database, or
// migrates an older one to it (0 -> 1 -> 2 -> 3), in one transaction: a
// failed migration leaves the database as it was.
absl::Status Upgrade(sqlite3* db);

// The devices.key of a run's device: the uuid, else the serial, else
// "<name>@<host>" ("unknown@<host>" without a name).
std::string StoredDeviceKey(const RunInfo& info);

// Axes as one text, "name:value/name:value" in name order (the point key's
// form without the experiment); '%', '/' and ':' inside a name or value are
// written %25, %2F and %3A. DecodeAxes reverses it.
std::string EncodeAxes(const std::map<std::string, std::string>& axes);
std::map<std::string, std::string> DecodeAxes(std::string_view text);

}  // namespace dissect::analysis::history_internal

#endif  // DISSECT_ANALYSIS_NIGHTLY_HISTORY_SCHEMA_H_
