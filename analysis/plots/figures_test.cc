// Unit tests for the figure generator (the full text is covered by
// figures_golden_test).

#include "analysis/plots/figures.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(DeviceFolderTest, LowerCaseWithUnderscores) {
  EXPECT_EQ(DeviceFolder("Synthetic H100-like GPU (fixture)"), "synthetic_h100_like_gpu_fixture");
  EXPECT_EQ(DeviceFolder("NVIDIA H100 80GB HBM3"), "nvidia_h100_80gb_hbm3");
  EXPECT_EQ(DeviceFolder("  ../x//y  "), "x_y");
  EXPECT_EQ(DeviceFolder("Grüße"), "gr_e");
  EXPECT_EQ(DeviceFolder("()"), "device");
}

ResultFile LatencyFile(const std::string& device, const std::string& cc) {
  ResultFile f;
  f.path = "lat.json";
  f.experiment = "memory_latency";
  f.context = {{"device_name", device}, {"device_compute_capability", cc}};
  for (long long footprint = 1024; footprint <= (1LL << 30); footprint *= 2) {
    Row row;
    row.axes = {{"path", "global_cg"},
                {"footprint_bytes", absl::StrCat(footprint)},
                {"stride_bytes", "128"},
                {"order", "random"}};
    row.counters = {{"cycles_per_load", footprint < (64 << 20) ? 260.0 : 600.0}};
    f.rows.push_back(row);
  }
  return f;
}

const FigureFile* FileNamed(const DeviceFigures& d, const std::string& name) {
  for (const FigureFile& f : d.files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(BuildFiguresTest, LatencyFigureOnly) {
  absl::StatusOr<std::vector<DeviceFigures>> figures =
      BuildFigures({LatencyFile("GPU 'A'", "9.0")});
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 1u);
  const DeviceFigures& d = figures->front();
  EXPECT_EQ(d.folder, "gpu_a");
  EXPECT_EQ(d.scripts, std::vector<std::string>{"latency_vs_footprint.gp"});
  const FigureFile* script = FileNamed(d, "latency_vs_footprint.gp");
  ASSERT_NE(script, nullptr);
  // Single quotes in gnuplot strings are doubled.
  EXPECT_THAT(script->contents, HasSubstr("set title 'GPU ''A'': load latency vs footprint'"));
  EXPECT_THAT(script->contents, HasSubstr("set logscale x 2\n"));
  // 1 KiB .. 1 GiB is 21 powers of two: every fifth one is labelled, from
  // a multiple of five, so that 1 KiB, 1 MiB and 1 GiB are among them.
  EXPECT_THAT(script->contents, HasSubstr("set xtics ('1 KiB' 1024, '32 KiB' 32768, '1 MiB' "
                                          "1048576, '32 MiB' 33554432, '1 GiB' 1073741824)\n"));
  EXPECT_THAT(script->contents, HasSubstr("title 'global_cg (random, stride 128 B)'"));
  const FigureFile* data = FileNamed(d, "latency_vs_footprint.dat");
  ASSERT_NE(data, nullptr);
  EXPECT_THAT(data->contents, HasSubstr("\n1024 260\n2048 260\n"));
  EXPECT_THAT(data->contents, HasSubstr("\n1073741824 600\n"));
  EXPECT_EQ(FileNamed(d, "bandwidth_vs_footprint.gp"), nullptr);
}

TEST(BuildFiguresTest, SameNameOnTwoDevicesGetsTwoFolders) {
  absl::StatusOr<std::vector<DeviceFigures>> figures =
      BuildFigures({LatencyFile("GPU", "9.0"), LatencyFile("GPU", "8.0")});
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 2u);
  EXPECT_EQ((*figures)[0].folder, "gpu");
  EXPECT_EQ((*figures)[1].folder, "gpu_2");
}

// Imported peer results (context `source`) of the same device are drawn
// apart from ours, never merged into our curves, and say whose they are.
TEST(BuildFiguresTest, PeerResultsOfTheSameDeviceGetTheirOwnFigures) {
  ResultFile peer = LatencyFile("GPU", "9.0");
  peer.context["source"] = "gpu-benches@abc";
  for (Row& row : peer.rows) row.counters["cycles_per_load"] *= 2;
  absl::StatusOr<std::vector<DeviceFigures>> figures =
      BuildFigures({LatencyFile("GPU", "9.0"), peer});
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 2u);
  EXPECT_EQ((*figures)[0].folder, "gpu");
  EXPECT_EQ((*figures)[1].folder, "gpu_gpu_benches_abc");
  const FigureFile* ours = FileNamed((*figures)[0], "latency_vs_footprint.dat");
  const FigureFile* theirs = FileNamed((*figures)[1], "latency_vs_footprint.dat");
  ASSERT_NE(ours, nullptr);
  ASSERT_NE(theirs, nullptr);
  EXPECT_THAT(ours->contents, HasSubstr("\n1024 260\n"));
  EXPECT_THAT(theirs->contents, HasSubstr("\n1024 520\n"));
  const FigureFile* script = FileNamed((*figures)[1], "latency_vs_footprint.gp");
  ASSERT_NE(script, nullptr);
  EXPECT_THAT(script->contents, HasSubstr("set title 'GPU (gpu-benches@abc): load latency"));
}

TEST(BuildFiguresTest, FailsWithoutMemoryResults) {
  ResultFile relu;
  relu.experiment = "relu";
  EXPECT_FALSE(BuildFigures({relu}).ok());
  ResultFile empty = LatencyFile("GPU", "9.0");
  empty.rows.clear();
  EXPECT_FALSE(BuildFigures({empty}).ok());
}

TEST(BuildFiguresTest, BandwidthFigureWithThePeak) {
  ResultFile f;
  f.path = "bw.json";
  f.experiment = "memory_bandwidth";
  f.context = {{"device_name", "GPU"}, {"device_dram_peak_gbps", "3352.3"}};
  for (const char* op : {"copy", "read"}) {
    for (long long footprint : {16384LL, 65536LL}) {
      Row row;
      row.axes = {{"op", op}, {"width_bits", "128"}, {"footprint_bytes", absl::StrCat(footprint)}};
      row.counters = {{"bandwidth_gbps", 1000.0 + footprint / 1024}};
      f.rows.push_back(row);
    }
  }
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures({f});
  ASSERT_TRUE(figures.ok()) << figures.status();
  const DeviceFigures& d = figures->front();
  EXPECT_EQ(d.scripts, std::vector<std::string>{"bandwidth_vs_footprint.gp"});
  const FigureFile* script = FileNamed(d, "bandwidth_vs_footprint.gp");
  ASSERT_NE(script, nullptr);
  // read before copy; the peak as a dashed line.
  EXPECT_THAT(script->contents, HasSubstr("index 0 using 1:2 with linespoints title 'read, "
                                          "128-bit'"));
  EXPECT_THAT(script->contents, HasSubstr("index 1 using 1:2 with linespoints title 'copy, "
                                          "128-bit'"));
  // The legend says where the peak comes from, without internal keys.
  EXPECT_THAT(script->contents, HasSubstr("3352.3 with lines dashtype 2 lc rgb 'black' title "
                                          "'DRAM peak, 3352 GB/s (from the driver''s memory "
                                          "clock and bus width)'"));
  EXPECT_THAT(script->contents, Not(HasSubstr("device_dram_peak_gbps")));
  EXPECT_THAT(script->contents, Not(HasSubstr("\"")));
}

// Two programs of one imported suite on one device: a line each, named by
// program and method (not by load width alone); the footprint axis from
// 1 KiB to 4.5 GiB labelled at 1 KiB, 1 MiB and 1 GiB among others.
TEST(BuildFiguresTest, ImportedBandwidthLinesAreNamedByProgramAndMethod) {
  auto imported = [](const std::string& format, const std::string& width,
                     const std::string& method, std::vector<long long> footprints) {
    ResultFile f;
    f.path = format + ".json";
    f.experiment = "memory_bandwidth";
    f.context = {{"device_name", "A100"},
                 {"source", "gpu-benches@1038c5d0d0f4"},
                 {"source_format", format},
                 {"device_dram_peak_gbps", "2039"},
                 {"device_facts_from_flags", "device_name,device_dram_peak_gbps"}};
    for (long long footprint : footprints) {
      Row row;
      row.axes = {{"op", "read"}, {"width_bits", width}, {"footprint_bytes", absl::StrCat(footprint)}};
      row.counters = {{"bandwidth_gbps", 5000.0}};
      row.label = "source: gpu-benches@1038c5d0d0f4; method: " + method;
      f.rows.push_back(row);
    }
    return f;
  };
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(
      {imported("gpu-cache", "32", "1 block x 256 threads per SM re-reading one shared data set",
                {1024, 65536}),
       imported("gpu-l2-cache", "64", "100000 blocks roaming the footprint", {2 << 20, 4830000000LL})});
  ASSERT_TRUE(figures.ok()) << figures.status();
  const FigureFile* script = FileNamed(figures->front(), "bandwidth_vs_footprint.gp");
  ASSERT_NE(script, nullptr);
  EXPECT_THAT(script->contents,
              HasSubstr("title 'gpu-benches gpu-cache: 1 block x 256 threads per SM re-reading one "
                        "shared data set (read, 32-bit)'"));
  EXPECT_THAT(script->contents,
              HasSubstr("title 'gpu-benches gpu-l2-cache: 100000 blocks roaming the footprint "
                        "(read, 64-bit)'"));
  EXPECT_THAT(script->contents, HasSubstr("'DRAM peak, 2039 GB/s (given to //analysis:import by a flag)'"));
  // Long titles: one key entry a line, else gnuplot leaves the key out.
  EXPECT_THAT(script->contents, HasSubstr("set key below vertical maxcols 1\n"));
  EXPECT_THAT(script->contents, HasSubstr("'1 KiB' 1024, '32 KiB' 32768, '1 MiB' 1048576"));
  EXPECT_THAT(script->contents, HasSubstr("'1 GiB' 1073741824"));
}

TEST(BuildFiguresTest, StallBreakdownOnly) {
  ResultFile f;
  f.path = "relu.json";
  f.experiment = "relu_bandwidth";
  f.context = {{"device_name", "GPU"}};
  Row row;
  row.axes = {{"bytes", "1024"}};
  row.counters = {
      {"cupti/stall_long_scoreboard", 3}, {"cupti/stall_barrier", 1}, {"bandwidth_gbps", 10}};
  f.rows.push_back(row);
  row.axes = {{"bytes", "2048"}};
  row.counters = {{"cupti/stall_barrier", 2}};  // no long_scoreboard
  f.rows.push_back(row);
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures({f});
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 1u);
  const DeviceFigures& d = figures->front();
  EXPECT_EQ(d.scripts, std::vector<std::string>{"stall_breakdown.gp"});
  const FigureFile* data = FileNamed(d, "stall_breakdown.dat");
  ASSERT_NE(data, nullptr);
  // barrier has the larger total share (0.25 + 1): it comes first. One file:
  // no [n] before the labels.
  EXPECT_THAT(data->contents, HasSubstr("#  barrier long_scoreboard\n"));
  EXPECT_THAT(data->contents, HasSubstr("\n\"relu_bandwidth/bytes:1024\" 0.25 0.75\n"
                                        "\"relu_bandwidth/bytes:2048\" 1 0\n"));
  const FigureFile* script = FileNamed(d, "stall_breakdown.gp");
  ASSERT_NE(script, nullptr);
  EXPECT_THAT(script->contents, HasSubstr("set style histogram rowstacked\n"));
  EXPECT_THAT(script->contents, HasSubstr("plot 'stall_breakdown.dat' using 2:xtic(1) title "
                                          "'barrier' lc rgb '#1f77b4', \\\n     '' using 3 "
                                          "title 'long_scoreboard' lc rgb '#ff7f0e'\n"));
  EXPECT_THAT(script->contents, HasSubstr("#   relu.json\n"));
}

TEST(BuildFiguresTest, StallRowsBesideMemoryResults) {
  ResultFile stalls = LatencyFile("GPU", "9.0");
  stalls.path = "stalls.json";
  stalls.experiment = "relu_bandwidth";
  for (Row& row : stalls.rows) row.counters = {{"cupti/stall_wait", 1}};
  absl::StatusOr<std::vector<DeviceFigures>> figures =
      BuildFigures({LatencyFile("GPU", "9.0"), stalls});
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 1u);
  const DeviceFigures& d = figures->front();
  EXPECT_EQ(d.scripts, (std::vector<std::string>{"latency_vs_footprint.gp", "stall_breakdown.gp"}));
  // Each script names only the files it draws.
  EXPECT_THAT(FileNamed(d, "latency_vs_footprint.gp")->contents, Not(HasSubstr("stalls.json")));
  EXPECT_THAT(FileNamed(d, "stall_breakdown.gp")->contents, Not(HasSubstr("lat.json")));
}

}  // namespace
}  // namespace dissect::analysis
