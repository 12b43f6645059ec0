// Unit tests for the stall-reason normalization, table and CSV.

#include "analysis/sections/stalls.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

double Sum(const std::map<std::string, double>& m) {
  double s = 0;
  for (const auto& [k, v] : m) s += v;
  return s;
}

TEST(StallCountersTest, OnlyStallCountersByReason) {
  Row row;
  row.counters = {
      {"cupti/stall_long_scoreboard", 6},
      {"cupti/stall_barrier", 2},
      {"cupti/stall_", 5},  // no reason: ignored
      {"cupti/sm__throughput.avg.pct_of_peak_sustained_elapsed", 40},
      {"stall_wait", 1},  // not a CUPTI counter
      {"bandwidth_gbps", 900}};
  EXPECT_THAT(StallCounters(row),
              ElementsAre(Pair("barrier", 2), Pair("long_scoreboard", 6)));
}

TEST(NormalizeStallsTest, FractionsSumToOne) {
  const StallBreakdown b = NormalizeStalls(
      {{"long_scoreboard", 6}, {"barrier", 1.5}, {"wait", 0.5}});
  EXPECT_TRUE(b.valid);
  EXPECT_TRUE(b.problem.empty());
  EXPECT_DOUBLE_EQ(b.total, 8);
  EXPECT_THAT(b.fractions,
              ElementsAre(Pair("barrier", DoubleNear(0.1875, 1e-12)),
                          Pair("long_scoreboard", DoubleNear(0.75, 1e-12)),
                          Pair("wait", DoubleNear(0.0625, 1e-12))));
  EXPECT_NEAR(Sum(b.fractions), 1, 1e-12);
  EXPECT_EQ(b.dominant, "long_scoreboard");
}

TEST(NormalizeStallsTest, UnitDoesNotMatter) {
  // Sample counts and warp-cycles per instruction give the same fractions.
  const StallBreakdown samples = NormalizeStalls({{"a", 3000}, {"b", 1000}});
  const StallBreakdown cpi = NormalizeStalls({{"a", 0.3}, {"b", 0.1}});
  EXPECT_NEAR(samples.fractions.at("a"), cpi.fractions.at("a"), 1e-12);
  EXPECT_NEAR(samples.fractions.at("b"), 0.25, 1e-12);
}

TEST(NormalizeStallsTest, ZeroReasonsKeepAZeroFraction) {
  const StallBreakdown b = NormalizeStalls({{"a", 0}, {"b", 2}});
  EXPECT_THAT(b.fractions, ElementsAre(Pair("a", 0.0), Pair("b", 1.0)));
  EXPECT_EQ(b.dominant, "b");
}

TEST(NormalizeStallsTest, TieGoesToTheFirstByName) {
  EXPECT_EQ(NormalizeStalls({{"wait", 1}, {"barrier", 1}}).dominant, "barrier");
}

TEST(NormalizeStallsTest, AllZeroHasNoFractions) {
  const StallBreakdown b =
      NormalizeStalls({{"long_scoreboard", 0}, {"wait", 0}});
  EXPECT_TRUE(b.valid);
  EXPECT_EQ(b.total, 0);
  EXPECT_THAT(b.fractions, IsEmpty());
  EXPECT_EQ(b.dominant, "");
  EXPECT_EQ(b.problem, "all stall counters are 0");
}

TEST(NormalizeStallsTest, NegativeOrNonFiniteValuesAreInvalid) {
  const StallBreakdown b = NormalizeStalls(
      {{"a", 1}, {"b", -0.5}, {"c", std::nan("")}, {"d", HUGE_VAL}});
  EXPECT_FALSE(b.valid);
  EXPECT_THAT(b.fractions, IsEmpty());
  EXPECT_EQ(b.dominant, "");
  EXPECT_EQ(b.problem, "negative or non-finite stall value (b, c, d)");
}

TEST(NormalizeStallsTest, NoValues) {
  const StallBreakdown b = NormalizeStalls({});
  EXPECT_THAT(b.fractions, IsEmpty());
  EXPECT_EQ(b.problem, "no stall counters");
}

Row MakeRow(const std::vector<std::pair<std::string, std::string>>& axes,
            const std::map<std::string, double>& counters, bool error = false) {
  Row row;
  row.name = "x";
  row.axes = axes;
  row.counters = counters;
  row.error = error;
  return row;
}

ResultFile MakeFile(const std::string& path, const std::string& experiment,
                    std::vector<Row> rows) {
  ResultFile file;
  file.path = path;
  file.experiment = experiment;
  file.context = {{"device_name", "Synthetic GPU (fixture)"}};
  file.rows = std::move(rows);
  return file;
}

TEST(BuildStallTableTest, RowsReasonsAndOrder) {
  std::vector<ResultFile> files = {
      MakeFile(
          "a.json", "relu",
          {MakeRow({{"bytes", "1024"}}, {{"cupti/stall_long_scoreboard", 6},
                                         {"cupti/stall_barrier", 2},
                                         {"cupti/stall_wait", 2}}),
           // Missing barrier and wait: shares of the reasons it has.
           MakeRow({{"bytes", "2048"}}, {{"cupti/stall_long_scoreboard", 1},
                                         {"cupti/stall_mio_throttle", 3}}),
           // A failed row's counters are not used.
           MakeRow({{"bytes", "4096"}}, {{"cupti/stall_barrier", 100}},
                   /*error=*/true),
           // No stall counters: not a stall row.
           MakeRow({{"bytes", "8192"}}, {{"bandwidth_gbps", 1}})}),
      MakeFile("b.json", "other", {MakeRow({}, {{"bandwidth_gbps", 1}})}),
      MakeFile(
          "c.json", "gemm",
          {MakeRow({{"m", "64"}, {"n", "32"}},
                   {{"cupti/stall_wait", 0}, {"cupti/stall_barrier", 0}})}),
  };
  files[1].context["counters_unavailable"] =
      "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  const StallTable table = BuildStallTable(files);
  ASSERT_EQ(table.files.size(), 2u);
  EXPECT_EQ(table.files[0]->path, "a.json");
  EXPECT_EQ(table.files[1]->path, "c.json");
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[0].name, "relu/bytes:1024");
  EXPECT_EQ(table.rows[1].name, "relu/bytes:2048");
  EXPECT_EQ(table.rows[2].name, "gemm/m:64/n:32");
  EXPECT_EQ(table.rows[2].file, 1u);

  const StallBreakdown& missing = table.rows[1].breakdown;
  EXPECT_THAT(missing.fractions, ElementsAre(Pair("long_scoreboard", 0.25),
                                             Pair("mio_throttle", 0.75)));
  EXPECT_EQ(missing.dominant, "mio_throttle");
  EXPECT_EQ(table.rows[2].breakdown.problem, "all stall counters are 0");

  // Total shares: long_scoreboard 0.6 + 0.25, mio_throttle 0.75, barrier
  // 0.2, wait 0.2 (tie: by name).
  EXPECT_THAT(table.reasons, ElementsAre("long_scoreboard", "mio_throttle",
                                         "barrier", "wait"));
  ASSERT_EQ(table.unavailable.size(), 1u);
  EXPECT_EQ(table.unavailable[0].first->path, "b.json");
  EXPECT_EQ(table.unavailable[0].second, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_FALSE(table.empty());
}

TEST(BuildStallTableTest, NothingToShow) {
  const StallTable table = BuildStallTable(
      {MakeFile("a.json", "relu", {MakeRow({}, {{"bandwidth_gbps", 1}})})});
  EXPECT_TRUE(table.empty());
  EXPECT_THAT(table.reasons, IsEmpty());
}

TEST(StallsCsvTest, FractionsPerRow) {
  std::vector<ResultFile> files = {MakeFile(
      "dir,1/a.json", "relu",
      {MakeRow({{"bytes", "1024"}}, {{"cupti/stall_long_scoreboard", 3},
                                     {"cupti/stall_barrier", 1}}),
       MakeRow({{"bytes", "2048"}}, {{"cupti/stall_barrier", 0}}),
       MakeRow({{"bytes", "4096"}}, {{"cupti/stall_barrier", -1}})})};
  files[0].context["device_name"] = "GPU \"X\"";
  EXPECT_EQ(StallsCsv(BuildStallTable(files)),
            "file,device,name,total,long_scoreboard,barrier,dominant,problem\n"
            "\"dir,1/a.json\",\"GPU \"\"X\"\"\",relu/bytes:1024,4,0.75,0.25,"
            "long_scoreboard,\n"
            "\"dir,1/a.json\",\"GPU \"\"X\"\"\",relu/bytes:2048,0,,,,"
            "all stall counters are 0\n"
            "\"dir,1/a.json\",\"GPU \"\"X\"\"\",relu/bytes:4096,,,,,"
            "negative or non-finite stall value (barrier)\n");
}

TEST(StallsCsvTest, HeaderOnlyWithoutRows) {
  EXPECT_EQ(StallsCsv(StallTable{}),
            "file,device,name,total,dominant,problem\n");
}

}  // namespace
}  // namespace dissect::analysis
