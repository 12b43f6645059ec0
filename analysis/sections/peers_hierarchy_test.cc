// The memory-hierarchy inference on curves measured on real GPUs by other
// suites (../shared/data/peers, read in place through analysis/import; the
// test skips with the reason when that folder is absent). The expected
// ranges are the levels one reads off those curves by eye: a
// regression here means the rules no longer hold on real data, where
// transitions are gradual, L2 has a near and a far partition and DRAM
// latency creeps up with the footprint.

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "analysis/format/format.h"
#include "analysis/importers/import.h"
#include "analysis/sections/memory_hierarchy.h"
#include "analysis/importers/peers_test_util.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * kKiB;

class PeersHierarchyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peers_ = testing::FindPeersDir();
    if (!testing::IsDirectory(peers_)) GTEST_SKIP() << testing::PeersMissing(peers_);
  }

  // Imports `relative` (under the peers folder) with `options` and parses
  // the result, as `import` followed by `report` would.
  ResultFile Import(const std::string& relative, ImportOptions options) {
    const std::string path = peers_ + "/" + relative;
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    std::ostringstream text;
    text << in.rdbuf();
    absl::StatusOr<ImportedFile> imported = ImportPeerText(text.str(), path, options);
    EXPECT_TRUE(imported.ok()) << imported.status();
    if (!imported.ok()) return {};
    absl::StatusOr<ResultFile> file = ParseResultJson(imported->json, path);
    EXPECT_TRUE(file.ok()) << file.status();
    return file.ok() ? *std::move(file) : ResultFile{};
  }

  static DeviceHierarchy InferOne(const std::vector<ResultFile>& files) {
    absl::StatusOr<std::vector<DeviceHierarchy>> tables = InferMemoryHierarchies(files);
    EXPECT_TRUE(tables.ok()) << tables.status();
    EXPECT_EQ(tables.ok() ? tables->size() : 0u, 1u);
    if (!tables.ok() || tables->empty()) return {};
    return tables->front();
  }

  static double Value(const DeviceHierarchy& h, const std::string& level,
                      std::optional<double> HierarchyRow::*field) {
    const HierarchyRow* row = h.Find(level);
    EXPECT_NE(row, nullptr) << level;
    if (row == nullptr) return -1;
    EXPECT_TRUE((row->*field).has_value()) << level;
    return (row->*field).value_or(-1);
  }

  static ImportOptions GpuBenches(const std::string& device, const std::string& cc, int sms,
                                  double l2_bytes) {
    ImportOptions options;
    options.from = "gpu-benches";
    options.source_version = "1038c5d0d0f4";
    options.device_name = device;
    options.compute_capability = cc;
    options.sm_count = sms;
    options.l2_bytes = l2_bytes;
    return options;
  }

  std::string peers_;
};

#define EXPECT_IN(value, lo, hi) EXPECT_THAT(value, AllOf(::testing::Ge(lo), ::testing::Le(hi)))

TEST_F(PeersHierarchyTest, Gh200LatencyLevels) {
  const DeviceHierarchy h =
      InferOne({Import("gpu-benches/gpu-latency_gh200.txt",
                       GpuBenches("NVIDIA GH200 480GB", "9.0", 132, 50 * kMiB))});
  EXPECT_EQ(h.source, "gpu-benches@1038c5d0d0f4");
  EXPECT_IN(Value(h, "L1", &HierarchyRow::latency_cycles), 31, 33);
  EXPECT_IN(Value(h, "L1", &HierarchyRow::capacity_bytes), 200 * kKiB, 230 * kKiB);
  // Not the 2-point run at 229-238 KiB, halfway up the L1->L2 slope.
  EXPECT_IN(Value(h, "L2", &HierarchyRow::latency_cycles), 270, 290);
  EXPECT_IN(Value(h, "L2 near", &HierarchyRow::latency_cycles), 270, 290);
  EXPECT_IN(Value(h, "L2 far", &HierarchyRow::latency_cycles), 480, 520);
  EXPECT_IN(Value(h, "L2 near", &HierarchyRow::footprint_first), 280 * kKiB, 340 * kKiB);
  EXPECT_IN(Value(h, "L2 far", &HierarchyRow::footprint_last), 50 * kMiB, 60 * kMiB);
  EXPECT_IN(Value(h, "DRAM", &HierarchyRow::latency_cycles), 600, 700);
  EXPECT_THAT(h.notes, Contains(HasSubstr("TLB creep")));
  // The L2 size came from import's --l2_bytes, not from a driver.
  EXPECT_THAT(h.notes, Contains(HasSubstr("device_l2_bytes is 50 MiB, given to "
                                          "//analysis:import by a flag")));
  EXPECT_THAT(h.notes, Not(Contains(HasSubstr("driver"))));
}

TEST_F(PeersHierarchyTest, A100LatencyLevels) {
  const DeviceHierarchy h =
      InferOne({Import("gpu-benches/gpu-latency_a100_80.txt",
                       GpuBenches("NVIDIA A100-SXM4-80GB", "8.0", 108, 40 * kMiB))});
  EXPECT_IN(Value(h, "L1", &HierarchyRow::latency_cycles), 32, 34);
  EXPECT_IN(Value(h, "L1", &HierarchyRow::capacity_bytes), 140 * kKiB, 170 * kKiB);
  EXPECT_IN(Value(h, "L2 near", &HierarchyRow::latency_cycles), 200, 250);
  EXPECT_IN(Value(h, "L2 far", &HierarchyRow::latency_cycles), 380, 420);
  EXPECT_IN(Value(h, "DRAM", &HierarchyRow::latency_cycles), 510, 560);
  // The 4-point climb at 20-22 MiB is a transition, not a third L2 level.
  EXPECT_THAT(h.notes, ::testing::Not(Contains(HasSubstr("L2 levels"))));
}

TEST_F(PeersHierarchyTest, A100CacheBandwidthHasL1AndL2) {
  const DeviceHierarchy h =
      InferOne({Import("gpu-benches/gpu-cache_a100_80.txt",
                       GpuBenches("NVIDIA A100-SXM4-80GB", "8.0", 108, 40 * kMiB))});
  // Every SM reads the same data set: ~19 TB/s from L1 up to ~150 KiB a
  // SM, ~5 TB/s from L2, and no DRAM level at all.
  EXPECT_IN(Value(h, "L1", &HierarchyRow::bandwidth), 18000, 19500);
  EXPECT_IN(Value(h, "L2", &HierarchyRow::bandwidth), 4500, 5600);
  EXPECT_EQ(h.Find("DRAM")->bandwidth, std::nullopt);
}

// All three A100 logs together, as `import` of the three files and one
// `report` give them: the latency curve's L1 capacity (~152 KiB) is less
// than where gpu-cache's L1 bandwidth level ends (~172 KiB), which must not
// make that level L2.
TEST_F(PeersHierarchyTest, A100LatencyAndBothBandwidthLogsTogether) {
  const ImportOptions options = GpuBenches("NVIDIA A100-SXM4-80GB", "8.0", 108, 40 * kMiB);
  const DeviceHierarchy h = InferOne({Import("gpu-benches/gpu-latency_a100_80.txt", options),
                                      Import("gpu-benches/gpu-cache_a100_80.txt", options),
                                      Import("gpu-benches/gpu-l2-cache_a100_80.txt", options)});
  EXPECT_IN(Value(h, "L1", &HierarchyRow::bandwidth), 18000, 19500);
  EXPECT_IN(Value(h, "L2", &HierarchyRow::bandwidth), 4500, 5600);
  EXPECT_IN(Value(h, "DRAM", &HierarchyRow::bandwidth), 1700, 1900);
  EXPECT_IN(Value(h, "L2 far", &HierarchyRow::latency_cycles), 380, 420);
}

TEST_F(PeersHierarchyTest, L2CacheBandwidthIsL2ThenDram) {
  struct Case {
    const char* file;
    const char* device;
    const char* cc;
    int sms;
    double l2_bytes;
    double l2_lo, l2_hi, dram_lo, dram_hi;
  };
  for (const Case& c : {
           Case{"gpu-benches/gpu-l2-cache_h100_pcie.txt", "NVIDIA H100 PCIe", "9.0", 114, 50 * kMiB,
                6800, 7200, 1900, 2050},
           Case{"gpu-benches/gpu-l2-cache_h200.txt", "NVIDIA H200", "9.0", 132, 60 * kMiB, 9500,
                10700, 3800, 3950},
           Case{"gpu-benches/gpu-l2-cache_a100_80.txt", "NVIDIA A100-SXM4-80GB", "8.0", 108,
                40 * kMiB, 5200, 5500, 1700, 1900},
       }) {
    SCOPED_TRACE(c.file);
    const DeviceHierarchy h =
        InferOne({Import(c.file, GpuBenches(c.device, c.cc, c.sms, c.l2_bytes))});
    EXPECT_EQ(h.Find("L1")->bandwidth, std::nullopt);
    EXPECT_IN(Value(h, "L2", &HierarchyRow::bandwidth), c.l2_lo, c.l2_hi);
    EXPECT_IN(Value(h, "DRAM", &HierarchyRow::bandwidth), c.dram_lo, c.dram_hi);
  }
}

TEST_F(PeersHierarchyTest, Mt4gSummaries) {
  ImportOptions options;
  options.from = "mt4g";
  options.source_version = "4cc55662a954";
  const DeviceHierarchy h = InferOne({Import("mt4g/NVIDIA_H100_80GB_HBM3.json", options)});
  EXPECT_EQ(h.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h.source, "mt4g@4cc55662a954");
  EXPECT_DOUBLE_EQ(Value(h, "L1", &HierarchyRow::latency_cycles), 38.0);
  EXPECT_DOUBLE_EQ(Value(h, "L1", &HierarchyRow::capacity_bytes), 238848);
  EXPECT_NEAR(Value(h, "L2", &HierarchyRow::latency_cycles), 219.345, 0.001);
  EXPECT_DOUBLE_EQ(Value(h, "L2", &HierarchyRow::capacity_bytes), 52428800);
  EXPECT_NEAR(Value(h, "DRAM", &HierarchyRow::latency_cycles), 834.476, 0.001);
  // 2561.03 GiB/s read, in GB/s.
  EXPECT_NEAR(Value(h, "DRAM", &HierarchyRow::bandwidth), 2561.0317 * 1.073741824, 0.01);
  EXPECT_FALSE(h.Find("L2")->method.empty());

  const DeviceHierarchy a100 = InferOne({Import("mt4g/NVIDIA_A100-PCIE-40GB.json", options)});
  EXPECT_THAT(a100.device_name, HasSubstr("A100"));
  EXPECT_TRUE(a100.Find("L2")->latency_cycles.has_value());
}


// `report` on the peer files leads with the answer: a summary table per
// device within 160 columns, each value named by the program that measured
// it (gpu-cache's L1 bandwidth apart from gpu-l2-cache's L2), the mt4g DRAM
// peak said to come from its file, and no fact said to be a driver's.
TEST_F(PeersHierarchyTest, TheReportLeadsWithAShortSummary) {
  const ImportOptions a100 = GpuBenches("NVIDIA A100 80GB", "8.0", 108, 40 * kMiB);
  ImportOptions mt4g;
  mt4g.from = "mt4g";
  mt4g.source_version = "4cc55662a954";
  const std::vector<ResultFile> files = {
      Import("gpu-benches/gpu-latency_gh200.txt",
             GpuBenches("NVIDIA GH200 480GB", "9.0", 132, 50 * kMiB)),
      Import("gpu-benches/gpu-cache_a100_80.txt", a100),
      Import("gpu-benches/gpu-l2-cache_a100_80.txt", a100),
      Import("gpu-benches/gpu-latency_a100_80.txt", a100),
      Import("mt4g/NVIDIA_H100_80GB_HBM3.json", mt4g)};
  ReportOptions options;
  options.summary = true;
  options.detail = false;
  absl::StatusOr<std::string> report = RenderReport(files, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, StartsWith("## summary: NVIDIA GH200 480GB · cc 9.0 · 132 SMs\n"));
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(*report, '\n')) {
    ++lines;
    EXPECT_LE(DisplayWidth(std::string(line)), 160u) << line;
  }
  EXPECT_LT(lines, 200) << *report;
  EXPECT_THAT(*report, ContainsRegex("\\| L1 +\\| bandwidth \\| +[0-9]+ GB/s \\| "
                                     "gpu-benches gpu-cache \\(imported\\) "));
  EXPECT_THAT(*report, ContainsRegex("\\| L2 +\\| bandwidth \\| +[0-9]+ GB/s \\| "
                                     "gpu-benches gpu-l2-cache \\(imported\\) "));
  EXPECT_THAT(*report, HasSubstr("device_dram_peak_gbps, read from the mt4g file"));
  EXPECT_THAT(*report, HasSubstr("device_l2_bytes is 50 MiB, given to //analysis:import by a flag"));
  EXPECT_THAT(*report, Not(HasSubstr("driver")));
  EXPECT_THAT(*report, Not(HasSubstr("| footprint_bytes")));  // no per-point rows
}

}  // namespace
}  // namespace dissect::analysis
