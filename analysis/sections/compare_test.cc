// Tests of the memory-hierarchy comparison (compare.h) on hand-built
// hierarchies, and a golden of its markdown:
// analysis/testdata/compare/compare.golden.md. After an intended change of
// the output, regenerate it with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/sections:compare_test
// and review `git diff analysis/testdata/compare`.

#include "analysis/sections/compare.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "analysis/sections/memory_hierarchy.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::ReadText;
using test_util::Runfile;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * 1024;

HierarchyRow Level(const std::string& level, std::optional<double> latency,
                   std::optional<double> capacity = std::nullopt,
                   std::optional<double> bandwidth = std::nullopt,
                   const std::string& unit = "GB/s") {
  HierarchyRow row;
  row.level = level;
  row.latency_cycles = latency;
  row.capacity_bytes = capacity;
  row.bandwidth = bandwidth;
  if (bandwidth) row.bandwidth_unit = unit;
  return row;
}

DeviceHierarchy Device(const std::string& source, const std::string& name, const std::string& cc,
                       const std::string& sms, std::vector<HierarchyRow> rows) {
  DeviceHierarchy h;
  h.source = source;
  h.device_name = name;
  h.compute_capability = cc;
  h.sm_count = sms;
  h.files = {source + "/" + name + ".json"};
  h.rows = std::move(rows);
  return h;
}

// The number of lines of `text` that start with `prefix`.
int LinesStartingWith(const std::string& text, const std::string& prefix) {
  int count = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) ++count;
  }
  return count;
}

// One device from dissect, mt4g and gpu-benches, and a second device from
// dissect only: every part of the output.
std::vector<DeviceHierarchy> GoldenInput() {
  DeviceHierarchy dissect =
      Device("dissect", "Synthetic H100", "9.0", "132",
             {Level("shared", 30.5, std::nullopt, 127.5, "B/clk/SM"), Level("L1", 40, 256 * kKiB),
              Level("L2", 260, 50 * kMiB, 5500), Level("L2 near", 210), Level("L2 far", 320),
              Level("DRAM", 650, 80 * kMiB, 3000), Level("const", 28)});
  dissect.files = {"results/h100/memory_latency.json", "results/h100/memory_bandwidth.json"};
  for (HierarchyRow& row : dissect.rows) {
    row.method = "memory_latency, random order, stride 128 B";
    if (row.bandwidth) row.bandwidth_method = "memory_bandwidth, streaming reads";
  }
  dissect.rows[1].footprint_first = 16 * kKiB;
  dissect.rows[1].footprint_last = 192 * kKiB;
  dissect.rows[2].footprint_first = 310 * kKiB;
  dissect.rows[2].footprint_last = 26 * kMiB;
  dissect.rows[5].capacity_is_lower_bound = true;
  dissect.rows[5].footprint_first = 256 * kMiB;

  DeviceHierarchy mt4g = Device("mt4g@4cc55662a954", "  synthetic h100 ", "?", "132",
                                {Level("L1", 44, 240 * kKiB), Level("L2", 300, 50 * kMiB, 6000),
                                 Level("DRAM", 620, 80 * kMiB), Level("const", 30.8)});
  for (HierarchyRow& row : mt4g.rows) {
    row.method = "mt4g p-chase, mean of samples";
    if (row.bandwidth) row.bandwidth_method = "read bandwidth as the summary gives it";
  }

  DeviceHierarchy gpu_benches = Device("gpu-benches@1038c5d0d0f4", "SYNTHETIC H100", "9.0", "",
                                       {Level("L1", 36), Level("L2", 286, std::nullopt, 4400),
                                        Level("DRAM", 700), Level("TLB miss", 900)});
  gpu_benches.rows[1].footprint_first = 1 * kMiB;
  gpu_benches.rows[1].footprint_last = 20 * kMiB;

  DeviceHierarchy a100 =
      Device("dissect", "Synthetic A100", "8.0", "108",
             {Level("shared", 29, std::nullopt, 128, "B/clk/SM"), Level("L1", 38, 192 * kKiB),
              Level("L2", 230, 40 * kMiB, 4000), Level("DRAM", 550, std::nullopt, 1500)});
  return {mt4g, dissect, a100, gpu_benches};
}

TEST(SameDeviceTest, NamesMatchIgnoringCaseAndSurroundingSpaces) {
  EXPECT_TRUE(SameDevice(Device("dissect", "NVIDIA H100", "9.0", "132", {}),
                         Device("mt4g@1", "  nvidia h100\t", "9.0", "132", {})));
  EXPECT_FALSE(SameDevice(Device("dissect", "NVIDIA H100", "9.0", "132", {}),
                          Device("mt4g@1", "NVIDIA H 100", "9.0", "132", {})));
}

TEST(SameDeviceTest, ComputeCapabilityAndSmCountMustAgreeWhereKnown) {
  const DeviceHierarchy h100 = Device("dissect", "GPU", "9.0", "132", {});
  EXPECT_TRUE(SameDevice(h100, Device("mt4g@1", "GPU", "?", "", {})));
  EXPECT_TRUE(SameDevice(h100, Device("mt4g@1", "GPU", " 9.0 ", "?", {})));
  EXPECT_FALSE(SameDevice(h100, Device("mt4g@1", "GPU", "8.0", "132", {})));
  EXPECT_FALSE(SameDevice(h100, Device("mt4g@1", "GPU", "9.0", "114", {})));
}

TEST(MatchDevicesTest, DissectFirstThenPeersInFirstSeenOrder) {
  const std::vector<DeviceHierarchy> input = GoldenInput();
  const std::vector<ComparedDevice> devices = MatchDevices(input);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].name, "Synthetic H100");     // dissect's
  EXPECT_EQ(devices[0].compute_capability, "9.0");  // from dissect
  EXPECT_EQ(devices[0].sm_count, "132");
  ASSERT_EQ(devices[0].hierarchies.size(), 3u);
  EXPECT_EQ(devices[0].hierarchies[0]->source, "dissect");
  EXPECT_EQ(devices[0].hierarchies[1]->source, "mt4g@4cc55662a954");
  EXPECT_EQ(devices[0].hierarchies[2]->source, "gpu-benches@1038c5d0d0f4");
  EXPECT_EQ(devices[1].name, "Synthetic A100");
  EXPECT_EQ(devices[1].hierarchies.size(), 1u);
}

TEST(MatchDevicesTest, ComputeCapabilityConflictMakesSeparateDevices) {
  const std::vector<DeviceHierarchy> input = {
      Device("dissect", "GPU", "9.0", "132", {Level("L2", 200)}),
      Device("mt4g@1", "gpu", "8.0", "132", {Level("L2", 300)})};
  const std::vector<ComparedDevice> devices = MatchDevices(input);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].hierarchies.size(), 1u);
  EXPECT_EQ(devices[1].hierarchies.size(), 1u);
  const std::string out = RenderComparison(input);
  EXPECT_THAT(out, Not(HasSubstr("## compare: ")));
  EXPECT_THAT(out, HasSubstr("## compare across devices"));
  // Same name: the columns say which is which.
  EXPECT_THAT(out, HasSubstr("| GPU (cc 9.0, 132 SMs) | gpu (cc 8.0, 132 SMs) |"));
}

TEST(MatchDevicesTest, AnUnknownComputeCapabilityTakesTheKnownOne) {
  // The peer (cc unknown) joins the device; a third hierarchy with another
  // cc then no longer matches it.
  const std::vector<DeviceHierarchy> input = {Device("mt4g@1", "GPU", "?", "132", {}),
                                              Device("dissect", "GPU", "9.0", "132", {}),
                                              Device("gpu-benches@2", "GPU", "8.0", "132", {})};
  const std::vector<ComparedDevice> devices = MatchDevices(input);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].compute_capability, "9.0");
  ASSERT_EQ(devices[0].hierarchies.size(), 2u);
  EXPECT_EQ(devices[0].hierarchies[0]->source, "dissect");
  EXPECT_EQ(devices[1].hierarchies[0]->source, "gpu-benches@2");
}

TEST(SourceTest, SuiteAndShortSource) {
  EXPECT_EQ(SourceSuite("mt4g@4cc55662a954"), "mt4g");
  EXPECT_EQ(SourceSuite("dissect"), "dissect");
  EXPECT_EQ(ShortSource("gpu-benches@1038c5d0d0f4"), "gpu-benches@1038c5d");
  EXPECT_EQ(ShortSource("mt4g@v1.2.3"), "mt4g@v1.2.3");
  EXPECT_EQ(ShortSource("mt4g@abc1234"), "mt4g@abc1234");
  EXPECT_EQ(ShortSource("dissect"), "dissect");
}

TEST(KnownMethodTest, KeyedBySuiteAndQuantity) {
  EXPECT_THAT(KnownMethod("dissect", "latency"), HasSubstr("%clock64"));
  EXPECT_THAT(KnownMethod("mt4g", "latency"), HasSubstr("mean of its p-chase samples"));
  EXPECT_THAT(KnownMethod("gpu-benches", "latency"), HasSubstr("minimum of 7 runs"));
  EXPECT_THAT(KnownMethod("gpu-benches", "bandwidth"), HasSubstr("gpu-l2-cache"));
  EXPECT_THAT(KnownMethod("mt4g", "capacity"), HasSubstr("confidence"));
  EXPECT_EQ(KnownMethod("other", "latency"), "");
}

TEST(FootprintRangeTest, Formats) {
  HierarchyRow row;
  EXPECT_EQ(FootprintRange(row), "");
  row.footprint_first = 310 * kKiB;
  EXPECT_EQ(FootprintRange(row), "310 KiB");
  row.footprint_last = 26 * kMiB;
  EXPECT_EQ(FootprintRange(row), "310 KiB – 26 MiB");
}

// dissect's L2 latency 100 against peers at `peer_latency`.
std::string RenderL2(double peer_latency) {
  return RenderComparison({Device("dissect", "GPU", "9.0", "132", {Level("L2", 100)}),
                           Device("mt4g@1", "GPU", "9.0", "132", {Level("L2", peer_latency)})});
}

TEST(RenderComparisonTest, RatioNotesOnlyOutsideTheBoundsWhichAreInside) {
  EXPECT_EQ(LinesStartingWith(RenderL2(90), "- latency of mt4g@1"), 0);
  EXPECT_EQ(LinesStartingWith(RenderL2(110), "- latency of mt4g@1"), 0);
  EXPECT_EQ(LinesStartingWith(RenderL2(100), "- latency of mt4g@1"), 0);
  EXPECT_THAT(RenderL2(90), HasSubstr("| mt4g@1  |               90 |  0.90 |"));
  EXPECT_THAT(RenderL2(110), HasSubstr("|  1.10 |"));
  const std::string low = RenderL2(89);
  EXPECT_EQ(LinesStartingWith(low,
                              "- latency of mt4g@1: 89 cycles, ratio 0.89 to dissect's 100 "
                              "cycles (outside [0.9, 1.1])."),
            1)
      << low;
  EXPECT_THAT(low, HasSubstr("dissect: in-kernel %clock64"));
  EXPECT_THAT(low, HasSubstr("mt4g: the mean of its p-chase samples"));
  EXPECT_EQ(LinesStartingWith(RenderL2(111), "- latency of mt4g@1: 111 cycles, ratio 1.11"), 1);
}

TEST(RenderComparisonTest, ReferenceRowIsOneAndMissingValuesAreDashes) {
  const std::string out = RenderComparison(
      {Device("dissect", "GPU", "9.0", "132", {Level("L2", 100, 40 * kMiB)}),
       Device("gpu-benches@1038c5d0d0f4", "GPU", "9.0", "132", {Level("L2", 200)})});
  EXPECT_THAT(out, HasSubstr("| dissect             |              100 |  1.00 |   40 MiB |  1.00 "
                             "|         — |     — |          — | —              | —                |"));
  EXPECT_THAT(out, HasSubstr("| gpu-benches@1038c5d |              200 |  2.00 |        — |     — "
                             "|         — |     — |          — | —              | —                |"));
  EXPECT_THAT(out, HasSubstr("gpu-benches: host wall-clock time"));
}

TEST(RenderComparisonTest, OnlyLevelsWithValuesFromTwoSourcesInTableOrder) {
  const std::string out = RenderComparison(
      {Device("dissect", "GPU", "9.0", "132",
              {Level("DRAM", 600), Level("L1", 40), Level("shared", 30), Level("TLB miss", 900)}),
       Device("mt4g@1", "GPU", "9.0", "132",
              {Level("L1", 41), Level("DRAM", 610), Level("TLB miss", std::nullopt)})});
  EXPECT_THAT(out, Not(HasSubstr("### shared")));
  EXPECT_THAT(out, Not(HasSubstr("### TLB miss")));
  const size_t l1 = out.find("### L1\n");
  const size_t dram = out.find("### DRAM\n");
  ASSERT_NE(l1, std::string::npos);
  ASSERT_NE(dram, std::string::npos);
  EXPECT_LT(l1, dram);
}

TEST(RenderComparisonTest, WithoutDissectTheFirstSourceIsTheReference) {
  const std::string out = RenderComparison(
      {Device("mt4g@4cc55662a954", "GPU", "9.0", "132", {Level("L2", 300)}),
       Device("gpu-benches@1038c5d0d0f4", "GPU", "9.0", "132", {Level("L2", 150)})});
  EXPECT_THAT(out, HasSubstr("## compare: GPU (no dissect results; reference: mt4g@4cc5566)\n"));
  EXPECT_THAT(out, HasSubstr("| mt4g@4cc5566        |              300 |  1.00 |"));
  EXPECT_THAT(out, HasSubstr("- latency of gpu-benches@1038c5d: 150 cycles, ratio 0.50 to "
                             "mt4g@4cc5566's 300 cycles"));
}

TEST(RenderComparisonTest, CapacityLowerBoundsAreBoundsOnTheRatio) {
  DeviceHierarchy dissect = Device("dissect", "GPU", "9.0", "132", {Level("L2", 100, 40 * kMiB)});
  DeviceHierarchy peer = Device("mt4g@1", "GPU", "9.0", "132", {Level("L2", 100, 60 * kMiB)});
  peer.rows[0].capacity_is_lower_bound = true;
  std::string out = RenderComparison({dissect, peer});
  EXPECT_THAT(out, HasSubstr("| ≥ 60 MiB | ≥ 1.50 |"));
  EXPECT_EQ(LinesStartingWith(out, "- capacity of mt4g@1: ≥ 60 MiB, ratio ≥ 1.50"), 1) << out;
  EXPECT_THAT(out, HasSubstr("mt4g: from its own p-chase size search"));
  // At least 1.0: maybe inside the bounds, so no note.
  peer.rows[0].capacity_bytes = 40 * kMiB;
  out = RenderComparison({dissect, peer});
  EXPECT_THAT(out, HasSubstr("| ≥ 1.00 |"));
  EXPECT_EQ(LinesStartingWith(out, "- capacity"), 0) << out;
  // Both lower bounds: no ratio.
  dissect.rows[0].capacity_is_lower_bound = true;
  out = RenderComparison({dissect, peer});
  EXPECT_EQ(LinesStartingWith(out, "- capacity"), 0) << out;
}

TEST(RenderComparisonTest, BandwidthsOfDifferentUnitsHaveNoRatio) {
  const std::string out = RenderComparison(
      {Device("dissect", "GPU", "9.0", "132", {Level("shared", 30, std::nullopt, 128, "B/clk/SM")}),
       Device("mt4g@1", "GPU", "9.0", "132", {Level("shared", 30, std::nullopt, 9000, "GB/s")})});
  EXPECT_THAT(out, HasSubstr("|    9000 GB/s |     — |"));
  EXPECT_EQ(LinesStartingWith(out, "- bandwidth"), 0) << out;
}

TEST(RenderComparisonTest, RowMethodsAreNamedInTheNotes) {
  DeviceHierarchy dissect = Device("dissect", "GPU", "9.0", "132", {Level("L2", 100)});
  DeviceHierarchy peer = Device("mt4g@1", "GPU", "9.0", "132", {Level("L2", 200)});
  peer.rows[0].method = "p-chase | mean";
  const std::string out = RenderComparison({dissect, peer});
  EXPECT_THAT(out, HasSubstr("Methods of these rows: mt4g@1: p-chase | mean."));
  EXPECT_THAT(out, HasSubstr("| p-chase \\| mean |"));  // the method column, escaped
}

// mt4g's mean includes its timing overhead: the note says whether the
// difference goes that way, never that a value below dissect's is expected.
TEST(RenderComparisonTest, TheExpectationFollowsTheSignOfTheDifference) {
  auto render = [](double mt4g_cycles) {
    return RenderComparison({Device("dissect", "GPU", "9.0", "132", {Level("L2", 100)}),
                             Device("mt4g@1", "GPU", "9.0", "132", {Level("L2", mt4g_cycles)})});
  };
  const std::string below = render(85);
  EXPECT_THAT(below, HasSubstr("mt4g@1's value is below dissect's, although its mean includes its "
                               "timing overhead, which would raise it: its method does not "
                               "explain this difference."));
  EXPECT_THAT(below, Not(HasSubstr("is expected")));
  EXPECT_THAT(below, Not(HasSubstr("above dissect's")));
  const std::string above = render(115);
  EXPECT_THAT(above, HasSubstr("mt4g@1's value is above dissect's, the direction its method leads "
                               "one to expect: its mean includes its timing overhead."));
}

// A bandwidth ratio's note names how the bandwidths were measured, not the
// latency's pointer chase.
TEST(RenderComparisonTest, ABandwidthNoteNamesTheBandwidthMethods) {
  DeviceHierarchy dissect =
      Device("dissect", "GPU", "9.0", "132", {Level("L2", 100, std::nullopt, 5000)});
  dissect.rows[0].method = "in-kernel %clock64, dependent pointer chase by one thread";
  dissect.rows[0].bandwidth_method = "CUDA events around tiled streaming reads";
  DeviceHierarchy peer =
      Device("gpu-benches@1", "GPU", "9.0", "132", {Level("L2", 100, std::nullopt, 2500)});
  peer.rows[0].method = "pointer chase by one block of 64 threads";
  peer.rows[0].bandwidth_method = "100000 blocks roaming the footprint";
  const std::string out = RenderComparison({dissect, peer});
  int bandwidth_notes = 0;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (!absl::StartsWith(line, "- bandwidth of gpu-benches@1")) continue;
    ++bandwidth_notes;
    EXPECT_THAT(std::string(line),
                HasSubstr("Methods of these rows: dissect: CUDA events around tiled streaming "
                          "reads; gpu-benches@1: 100000 blocks roaming the footprint."));
    EXPECT_THAT(std::string(line), Not(HasSubstr("pointer chase")));
  }
  EXPECT_EQ(bandwidth_notes, 1) << out;
  EXPECT_THAT(out, HasSubstr("| latency method "));
  EXPECT_THAT(out, HasSubstr("| bandwidth method "));
}

TEST(RenderComparisonTest, TwoDevicesAreColumns) {
  const std::string out =
      RenderComparison({Device("dissect", "H100", "9.0", "132", {Level("L2", 260, 50 * kMiB)}),
                        Device("dissect", "A100", "8.0", "108", {Level("L2", 230)}),
                        Device("mt4g@4cc55662a954", "A100", "8.0", "108", {Level("L2", 250)})});
  EXPECT_THAT(out, HasSubstr("## compare: A100\n"));
  EXPECT_THAT(out, Not(HasSubstr("## compare: H100")));
  EXPECT_THAT(out, HasSubstr("## compare across devices\n"));
  EXPECT_THAT(out, HasSubstr("| quantity · source               | H100   | A100 |\n"));
  EXPECT_THAT(out, HasSubstr("| latency (cycles) · dissect      |    260 |  230 |\n"));
  EXPECT_THAT(out, HasSubstr("| latency (cycles) · mt4g@4cc5566 |      — |  250 |\n"));
  EXPECT_THAT(out, HasSubstr("| capacity · dissect              | 50 MiB |    — |\n"));
  // No row without a value.
  EXPECT_THAT(out, Not(HasSubstr("capacity · mt4g")));
  EXPECT_THAT(out, HasSubstr("different methods"));
}

TEST(HasComparisonTest, OneDeviceOneSourceIsNothingToCompare) {
  const std::vector<DeviceHierarchy> one = {
      Device("dissect", "GPU", "9.0", "132", {Level("L2", 100)})};
  EXPECT_FALSE(HasComparison(one));
  EXPECT_FALSE(HasComparison({}));
  EXPECT_EQ(RenderComparison(one), "");
  EXPECT_EQ(DescribeDevicesAndSources(one), "GPU (dissect)");
  EXPECT_EQ(DescribeDevicesAndSources({}), "no memory hierarchy");
  EXPECT_TRUE(HasComparison(GoldenInput()));
  EXPECT_EQ(DescribeDevicesAndSources(GoldenInput()),
            "Synthetic H100 (dissect, mt4g@4cc55662a954, gpu-benches@1038c5d0d0f4); "
            "Synthetic A100 (dissect)");
}

TEST(RenderComparisonTest, OneTrailingNewlineNoTrailingSpaces) {
  const std::string out = RenderComparison(GoldenInput());
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(out.back(), '\n');
  EXPECT_NE(out[out.size() - 2], '\n');
  EXPECT_EQ(out.find(" \n"), std::string::npos);
  EXPECT_EQ(out, RenderComparison(GoldenInput()));
}

TEST(RenderComparisonTest, MatchesGolden) {
  const std::string actual = RenderComparison(GoldenInput());
  const std::string golden_path = "analysis/testdata/compare/compare.golden.md";
  if (const std::optional<std::string> updated =
          test_util::UpdateGolden(actual, golden_path, "//analysis/sections:compare_test")) {
    EXPECT_EQ(*updated, "");
    return;
  }
  EXPECT_EQ(actual, test_util::ReadText(test_util::Runfile(golden_path)))
      << test_util::StaleGolden(golden_path, "//analysis/sections:compare_test");
}

}  // namespace
}  // namespace dissect::analysis
