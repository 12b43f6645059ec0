// Command-line plumbing shared by the tools that run sweeps
// (//experiments:sweep and //experiments:reproduce): where the experiment
// binaries are, the host name, and the lock that keeps two runners out of one
// run folder.
#ifndef DISSECT_EXPERIMENTS_DRIVERS_SWEEP_CLI_UTIL_H_
#define DISSECT_EXPERIMENTS_DRIVERS_SWEEP_CLI_UTIL_H_

#include <string>
#include <vector>

namespace dissect::sweep {

// The value of environment variable `name`, "" if unset.
std::string Env(const char* name);

// The runfiles trees of the running binary ($RUNFILES_DIR, $TEST_SRCDIR,
// /proc/self/exe.runfiles), each as <tree>/dissect: files of the workspace
// lie below them under their workspace paths.
std::vector<std::string> RunfilesRoots();

// Folders that may hold the workspace's data files (configs/...): the
// runfiles trees, the working directory, $BUILD_WORKSPACE_DIRECTORY.
std::vector<std::string> ConfigRoots();

// Folders that may hold the experiment binaries under their workspace paths:
// the runfiles trees, the working directory, bazel-bin.
std::vector<std::string> SearchRoots();

std::string HostName();

// An advisory lock on a run folder, released on destruction or when the
// process dies: two runners never share a run folder.
class FolderLock {
 public:
  FolderLock() = default;
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  // Returns "" on success, else why not.
  std::string Acquire(const std::string& dir);

 private:
  int fd_ = -1;
};

}  // namespace dissect::sweep

#endif  // DISSECT_EXPERIMENTS_DRIVERS_SWEEP_CLI_UTIL_H_
