// Tests for InferMemoryHierarchies on synthetic ResultFiles built in code.

#include "analysis/sections/memory_hierarchy.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Optional;

constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * kKiB;

ResultFile File(const std::string& experiment, const std::string& device = "Test GPU (fixture)",
                const std::string& cc = "9.0") {
  ResultFile f;
  f.path = absl::StrCat(experiment, ".json");
  f.experiment = experiment;
  f.context = {{"device_name", device},
               {"device_compute_capability", cc},
               {"device_sm_count", "100"},
               {"device_l2_bytes", "50000000"},
               {"device_dram_peak_gbps", "3000"}};
  return f;
}

std::string Str(double value) { return absl::StrCat(static_cast<long long>(value)); }

void AddRow(ResultFile& f, std::vector<std::pair<std::string, std::string>> axes,
            std::map<std::string, double> counters) {
  Row row;
  row.name = f.experiment;
  for (const auto& [axis, value] : axes) {
    absl::StrAppend(&row.name, "/", axis, ":", value);
  }
  row.axes = std::move(axes);
  row.counters = std::move(counters);
  f.rows.push_back(std::move(row));
}

// Footprints 1 KiB .. 256 MiB, x2.
std::vector<double> Footprints() {
  std::vector<double> xs;
  for (double x = kKiB; x <= 256 * kMiB; x *= 2) xs.push_back(x);
  return xs;
}

// A memory_latency curve; ns = cycles / 2 (a 2 GHz clock).
void AddCurve(ResultFile& f, const std::string& path, double stride, const std::string& order,
              const std::vector<double>& footprints, const std::function<double(double)>& cycles) {
  for (double x : footprints) {
    AddRow(f,
           {{"path", path},
            {"footprint_bytes", Str(x)},
            {"stride_bytes", Str(stride)},
            {"order", order},
            {"loads", "4096"}},
           {{"cycles_per_load", cycles(x)}, {"ns_per_load", cycles(x) / 2}});
  }
}

// 33 cycles up to 256 KiB, 260 up to 32 MiB, 600 beyond.
double ThreeLevels(double x) {
  if (x <= 256 * kKiB) return 33;
  if (x <= 32 * kMiB) return 260;
  return 600;
}

double TwoLevels(double x) { return x <= 32 * kMiB ? 260 : 600; }

DeviceHierarchy InferOne(const std::vector<ResultFile>& files) {
  absl::StatusOr<std::vector<DeviceHierarchy>> tables = InferMemoryHierarchies(files);
  EXPECT_TRUE(tables.ok()) << tables.status();
  EXPECT_EQ(tables.ok() ? tables->size() : 0u, 1u);
  if (!tables.ok() || tables->empty()) return {};
  return tables->front();
}

const HierarchyRow& RowOf(const DeviceHierarchy& h, const std::string& level) {
  static const HierarchyRow kMissing;
  const HierarchyRow* row = h.Find(level);
  EXPECT_NE(row, nullptr) << level;
  return row == nullptr ? kMissing : *row;
}

std::vector<std::string> Levels(const DeviceHierarchy& h) {
  std::vector<std::string> levels;
  for (const HierarchyRow& row : h.rows) levels.push_back(row.level);
  return levels;
}

TEST(InferMemoryHierarchiesTest, LevelsFromGlobalCaAndCgCurves) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_ca", 128, "random", Footprints(), ThreeLevels);
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(Levels(h), ElementsAre("shared", "L1", "L2", "DRAM", "tex", "ldg", "const"));
  const HierarchyRow& l1 = RowOf(h, "L1");
  EXPECT_THAT(l1.latency_cycles, Optional(33.0));
  EXPECT_THAT(l1.latency_ns, Optional(16.5));
  EXPECT_THAT(l1.capacity_bytes, Optional(256 * kKiB));
  EXPECT_FALSE(l1.capacity_is_lower_bound);
  const HierarchyRow& l2 = RowOf(h, "L2");
  EXPECT_THAT(l2.latency_cycles, Optional(260.0));
  EXPECT_THAT(l2.capacity_bytes, Optional(32 * kMiB));
  const HierarchyRow& dram = RowOf(h, "DRAM");
  EXPECT_THAT(dram.latency_cycles, Optional(600.0));
  EXPECT_THAT(dram.latency_ns, Optional(300.0));
  EXPECT_EQ(dram.capacity_bytes, std::nullopt);
  for (const char* level : {"shared", "tex", "ldg", "const"}) {
    EXPECT_EQ(RowOf(h, level).latency_cycles, std::nullopt) << level;
  }
  EXPECT_EQ(l1.bandwidth, std::nullopt);
  EXPECT_EQ(h.device_name, "Test GPU (fixture)");
  EXPECT_THAT(h.files, ElementsAre("memory_latency.json"));
}

TEST(InferMemoryHierarchiesTest, WithoutGlobalCgL2AndDramComeFromGlobalCa) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_ca", 128, "random", Footprints(), ThreeLevels);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").latency_cycles, Optional(33.0));
  EXPECT_THAT(RowOf(h, "L2").latency_cycles, Optional(260.0));
  EXPECT_THAT(RowOf(h, "L2").capacity_bytes, Optional(32 * kMiB));
  EXPECT_THAT(RowOf(h, "DRAM").latency_cycles, Optional(600.0));
}

TEST(InferMemoryHierarchiesTest, GlobalCaLikeGlobalCgMeansNoL1) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_ca", 128, "random", Footprints(), TwoLevels);
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_EQ(RowOf(h, "L1").latency_cycles, std::nullopt);
  EXPECT_THAT(RowOf(h, "L2").latency_cycles, Optional(260.0));
  EXPECT_THAT(h.notes,
              ElementsAre(HasSubstr("not cached in L1"), HasSubstr("L2 capacity from the curve")));
}

TEST(InferMemoryHierarchiesTest, PrefersRandomOrderAndSmallestStrideFrom32) {
  ResultFile f = File("memory_latency");
  // Distractors: strided order, and strides below 32 B or larger.
  AddCurve(f, "tex", 128, "strided", Footprints(), [](double) { return 90.0; });
  AddCurve(f, "tex", 4, "random", Footprints(), [](double) { return 80.0; });
  AddCurve(f, "tex", 256, "random", Footprints(), [](double) { return 70.0; });
  AddCurve(f, "tex", 64, "random", Footprints(),
           [](double x) { return x <= 64 * kKiB ? 40.0 : 270.0; });
  const DeviceHierarchy h = InferOne({f});
  const HierarchyRow& tex = RowOf(h, "tex");
  EXPECT_THAT(tex.latency_cycles, Optional(40.0));
  EXPECT_THAT(tex.capacity_bytes, Optional(64 * kKiB));
}

TEST(InferMemoryHierarchiesTest, SmallStrideCurveWhenThatIsAllThereIs) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "ldg", 4, "strided", Footprints(), [](double) { return 31.0; });
  AddCurve(f, "ldg", 8, "strided", Footprints(), [](double) { return 35.0; });
  const DeviceHierarchy h = InferOne({f});
  // The larger of the strides below 32 B; one plateau: capacity unknown.
  EXPECT_THAT(RowOf(h, "ldg").latency_cycles, Optional(35.0));
  EXPECT_THAT(RowOf(h, "ldg").capacity_bytes, Optional(256 * kMiB));
  EXPECT_TRUE(RowOf(h, "ldg").capacity_is_lower_bound);
}

TEST(InferMemoryHierarchiesTest, SkippedAndBrokenRowsAreIgnored) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "shared", 128, "random", {1 * kKiB, 2 * kKiB, 4 * kKiB}, [](double) { return 29.0; });
  AddRow(f,
         {{"path", "shared"},
          {"footprint_bytes", "8192"},
          {"stride_bytes", "128"},
          {"order", "random"}},
         {{"cycles_per_load", std::numeric_limits<double>::quiet_NaN()}});
  Row skipped;
  skipped.axes = {{"path", "shared"},
                  {"footprint_bytes", "16384"},
                  {"stride_bytes", "128"},
                  {"order", "random"}};
  skipped.error = true;
  skipped.error_message = "skipped: too big";
  f.rows.push_back(skipped);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "shared").latency_cycles, Optional(29.0));
  EXPECT_THAT(RowOf(h, "shared").capacity_bytes, Optional(4 * kKiB));
  EXPECT_TRUE(RowOf(h, "shared").capacity_is_lower_bound);
}

TEST(InferMemoryHierarchiesTest, SharedLatencyStandsInForTheSharedPath) {
  ResultFile shared = File("shared_latency");
  for (double x : {4 * kKiB, 16 * kKiB, 64 * kKiB}) {
    AddRow(shared, {{"footprint_bytes", Str(x)}, {"stride_bytes", "128"}},
           {{"cycles_per_load", 29.5}, {"ns_per_load", 14.9}});
  }
  ResultFile bandwidth = File("shared_bandwidth");
  AddRow(bandwidth, {{"width_bits", "128"}},
         {{"bytes_per_clk_per_sm", 120}, {"shared_peak_pct", 93.75}});
  const DeviceHierarchy h = InferOne({shared, bandwidth});
  EXPECT_THAT(RowOf(h, "shared").latency_cycles, Optional(29.5));
  EXPECT_THAT(h.files, ElementsAre("shared_latency.json", "shared_bandwidth.json"));
}

TEST(InferMemoryHierarchiesTest, NoTableWithoutMemoryExperiments) {
  ResultFile shared = File("shared_latency");
  AddRow(shared, {{"footprint_bytes", "4096"}, {"stride_bytes", "4"}}, {{"cycles_per_load", 29.5}});
  absl::StatusOr<std::vector<DeviceHierarchy>> tables =
      InferMemoryHierarchies({shared, File("relu")});
  ASSERT_TRUE(tables.ok()) << tables.status();
  EXPECT_THAT(*tables, IsEmpty());
}

TEST(InferMemoryHierarchiesTest, OneTablePerDeviceInFirstSeenOrder) {
  ResultFile b = File("shared_bandwidth", "GPU B");
  AddRow(b, {{"width_bits", "64"}}, {{"bytes_per_clk_per_sm", 100}});
  ResultFile a = File("shared_bandwidth", "GPU A");
  AddRow(a, {{"width_bits", "64"}}, {{"bytes_per_clk_per_sm", 110}});
  absl::StatusOr<std::vector<DeviceHierarchy>> tables = InferMemoryHierarchies({b, a});
  ASSERT_TRUE(tables.ok()) << tables.status();
  ASSERT_EQ(tables->size(), 2u);
  EXPECT_EQ((*tables)[0].device_name, "GPU B");
  EXPECT_EQ((*tables)[1].device_name, "GPU A");
  EXPECT_THAT(tables->at(1).Find("shared")->bandwidth, Optional(110.0));
  EXPECT_EQ(tables->at(1).Find("shared")->ceiling_fraction, std::nullopt);
}

TEST(InferMemoryHierarchiesTest, SharedBandwidthTakesTheBestWidth) {
  ResultFile f = File("shared_bandwidth");
  AddRow(f, {{"width_bits", "32"}}, {{"bytes_per_clk_per_sm", 96}, {"shared_peak_pct", 75}});
  AddRow(f, {{"width_bits", "128"}}, {{"bytes_per_clk_per_sm", 124}, {"shared_peak_pct", 96.875}});
  AddRow(f, {{"width_bits", "64"}}, {{"bytes_per_clk_per_sm", 120}, {"shared_peak_pct", 93.75}});
  const DeviceHierarchy h = InferOne({f});
  const HierarchyRow& shared = RowOf(h, "shared");
  EXPECT_THAT(shared.bandwidth, Optional(124.0));
  EXPECT_EQ(shared.bandwidth_unit, "B/clk/SM");
  EXPECT_THAT(shared.ceiling_fraction, Optional(0.96875));
  EXPECT_THAT(shared.ceiling_value, Optional(128.0));
  EXPECT_EQ(shared.ceiling, "shared peak");
  EXPECT_EQ(shared.ceiling_from, "shared_bandwidth's shared_peak_pct");
  EXPECT_EQ(shared.bandwidth_from, "dissect shared_bandwidth");
  EXPECT_EQ(RowOf(h, "L1").latency_cycles, std::nullopt);
}

// `overhead`: the row's trace_overhead_cycles, none if unset (files from
// before the metric).
void AddTrace(ResultFile& f, const std::string& path, double footprint, double stride,
              const std::string& order, const std::string& state,
              std::vector<std::pair<double, double>> levels, double miss,
              std::optional<double> overhead = std::nullopt) {
  std::map<std::string, double> counters = {
      {"miss_period_bytes", miss}, {"sm_clock_mhz.before", 2000}, {"sm_clock_mhz.after", 2000}};
  if (overhead) counters["trace_overhead_cycles"] = *overhead;
  for (size_t k = 0; k < 3; ++k) {
    const bool present = k < levels.size();
    counters[absl::StrCat("level", k + 1, "_cycles")] = present ? levels[k].first : 0;
    counters[absl::StrCat("level", k + 1, "_fraction")] = present ? levels[k].second : 0;
  }
  AddRow(f,
         {{"path", path},
          {"footprint_bytes", Str(footprint)},
          {"stride_bytes", Str(stride)},
          {"order", order},
          {"state", state}},
         counters);
}

TEST(InferMemoryHierarchiesTest, FillGranularityAndL2PartitionsFromTheTrace) {
  ResultFile latency = File("memory_latency");
  AddCurve(latency, "global_ca", 128, "random", Footprints(), ThreeLevels);
  AddCurve(latency, "global_cg", 128, "random", Footprints(), TwoLevels);
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_ca", 4 * kMiB, 4, "strided", "cold", {{35, 0.97}, {600, 0.03}}, 128);
  // Warm rows do not give the fill granularity.
  AddTrace(trace, "global_ca", 4 * kMiB, 4, "strided", "warm", {{35, 0.97}, {260, 0.03}}, 64);
  AddTrace(trace, "global_cg", 4 * kMiB, 4, "strided", "cold", {{260, 0.875}, {600, 0.125}}, 32);
  // Between half and all of the curve's L2 (32 MiB): near and far.
  AddTrace(trace, "global_cg", 20 * kMiB, 128, "random", "warm", {{240, 0.5}, {320, 0.5}}, 0);
  AddTrace(trace, "global_cg", 24 * kMiB, 128, "random", "warm", {{250, 0.6}, {330, 0.4}}, 0);
  // Beyond the L2: ignored.
  AddTrace(trace, "global_cg", 128 * kMiB, 128, "random", "warm", {{250, 0.5}, {600, 0.5}}, 0);
  const DeviceHierarchy h = InferOne({latency, trace});
  EXPECT_THAT(Levels(h), ElementsAre("shared", "L1", "L2", "L2 near", "L2 far", "DRAM", "tex",
                                     "ldg", "const"));
  EXPECT_THAT(RowOf(h, "L1").fill_bytes, Optional(128.0));
  EXPECT_THAT(RowOf(h, "L2").fill_bytes, Optional(32.0));
  EXPECT_THAT(RowOf(h, "L2 near").latency_cycles, Optional(245.0));
  EXPECT_THAT(RowOf(h, "L2 far").latency_cycles, Optional(325.0));
  EXPECT_THAT(RowOf(h, "L2 far").latency_ns, Optional(162.5));
}

TEST(InferMemoryHierarchiesTest, NoPartitionsWhenTheSecondLevelIsRare) {
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_cg", 4 * kMiB, 128, "random", "warm", {{240, 0.97}, {320, 0.03}}, 0);
  const DeviceHierarchy h = InferOne({trace});
  EXPECT_EQ(h.Find("L2 near"), nullptr);
  EXPECT_THAT(h.basis, ElementsAre(HasSubstr("none with two L2 levels")));
}

// latency_trace's levels include its per-access timing overhead (clock
// reads, the store the second read waits for); memory_latency's slope
// rows beside them do not. Rows that measured it (trace_overhead_cycles)
// have it subtracted before near and far sit beside the L2 row.
TEST(InferMemoryHierarchiesTest, TraceNearFarLessTheTimingOverhead) {
  ResultFile latency = File("memory_latency");
  AddCurve(latency, "global_cg", 128, "random", Footprints(), TwoLevels);
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_cg", 20 * kMiB, 128, "random", "warm", {{252, 0.5}, {332, 0.5}}, 0, 12);
  AddTrace(trace, "global_cg", 24 * kMiB, 128, "random", "warm", {{262, 0.6}, {342, 0.4}}, 0, 12);
  const DeviceHierarchy h = InferOne({latency, trace});
  EXPECT_THAT(RowOf(h, "L2 near").latency_cycles, Optional(245.0));
  EXPECT_THAT(RowOf(h, "L2 far").latency_cycles, Optional(325.0));
  EXPECT_THAT(RowOf(h, "L2 far").latency_ns, Optional(162.5));
  EXPECT_THAT(RowOf(h, "L2 near").method, HasSubstr("timing overhead subtracted"));
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("timing overhead"), HasSubstr("12 cycles"),
                                      HasSubstr("trace_overhead_cycles"))));
}

// The far level is compared with the (slope) DRAM latency without the
// overhead too: 530 cycles with 15 of overhead is a far hit at 515, not
// within 15 % of DRAM's 600.
TEST(InferMemoryHierarchiesTest, TraceFarLevelIsComparedWithDramLessTheOverhead) {
  ResultFile latency = File("memory_latency");
  AddCurve(latency, "global_cg", 128, "random", Footprints(), TwoLevels);
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_cg", 24 * kMiB, 128, "random", "warm", {{275, 0.5}, {530, 0.5}}, 0, 15);
  const DeviceHierarchy h = InferOne({latency, trace});
  EXPECT_THAT(RowOf(h, "L2 near").latency_cycles, Optional(260.0));
  EXPECT_THAT(RowOf(h, "L2 far").latency_cycles, Optional(515.0));
}

// Without a measured overhead (older files) the values stay as measured,
// and the rows and the basis say that they include it.
TEST(InferMemoryHierarchiesTest, TraceNearFarWithoutAMeasuredOverheadSayTheyIncludeIt) {
  ResultFile latency = File("memory_latency");
  AddCurve(latency, "global_cg", 128, "random", Footprints(), TwoLevels);
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_cg", 24 * kMiB, 128, "random", "warm", {{250, 0.6}, {330, 0.4}}, 0);
  const DeviceHierarchy h = InferOne({latency, trace});
  EXPECT_THAT(RowOf(h, "L2 near").latency_cycles, Optional(250.0));
  EXPECT_THAT(RowOf(h, "L2 near").method, HasSubstr("includes the per-access timing overhead"));
  EXPECT_THAT(RowOf(h, "L2 far").method, HasSubstr("includes the per-access timing overhead"));
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("L2 near/far latency"),
                                      HasSubstr("timing overhead not measured"))));
}

// miss_period_bytes is how far apart misses are on a cold walk: what one
// miss fills (a sector where L1 fills sectors, as on recent GPUs), not the
// line size; the table's line and sector columns are left to sources that
// measure those.
TEST(InferMemoryHierarchiesTest, MissPeriodIsTheFillGranularityNotTheLineSize) {
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_ca", 4 * kMiB, 8, "strided", "cold", {{35, 0.75}, {600, 0.25}}, 32);
  AddTrace(trace, "global_cg", 4 * kMiB, 8, "strided", "cold", {{260, 0.75}, {600, 0.25}}, 32);
  const DeviceHierarchy h = InferOne({trace});
  EXPECT_EQ(RowOf(h, "L1").line_bytes, std::nullopt);
  EXPECT_EQ(RowOf(h, "L2").sector_bytes, std::nullopt);
  EXPECT_THAT(h.basis, Contains(HasSubstr("L1 fill granularity: latency_trace global_ca")));
  EXPECT_THAT(h.basis, Contains(HasSubstr("L2 fill granularity: latency_trace global_cg")));
  EXPECT_THAT(h.basis, Not(Contains(HasSubstr("line size"))));
  EXPECT_THAT(h.notes, Contains(AllOf(HasSubstr("Fill granularity"), HasSubstr("L1 32 B"),
                                      HasSubstr("not the line size"))));
}

constexpr double kGiB = 1024 * kMiB;

// The TLB sweep: 2 GiB at 2 KiB (1 Mi lines, beyond 2x the L2 at every
// point) in page_local order, `group_pages` -> cycles; ns = cycles / 2.
void AddGroupSweep(ResultFile& f, const std::string& path,
                   const std::vector<std::pair<double, double>>& sweep) {
  for (const auto& [group, cycles] : sweep) {
    AddRow(f,
           {{"path", path},
            {"footprint_bytes", Str(2 * kGiB)},
            {"stride_bytes", "2048"},
            {"order", "page_local"},
            {"group_pages", Str(group)},
            {"loads", "4096"}},
           {{"cycles_per_load", cycles}, {"ns_per_load", cycles / 2}});
  }
}

TEST(InferMemoryHierarchiesTest, TlbNoteNamesTheLastWorkingSetWithoutMisses) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  AddCurve(f, "global_cg", 128, "page_local", {1 * kGiB, 2 * kGiB}, [](double) { return 600.0; });
  AddGroupSweep(f, "global_cg",
                {{1, 600}, {4, 605}, {16, 610}, {64, 640}, {256, 900}, {1024, 1000}});
  const DeviceHierarchy h = InferOne({f});
  // The group-1 point is page-local DRAM too; the larger groups are not.
  EXPECT_THAT(RowOf(h, "DRAM").latency_cycles, Optional(600.0));
  ASSERT_THAT(h.notes, Contains(HasSubstr("TLB misses beyond 64 pages (128 MiB) chased at once: "
                                          "900 cycles at 256 pages (512 MiB) to 1000 cycles at "
                                          "1024 pages (2 GiB) vs the page-local DRAM latency of "
                                          "600 cycles")));
  EXPECT_THAT(RowOf(h, "TLB miss").latency_cycles, Optional(1000.0));
  EXPECT_THAT(RowOf(h, "TLB miss").latency_ns, Optional(500.0));
  EXPECT_THAT(h.basis, Contains(HasSubstr("400 cycles above the page-local DRAM latency")));
}

// 2 GiB in random order at strides 4 KiB .. 4 MiB: every load goes to a
// random one of the 1024 pages at every stride, so the TLB misses alike at
// every point, and the stride only changes how many distinct lines there
// are: 524,288 at 4 KiB (more than the L2 holds), 262,144 and fewer from
// 8 KiB (L2 hits). The latency falls from DRAM + TLB miss to L2 + TLB miss;
// neither half is a TLB effect of the stride.
TEST(InferMemoryHierarchiesTest, StrideThatOnlyChangesL2ResidencyIsNoTlbEffect) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  AddCurve(f, "global_cg", 128, "page_local", {1 * kGiB, 2 * kGiB}, [](double) { return 600.0; });
  for (double stride = 4 * kKiB; stride <= 4 * kMiB; stride *= 2) {
    AddCurve(f, "global_cg", stride, "random", {2 * kGiB},
             [&](double) { return stride == 4 * kKiB ? 1000.0 : 680.0; });
  }
  const DeviceHierarchy h = InferOne({f});
  EXPECT_EQ(h.Find("TLB miss"), nullptr);
  EXPECT_THAT(h.notes, Not(Contains(HasSubstr("TLB misses"))));
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("TLB: memory_latency global_cg: 11 row(s) beyond "
                                                "2x the L2 in footprint but not in distinct "
                                                "lines"),
                                      HasSubstr("whatever their footprint"))));
}

TEST(InferMemoryHierarchiesTest, NoTlbNoteWithinTenPercentOfDram) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  AddGroupSweep(f, "global_cg", {{4, 655}, {64, 655}, {1024, 655}});
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(h.basis, Contains(HasSubstr("3 TLB working sets from 4 pages")));
  for (const std::string& note : h.notes) {
    EXPECT_THAT(note, ::testing::Not(HasSubstr("TLB")));
  }
  EXPECT_EQ(h.Find("TLB miss"), nullptr);
}

// The page-local DRAM point (a footprint of 1 GiB or more, random within
// each 2 MiB page, so no TLB misses): rows that must set the DRAM latency,
// and rows that must not (too small a footprint, too large a stride).
void AddPageLocal(ResultFile& f, const std::string& path, double cycles) {
  AddCurve(f, path, 128, "page_local", {1 * kGiB, 2 * kGiB}, [&](double) { return cycles; });
  AddCurve(f, path, 128, "page_local", {256 * kMiB}, [](double) { return 400.0; });
  AddCurve(f, path, 4 * kMiB, "page_local", {1 * kGiB}, [](double) { return 900.0; });
}

TEST(InferMemoryHierarchiesTest, DramLatencyFromThePageLocalPoint) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  AddPageLocal(f, "global_cg", 520);
  AddPageLocal(f, "global_ca", 530);  // global_cg comes first
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "DRAM").latency_cycles, Optional(520.0));
  EXPECT_THAT(RowOf(h, "DRAM").latency_ns, Optional(260.0));
  EXPECT_THAT(RowOf(h, "L2").latency_cycles, Optional(260.0));
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("DRAM latency: memory_latency global_cg, "
                                                "page_local order, footprint 1 GiB – 2 "
                                                "GiB, stride 128 B: 2 row(s), median 520"),
                                      HasSubstr("TLB misses amortized"))));
  EXPECT_THAT(h.basis, Not(Contains(HasSubstr("the last plateau"))));
  EXPECT_THAT(h.notes, Contains(HasSubstr("last plateau (600 cycles) lies 15.4% above the "
                                          "page-local DRAM latency (520 cycles)")));
}

TEST(InferMemoryHierarchiesTest, PageLocalGlobalCaWhenThereIsNoGlobalCg) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  AddPageLocal(f, "global_ca", 590);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "DRAM").latency_cycles, Optional(590.0));
  // Within 10% of the plateau: no finding.
  EXPECT_THAT(h.notes, Not(Contains(HasSubstr("page-local DRAM latency"))));
}

TEST(InferMemoryHierarchiesTest, WithoutThePageLocalPointTheBasisSaysSo) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "DRAM").latency_cycles, Optional(600.0));
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("DRAM latency: "),
                                      HasSubstr("; it may include TLB misses (no "
                                                "page_local row of at least "
                                                "1 GiB)"))));
}

void AddTlbSweep(ResultFile& f) {
  AddGroupSweep(f, "global_cg", {{4, 605}, {16, 640}, {64, 700}, {256, 900}});
}

TEST(InferMemoryHierarchiesTest, TlbMissLatencyIsARowOfItsOwn) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  AddTlbSweep(f);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(Levels(h),
              ElementsAre("shared", "L1", "L2", "DRAM", "TLB miss", "tex", "ldg", "const"));
  EXPECT_THAT(RowOf(h, "TLB miss").latency_cycles, Optional(900.0));
  EXPECT_THAT(RowOf(h, "TLB miss").latency_ns, Optional(450.0));
  EXPECT_THAT(h.basis, Contains(HasSubstr("TLB miss latency: memory_latency global_cg, "
                                          "1048576 lines over 1024 pages of 2 MiB: the "
                                          "largest working set, 256 pages chased at once: "
                                          "900 cycles; 300 cycles above the DRAM plateau "
                                          "(600 cycles)")));
}

TEST(InferMemoryHierarchiesTest, TlbMissesMeasuredFromThePageLocalDram) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  AddTlbSweep(f);
  AddPageLocal(f, "global_cg", 520);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "TLB miss").latency_cycles, Optional(900.0));
  EXPECT_THAT(h.basis, Contains(HasSubstr("380 cycles above the page-local "
                                          "DRAM latency (520 cycles)")));
  // Every working set (605 cycles at 4 pages) is now more than 10% above DRAM.
  EXPECT_THAT(h.notes, Contains(HasSubstr("TLB misses at every measured working set: 605 "
                                          "cycles at 4 pages (8 MiB) to 900 cycles at 256 "
                                          "pages (512 MiB) vs the page-local DRAM latency "
                                          "of 520 cycles")));
}

// Page by page at different strides: one working set (1 page) for each
// count of lines, so no sweep.
TEST(InferMemoryHierarchiesTest, PageLocalRowsOfDifferentLinesAreNoTlbSweep) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  for (double stride : {128.0, 256.0, 512.0}) {
    AddCurve(f, "global_cg", stride, "page_local", {2 * kGiB}, [](double) { return 900.0; });
  }
  const DeviceHierarchy h = InferOne({f});
  EXPECT_EQ(h.Find("TLB miss"), nullptr);
  EXPECT_THAT(h.basis, Not(Contains(HasSubstr("TLB:"))));
}

// Slots closer than a line share its fill: the later loads of a line are L2
// hits, so rows below a 128 B stride are no DRAM latency.
TEST(InferMemoryHierarchiesTest, PageLocalDramNeedsSlotsALineApart) {
  ResultFile f = File("memory_latency");
  AddCurve(f, "global_cg", 128, "random", Footprints(), TwoLevels);
  const std::vector<std::pair<double, double>> rows = {
      {32, 250}, {64, 400}, {128, 600}, {256, 600}};
  for (const auto& [stride, cycles] : rows) {
    AddCurve(f, "global_cg", stride, "page_local", {1 * kGiB}, [&](double) { return cycles; });
  }
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "DRAM").latency_cycles, Optional(600.0));
  EXPECT_THAT(h.basis, Contains(HasSubstr("page_local order, footprint 1 GiB, stride 128 B – "
                                          "256 B: 2 row(s), median 600 cycles")));
}

TEST(InferMemoryHierarchiesTest, FillGranularityFromEightByteStrideTraces) {
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_ca", 4 * kMiB, 8, "strided", "cold", {{35, 0.94}, {600, 0.06}}, 128);
  AddTrace(trace, "global_cg", 4 * kMiB, 8, "strided", "cold", {{260, 0.75}, {600, 0.25}}, 32);
  const DeviceHierarchy h = InferOne({trace});
  EXPECT_THAT(RowOf(h, "L1").fill_bytes, Optional(128.0));
  EXPECT_THAT(RowOf(h, "L2").fill_bytes, Optional(32.0));
  EXPECT_THAT(h.basis, Contains(HasSubstr("cold, strided, stride 8 B")));
}

void AddBandwidth(ResultFile& f, const std::string& op, int width,
                  const std::vector<std::pair<double, double>>& curve) {
  for (const auto& [footprint, gbps] : curve) {
    AddRow(f,
           {{"op", op}, {"width_bits", absl::StrCat(width)}, {"footprint_bytes", Str(footprint)}},
           {{"bandwidth_gbps", gbps}});
  }
}

TEST(InferMemoryHierarchiesTest, BandwidthPlateausAfterTheRamp) {
  ResultFile f = File("memory_bandwidth");
  AddBandwidth(f, "read", 128,
               {{16 * kKiB, 500},
                {32 * kKiB, 1000},
                {64 * kKiB, 2000},
                {128 * kKiB, 4000},
                {256 * kKiB, 10000},
                {512 * kKiB, 10000},
                {1 * kMiB, 10000},
                {2 * kMiB, 6000},
                {4 * kMiB, 6000},
                {8 * kMiB, 2700},
                {16 * kMiB, 2700}});
  // Not the read 128-bit curve, but the best point overall.
  AddBandwidth(f, "copy", 64, {{512 * kKiB, 12500}});
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(10000.0));
  EXPECT_EQ(RowOf(h, "L1").bandwidth_unit, "GB/s");
  // L1 and L2 define no ceiling: the curve's best point (another level's
  // plateau, here the copy's) is not one.
  EXPECT_EQ(RowOf(h, "L1").ceiling_fraction, std::nullopt);
  EXPECT_EQ(RowOf(h, "L1").ceiling, "");
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(6000.0));
  EXPECT_EQ(RowOf(h, "L2").ceiling_fraction, std::nullopt);
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(2700.0));
  EXPECT_THAT(RowOf(h, "DRAM").ceiling_fraction, Optional(0.9));
  EXPECT_THAT(RowOf(h, "DRAM").ceiling_value, Optional(3000.0));
  EXPECT_EQ(RowOf(h, "DRAM").ceiling, "DRAM peak");
  EXPECT_EQ(RowOf(h, "DRAM").ceiling_from,
            "device_dram_peak_gbps, from the driver's memory clock and bus width");
  // The bandwidth's own method and program, not the latency's.
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth_method, HasSubstr("streaming reads"));
  EXPECT_EQ(RowOf(h, "DRAM").bandwidth_from, "dissect memory_bandwidth");
}

// memory_bandwidth rows per bytes_in_flight_per_thread: the device's
// bandwidth at a footprint is its best setting, not the median over them.
TEST(InferMemoryHierarchiesTest, BandwidthIsTheBestBytesInFlight) {
  ResultFile f = File("memory_bandwidth");
  const std::vector<double> footprints = {256 * kKiB, 512 * kKiB, 1 * kMiB, 2 * kMiB,
                                          4 * kMiB,   8 * kMiB,   16 * kMiB};
  for (double footprint : footprints) {
    const double best = footprint <= 1 * kMiB ? 10000 : footprint <= 4 * kMiB ? 6000 : 3000;
    for (const auto& [in_flight, fraction] :
         std::vector<std::pair<int, double>>{{16, 0.4}, {32, 0.6}, {64, 1.0}, {128, 0.9}}) {
      AddRow(f,
             {{"op", "read"},
              {"width_bits", "128"},
              {"bytes_in_flight_per_thread", absl::StrCat(in_flight)},
              {"footprint_bytes", Str(footprint)}},
             {{"bandwidth_gbps", best * fraction}});
    }
  }
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(10000.0));
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(6000.0));
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(3000.0));
}

TEST(InferMemoryHierarchiesTest, TwoBandwidthPlateausUseTheL1Capacity) {
  // L1 holds 1 KiB per SM (100 SMs): a plateau reaching 4 MiB is L2.
  ResultFile latency = File("memory_latency");
  AddCurve(latency, "global_ca", 128, "random", Footprints(), [](double x) {
    if (x <= 1 * kKiB) return 30.0;  // one point: needs a second
    if (x <= 2 * kKiB) return 30.0;
    if (x <= 32 * kMiB) return 260.0;
    return 600.0;
  });
  ResultFile bandwidth = File("memory_bandwidth");
  AddBandwidth(bandwidth, "read", 128,
               {{1 * kMiB, 6000},
                {2 * kMiB, 6000},
                {4 * kMiB, 6000},
                {64 * kMiB, 2700},
                {128 * kMiB, 2700}});
  const DeviceHierarchy h = InferOne({latency, bandwidth});
  EXPECT_THAT(RowOf(h, "L1").capacity_bytes, Optional(2 * kKiB));
  EXPECT_EQ(RowOf(h, "L1").bandwidth, std::nullopt);
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(6000.0));
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(2700.0));
}

// The chase's L1 capacity classifies bandwidth plateaus only where both ran
// at the same L1/shared carveout (context l1_carveout): L1 is larger at
// max_l1 than at the driver's default, so a capacity from one says nothing
// about which level serves the other's footprints.
std::pair<ResultFile, ResultFile> CarveoutFixtures(const std::string& chase_carveout,
                                                   const std::string& bandwidth_carveout) {
  // L1 holds 2 KiB per SM at the chase's carveout (100 SMs: 200 KiB).
  ResultFile latency = File("memory_latency");
  if (!chase_carveout.empty()) latency.context["l1_carveout"] = chase_carveout;
  AddCurve(latency, "global_ca", 128, "random", Footprints(), [](double x) {
    if (x <= 2 * kKiB) return 30.0;
    if (x <= 32 * kMiB) return 260.0;
    return 600.0;
  });
  ResultFile bandwidth = File("memory_bandwidth");
  if (!bandwidth_carveout.empty()) bandwidth.context["l1_carveout"] = bandwidth_carveout;
  AddBandwidth(bandwidth, "read", 128,
               {{1 * kMiB, 6000},
                {2 * kMiB, 6000},
                {4 * kMiB, 6000},
                {64 * kMiB, 2700},
                {128 * kMiB, 2700}});
  return {std::move(latency), std::move(bandwidth)};
}

TEST(InferMemoryHierarchiesTest, L1CapacityOfAnotherCarveoutDoesNotClassifyBandwidth) {
  // A chase at the default carveout, and one from before the key existed
  // (carveout unknown), beside bandwidth rows at max_l1.
  for (const std::string chase : {"default", ""}) {
    SCOPED_TRACE(chase.empty() ? "chase without l1_carveout" : chase);
    auto [latency, bandwidth] = CarveoutFixtures(chase, "max_l1");
    const DeviceHierarchy h = InferOne({latency, bandwidth});
    EXPECT_THAT(RowOf(h, "L1").capacity_bytes, Optional(2 * kKiB));
    // Not called L2 for overflowing an L1 measured at another carveout.
    EXPECT_EQ(RowOf(h, "L2").bandwidth, std::nullopt);
    EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(2700.0));
    EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("L1 capacity not used"),
                                        HasSubstr("l1_carveout max_l1"))));
  }
}

TEST(InferMemoryHierarchiesTest, L1CapacityOfTheSameCarveoutClassifiesBandwidth) {
  auto [latency, bandwidth] = CarveoutFixtures("max_l1", "max_l1");
  const DeviceHierarchy h = InferOne({latency, bandwidth});
  EXPECT_EQ(RowOf(h, "L1").bandwidth, std::nullopt);
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(6000.0));
  EXPECT_THAT(h.basis, Not(Contains(HasSubstr("L1 capacity not used"))));
}

// Bandwidth rows of two carveouts are two curves, not one.
TEST(InferMemoryHierarchiesTest, BandwidthRowsOfTwoCarveoutsAreTwoCurves) {
  ResultFile max_l1 = File("memory_bandwidth");
  max_l1.context["l1_carveout"] = "max_l1";
  AddBandwidth(max_l1, "read", 128, {{1 * kMiB, 10000}, {2 * kMiB, 10000}, {4 * kMiB, 10000}});
  ResultFile max_shared = File("memory_bandwidth");
  max_shared.path = "memory_bandwidth_max_shared.json";
  max_shared.context["l1_carveout"] = "max_shared";
  AddBandwidth(max_shared, "read", 128, {{1 * kMiB, 4000}, {2 * kMiB, 4000}, {4 * kMiB, 4000}});
  const DeviceHierarchy h = InferOne({max_l1, max_shared});
  EXPECT_THAT(h.basis, Contains(HasSubstr("memory_bandwidth read, 128-bit, l1_carveout max_l1")));
  EXPECT_THAT(h.basis,
              Contains(HasSubstr("memory_bandwidth read, 128-bit, l1_carveout max_shared")));
}

TEST(InferMemoryHierarchiesTest, NarrowerReadsWhenThereIsNo128Bit) {
  ResultFile f = File("memory_bandwidth");
  AddBandwidth(f, "read", 32,
               {{1 * kMiB, 5000}, {2 * kMiB, 5000}, {64 * kMiB, 2000}, {128 * kMiB, 2000}});
  AddBandwidth(f, "read", 64,
               {{1 * kMiB, 7000}, {2 * kMiB, 7000}, {64 * kMiB, 2400}, {128 * kMiB, 2400}});
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(7000.0));
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(2400.0));
  EXPECT_THAT(h.basis, Contains(HasSubstr("memory_bandwidth read, 64-bit")));
}

// --- Curves shaped like real GPUs' (gradual transitions, near/far L2) ---
// Rule 6 with near copies (A100, Hopper): a warm walk that fits half the L2
// is all near hits (//experiments:latency_trace_method_test), so a second
// level there is no far partition; near the L2's capacity a second level
// can be DRAM misses, so it counts as far only well below a DRAM latency.
// The curve: L2 260 cycles to 32 MiB (so half the L2 is 16 MiB), DRAM 600.

TEST(InferMemoryHierarchiesTest, TraceNearFarLeavesOutAWalkWithinHalfTheL2) {
  ResultFile latency = File("memory_latency");
  AddCurve(latency, "global_cg", 128, "random", Footprints(), TwoLevels);
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_cg", 4 * kMiB, 128, "random", "warm", {{240, 0.5}, {320, 0.5}}, 0);
  const DeviceHierarchy h = InferOne({latency, trace});
  EXPECT_EQ(h.Find("L2 near"), nullptr);
  EXPECT_EQ(h.Find("L2 far"), nullptr);
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("above 16 MiB (half the L2) up to 32 MiB"),
                                      HasSubstr("1 row(s) with two levels at footprints within "
                                                "half the L2 left out"))));
}

TEST(InferMemoryHierarchiesTest, TraceNearFarLeavesOutASecondLevelAtDramLatency) {
  ResultFile latency = File("memory_latency");
  AddCurve(latency, "global_cg", 128, "random", Footprints(), TwoLevels);
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_cg", 30 * kMiB, 128, "random", "warm", {{260, 0.6}, {560, 0.4}}, 0);
  const DeviceHierarchy h = InferOne({latency, trace});
  EXPECT_EQ(h.Find("L2 far"), nullptr);
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("1 row(s) whose second level"),
                                      HasSubstr("the DRAM latency (600 cycles)"),
                                      HasSubstr("can be DRAM misses, not far hits"))));
}

TEST(InferMemoryHierarchiesTest, TraceNearFarNeedsADramLatencyToCompareWith) {
  // device_l2_bytes 50 MB: 40 MiB lies between half and all of it, but
  // without a DRAM latency its 650-cycle level may be DRAM misses.
  ResultFile trace = File("latency_trace");
  AddTrace(trace, "global_cg", 40 * kMiB, 128, "random", "warm", {{280, 0.5}, {650, 0.5}}, 0);
  const DeviceHierarchy h = InferOne({trace});
  EXPECT_EQ(h.Find("L2 far"), nullptr);
  EXPECT_THAT(h.basis, Contains(HasSubstr("a DRAM latency (none measured) left out")));
}

// A fine footprint grid (x1.04 a point, as gpu-benches sweeps) with the
// features of measured curves: gradual L1->L2 and L2->DRAM transitions (with
// a short flat run on the slope), two L2 levels (near and far partition) and
// DRAM latency creeping up as pages outrun the TLB. The numbers are made up
// to resemble the GH200 curve of gpu-benches; they are not measurements.

std::vector<double> FineFootprints() {
  std::vector<double> xs;
  for (double x = 2 * kKiB; x <= 2048 * kMiB; x *= 1.04) xs.push_back(std::round(x));
  return xs;
}

// Log-linear from (x0, y0) to (x1, y1).
double Ramp(double x, double x0, double y0, double x1, double y1) {
  const double t = std::log(x / x0) / std::log(x1 / x0);
  return y0 * std::pow(y1 / y0, t);
}

// L1 33 cycles to 200 KiB; a transition to 300 KiB with a flat pair of
// points at 105 cycles halfway up; L2 near 280 to 25 MiB; a transition to
// 34 MiB; L2 far 500 (+-4 %) to 58 MiB; a transition to 64 MiB; DRAM 620 at
// 64 MiB creeping to 690 at 2 GiB.
double RealLike(double x) {
  if (x <= 200 * kKiB) return 33 + 0.5 * (x / (200 * kKiB));
  if (x <= 230 * kKiB) return Ramp(x, 200 * kKiB, 34, 230 * kKiB, 100);
  if (x <= 240 * kKiB) return 105;
  if (x <= 300 * kKiB) return Ramp(x, 240 * kKiB, 110, 300 * kKiB, 278);
  if (x <= 25 * kMiB) return 280;
  if (x <= 34 * kMiB) return Ramp(x, 25 * kMiB, 285, 34 * kMiB, 480);
  if (x <= 58 * kMiB) return 500 * (1 + 0.04 * std::sin(x / kMiB));
  if (x <= 64 * kMiB) return Ramp(x, 58 * kMiB, 520, 64 * kMiB, 615);
  return Ramp(x, 64 * kMiB, 620, 2048 * kMiB, 690);
}

TEST(RealLikeCurvesTest, ShortFlatRunOnASlopeIsATransitionNotL2) {
  ResultFile f = File("memory_latency");
  f.context["device_l2_bytes"] = Str(50 * kMiB);
  AddCurve(f, "global_ca", 128, "random", FineFootprints(), RealLike);
  const DeviceHierarchy h = InferOne({f});
  const HierarchyRow& l1 = RowOf(h, "L1");
  EXPECT_THAT(l1.latency_cycles, Optional(testing::DoubleNear(33.25, 0.5)));
  ASSERT_TRUE(l1.capacity_bytes.has_value());
  EXPECT_GE(*l1.capacity_bytes, 190 * kKiB);
  EXPECT_LE(*l1.capacity_bytes, 200 * kKiB);
  // Not the flat pair at 105 cycles on the slope.
  EXPECT_THAT(RowOf(h, "L2").latency_cycles, Optional(280.0));
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("transition"), HasSubstr("not a level"))));
}

TEST(RealLikeCurvesTest, TwoL2LevelsAreNearAndFarWithTheirRanges) {
  ResultFile f = File("memory_latency");
  f.context["device_l2_bytes"] = Str(50 * kMiB);
  AddCurve(f, "global_ca", 128, "random", FineFootprints(), RealLike);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(Levels(h), ElementsAre("shared", "L1", "L2", "L2 near", "L2 far", "DRAM", "tex",
                                     "ldg", "const"));
  const HierarchyRow& near = RowOf(h, "L2 near");
  const HierarchyRow& far = RowOf(h, "L2 far");
  EXPECT_THAT(near.latency_cycles, Optional(280.0));
  ASSERT_TRUE(far.latency_cycles.has_value());
  EXPECT_NEAR(*far.latency_cycles, 500, 20);
  ASSERT_TRUE(near.footprint_first && near.footprint_last && far.footprint_first &&
              far.footprint_last);
  EXPECT_GE(*near.footprint_first, 240 * kKiB);
  EXPECT_LE(*near.footprint_first, 320 * kKiB);
  EXPECT_GE(*near.footprint_last, 24 * kMiB);
  EXPECT_LE(*near.footprint_last, 27 * kMiB);  // 285 at 25 MiB: still within 15 %
  EXPECT_GE(*far.footprint_first, 30 * kMiB);
  EXPECT_LE(*far.footprint_first, 35 * kMiB);
  // L2 capacity: where the curve leaves the last L2 level for good (the
  // far one), beside the driver's value.
  ASSERT_TRUE(RowOf(h, "L2").capacity_bytes.has_value());
  EXPECT_GE(*RowOf(h, "L2").capacity_bytes, 56 * kMiB);
  EXPECT_LE(*RowOf(h, "L2").capacity_bytes, 60.5 * kMiB);
  EXPECT_EQ(RowOf(h, "L2").capacity_bytes, far.capacity_bytes);
  EXPECT_THAT(h.notes, Contains(AllOf(HasSubstr("L2 capacity from the curve"),
                                      HasSubstr("device_l2_bytes is 50 MiB, reported by the driver"))));
}

TEST(RealLikeCurvesTest, DramFromBeyondTwiceL2AndTheCreepApart) {
  ResultFile f = File("memory_latency");
  f.context["device_l2_bytes"] = Str(50 * kMiB);
  AddCurve(f, "global_ca", 128, "random", FineFootprints(), RealLike);
  const DeviceHierarchy h = InferOne({f});
  const HierarchyRow& dram = RowOf(h, "DRAM");
  // The points from 100 to 200 MiB: 620 * (690/620)^t for t in about
  // [0.13, 0.33], not the 690 at 2 GiB.
  ASSERT_TRUE(dram.latency_cycles.has_value());
  EXPECT_GT(*dram.latency_cycles, 625);
  EXPECT_LT(*dram.latency_cycles, 640);
  ASSERT_TRUE(dram.footprint_first.has_value());
  EXPECT_GE(*dram.footprint_first, 100 * kMiB);
  EXPECT_LE(*dram.footprint_last, 200 * kMiB);
  EXPECT_THAT(h.notes, Contains(AllOf(HasSubstr("TLB creep"), HasSubstr("1.9"))));
}

TEST(RealLikeCurvesTest, AFourPointRunClimbingASlopeIsNoLevel) {
  // 30 points at 200, then four points at 280, 298, 291, 332 (within 15 %
  // of their median, but not flat), then 30 points at 400.
  ResultFile f = File("memory_latency");
  std::vector<double> xs;
  for (double x = 1 * kMiB; xs.size() < 64; x *= 1.04) xs.push_back(std::round(x));
  const std::vector<double> slope = {280, 298, 291, 332};
  std::map<double, double> y;
  for (size_t i = 0; i < xs.size(); ++i) {
    y[xs[i]] = i < 30 ? 200 : i < 34 ? slope[i - 30] : 400;
  }
  f.context["device_l2_bytes"] = Str(xs.back() * 2);  // no DRAM on this curve
  AddCurve(f, "global_cg", 128, "random", xs, [&](double x) { return y[x]; });
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L2 near").latency_cycles, Optional(200.0));
  EXPECT_THAT(RowOf(h, "L2 far").latency_cycles, Optional(400.0));
  EXPECT_THAT(h.notes, Not(Contains(HasSubstr("L2 levels"))));
}

TEST(RealLikeCurvesTest, EveryRowSaysItsSourceAndMethod) {
  ResultFile f = File("memory_latency");
  f.context["source"] = "gpu-benches@test";
  f.context["source_method"] = "host wall clock over 1e6 loads";
  AddCurve(f, "global_ca", 128, "random", Footprints(), ThreeLevels);
  ResultFile ours = File("memory_latency");
  AddCurve(ours, "global_ca", 128, "random", Footprints(), ThreeLevels);
  absl::StatusOr<std::vector<DeviceHierarchy>> tables = InferMemoryHierarchies({f, ours});
  ASSERT_TRUE(tables.ok()) << tables.status();
  ASSERT_EQ(tables->size(), 2u);  // one device, two sources: two tables
  EXPECT_EQ((*tables)[0].source, "gpu-benches@test");
  EXPECT_EQ(RowOf((*tables)[0], "L2").method, "host wall clock over 1e6 loads");
  EXPECT_EQ((*tables)[1].source, "dissect");
  EXPECT_THAT(RowOf((*tables)[1], "L2").method, HasSubstr("in-kernel %clock64"));
}

// gpu-benches gpu-cache: every SM reads the same data set (per-SM
// footprint), so the plateau after L2 is still L2, not DRAM.
TEST(RealLikeCurvesTest, PerSmSharedBandwidthHasL1AndL2ButNoDram) {
  ResultFile f = File("memory_bandwidth");
  f.context["bandwidth_footprint"] = "per_sm_shared";
  std::vector<std::pair<double, double>> curve;
  for (double x = 1 * kKiB; x <= 280 * kMiB; x *= 1.17) {
    double gbps = x < 16 * kKiB    ? Ramp(x, 1 * kKiB, 8400, 16 * kKiB, 18400)
                  : x < 150 * kKiB ? 19000
                  : x < 320 * kKiB ? Ramp(x, 150 * kKiB, 18000, 320 * kKiB, 5500)
                  : x < 20 * kMiB  ? 5400
                                   : 3000;  // where DRAM would be: still L2
    curve.push_back({std::round(x), gbps});
  }
  AddBandwidth(f, "read", 32, curve);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(19000.0));
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(5400.0));
  EXPECT_EQ(RowOf(h, "DRAM").bandwidth, std::nullopt);
  EXPECT_THAT(h.basis, Contains(HasSubstr("not DRAM: every SM reads the same data set")));
}

// gpu-benches gpu-l2-cache: blocks roam the whole footprint, so a 1 MiB
// footprint is no L1 hit even on 100 SMs.
TEST(RealLikeCurvesTest, TotalRoamingBandwidthIsL2ThenDram) {
  ResultFile f = File("memory_bandwidth");
  f.context["bandwidth_footprint"] = "total_roaming";
  std::vector<std::pair<double, double>> curve;
  for (double x = 1 * kMiB; x <= 4096 * kMiB; x *= 1.1) {
    const double gbps = x < 36 * kMiB   ? 7000
                        : x < 70 * kMiB ? Ramp(x, 36 * kMiB, 6800, 70 * kMiB, 2100)
                                        : 1990;
    curve.push_back({std::round(x), gbps});
  }
  AddBandwidth(f, "read", 64, curve);
  const DeviceHierarchy h = InferOne({f});
  EXPECT_EQ(RowOf(h, "L1").bandwidth, std::nullopt);
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(7000.0));
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(1990.0));
}

// memory_bandwidth's own rows (each SM re-reads its 1/SMs share) stay on
// the L1 plateau until the shares outgrow L1: on 100 SMs of 256 KiB up to
// 25 MiB, then one L2-bound point and DRAM. Its sharing=roaming rows
// (every block reads the whole footprint) leave L1 at one SM's L1 and sit
// on the L2 plateau up to the L2's capacity: they give the L2 level, the
// own rows L1 and DRAM.
TEST(RealLikeCurvesTest, RoamingRowsGiveTheL2BandwidthBesideTheOwnShares) {
  ResultFile f = File("memory_bandwidth");
  for (double x = 1 * kMiB; x <= 1024 * kMiB; x *= 2) {
    const double gbps = x <= 16 * kMiB ? 20000 : x <= 32 * kMiB ? 6000 : 2700;
    AddRow(f,
           {{"op", "read"}, {"width_bits", "128"}, {"footprint_bytes", Str(x)}, {"sharing", "own"}},
           {{"bandwidth_gbps", gbps}});
  }
  for (double x = 16 * kKiB; x <= 1024 * kMiB; x *= 2) {
    const double gbps = x <= 128 * kKiB ? 19000 : x <= 32 * kMiB ? 8800 : 2500;
    AddRow(f,
           {{"op", "read"},
            {"width_bits", "128"},
            {"footprint_bytes", Str(x)},
            {"sharing", "roaming"}},
           {{"bandwidth_gbps", gbps}});
  }
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(20000.0));
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(8800.0));
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(2700.0));
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("L2 bandwidth"),
                                      HasSubstr("footprint total_roaming"))));
}

// Roaming rows to the L2's size only: their second level starts within
// the L2, so it is L2, not DRAM.
TEST(RealLikeCurvesTest, RoamingRowsWithinTheL2EndOnL2) {
  ResultFile f = File("memory_bandwidth");
  for (double x = 16 * kKiB; x <= 32 * kMiB; x *= 2) {
    AddRow(f,
           {{"op", "read"},
            {"width_bits", "128"},
            {"footprint_bytes", Str(x)},
            {"sharing", "roaming"}},
           {{"bandwidth_gbps", x <= 128 * kKiB ? 19000.0 : 8800.0}});
  }
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(19000.0));
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(8800.0));
  EXPECT_EQ(RowOf(h, "DRAM").bandwidth, std::nullopt);
}

// Own shares that do show an L2-bound level (36 and 54 MiB on 100 SMs: a
// share above an SM's L1, maybe partly in it) give way to the roaming L2.
TEST(RealLikeCurvesTest, RoamingL2ComesBeforeTheOwnSharesL2) {
  ResultFile f = File("memory_bandwidth");
  const std::vector<std::pair<double, double>> own = {
      {1 * kMiB, 20000},  {4 * kMiB, 20000},   {16 * kMiB, 20000}, {36 * kMiB, 11000},
      {54 * kMiB, 11000}, {256 * kMiB, 2700},  {1024 * kMiB, 2700}};
  for (const auto& [x, gbps] : own) {
    AddRow(f,
           {{"op", "read"}, {"width_bits", "128"}, {"footprint_bytes", Str(x)}, {"sharing", "own"}},
           {{"bandwidth_gbps", gbps}});
  }
  for (double x = 1 * kMiB; x <= 32 * kMiB; x *= 2) {
    AddRow(f,
           {{"op", "read"},
            {"width_bits", "128"},
            {"footprint_bytes", Str(x)},
            {"sharing", "roaming"}},
           {{"bandwidth_gbps", 8800}});
  }
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(20000.0));
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(8800.0));
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(2700.0));
}

TEST(RealLikeCurvesTest, ANarrowBandwidthPlateauIsATransition) {
  ResultFile f = File("memory_bandwidth");
  // dissect's own (split) footprints: L1, a flat pair at 9000 on the way
  // down (narrow: x1.1), L2, DRAM.
  AddBandwidth(f, "read", 128,
               {{1 * kMiB, 10000},
                {2 * kMiB, 10000},
                {4 * kMiB, 10000},
                {4.4 * kMiB, 8000},
                {4.84 * kMiB, 8000},
                {8 * kMiB, 6000},
                {16 * kMiB, 6000},
                {256 * kMiB, 2700},
                {512 * kMiB, 2700}});
  const DeviceHierarchy h = InferOne({f});
  EXPECT_THAT(RowOf(h, "L1").bandwidth, Optional(10000.0));
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(6000.0));
  EXPECT_THAT(RowOf(h, "DRAM").bandwidth, Optional(2700.0));
  EXPECT_THAT(h.basis, Contains(HasSubstr("transitions, not levels")));
}

// mt4g's summary values (analysis/import: experiment hierarchy_summary).
TEST(RealLikeCurvesTest, SummaryRowsFillTheTable) {
  ResultFile f = File("hierarchy_summary");
  f.context["source"] = "mt4g@test";
  f.context["source_method"] = "p-chase, mean of 256 loads";
  AddRow(f, {{"level", "L1"}},
         {{"latency_cycles", 38},
          {"latency_cycles.p50", 38},
          {"capacity_bytes", 238848},
          {"capacity_confidence", 0.97},
          {"line_bytes", 128}});
  AddRow(f, {{"level", "L2"}},
         {{"latency_cycles", 219.3}, {"capacity_bytes", 52428800}, {"read_bandwidth_gbps", 4863}});
  AddRow(f, {{"level", "DRAM"}}, {{"latency_cycles", 834.5}, {"read_bandwidth_gbps", 2750}});
  f.rows.back().label = "source: mt4g@test; method: p-chase, randomized: false";
  AddRow(f, {{"level", "const"}},
         {{"latency_cycles", 20.7}, {"capacity_bytes", 65537}, {"capacity_confidence", 0}});
  AddRow(f, {{"level", "const_l1.5"}}, {{"latency_cycles", 104.9}});
  const DeviceHierarchy h = InferOne({f});
  EXPECT_EQ(h.source, "mt4g@test");
  EXPECT_THAT(RowOf(h, "L1").latency_cycles, Optional(38.0));
  EXPECT_THAT(RowOf(h, "L1").capacity_bytes, Optional(238848.0));
  EXPECT_THAT(RowOf(h, "L1").line_bytes, Optional(128.0));
  EXPECT_EQ(RowOf(h, "L1").method, "p-chase, mean of 256 loads");
  EXPECT_THAT(RowOf(h, "L2").bandwidth, Optional(4863.0));
  EXPECT_THAT(RowOf(h, "DRAM").ceiling_fraction, Optional(2750.0 / 3000));
  // A row's own label method before the file's source_method.
  EXPECT_EQ(RowOf(h, "DRAM").method, "p-chase, randomized: false");
  EXPECT_THAT(RowOf(h, "const").latency_cycles, Optional(20.7));
  EXPECT_EQ(RowOf(h, "const").capacity_bytes, std::nullopt);  // confidence 0
  EXPECT_THAT(h.basis, Contains(AllOf(HasSubstr("const_l1.5"), HasSubstr("left out"))));
}

}  // namespace
}  // namespace dissect::analysis
