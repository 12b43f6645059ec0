// Test helper: where the peer data lives (real results published by other
// GPU microbenchmark suites, ../shared/data/peers beside the repository
// root). Tests read those files in place and skip when the folder is absent:
//
//   const std::string peers = testing::FindPeersDir();
//   if (!testing::IsDirectory(peers)) GTEST_SKIP() << testing::PeersMissing(peers);

#ifndef DISSECT_ANALYSIS_IMPORTERS_PEERS_TEST_UTIL_H_
#define DISSECT_ANALYSIS_IMPORTERS_PEERS_TEST_UTIL_H_

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "tools/testing/test_util.h"

namespace dissect::analysis::testing {

// A file of this repository that tests depending on :peers_test_util have as
// a runfile; its real path leads back to the source tree.
inline constexpr char kPeersAnchorRunfile[] = "analysis/testdata/peers/README.md";

// The folder that should hold the peer data: $DISSECT_PEERS_DIR if set, else
// `../shared/data/peers` relative to the repository root, which is found by
// resolving the symlink of a runfile into the source tree. The folder may not
// exist; check with IsDirectory().
inline std::string FindPeersDir() {
  const char* env = std::getenv("DISSECT_PEERS_DIR");
  if (env != nullptr && *env != '\0') return env;
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path anchor = fs::canonical(test_util::Runfile(kPeersAnchorRunfile), error);
  if (error) return "../shared/data/peers";
  // anchor = <root>/analysis/testdata/peers/README.md
  const fs::path root = anchor.parent_path().parent_path().parent_path().parent_path();
  return (root.parent_path() / "shared" / "data" / "peers").string();
}

// Whether `path` is an existing directory.
inline bool IsDirectory(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_directory(path, error);
}

// The reason to give GTEST_SKIP() when the peer data folder is absent.
inline std::string PeersMissing(const std::string& path) {
  return "peer data folder not found at " + path + " (see analysis/README.md)";
}

}  // namespace dissect::analysis::testing

#endif  // DISSECT_ANALYSIS_IMPORTERS_PEERS_TEST_UTIL_H_
