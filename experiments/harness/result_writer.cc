// Atomic JSON result writing; see result_writer.h.
#include "experiments/harness/result_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"

namespace dissect {
namespace {

// What benchmark::JSONReporter::Finalize appends to close the document.
constexpr char kJsonClose[] = "\n  ]\n}\n";

}  // namespace

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::UnavailableError(
          absl::StrCat("cannot write ", tmp, ": ", std::strerror(errno)));
    }
    out << text;
    out.flush();
    if (!out) {
      return absl::UnavailableError(
          absl::StrCat("write to ", tmp, " failed: ", std::strerror(errno)));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot rename ", tmp, " to ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

AtomicJsonReporter::AtomicJsonReporter(std::string path)
    : path_(std::move(path)) {
  json_.SetOutputStream(&buffer_);
  json_.SetErrorStream(&std::cerr);
}

bool AtomicJsonReporter::ReportContext(const Context& context) {
  const bool ok = json_.ReportContext(context);
  Flush();
  return ok;
}

void AtomicJsonReporter::ReportRuns(const std::vector<Run>& runs) {
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

}  // namespace dissect
