// Test helpers for the report sections' golden tests: reading a set of
// result files checked in under analysis/testdata/, and comparing a
// rendering with its golden file (rewritten under DISSECT_UPDATE_GOLDEN=1).

#ifndef DISSECT_ANALYSIS_FIXTURE_TEST_UTIL_H_
#define DISSECT_ANALYSIS_FIXTURE_TEST_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/results.h"
#include "analysis/test_util.h"
#include "gtest/gtest.h"

namespace dissect::analysis::testing {

// Parses `folder` + each of `names` (workspace paths) as result files; a
// file that does not parse fails the test and is left out.
inline std::vector<ResultFile> ReadResultFixtures(const std::string& folder,
                                                  const std::vector<std::string>& names) {
  std::vector<ResultFile> files;
  for (const std::string& name : names) {
    const std::string path = folder + name;
    absl::StatusOr<ResultFile> file = ParseResultJson(ReadText(Runfile(path)), path);
    EXPECT_TRUE(file.ok()) << file.status();
    if (file.ok()) files.push_back(*std::move(file));
  }
  return files;
}

// Expects `actual` to equal the golden file at `golden_path` (a workspace
// path); with DISSECT_UPDATE_GOLDEN=1 under `bazel run target` rewrites it.
inline void ExpectMatchesGolden(const std::string& actual, const std::string& golden_path,
                                const std::string& target) {
  if (const std::optional<std::string> updated = UpdateGolden(actual, golden_path, target)) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(actual, ReadText(Runfile(golden_path))) << StaleGolden(golden_path, target);
}

}  // namespace dissect::analysis::testing

#endif  // DISSECT_ANALYSIS_FIXTURE_TEST_UTIL_H_
