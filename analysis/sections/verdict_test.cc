// //analysis:verdict: the ranges file and its reader, the ncu CSV reader,
// the verdict binary end to end on the synthetic fixtures of
// testdata/verdict/ (goldens; every number there is invented, see
// make_synthetic_verdict.py), and the peers column on the real peer files
// (../shared/data/peers; skipped with the reason where that is absent).
// Regenerate the goldens: DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/sections:verdict_test

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "analysis/importers/peers_test_util.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "analysis/sections/verdict.h"
#include "analysis/sections/verdict_ranges.h"
#include "analysis/sections/verdict_ranges_embedded.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kTarget[] = "//analysis/sections:verdict_test";
constexpr char kData[] = "analysis/testdata/verdict/";

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

struct CliRun {
  int status = -1;
  std::string out, err;
};

// The verdict binary with `args` (words without shell syntax), from the
// runfiles root, so that the paths it prints are workspace paths.
CliRun RunVerdict(const std::string& args) {
  const std::string out = TmpDir() + "/verdict.out", err = TmpDir() + "/verdict.err";
  const int raw = std::system(
      absl::StrCat(test_util::Runfile("analysis/verdict"), " ", args, " > ", out, " 2> ", err)
          .c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, test_util::ReadText(out), test_util::ReadText(err)};
}

// The first line of `text` after `from` that contains `needle`; "" if none.
std::string LineWith(const std::string& text, const std::string& needle,
                     const std::string& from = "") {
  const size_t start = from.empty() ? 0 : text.find(from);
  if (start == std::string::npos) return "";
  const size_t at = text.find(needle, start);
  if (at == std::string::npos) return "";
  const size_t begin = text.rfind('\n', at) + 1, end = text.find('\n', at);
  return text.substr(begin, end - begin);
}

void ExpectGolden(const std::string& actual, const std::string& name) {
  const std::string path = std::string(kData) + name;
  if (auto updated = test_util::UpdateGolden(actual, path, kTarget)) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(actual, test_util::ReadText(test_util::Runfile(path))) << test_util::StaleGolden(path, kTarget);
}

// in_range/ with some files left out or replaced, as arguments.
std::string InRangeFiles(const std::vector<std::string>& leave_out,
                         const std::vector<std::string>& add) {
  std::vector<std::string> files;
  for (const char* f : {"cublaslt_gemm", "dsm_latency", "gpc_topology", "memory_bandwidth",
                        "memory_latency", "mma_sync", "relu_cupti", "shared_bandwidth", "wgmma"}) {
    if (std::find(leave_out.begin(), leave_out.end(), f) == leave_out.end()) {
      files.push_back(absl::StrCat(kData, "in_range/", f, ".json"));
    }
  }
  files.push_back(absl::StrCat(kData, "in_range/ncu_relu/ncu_relu.csv"));
  for (const std::string& a : add) files.push_back(kData + a);
  return absl::StrJoin(files, " ");
}

TEST(VerdictRanges, TheShippedFileParsesAndIsBuiltIn) {
  const std::string text = test_util::ReadText(test_util::Runfile("configs/verdict/h100.json"));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text, kEmbeddedVerdictRangesJson) << "rebuild: the binary's ranges are stale";
  absl::StatusOr<VerdictRanges> ranges = ParseVerdictRanges(text, "h100.json");
  ASSERT_TRUE(ranges.ok()) << ranges.status();
  EXPECT_EQ(ranges->headlines.size(), 21u);
  for (const VerdictHeadline& h : ranges->headlines) {
    for (const VerdictJudgement& j : h.judge) {
      EXPECT_GT(j.why.size(), 20u) << h.id << ": a range says why";
    }
  }
  ASSERT_EQ(ranges->cross_checks.size(), 1u);
  EXPECT_EQ(ranges->cross_checks[0].ncu_metric, "dram__bytes_read.sum");
}

// What a reader sees of the shipped ranges is followable outside the
// project: each source key gives an address (or says that no document
// states its figures), and no reason or source points into the project's
// issues, work notes or shared files.
TEST(VerdictRanges, TheShippedFileCitesWhatAReaderCanFollow) {
  absl::StatusOr<VerdictRanges> ranges =
      ParseVerdictRanges(kEmbeddedVerdictRangesJson, kEmbeddedVerdictRangesOrigin);
  ASSERT_TRUE(ranges.ok()) << ranges.status();
  for (const auto& [key, text] : ranges->sources) {
    EXPECT_TRUE(text.find("https://") != std::string::npos || key == "UNPUBLISHED")
        << key << ": no address in \"" << text << "\"";
    EXPECT_EQ(test_util::ProjectInternalPhrase(text), "") << key;
    EXPECT_THAT(text, Not(HasSubstr("h100.md"))) << key;
  }
  for (const VerdictHeadline& h : ranges->headlines) {
    for (const VerdictJudgement& j : h.judge) {
      EXPECT_EQ(test_util::ProjectInternalPhrase(j.why), "") << h.id;
      EXPECT_THAT(j.why, Not(HasSubstr("h100.md"))) << h.id;
      EXPECT_THAT(j.why, Not(HasSubstr("lent"))) << h.id;
      for (const VerdictPublished& p : j.published) {
        EXPECT_EQ(test_util::UnfollowableSource(p.source), "") << h.id;
        EXPECT_THAT(p.source, Not(HasSubstr("h100.md"))) << h.id;
      }
    }
  }
}

TEST(VerdictRanges, BadFilesAreOneLineErrors) {
  const std::string base = test_util::ReadText(test_util::Runfile("configs/verdict/h100.json"));
  const struct {
    std::string from, to, error;
  } cases[] = {
      {"dissect.verdict_ranges.v1", "dissect.verdict_ranges.v9", "not a verdict ranges file"},
      {"\"range\": [20, 27]", "\"range\": [27, 20]", "headlines[0] (shared_latency): judge[0]: \"range\" low > high"},
      {"\"devices\": \"hopper\", \"range\": [20, 27]", "\"devices\": \"hoper\", \"range\": [20, 27]",
       "device set \"hoper\" is not in device_sets"},
      {"\"source\": \"JMS, H100 SXM5 at 1980 MHz\"}", "\"source\": \"JMZ, H100 SXM5\"}",
       "does not start with a key of \"sources\""},
      {"\"reduce\": \"best_of_medians\", \"knob\": \"bytes_in_flight_per_thread\"",
       "\"reduce\": \"best_of_medians\"", "has no \"knob\""},
      {"\"likely_causes_low\"", "\"likely_cause_low\"", "unknown key \"likely_cause_low\""},
      {"\"kinds\"", "\"kinds\": [], \"kinds2\"", "unknown key \"kinds2\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.to);
    const std::string text = absl::StrReplaceAll(base, {{c.from, c.to}});
    ASSERT_NE(text, base) << "the case no longer applies to h100.json";
    absl::StatusOr<VerdictRanges> ranges = ParseVerdictRanges(text, "bad.json");
    ASSERT_FALSE(ranges.ok());
    EXPECT_THAT(std::string(ranges.status().message()), StartsWith("bad.json"));
    EXPECT_THAT(std::string(ranges.status().message()), HasSubstr(c.error));
    EXPECT_EQ(std::string(ranges.status().message()).find('\n'), std::string::npos);
  }
  EXPECT_FALSE(ParseVerdictRanges("{", "x").ok());
}

TEST(NcuCsv, DetailsPageWithPrefixedUnitsAndSeparators) {
  const std::string text =
      "==PROF== Connected to process 1\nsome output of the application\n"
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"ReluKernel(float4, float4)\",\"dram__bytes_read.sum\",\"Gbyte\",\"1.07\"\n"
      "\"0\",\"ReluKernel(float4, float4)\",\"dram__bytes_write.sum\",\"byte\",\"1,073,741,824\"\n"
      "\"1\",\"ReluKernel(float4, float4)\",\"dram__bytes_read.sum\",\"byte\",\"5\"\n";
  absl::StatusOr<NcuCsv> csv = ParseNcuCsv(text, "a.csv");
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_DOUBLE_EQ(csv->values.at("dram__bytes_read.sum"), 1.07e9);  // the first kernel's
  EXPECT_DOUBLE_EQ(csv->values.at("dram__bytes_write.sum"), 1073741824);
}

TEST(NcuCsv, RawPageAndNoHeader) {
  absl::StatusOr<NcuCsv> raw = ParseNcuCsv(
      "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\"\n\"\",\"\",\"Mbyte\"\n"
      "\"0\",\"k\",\"1,024.5\"\n",
      "raw.csv");
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_DOUBLE_EQ(raw->values.at("dram__bytes_read.sum"), 1024.5e6);
  absl::StatusOr<NcuCsv> none = ParseNcuCsv("file,device,name\n", "stalls.csv");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()), StartsWith("stalls.csv: no ncu CSV header"));
}

TEST(VerdictCli, AllInRange) {
  const CliRun run = RunVerdict(absl::StrCat("--peers=none ", kData, "in_range"));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("verdict: 22 in range, 0 out of range, 0 missing\n"));
  ExpectGolden(run.out, "in_range.golden.md");
}

TEST(VerdictCli, OneOutOfRangeShowsItsCauses) {
  const CliRun run = RunVerdict(
      "--peers=none " + InRangeFiles({"memory_latency"}, {"variants/memory_latency_far_low.json"}));
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_THAT(run.out, StartsWith("verdict: 21 in range, 1 out of range, 0 missing\n"));
  EXPECT_THAT(run.out, HasSubstr("#### `l2_far_latency`: OUT OF RANGE: 333 cycles below [450, 550]"));
  EXPECT_THAT(run.out, HasSubstr("- the near partition only"));
  ExpectGolden(run.out, "out_of_range.golden.md");
}

TEST(VerdictCli, AMissingHeadlineIsCountedNotFatal) {
  const CliRun run = RunVerdict("--peers=none " + InRangeFiles({"gpc_topology"}, {}));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("verdict: 21 in range, 0 out of range, 1 missing\n"));
  EXPECT_THAT(LineWith(run.out, "`gpc_count`"), HasSubstr("| missing "));
}

TEST(VerdictCli, AnotherDeviceIsNotJudgedAgainstH100Ranges) {
  const CliRun run = RunVerdict(absl::StrCat("--peers=none ", kData, "in_range ", kData,
                                          "variants/a100_memory_latency.json"));
  EXPECT_EQ(run.status, 0) << run.err;
  // The A100's far L2 (401 cycles) would be out of the H100 range: not judged.
  EXPECT_THAT(run.out, StartsWith("verdict: 22 in range, 0 out of range, 0 missing\n"));
  EXPECT_THAT(run.out, HasSubstr("## SYNTHETIC A100-SXM4-80GB (test data) · cc 8.0 · 108 SMs"));
  const std::string far = LineWith(run.out, "`l2_far_latency`", "## SYNTHETIC A100");
  EXPECT_THAT(far, HasSubstr("401 cycles | 1410 MHz, 5a7114e0c0ff"));
  EXPECT_THAT(far, HasSubstr("not judged (no ranges for SYNTHETIC A100-SXM4-80GB (test data))"));
}

TEST(VerdictCli, OnlyAnotherDevicesFilesLeaveEveryHeadlineMissing) {
  const CliRun run =
      RunVerdict(absl::StrCat("--peers=none ", kData, "variants/a100_memory_latency.json"));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("verdict: 0 in range, 0 out of range, 21 missing\n"));
  EXPECT_THAT(run.out, HasSubstr("No result file of a device these ranges judge: all 21 headlines"));
}

TEST(VerdictCli, BadInput) {
  EXPECT_EQ(RunVerdict("").status, 2);
  const CliRun flag = RunVerdict("--frobnicate x");
  EXPECT_EQ(flag.status, 2);
  EXPECT_EQ(flag.err, "verdict: unknown flag '--frobnicate' (see --help)\n");
  const std::string bad_ranges = TmpDir() + "/bad_ranges.json";
  std::ofstream(bad_ranges) << "{\"format\": \"dissect.verdict_ranges.v1\"}";
  const CliRun ranges = RunVerdict(absl::StrCat("--ranges=", bad_ranges, " ", kData, "in_range"));
  EXPECT_EQ(ranges.status, 2);
  EXPECT_THAT(ranges.err, HasSubstr("bad_ranges.json: \"sources\" is not a non-empty object"));
  EXPECT_TRUE(ranges.out.empty());
  const CliRun peers = RunVerdict(absl::StrCat("--peers=/nonexistent ", kData, "in_range"));
  EXPECT_EQ(peers.status, 2);
  const std::string empty = TmpDir() + "/empty";
  std::filesystem::create_directories(empty);
  EXPECT_EQ(RunVerdict("--peers=none " + empty).status, 2);
  const std::string only_bad = TmpDir() + "/only_bad";
  std::filesystem::create_directories(only_bad);
  std::ofstream(only_bad + "/cut.json") << "{\"context\": {";
  const CliRun none = RunVerdict("--peers=none " + only_bad);
  EXPECT_EQ(none.status, 2);
  EXPECT_THAT(none.err, HasSubstr("verdict: no readable result file"));
}

TEST(VerdictCli, ACorruptFileIsNamedAndLeftOut) {
  const std::string dir = TmpDir() + "/with_corrupt";
  std::filesystem::create_directories(dir);
  std::filesystem::copy(test_util::Runfile(std::string(kData) + "in_range"), dir,
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir + "/truncated.json") << "{\"context\": {\"dissect_schema_version\": \"1\"";
  const CliRun run = RunVerdict("--peers=none " + dir);
  EXPECT_EQ(run.status, 0);
  EXPECT_THAT(run.err, HasSubstr("truncated.json"));
  EXPECT_THAT(run.out, StartsWith("verdict: 22 in range, 0 out of range, 0 missing\n"));
  EXPECT_THAT(run.out, HasSubstr("Unreadable result files left out: 1 (named on stderr)."));
}

// The peers column on the real published files: the same kind of device
// only (H100 and GH200 for an H100; never the A100 files), with the level
// and the file named.
TEST(VerdictPeers, RealPeerFilesBesideAnH100) {
  const std::string peers_dir = testing::FindPeersDir();
  if (!testing::IsDirectory(peers_dir)) GTEST_SKIP() << testing::PeersMissing(peers_dir);
  absl::StatusOr<VerdictRanges> ranges =
      ParseVerdictRanges(kEmbeddedVerdictRangesJson, kEmbeddedVerdictRangesOrigin);
  ASSERT_TRUE(ranges.ok()) << ranges.status();
  VerdictInputs inputs;
  inputs.peers = LoadVerdictPeers(*ranges, peers_dir);
  for (const VerdictPeerTable& t : inputs.peers.tables) EXPECT_EQ(t.problem, "") << t.peer.file;
  absl::StatusOr<ReadResults> read =
      ReadResultFiles({test_util::Runfile(std::string(kData) + "in_range")});
  ASSERT_TRUE(read.ok()) << read.status();
  inputs.files = read->files;
  const std::string out = JudgeHeadlines(inputs, *ranges).markdown;
  EXPECT_THAT(out, HasSubstr("499.5 cycles (L2 far; gpu-benches@1038c5d0d0f4, NVIDIA GH200 480GB, "
                             "gpu-benches/gpu-latency_gh200.txt)"));
  EXPECT_THAT(out, HasSubstr("38 cycles (L1; mt4g@4cc55662a954, NVIDIA H100 80GB HBM3, "
                             "mt4g/NVIDIA_H100_80GB_HBM3.json)"));
  EXPECT_THAT(out, HasSubstr("(L2; gpu-benches@1038c5d0d0f4, NVIDIA H100 PCIe, "
                             "gpu-benches/gpu-l2-cache_h100_pcie.txt)"));
  EXPECT_THAT(out, Not(HasSubstr("A100")));
  EXPECT_THAT(out, Not(HasSubstr("H200,")));
}

}  // namespace
}  // namespace dissect::analysis
