// Golden test for BuildFigures: the gnuplot data and scripts generated for
// the synthetic memory fixtures and the stall fixtures, compared byte for
// byte with analysis/testdata/synthetic_figures.golden.txt and
// analysis/testdata/synthetic_stalls_figures.golden.txt.
//
// After an intended change, regenerate with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/plots:figures_golden_test
// and review `git diff analysis/testdata`.

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/plots/figures.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::ReadText;
using test_util::Runfile;

constexpr char kTestdata[] = "analysis/testdata/";
constexpr char kGolden[] = "synthetic_figures.golden.txt";
constexpr char kStallsGolden[] = "synthetic_stalls_figures.golden.txt";

// The golden files of every device's figures, in order.
std::string Render(const std::vector<DeviceFigures>& figures) {
  std::string actual;
  for (const DeviceFigures& device : figures) {
    for (const FigureFile& file : device.files) {
      absl::StrAppend(&actual, "==> ", device.folder, "/", file.name, " <==\n",
                      file.contents);
    }
  }
  return actual;
}

std::vector<ResultFile> ReadFixtures(const std::vector<std::string>& inputs) {
  std::vector<ResultFile> files;
  for (const std::string& input : inputs) {
    const std::string path = kTestdata + input;
    absl::StatusOr<ResultFile> file =
        ParseResultJson(test_util::ReadText(test_util::Runfile(path)), path);
    EXPECT_TRUE(file.ok()) << file.status();
    if (file.ok()) files.push_back(*std::move(file));
  }
  return files;
}

// Compares `actual` with testdata/`golden`, or rewrites the golden under
// DISSECT_UPDATE_GOLDEN=1.
void CheckGolden(const std::string& actual, const std::string& golden) {
  const std::string golden_path = kTestdata + golden;
  if (const std::optional<std::string> updated =
          test_util::UpdateGolden(actual, golden_path, "//analysis/plots:figures_golden_test")) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(actual, test_util::ReadText(test_util::Runfile(golden_path)))
      << test_util::StaleGolden(golden_path, "//analysis/plots:figures_golden_test");
}

TEST(FiguresGoldenTest, MatchesGolden) {
  const std::vector<ResultFile> files = ReadFixtures(
      {"synthetic_memory_latency.json", "synthetic_memory_latency_tlb.json",
       "synthetic_memory_bandwidth.json", "synthetic_latency_trace.json"});
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(files);
  ASSERT_TRUE(figures.ok()) << figures.status();
  CheckGolden(Render(*figures), kGolden);
}

// The stall-breakdown figure: two files of one device (one row missing
// reasons, one all zero) and one without stall counters.
TEST(FiguresGoldenTest, StallBreakdownMatchesGolden) {
  const std::vector<ResultFile> files = ReadFixtures(
      {"synthetic_stalls_relu.json", "synthetic_stalls_shared_latency.json",
       "synthetic_stalls_unavailable.json"});
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(files);
  ASSERT_TRUE(figures.ok()) << figures.status();
  CheckGolden(Render(*figures), kStallsGolden);
}

}  // namespace
}  // namespace dissect::analysis
