// Test helpers for //analysis tests: locating runfiles and reading files.

#ifndef DISSECT_ANALYSIS_TEST_UTIL_H_
#define DISSECT_ANALYSIS_TEST_UTIL_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace dissect::analysis::testing {

// Absolute path of a runfile given its workspace-relative path (e.g.
// "analysis/testdata/foreign.json"). Works under `bazel test` (TEST_SRCDIR)
// and `bazel run` (RUNFILES_DIR, or the runfiles tree as working directory).
inline std::string Runfile(const std::string& workspace_path) {
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string name =
      workspace != nullptr && *workspace != '\0' ? workspace : "dissect";
  for (const char* var : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    const char* dir = std::getenv(var);
    if (dir != nullptr && *dir != '\0') {
      return std::string(dir) + "/" + name + "/" + workspace_path;
    }
  }
  return workspace_path;
}

// Contents of `path`, or "" if it cannot be read.
inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace dissect::analysis::testing

#endif  // DISSECT_ANALYSIS_TEST_UTIL_H_
