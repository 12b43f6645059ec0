#include "tools/cli/user_path.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dissect::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kBazelWorkingDirVariable[] = "BUILD_WORKING_DIRECTORY";

// The value of `variable` and its name, for the first of DISSECT_CALLER_DIR
// and BUILD_WORKING_DIRECTORY that is set and not empty; {"", ""} if neither.
std::pair<std::string, const char*> CallerDirectoryVariable() {
  for (const char* variable : {kCallerDirVariable, kBazelWorkingDirVariable}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') return {value, variable};
  }
  return {"", ""};
}

}  // namespace

std::string CallerDirectory() {
  const std::string from_variable = CallerDirectoryVariable().first;
  if (!from_variable.empty()) return from_variable;
  std::error_code error;
  const fs::path working = fs::current_path(error);
  return error ? "." : working.string();
}

std::string UserPath(const std::string& path) {
  if (path.empty()) return path;
  fs::path p(path);
  if (p.is_relative()) p = fs::path(CallerDirectory()) / p;
  return p.lexically_normal().string();
}

absl::Status EnterCallerDirectory() {
  const auto [dir, variable] = CallerDirectoryVariable();
  if (!dir.empty() && chdir(dir.c_str()) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot enter the folder the command was run from (", variable, "=", dir,
        "): ", std::strerror(errno)));
  }
  unsetenv(kCallerDirVariable);
  unsetenv(kBazelWorkingDirVariable);
  return absl::OkStatus();
}

}  // namespace dissect::cli
