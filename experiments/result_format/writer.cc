// Atomic JSON result writing; see result_writer.h.
#include "experiments/result_format/writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "experiments/result_format/atomic_file.h"
#include "experiments/result_format/reader.h"

namespace dissect::result_format {
namespace {

// What benchmark::JSONReporter::Finalize appends to close the document.
constexpr char kJsonClose[] = "\n  ]\n}\n";

// Indentation of a row object inside "benchmarks" in Google Benchmark's JSON.
constexpr char kRowIndent[] = "    ";

// The text of each element of the top-level "benchmarks" array of the JSON
// document `text`, exactly as in `text`. Only strings and brackets are
// looked at, so Google Benchmark's bare NaN / Infinity tokens do no harm;
// the document is assumed to have parsed already.
std::vector<std::string> RawBenchmarkRows(absl::string_view text) {
  std::vector<std::string> rows;
  int depth = 0;
  bool in_benchmarks = false;
  std::string last_key;
  size_t row_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const size_t begin = i + 1;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (depth == 1) last_key = std::string(text.substr(begin, i - begin));
    } else if (c == '{' || c == '[') {
      if (depth == 1 && c == '[' && last_key == "benchmarks") in_benchmarks = true;
      if (in_benchmarks && depth == 2 && c == '{') row_start = i;
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
      if (in_benchmarks && depth == 2 && c == '}') {
        rows.emplace_back(text.substr(row_start, i + 1 - row_start));
      }
      if (in_benchmarks && depth == 1) in_benchmarks = false;
    }
  }
  return rows;
}

}  // namespace

std::string RowPointName(absl::string_view row_name) {
  absl::string_view name = row_name;
  for (const char* suffix : {"/manual_time", "/real_time", "/process_time"}) {
    if (absl::ConsumeSuffix(&name, suffix)) break;
  }
  if (const size_t slash = name.rfind('/'); slash != absl::string_view::npos) {
    absl::string_view last = name.substr(slash + 1);
    uint64_t iterations = 0;
    if (absl::ConsumePrefix(&last, "iterations:") && absl::SimpleAtoi(last, &iterations)) {
      name = name.substr(0, slash);
    }
  }
  return std::string(name);
}

absl::StatusOr<ResumedRows> ReadResumedRows(const std::string& path,
                                            absl::string_view experiment) {
  constexpr absl::string_view kWhatToDo = "; move it away, or run without --resume to overwrite it";
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--resume: ", path, " is not a result file of ", experiment, " (", why, ")", kWhatToDo));
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--resume: cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<ResultFile> file = ParseResultJson(text.str(), path);
  if (!file.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--resume: ", file.status().message(), kWhatToDo));
  }
  if (file->experiment != experiment) {
    return bad(absl::StrCat("it holds experiment '", file->experiment, "'"));
  }
  // Its rows are kept byte for byte under this build's context: rows of an
  // older version (other metric names) would pass for the current one's.
  if (const std::string version = file->ContextOr("dissect_schema_version", "");
      version != kSupportedSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--resume: ", path, " holds rows of dissect_schema_version \"", version,
        "\" and this build writes \"", std::string(kSupportedSchemaVersion), "\"", kWhatToDo));
  }
  ResumedRows kept;
  kept.rows = RawBenchmarkRows(text.str());
  if (kept.rows.size() != file->rows.size()) return bad("unexpected layout of its rows");
  for (const Row& row : file->rows) {
    kept.point_names.insert(RowPointName(row.name));
    if (row.error && !absl::StartsWith(row.error_message, "skipped:")) ++kept.failed;
  }
  return kept;
}

AtomicJsonReporter::AtomicJsonReporter(std::string path)
    : path_(std::move(path)) {
  json_.SetOutputStream(&buffer_);
  json_.SetErrorStream(&std::cerr);
}

void AtomicJsonReporter::CarryRows(std::vector<std::string> rows) {
  carried_ = std::move(rows);
}

bool AtomicJsonReporter::ReportContext(const Context& context) {
  const bool ok = json_.ReportContext(context);
  for (size_t i = 0; i < carried_.size(); ++i) {
    buffer_ << (i > 0 ? ",\n" : "") << kRowIndent << carried_[i];
  }
  needs_separator_ = !carried_.empty();
  Flush();
  return ok;
}

void AtomicJsonReporter::ReportRuns(const std::vector<Run>& runs) {
  if (needs_separator_ && !runs.empty()) {
    buffer_ << ",\n";
    needs_separator_ = false;
  }
  json_.ReportRuns(runs);
  rows_ += static_cast<int>(runs.size());
  Flush();
}

void AtomicJsonReporter::Finalize() {
  json_.Finalize();
  finalized_ = true;
  Flush();
}

std::string AtomicJsonReporter::Snapshot() const {
  return finalized_ ? buffer_.str() : buffer_.str() + kJsonClose;
}

void AtomicJsonReporter::Flush() {
  if (path_.empty() || !status_.ok()) return;
  status_ = WriteFileAtomically(path_, Snapshot());
  if (!status_.ok()) std::cerr << "dissect: " << status_.message() << "\n";
}

bool TeeReporter::ReportContext(const Context& context) {
  bool ok = display_->ReportContext(context);
  if (file_ != nullptr) ok = file_->ReportContext(context) && ok;
  return ok;
}

void TeeReporter::ReportRuns(const std::vector<Run>& runs) {
  display_->ReportRuns(runs);
  if (file_ != nullptr) file_->ReportRuns(runs);
}

void TeeReporter::Finalize() {
  display_->Finalize();
  if (file_ != nullptr) file_->Finalize();
}

}  // namespace dissect::result_format
