// Golden test for RenderMarkdown: renders the synthetic fixtures in
// analysis/testdata and compares the output byte for byte with the checked-in
// analysis/testdata/*.golden.md files.
//
// After an intended change to the report format, regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/sections:report_golden_test
// (`bazel run` sets BUILD_WORKSPACE_DIRECTORY; the goldens are written to
// $BUILD_WORKSPACE_DIRECTORY/analysis/testdata/), then review
// `git diff analysis/testdata` and run `bazel test //analysis/...`.

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/sections/published.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::ReadText;
using test_util::Runfile;

constexpr char kTestdata[] = "analysis/testdata/";

struct GoldenCase {
  std::string golden;               // File name in analysis/testdata.
  std::vector<std::string> inputs;  // File names in analysis/testdata.
};

// Published values for every case (synthetic, so that the goldens do not
// change with configs/published/memory_hierarchy.json).
constexpr char kPublished[] = "synthetic_published.json";

void PrintTo(const GoldenCase& golden_case, std::ostream* os) {
  *os << golden_case.golden;
}

std::vector<GoldenCase> Cases() {
  return {
      {"synthetic_shared_latency.golden.md", {"synthetic_shared_latency.json"}},
      {"synthetic_relu.golden.md", {"synthetic_relu.json"}},
      // Two experiments; shared_latency from two files of one device (one
      // merged table), relu from two devices (one table per file).
      {"combined.golden.md",
       {"synthetic_shared_latency.json", "synthetic_relu.json",
        "synthetic_relu_a100.json", "synthetic_shared_latency_stride256.json"}},
      // All four memory experiments of one device: the memory-hierarchy
      // section with near/far L2, TLB note and published values.
      {"synthetic_memory.golden.md",
       {"synthetic_memory_latency.json", "synthetic_memory_latency_tlb.json",
        "synthetic_memory_latency_dram.json", "synthetic_latency_trace.json",
        "synthetic_memory_bandwidth.json", "synthetic_shared_bandwidth.json"}},
      // Only shared_bandwidth (one failed row): a table of "—" but shared.
      {"synthetic_memory_partial.golden.md",
       {"synthetic_shared_bandwidth_a100.json"}},
      // CUPTI stall counters in two files (one row missing reasons, one all
      // zero, one skipped) and a file whose counters were unavailable: the
      // stall-reasons section.
      {"synthetic_stalls.golden.md",
       {"synthetic_stalls_relu.json", "synthetic_stalls_shared_latency.json",
        "synthetic_stalls_unavailable.json"}},
  };
}

class ReportGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ReportGoldenTest, MatchesGolden) {
  std::vector<ResultFile> files;
  for (const std::string& input : GetParam().inputs) {
    // Parse from the runfiles copy but name the file by its workspace path,
    // so the device lines in the golden do not depend on the machine.
    const std::string display_path = kTestdata + input;
    absl::StatusOr<ResultFile> file =
        ParseResultJson(test_util::ReadText(test_util::Runfile(display_path)), display_path);
    ASSERT_TRUE(file.ok()) << file.status();
    files.push_back(*std::move(file));
  }
  const std::string published_path = kTestdata + std::string(kPublished);
  absl::StatusOr<std::vector<PublishedValue>> published =
      ParsePublishedJson(test_util::ReadText(test_util::Runfile(published_path)), published_path);
  ASSERT_TRUE(published.ok()) << published.status();
  ReportOptions options;
  options.published = *std::move(published);
  options.published_origin = published_path;
  options.summary = true;
  absl::StatusOr<std::string> report = RenderReport(files, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string actual = *std::move(report);
  const std::string golden_path = kTestdata + GetParam().golden;

  if (const std::optional<std::string> updated =
          test_util::UpdateGolden(actual, golden_path, "//analysis/sections:report_golden_test")) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(actual, test_util::ReadText(test_util::Runfile(golden_path)))
      << test_util::StaleGolden(golden_path, "//analysis/sections:report_golden_test");
}

INSTANTIATE_TEST_SUITE_P(
    Goldens, ReportGoldenTest, ::testing::ValuesIn(Cases()),
    [](const ::testing::TestParamInfo<GoldenCase>& param_info) {
      const std::string& golden = param_info.param.golden;
      std::string name = golden.substr(0, golden.find('.'));
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace dissect::analysis
