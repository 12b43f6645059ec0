// Where the result file goes, checked before anything is measured; see
// runner_internal.h.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/framework/runner_internal.h"
#include "tools/cli/user_path.h"

namespace dissect::runner_internal {
namespace {

// The folder of a result path ("." for a bare file name).
std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string DefaultOutputPath(const std::string& experiment) {
  const std::string dir = cli::UserPath("dissect-results");
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &utc);
  return absl::StrCat(dir, "/", experiment, "-", stamp, ".json");
}

// Makes sure the result file can be written, before anything is measured. A
// folder named in --benchmark_out must exist, and a file must be creatable in
// it (tried with the `<path>.tmp` the atomic writer uses, then removed). The
// default folder (`is_default`) may be missing if it can be created: the
// folder above it must be writable (CreateDefaultFolder makes it later, once
// a device is there, so that a run without a GPU leaves nothing behind).
absl::Status CheckOutputPath(const std::string& path, bool is_default) {
  const std::string what =
      is_default ? absl::StrCat("results file ", path) : absl::StrCat("--benchmark_out=", path);
  const std::string dir = FolderOf(path);
  struct stat st{};
  if (stat(dir.c_str(), &st) != 0) {
    if (!is_default) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": folder ", dir, " does not exist"));
    }
    const std::string above = FolderOf(dir);
    if (access(above.c_str(), W_OK | X_OK) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": cannot create folder ", dir, ": ",
                                                     above, ": ", std::strerror(errno)));
    }
    return absl::OkStatus();
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", dir, " is not a folder"));
  }
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": is a folder, not a file"));
  }
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot write there: ", std::strerror(errno)));
  }
  close(fd);
  unlink(tmp.c_str());
  return absl::OkStatus();
}

// Creates the folder of the default result path if it is missing.
absl::Status CreateDefaultFolder(const std::string& path) {
  const std::string dir = FolderOf(path);
  struct stat st{};
  if (stat(dir.c_str(), &st) == 0 || mkdir(dir.c_str(), 0755) == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("cannot create folder ", dir, ": ", std::strerror(errno)));
}

}  // namespace dissect::runner_internal
