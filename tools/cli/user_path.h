// Where a command-line path points: every dissect binary resolves a relative
// path (a flag's value or a positional argument) against the folder the user
// ran the command from, the same way. Under `bazel run` that is not the
// process's working directory (Bazel starts a binary in its runfiles tree),
// and under ./bazelw it is not Bazel's BUILD_WORKING_DIRECTORY either
// (./bazelw enters the checkout before it starts Bazel).
#ifndef DISSECT_TOOLS_CLI_USER_PATH_H_
#define DISSECT_TOOLS_CLI_USER_PATH_H_

#include <string>

#include "absl/status/status.h"

namespace dissect::cli {

// ./bazelw sets it to the folder it was started from, before it enters the
// checkout.
inline constexpr char kCallerDirVariable[] = "DISSECT_CALLER_DIR";

// The folder the user ran the command from: $DISSECT_CALLER_DIR, else
// $BUILD_WORKING_DIRECTORY (set by `bazel run`), else the working directory
// (a binary run directly, e.g. from the bundle). An empty variable counts as
// unset.
std::string CallerDirectory();

// `path` as the user meant it, absolute and lexically normal: an absolute path
// stays where it points, a relative one is joined to CallerDirectory(). A
// leading "~" is not expanded: the shell expands an unquoted ~ before the
// program sees it, so a "~" that arrives here was quoted and names a folder
// called "~". An empty path stays empty ("not given").
std::string UserPath(const std::string& path);

// Makes CallerDirectory() the working directory, so that every relative path
// the binary opens resolves as UserPath() does, and unsets the two variables:
// processes this one starts inherit the working directory instead, and one
// that changes directory is not sent back by a stale variable. Call it first
// thing in main(). An error names the folder that could not be entered.
absl::Status EnterCallerDirectory();

}  // namespace dissect::cli

#endif  // DISSECT_TOOLS_CLI_USER_PATH_H_
