// Test helpers for the report sections' golden tests: reading a set of
// result files checked in under analysis/testdata/, and comparing a
// rendering with its golden file (rewritten under DISSECT_UPDATE_GOLDEN=1).

#ifndef DISSECT_ANALYSIS_PLOTS_FIXTURE_TEST_UTIL_H_
#define DISSECT_ANALYSIS_PLOTS_FIXTURE_TEST_UTIL_H_

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "analysis/plots/figures.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::testing {

// Parses `folder` + each of `names` (workspace paths) as result files; a
// file that does not parse fails the test and is left out.
inline std::vector<ResultFile> ReadResultFixtures(const std::string& folder,
                                                  const std::vector<std::string>& names) {
  std::vector<ResultFile> files;
  for (const std::string& name : names) {
    const std::string path = folder + name;
    absl::StatusOr<ResultFile> file = ParseResultJson(test_util::ReadText(test_util::Runfile(path)), path);
    EXPECT_TRUE(file.ok()) << file.status();
    if (file.ok()) files.push_back(*std::move(file));
  }
  return files;
}

// Expects `actual` to equal the golden file at `golden_path` (a workspace
// path); with DISSECT_UPDATE_GOLDEN=1 under `bazel run target` rewrites it.
inline void ExpectMatchesGolden(const std::string& actual, const std::string& golden_path,
                                const std::string& target) {
  if (const std::optional<std::string> updated = test_util::UpdateGolden(actual, golden_path, target)) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(actual, test_util::ReadText(test_util::Runfile(golden_path))) << test_util::StaleGolden(golden_path, target);
}

// Writes `device`'s figure files into a fresh folder of its own (`bazel run`
// has no TEST_TMPDIR, and other tests may draw a device of the same name
// under /tmp at the same time), runs gnuplot on every script and expects
// each to draw its SVG. Sets *dir to the device's folder.
inline void DrawFigures(const DeviceFigures& device, const std::string& test_name,
                        std::filesystem::path* dir) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string base = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", test_name, ".XXXXXX");
  ASSERT_NE(mkdtemp(base.data()), nullptr) << base;
  *dir = std::filesystem::path(base) / device.folder;
  std::filesystem::create_directories(*dir);
  for (const FigureFile& file : device.files) {
    std::ofstream(*dir / file.name, std::ios::binary) << file.contents;
  }
  for (const std::string& script : device.scripts) {
    EXPECT_EQ(RunGnuplot(dir->string(), script), 0) << *dir / script;
    const std::filesystem::path svg =
        *dir / std::filesystem::path(script).replace_extension(".svg");
    EXPECT_NE(test_util::ReadText(svg.string()).find("<svg"), std::string::npos) << svg;
  }
}

// The cells, trimmed, of every markdown table row of `text` whose first
// cell is `first`, in order.
inline std::vector<std::vector<std::string>> TableRows(const std::string& text,
                                                       const std::string& first) {
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, "|")) continue;
    std::vector<std::string> cells;
    for (absl::string_view cell : absl::StrSplit(line, '|')) {
      cells.emplace_back(absl::StripAsciiWhitespace(cell));
    }
    if (!cells.empty() && cells.front() == first) rows.push_back(std::move(cells));
  }
  return rows;
}

// The first of TableRows; empty if there is none.
inline std::vector<std::string> TableRow(const std::string& text, const std::string& first) {
  std::vector<std::vector<std::string>> rows = TableRows(text, first);
  return rows.empty() ? std::vector<std::string>() : std::move(rows.front());
}

// A cell of a TableRow that contains `text`.
inline ::testing::Matcher<std::vector<std::string>> CellWith(const std::string& text) {
  return ::testing::Contains(::testing::HasSubstr(text));
}

}  // namespace dissect::analysis::testing

#endif  // DISSECT_ANALYSIS_PLOTS_FIXTURE_TEST_UTIL_H_
