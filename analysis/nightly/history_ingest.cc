#include "analysis/nightly/history_ingest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/nightly/result_points.h"

namespace dissect::analysis::history_internal {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open"));
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  return text;
}

// The files of a run folder that parse as result files (every *.json but
// manifest.json, as the dashboard reads a run folder), in name order.
std::vector<std::pair<std::string, std::string>> ResultFilesOfFolder(const std::string& dir) {
  std::vector<fs::path> paths;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() == ".json" && it->path().filename() != "manifest.json") {
      paths.push_back(it->path());
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::pair<std::string, std::string>> files;  // path, text
  for (const fs::path& path : paths) {
    absl::StatusOr<std::string> text = ReadWholeFile(path.string());
    // A file that does not parse is named by ReadRunFolder already.
    if (!text.ok() || !ParseResultJson(*text, path.string()).ok()) continue;
    files.emplace_back(path.string(), *std::move(text));
  }
  return files;
}

}  // namespace

bool ItemQueue::Push(IngestItem item) {
  std::unique_lock<std::mutex> lock(mutex_);
  not_full_.wait(lock, [this] { return closed_ || items_.size() < capacity_; });
  if (closed_) return false;
  items_.push_back(std::move(item));
  not_empty_.notify_one();
  return true;
}

std::optional<IngestItem> ItemQueue::Pop() {
  std::unique_lock<std::mutex> lock(mutex_);
  not_empty_.wait(lock, [this] { return closed_ || !items_.empty(); });
  if (items_.empty()) return std::nullopt;
  IngestItem item = std::move(items_.front());
  items_.pop_front();
  not_full_.notify_one();
  return item;
}

void ItemQueue::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  not_full_.notify_all();
  not_empty_.notify_all();
}

void FillImportSource(const ResultFile& file, RunInfo& info) {
  const std::string source = file.ContextOr("source", "");
  if (source.empty()) return;
  info.source = source;
  info.source_program = file.ContextOr("source_format", "");
  info.source_method = file.ContextOr("source_method", "");
  info.started = NormalizeUtc(file.ContextOr("source_date", ""));
  info.driver_version.clear();
}

bool IngestWalk::Path(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) return Bad(absl::StrCat(path, ": no such file or directory"));
  if (fs::is_directory(status)) {
    int found = 0;
    if (!Folder(path, found)) return false;
    if (found == 0) return Bad(absl::StrCat(path, ": no manifest.json and no .json file in it"));
    return true;
  }
  const fs::path file(path);
  const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
  // A manifest, or a result file of a run folder: the run folder.
  if (file.filename() == "manifest.json" || fs::exists(parent / "manifest.json", ec)) {
    return RunFolder(parent.string());
  }
  return LooseFile(path);
}

bool IngestWalk::Bad(std::string message) {
  IngestItem item;
  item.bad.push_back(std::move(message));
  return emit_(std::move(item));
}

bool IngestWalk::Folder(const std::string& dir, int& found) {
  std::error_code ec;
  if (fs::exists(fs::path(dir) / "manifest.json", ec)) {
    ++found;
    return RunFolder(dir);
  }
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    entries.push_back(it->path());
  }
  if (ec) return Bad(absl::StrCat(dir, ": cannot list folder: ", ec.message()));
  std::sort(entries.begin(), entries.end());
  for (const fs::path& entry : entries) {
    std::error_code entry_ec;
    bool go_on = true;
    if (fs::is_directory(entry, entry_ec)) {
      go_on = Folder(entry.string(), found);
    } else if (entry.extension() == ".json" && fs::is_regular_file(entry, entry_ec)) {
      ++found;
      go_on = LooseFile(entry.string());
    }
    if (!go_on) return false;
  }
  return true;
}

bool IngestWalk::RunFolder(const std::string& dir) {
  std::error_code ec;
  const std::string canonical = fs::weakly_canonical(dir, ec).string();
  if (!folders_done_.insert(ec ? dir : canonical).second) return true;
  IngestItem item;
  absl::StatusOr<RunData> run = ReadRunFolderCounting(dir, &item.bad, item.files);
  if (run.ok()) {
    item.run = *std::move(run);
    for (auto& [path, text] : ResultFilesOfFolder(dir)) {
      item.kept.push_back({RunFileName(dir, path), std::move(text)});
    }
  } else {
    item.files = 0;
    item.bad.emplace_back(run.status().message());
  }
  return emit_(std::move(item));
}

bool IngestWalk::LooseFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return Bad(std::string(text.status().message()));
  absl::StatusOr<ResultFile> file = ParseResultJson(*text, path);
  if (!file.ok()) return Bad(std::string(file.status().message()));
  IngestItem item;
  item.files = 1;
  RunData& run = item.run.emplace();
  run.info = LooseRunInfo(*file, *text);
  FillImportSource(*file, run.info);
  run.points = PointsOfResultFile(*file);
  item.kept.push_back({fs::path(path).filename().string(), *std::move(text)});
  return emit_(std::move(item));
}

}  // namespace dissect::analysis::history_internal

namespace dissect::analysis {

std::string RunFileName(const std::string& run_folder, const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path folder = fs::weakly_canonical(run_folder, ec);
  if (ec) folder = fs::path(run_folder).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();
  return (folder.filename() / fs::path(file).filename()).string();
}

}  // namespace dissect::analysis
