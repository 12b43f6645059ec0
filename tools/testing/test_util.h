// Test helpers for every dissect test: fresh temporary folders, runfiles,
// reading files, golden files, and the checks on published sources.

#ifndef DISSECT_TOOLS_TESTING_TEST_UTIL_H_
#define DISSECT_TOOLS_TESTING_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"

namespace dissect::test_util {

// A fresh, empty folder `name` under the test's temporary folder
// ($TEST_TMPDIR, else /tmp); whatever an earlier test left there is removed.
inline std::filesystem::path FreshTempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Absolute path of a runfile given its workspace-relative path (e.g.
// "analysis/testdata/foreign.json"). Works under `bazel test` (TEST_SRCDIR)
// and `bazel run` (RUNFILES_DIR, or the runfiles tree as working directory).
inline std::string Runfile(const std::string& workspace_path) {
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string name = workspace != nullptr && *workspace != '\0' ? workspace : "dissect";
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

// Golden files. Under DISSECT_UPDATE_GOLDEN=1 and `bazel run <target>`,
// writes `actual` to the source tree's `golden_path` (workspace-relative) and
// returns "" (or why it could not); otherwise returns nullopt and the test
// compares with the golden:
//
//   if (auto updated = UpdateGolden(actual, path, target)) { EXPECT_EQ(*updated, ""); return; }
//   EXPECT_EQ(actual, ReadText(Runfile(path))) << StaleGolden(path, target);
inline std::optional<std::string> UpdateGolden(const std::string& actual,
                                               const std::string& golden_path,
                                               const std::string& target) {
  const char* update = std::getenv("DISSECT_UPDATE_GOLDEN");
  if (update == nullptr || std::string(update) != "1") return std::nullopt;
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace == nullptr || *workspace == '\0') {
    return "DISSECT_UPDATE_GOLDEN=1 needs `bazel run " + target +
           "` (BUILD_WORKSPACE_DIRECTORY unset)";
  }
  const std::string out_path = std::string(workspace) + "/" + golden_path;
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out << actual;
  out.close();
  if (!out.good()) return "cannot write " + out_path;
  std::cerr << "updated " << out_path << "\n";
  return std::string();
}

// The message for a golden that no longer matches.
inline std::string StaleGolden(const std::string& golden_path, const std::string& target) {
  return golden_path + " is stale; if the change is intended, regenerate with " +
         "DISSECT_UPDATE_GOLDEN=1 bazel run " + target;
}

// Text a user reads (a published value's source or note, a catalog entry's
// claim) must make sense outside the project's tracker and work log. Returns
// the first project-internal phrase in `text` (an issue number, the issue
// tracker, a work session, "offline", the maintainers as an author), or ""
// if it has none.
inline std::string ProjectInternalPhrase(const std::string& text) {
  const std::string lower = absl::AsciiStrToLower(text);
  static const std::regex kIssueNumber("issues? *#? *[0-9]+");
  std::smatch match;
  if (std::regex_search(lower, match, kIssueNumber)) return match.str();
  for (const char* phrase : {"issue tracker", "session", "offline", "dissect maintainers"}) {
    if (lower.find(phrase) != std::string::npos) return phrase;
  }
  return "";
}

// Why a published value's source is not one a reader can follow: it is
// empty, points into the project's issues, or uses a project-internal phrase
// (ProjectInternalPhrase); "" if none of these.
inline std::string UnfollowableSource(const std::string& source) {
  if (source.find_first_not_of(" \t") == std::string::npos) return "the source is empty";
  if (absl::AsciiStrToLower(source).find("issue") != std::string::npos) {
    return "the source points into the project's issues (\"" + source + "\")";
  }
  const std::string phrase = ProjectInternalPhrase(source);
  if (!phrase.empty()) return "the source says \"" + phrase + "\"";
  return "";
}

}  // namespace dissect::test_util

#endif  // DISSECT_TOOLS_TESTING_TEST_UTIL_H_
