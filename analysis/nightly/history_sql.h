// The SQLite helpers of the history database (analysis/nightly/history_db.h): an
// owned prepared statement, a write transaction, one-shot statements. Shared
// by its schema and migrations (history_schema.cc) and its reads and writes
// (history_db.cc, history_queries.cc).

#ifndef DISSECT_ANALYSIS_NIGHTLY_HISTORY_SQL_H_
#define DISSECT_ANALYSIS_NIGHTLY_HISTORY_SQL_H_

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dissect::analysis::history_internal {

inline absl::Status SqlError(sqlite3* db, const char* what) {
  return absl::InternalError(absl::StrCat(what, ": ", sqlite3_errmsg(db)));
}

inline absl::Status Exec(sqlite3* db, const std::string& sql) {
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

// "IN (1, 2, 3)" for integer ids.
inline std::string InList(const std::vector<long long>& ids) {
  return absl::StrCat("(", absl::StrJoin(ids, ", "), ")");
}

}  // namespace dissect::analysis::history_internal

#endif  // DISSECT_ANALYSIS_NIGHTLY_HISTORY_SQL_H_
