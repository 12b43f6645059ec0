#include "experiments/drivers/sweep/cli_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dissect::sweep {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::vector<std::string> RunfilesRoots() {
  std::vector<std::string> roots;
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    const std::string dir = Env(var);
    if (!dir.empty()) roots.push_back(dir + "/dissect");
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(exe.string() + ".runfiles/dissect");
  return roots;
}

std::vector<std::string> ConfigRoots() {
  std::vector<std::string> roots = RunfilesRoots();
  roots.push_back(".");
  const std::string workspace = Env("BUILD_WORKSPACE_DIRECTORY");
  if (!workspace.empty()) roots.push_back(workspace);
  return roots;
}

std::vector<std::string> SearchRoots() {
  std::vector<std::string> roots = RunfilesRoots();
  std::error_code ec;
  roots.push_back(fs::current_path(ec).string());
  const std::string workspace = Env("BUILD_WORKSPACE_DIRECTORY");
  if (!workspace.empty()) roots.push_back(workspace + "/bazel-bin");
  return roots;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) close(fd_);
}

std::string FolderLock::Acquire(const std::string& dir) {
  const std::string path = (fs::path(dir) / ".sweep.lock").string();
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return absl::StrCat(dir, ": not writable: ", std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    return absl::StrCat(dir, " is in use by another sweep runner");
  }
  return "";
}

}  // namespace dissect::sweep
