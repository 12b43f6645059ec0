// Tests for the intergroup-sharing section (sharing.h) and its figures: the
// section over the synthetic files of analysis/testdata/sharing/ against
// sharing.golden.md, the figures' gnuplot text against
// sharing_figures.golden.txt, the table builders on hand-made rows, and
// gnuplot drawing the figures (skipped where gnuplot is not installed).
//
// After an intended change, regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/plots:sharing_test

#include "analysis/sections/sharing.h"

#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/plots/figures.h"
#include "analysis/plots/fixture_test_util.h"
#include "analysis/importers/import.h"
#include "analysis/importers/peers_test_util.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::ReadText;
using test_util::Runfile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kTestdata[] = "analysis/testdata/sharing/";
constexpr char kTarget[] = "//analysis/plots:sharing_test";

std::vector<ResultFile> ReadFixtures() {
  return testing::ReadResultFixtures(kTestdata,
                                     {"synthetic_l1_duplication.json", "synthetic_dsm_latency.json",
                                      "synthetic_dsm_bandwidth.json", "synthetic_gpc_topology.json",
                                      "synthetic_l2_sm_map.json", "synthetic_cluster_coop.json"});
}

void CheckGolden(const std::string& actual, const std::string& golden) {
  testing::ExpectMatchesGolden(actual, absl::StrCat(kTestdata, golden), kTarget);
}

TEST(SharingGoldenTest, SectionMatchesGolden) {
  const std::vector<ResultFile> files = ReadFixtures();
  ASSERT_EQ(files.size(), 6u);
  CheckGolden(RenderSharingSections(files), "sharing.golden.md");
}

TEST(SharingGoldenTest, FiguresMatchGolden) {
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(ReadFixtures());
  ASSERT_TRUE(figures.ok()) << figures.status();
  std::string actual;
  for (const DeviceFigures& device : *figures) {
    for (const FigureFile& file : device.files) {
      absl::StrAppend(&actual, "==> ", device.folder, "/", file.name, " <==\n", file.contents);
    }
  }
  CheckGolden(actual, "sharing_figures.golden.txt");
}

// The report ends with the section; without sharing results it has none.
TEST(SharingReportTest, RenderReportAppendsTheSectionOnlyWithSharingResults) {
  absl::StatusOr<std::string> report = RenderReport(ReadFixtures(), {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("\n## intergroup sharing: SYNTHETIC H100 (test data)\n"));
  EXPECT_EQ(RenderSharingSections({}), "");
  ResultFile other;
  other.experiment = "memory_latency";
  EXPECT_EQ(RenderSharingSections({other}), "");
}

// Imported results of a peer suite stay apart from ours.
TEST(SharingReportTest, SourcesOfOneDeviceGetSections) {
  std::vector<ResultFile> files = ReadFixtures();
  files.push_back(files[3]);
  files.back().context["source"] = "peer-suite";
  const std::string out = RenderSharingSections(files);
  EXPECT_THAT(out, HasSubstr("## intergroup sharing: SYNTHETIC H100 (test data)\n"));
  EXPECT_THAT(out, HasSubstr("## intergroup sharing: SYNTHETIC H100 (test data) (peer-suite)\n"));
}

DsmRow Dsm(int size, double local, double peer, double l2) {
  DsmRow r;
  r.cluster_size = size;
  r.local_cycles = local;
  r.peer_cycles = peer;
  r.l2_cycles = l2;
  return r;
}

TEST(DsmCheckTest, SaysYesWhenDsmLiesBetweenLocalAndL2) {
  EXPECT_EQ(DsmCheck({Dsm(2, 30, 190, 260), Dsm(4, 30, 200, 260)}), "yes (cluster sizes 2, 4).");
}

TEST(DsmCheckTest, SaysNoWhenDsmIsAboveL2) {
  EXPECT_EQ(DsmCheck({Dsm(2, 30, 190, 260), Dsm(8, 30, 300, 262)}),
            "no: cluster size 8: DSM 300 cycles ≥ L2 262 cycles.");
  EXPECT_EQ(DsmCheck({Dsm(2, 30, 20, 260)}),
            "no: cluster size 2: DSM 20 cycles ≤ local shared 30 cycles.");
}

TEST(DsmCheckTest, CannotTellWithoutAllThree) {
  DsmRow r = Dsm(2, 30, 190, 260);
  r.l2_cycles.reset();
  EXPECT_THAT(DsmCheck({r}), ::testing::StartsWith("cannot tell"));
}

Row SkippedRow(std::vector<std::pair<std::string, std::string>> axes, const std::string& why) {
  Row row;
  row.axes = std::move(axes);
  row.error = true;
  row.error_message = absl::StrCat("skipped: ", why);
  return row;
}

ResultFile File(const std::string& experiment, std::vector<Row> rows) {
  ResultFile f;
  f.path = experiment + ".json";
  f.experiment = experiment;
  f.context = {
      {"device_name", "GPU"}, {"device_compute_capability", "9.0"}, {"device_sm_count", "4"}};
  f.rows = std::move(rows);
  return f;
}

TEST(DsmTableTest, SkippedRowsShowTheirReason) {
  Row local;
  local.axes = {{"cluster_size", "2"}, {"path", "shared_local"}};
  local.counters = {{"cycles_per_load", 31}, {"max_active_clusters", 66}};
  Row peer;
  peer.axes = {{"cluster_size", "4"}, {"path", "dsm_peer"}};
  // Entry 0 is the block's own shared memory: not a peer in a cluster of 4.
  peer.counters = {{"cycles_per_load", 186},
                   {"cycles_by_peer[0]", 150},
                   {"cycles_by_peer[1]", 184},
                   {"cycles_by_peer[2]", NAN},
                   {"cycles_by_peer[3]", 188}};
  const ResultFile latency =
      File("dsm_latency",
           {local, peer, SkippedRow({{"cluster_size", "16"}, {"path", "shared_local"}}, "refused"),
            SkippedRow({{"cluster_size", "16"}, {"path", "dsm_peer"}}, "refused"),
            SkippedRow({{"cluster_size", "16"}, {"path", "l2"}}, "no L2 row")});
  const std::vector<SharingDevice> devices = BuildSharing({&latency});
  ASSERT_EQ(devices.size(), 1u);
  const std::vector<DsmRow>& rows = devices[0].dsm;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].max_active_clusters, 66);
  EXPECT_EQ(rows[1].peer_cycles, 186);
  EXPECT_EQ(rows[1].peer_min_cycles, 184);
  EXPECT_EQ(rows[1].peer_max_cycles, 188);
  EXPECT_THAT(rows[2].notes, ElementsAre("dsm_latency (shared_local, dsm_peer): skipped: refused",
                                         "dsm_latency (l2): skipped: no L2 row"));
  const std::string table = RenderMarkdownTable(DsmTable(rows));
  EXPECT_THAT(table, HasSubstr(" 184–188 |"));
  EXPECT_THAT(table, HasSubstr("dsm_latency (shared_local, dsm_peer): skipped: refused; "
                               "dsm_latency (l2): skipped: no L2 row"));
}

Row BandwidthRow(int size, const std::string& path, int bytes, double gbps,
                 std::optional<double> same_sm) {
  Row row;
  row.axes = {{"cluster_size", absl::StrCat(size)},
              {"path", path},
              {"bytes_per_block", absl::StrCat(bytes)}};
  row.counters = {{"bandwidth_gbps", gbps}, {"max_active_clusters", 32}};
  if (same_sm) row.counters["peer_same_sm_fraction"] = *same_sm;
  return row;
}

// A peer read on the reader's own SM never crosses the SM-to-SM network:
// such rows (and rows that did not record where the peers ran) are not DSM
// bandwidth, however fast, and the notes say why.
TEST(DsmTableTest, SameSmPeerRowsAreLeftOutWithTheirReason) {
  const ResultFile bandwidth =
      File("dsm_bandwidth", {BandwidthRow(4, "shared_local", 32768, 3300, 0),
                             BandwidthRow(4, "dsm_peer", 32768, 2900, 0.5),
                             BandwidthRow(4, "dsm_peer", 65536, 900, 0),
                             BandwidthRow(4, "dsm_peer", 16384, 2500, std::nullopt),
                             BandwidthRow(1, "dsm_peer", 32768, 3200, 1)});
  const std::vector<SharingDevice> devices = BuildSharing({&bandwidth});
  ASSERT_EQ(devices.size(), 1u);
  const std::vector<DsmRow>& rows = devices[0].dsm;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].dsm_gbps, std::nullopt);
  EXPECT_THAT(rows[0].notes,
              ElementsAre(HasSubstr("dsm_bandwidth (dsm_peer): left out (bytes_per_block 32768): "
                                    "peer_same_sm_fraction 1")));
  EXPECT_EQ(rows[1].local_gbps, 3300);
  EXPECT_EQ(rows[1].dsm_gbps, 900);
  EXPECT_THAT(rows[1].notes,
              ElementsAre(HasSubstr("(bytes_per_block 32768): peer_same_sm_fraction 0.5"),
                          HasSubstr("(bytes_per_block 16384): no peer_same_sm_fraction")));
  EXPECT_THAT(RenderMarkdownTable(DsmTable(rows)), HasSubstr(" 0.27 |"));
}

TEST(CompressRangesTest, RunsBecomeRanges) {
  EXPECT_EQ(CompressRanges({14, 0, 1, 15, 7}), "0-1, 7, 14-15");
  EXPECT_EQ(CompressRanges({3}), "3");
  EXPECT_EQ(CompressRanges({}), "");
  EXPECT_EQ(CompressRanges({2, 3, 4, 2}), "2-4");
}

TEST(GpcMapTableTest, UnmappedSmIsListedLast) {
  GpcMap map;
  map.gpc_of_sm = {1, 1, 0, 0, -1, 0, 1};
  const MarkdownTable table = GpcMapTable(map);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_THAT(table.rows[0], ElementsAre("0", "3", "2-3, 5"));
  EXPECT_THAT(table.rows[1], ElementsAre("1", "3", "0-1, 6"));
  EXPECT_THAT(table.rows[2], ElementsAre("unmapped", "1", "4"));
}

// gpc_topology gives SMs of groups too small to be a GPC -1 and counts them
// in unresolved_sms: the section says so and the table row names them.
TEST(GpcMapTableTest, UnresolvedSmsAreNamedBesideUnmapped) {
  Row row;
  row.axes = {{"launches", "128"}, {"cluster_size", "0"}};
  row.counters = {{"gpcs", 2},           {"sms_mapped", 6},       {"inconsistent_sms", 0},
                  {"unresolved_sms", 2}, {"max_active_clusters", 2}};
  const std::vector<int> gpc_of_sm = {0, 0, 1, 1, -1, -1};
  for (size_t sm = 0; sm < gpc_of_sm.size(); ++sm) {
    row.counters[absl::StrCat("gpc_of_sm[", sm, "]")] = gpc_of_sm[sm];
  }
  const ResultFile file = File("gpc_topology", {row});
  const std::vector<SharingDevice> devices = BuildSharing({&file});
  ASSERT_EQ(devices.size(), 1u);
  ASSERT_TRUE(devices[0].gpc_map.has_value());
  EXPECT_EQ(devices[0].gpc_map->unresolved_sms, 2);
  const MarkdownTable table = GpcMapTable(*devices[0].gpc_map);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_THAT(table.rows[2], ElementsAre("unmapped or unresolved", "2", "4-5"));
  EXPECT_THAT(RenderSharingSections({file}),
              HasSubstr("0 inconsistent SM(s) (an SM seen in more than one GPC across launches); "
                        "2 unresolved SM(s)"));
}

TEST(DuplicationTableTest, MissingHitRatioAndNaNGpcFractionsAreEmpty) {
  Row row;
  row.axes = {{"kernel", "gemv"}, {"layer", "vgg16.fc6"}, {"batch", "1"}};
  row.counters = {{"lines_touched", 100},
                  {"replication", 1.5},
                  {"duplicated_fraction", 0.25},
                  {"gpc_duplicated_fraction", NAN},
                  {"cross_gpc_duplicated_fraction", NAN},
                  {"sms_used", 4}};
  Row hit = row;
  hit.counters["cupti/l1_hit_rate"] = 42.5;
  const ResultFile file = File(
      "l1_duplication", {row, hit, SkippedRow({{"kernel", "softmax"}, {"layer", "x"}}, "too big")});
  const MarkdownTable table = DuplicationTable(BuildSharing({&file})[0].duplication);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_THAT(table.rows[0],
              ElementsAre("gemv", "vgg16.fc6", "1", "—", "100", "1.5", "25.0%", "—", "—", "4", ""));
  EXPECT_EQ(table.rows[1][3], "42.5%");
  EXPECT_EQ(table.rows[2].back(), "skipped: too big");
}

TEST(CoopTableTest, LayerRowOfAnotherClusterSizeIsTheBaseline) {
  auto coop_row = [](const std::string& size, const std::string& variant, double us) {
    Row row;
    row.axes = {{"kernel", "gemv"},
                {"layer", "fc6"},
                {"batch", "1"},
                {"cluster_size", size},
                {"variant", variant}};
    row.real_time = us;
    row.time_unit = "us";
    row.counters = {{"speedup_vs_layer", 100 / us}, {"speedup_spread", 0.05}};
    if (variant == "coop") row.counters["peer_same_sm_fraction"] = 0;
    return row;
  };
  const ResultFile file =
      File("cluster_coop", {coop_row("1", "layer", 100), coop_row("4", "coop", 80)});
  const std::vector<CoopRow> rows = BuildSharing({&file})[0].coop;
  ASSERT_EQ(rows.size(), 2u);
  const MarkdownTable table = CoopTable(rows);
  EXPECT_EQ(table.rows[1][3], "4");
  EXPECT_EQ(table.rows[1][5], "100");  // the layer time of cluster size 1
  EXPECT_EQ(table.rows[1][7], "80");
  EXPECT_EQ(table.rows[1][9], "1.250 ±5.0%");
}

// A coop block whose cluster peer ran on its own SM shared the tile without
// DSM: its time and speedup are not shown as the cooperative kernel's, and
// the note says why; so is a coop row that did not record where peers ran.
TEST(CoopTableTest, SameSmCoopRowsAreLeftOutWithTheirReason) {
  auto coop_row = [](const std::string& size, const std::string& variant,
                     std::optional<double> same_sm) {
    Row row;
    row.axes = {{"kernel", "conv3x3"}, {"layer", "conv3_1"}, {"batch", "1"},
                {"cluster_size", size},  {"variant", variant}};
    row.real_time = 80;
    row.time_unit = "us";
    row.counters = {{"speedup_vs_layer", 1.25}, {"speedup_spread", 0.05}};
    if (same_sm) row.counters["peer_same_sm_fraction"] = *same_sm;
    return row;
  };
  // A cluster of 1 has no peer: its fraction is NaN, and its time stands.
  const ResultFile file = File(
      "cluster_coop", {coop_row("2", "layer", std::nullopt), coop_row("2", "coop", 0.5),
                       coop_row("4", "coop", std::nullopt), coop_row("8", "coop", 0),
                       coop_row("1", "coop", std::numeric_limits<double>::quiet_NaN())});
  const MarkdownTable table = CoopTable(BuildSharing({&file})[0].coop);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[0][7], "—");
  EXPECT_EQ(table.rows[0][9], "—");
  EXPECT_THAT(table.rows[0].back(),
              HasSubstr("coop: left out (cluster_size 2): peer_same_sm_fraction 0.5"));
  EXPECT_EQ(table.rows[1][7], "—");
  EXPECT_THAT(table.rows[1].back(), HasSubstr("no peer_same_sm_fraction"));
  EXPECT_EQ(table.rows[2][7], "80");
  EXPECT_EQ(table.rows[2].back(), "");
  EXPECT_EQ(table.rows[3][3], "1");
  EXPECT_EQ(table.rows[3][7], "80");
  EXPECT_EQ(table.rows[3].back(), "");
}

TEST(LinesByPartitionTest, GroupsLinesByPartitionKeepingOrder) {
  L2Map map;
  map.line_count = 6;
  map.partition_of_line = {1, 0, 1, 0, 0};  // line 5 has no partition
  EXPECT_THAT(LinesByPartition(map), ElementsAre(5, 1, 3, 4, 0, 2));
}

// gnuplot draws every sharing figure of the fixtures into an SVG.
TEST(SharingFiguresTest, GnuplotDrawsEveryFigure) {
  if (RunGnuplot(".", "--version") == 127) GTEST_SKIP() << "gnuplot not on PATH";
  absl::StatusOr<std::vector<DeviceFigures>> figures = BuildFigures(ReadFixtures());
  ASSERT_TRUE(figures.ok()) << figures.status();
  ASSERT_EQ(figures->size(), 1u);
  const DeviceFigures& device = figures->front();
  EXPECT_THAT(device.scripts, ElementsAre("sharing_l1_duplication.gp", "sharing_dsm.gp",
                                          "sharing_l2_heatmap.gp", "sharing_gpc_map.gp"));
  std::filesystem::path dir;
  ASSERT_NO_FATAL_FAILURE(testing::DrawFigures(device, "sharing_test", &dir));
  EXPECT_THAT(test_util::ReadText((dir / "sharing_l1_duplication.svg").string()),
              HasSubstr("duplicated fraction of L1 data"));
  EXPECT_THAT(test_util::ReadText((dir / "sharing_l1_duplication.svg").string()), Not(HasSubstr("softmax")));
}

TEST(PeerL2CheckTest, AgreesDiffersOrCannotTell) {
  PeerL2Segment peer;
  peer.source = "mt4g@abc";
  peer.path = "h100.json";
  peer.segment_bytes = 25.0 * 1024 * 1024;
  peer.l2_bytes = 50.0 * 1024 * 1024;
  L2Map two;
  two.partitions = 2;
  EXPECT_EQ(PeerL2Check({two}, peer),
            "mt4g@abc (`h100.json`) measured an L2 segment of 25 MiB; with the 50 MiB L2 that is "
            "2 segments. l2_sm_map inferred 2 partition(s): they agree.");
  L2Map one;
  one.partitions = 1;
  EXPECT_THAT(PeerL2Check({one}, peer), HasSubstr("inferred 1 partition(s): they differ"));
  EXPECT_THAT(PeerL2Check({L2Map{}}, peer), HasSubstr("inferred no partition count"));
  peer.l2_bytes.reset();
  EXPECT_THAT(PeerL2Check({two}, peer), HasSubstr("the file gives no L2 size"));
}

// Real data: mt4g's H100 result (../shared/data/peers) imported beside an
// l2_sm_map of the same device name puts mt4g's L2 segment (25 MiB of 50:
// two segments) under the near/far table; another device's does not.
TEST(PeerL2CheckTest, Mt4gH100SegmentSitsBesideTheL2Map) {
  const std::string peers = testing::FindPeersDir();
  if (!testing::IsDirectory(peers)) GTEST_SKIP() << testing::PeersMissing(peers);
  std::vector<ResultFile> files;
  for (const char* name : {"NVIDIA_H100_80GB_HBM3.json", "NVIDIA_A100-PCIE-40GB.json"}) {
    const std::string path = absl::StrCat(peers, "/mt4g/", name);
    ImportOptions options;
    options.from = "mt4g";
    absl::StatusOr<ImportedFile> imported = ImportPeerText(test_util::ReadText(path), path, options);
    ASSERT_TRUE(imported.ok()) << imported.status();
    absl::StatusOr<ResultFile> file = ParseResultJson(imported->json, path);
    ASSERT_TRUE(file.ok()) << file.status();
    files.push_back(*std::move(file));
  }
  const std::string map_path = absl::StrCat(kTestdata, "synthetic_l2_sm_map.json");
  absl::StatusOr<ResultFile> map = ParseResultJson(test_util::ReadText(test_util::Runfile(map_path)), map_path);
  ASSERT_TRUE(map.ok()) << map.status();
  map->context["device_name"] = "NVIDIA H100 80GB HBM3";
  files.push_back(*std::move(map));
  const std::string section = RenderSharingSections(files);
  EXPECT_THAT(section, HasSubstr("NVIDIA_H100_80GB_HBM3.json`) measured an L2 segment of 25 MiB; "
                                 "with the 50 MiB L2 that is 2 segments. l2_sm_map inferred 2 "
                                 "partition(s): they agree."));
  EXPECT_THAT(section, Not(HasSubstr("NVIDIA_A100-PCIE-40GB.json`) measured")));
}

}  // namespace
}  // namespace dissect::analysis
