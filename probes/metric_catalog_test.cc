// The metric catalog: the built-in file parses, names resolve, and bad
// catalogs and bad --metrics names fail with a message that says why.
#include "probes/metric_catalog.h"

#include <map>
#include <set>
#include <string>

#include "gtest/gtest.h"

namespace dissect {
namespace {

std::vector<std::string> Names(
    const std::vector<const CatalogMetric*>& metrics) {
  std::vector<std::string> names;
  for (const CatalogMetric* m : metrics) names.push_back(m->name);
  return names;
}

TEST(EmbeddedCatalogTest, HasTheIssueMetricsOnGh100) {
  const MetricCatalog& c = MetricCatalog::Embedded();
  for (const char* name : {"l1_hit_rate",
                           "l2_hit_rate",
                           "dram_bytes_read",
                           "dram_bytes_write",
                           "l2_sectors_read",
                           "shared_bank_conflicts",
                           "tensor_pipe_active",
                           "achieved_occupancy",
                           "sm_throughput",
                           "stall_long_scoreboard",
                           "stall_short_scoreboard",
                           "stall_barrier",
                           "stall_membar",
                           "stall_math_pipe_throttle",
                           "stall_mio_throttle",
                           "stall_lg_throttle",
                           "stall_not_selected",
                           "stall_selected",
                           "stall_wait",
                           "stall_no_instruction",
                           "stall_branch_resolving",
                           "stall_dispatch_stall",
                           "stall_drain",
                           "stall_sleeping",
                           "stall_tex_throttle",
                           "stall_imc_miss",
                           "stall_misc"}) {
    const CatalogMetric* m = c.FindMetric(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->perfworks.count("GH100"), 1u) << name;
    EXPECT_FALSE(m->unit.empty()) << name;
  }
  for (const char* group :
       {"all_memory", "all_stalls", "all_compute", "dram", "all"}) {
    EXPECT_NE(c.FindGroup(group), nullptr) << group;
  }
}

TEST(EmbeddedCatalogTest, StallReasonsUseTheComparablePerIssueRatio) {
  // Values are comparable across reasons only if all share one denominator.
  for (const CatalogMetric& m : MetricCatalog::Embedded().metrics()) {
    if (m.name.rfind("stall_", 0) != 0) continue;
    const std::string reason = m.name.substr(6);
    for (const auto& [chip, perfworks] : m.perfworks) {
      EXPECT_EQ(perfworks, "smsp__average_warps_issue_stalled_" + reason +
                               "_per_issue_active.ratio")
          << chip;
    }
    EXPECT_EQ(m.unit, "warps/issue");
  }
}

TEST(EmbeddedCatalogTest, CoversAmpereAdaHopperAndBlackwell) {
  const MetricCatalog& c = MetricCatalog::Embedded();
  for (const char* chip : {"GA100", "GA102", "AD102", "GH100", "GB100",
                           "GB202"}) {
    EXPECT_EQ(c.chips().count(chip), 1u) << chip;
  }
  // Every chip either reads a metric or says why it cannot.
  for (const CatalogMetric& m : c.metrics()) {
    for (const auto& [chip, unused] : c.chips()) {
      EXPECT_EQ(m.perfworks.count(chip) + m.unavailable.count(chip), 1u)
          << m.name << " on " << chip;
    }
  }
  EXPECT_EQ(c.FindMetric("stall_gmma")->perfworks.size(), 1u)
      << "wgmma stalls exist on Hopper only";
}

TEST(EmbeddedCatalogTest, GroupAllListsEveryMetricAndAllStallsEveryStall) {
  const MetricCatalog& c = MetricCatalog::Embedded();
  std::set<std::string> all(c.FindGroup("all")->metrics.begin(),
                            c.FindGroup("all")->metrics.end());
  std::set<std::string> stalls(c.FindGroup("all_stalls")->metrics.begin(),
                               c.FindGroup("all_stalls")->metrics.end());
  for (const CatalogMetric& m : c.metrics()) {
    EXPECT_EQ(all.count(m.name), 1u) << m.name << " is missing from group all";
    if (m.name.rfind("stall_", 0) == 0) {
      EXPECT_EQ(stalls.count(m.name), 1u)
          << m.name << " is missing from all_stalls";
    }
  }
}

TEST(ResolveTest, ExpandsGroupsKeepsOrderDropsDuplicates) {
  const MetricCatalog& c = MetricCatalog::Embedded();
  auto r = c.Resolve("dram_bytes_write, dram,l1_hit_rate");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Names(*r),
            (std::vector<std::string>{"dram_bytes_write", "dram_bytes_read",
                                      "l1_hit_rate"}));
}

TEST(ResolveTest, UnknownNameIsNamedWithEveryValidName) {
  const MetricCatalog& c = MetricCatalog::Embedded();
  auto r = c.Resolve("dram_bytes_read,dram_byte_reed");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(r.status().message());
  EXPECT_NE(message.find("unknown metric 'dram_byte_reed'"), std::string::npos)
      << message;
  for (const CatalogMetric& m : c.metrics()) {
    EXPECT_NE(message.find(m.name), std::string::npos) << m.name;
  }
  EXPECT_NE(message.find("groups: dram, all_memory"), std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "must be one line";
}

TEST(ResolveTest, EmptyNameIsAnError) {
  auto r = MetricCatalog::Embedded().Resolve("dram,,l1_hit_rate");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("empty metric name"),
            absl::string_view::npos);
}

TEST(DescribeTest, ListsMetricsUnitsPerfworksNamesAndGroups) {
  const std::string text = MetricCatalog::Embedded().Describe();
  EXPECT_NE(text.find("dram_bytes_read"), std::string::npos);
  EXPECT_NE(text.find("dram__bytes_read.sum (AD102 "), std::string::npos)
      << text;
  EXPECT_NE(text.find("smsp__inst_executed.sum (every chip)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("dram__bytes_op_read.sum (GB202 GB203 GB205 GB206 "
                      "GB207)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("unavailable on AD102 "), std::string::npos) << text;
  EXPECT_NE(text.find("GA100    Ampere: A100"), std::string::npos) << text;
  EXPECT_NE(text.find("all_memory"), std::string::npos);
  EXPECT_NE(text.find("warps/issue"), std::string::npos);
}

constexpr char kMinimal[] = R"({
  "format": "dissect.metrics.v1",
  "chips": {"GH100": "Hopper"},
  "metrics": [
    {"name": "a", "unit": "B", "help": "h", "perfworks": {"GH100": "x__y.sum"}},
    {"name": "b", "unit": "B", "help": "h", "perfworks": {"GH100": "x__z.sum"}}
  ],
  "groups": [{"name": "g", "help": "h", "metrics": ["a", "b"]}]
})";

TEST(ParseTest, AllSpreadsOverChipsThatNeitherOverrideNorLackIt) {
  auto c = MetricCatalog::Parse(R"({
    "format": "dissect.metrics.v1",
    "chips": {"GA100": "Ampere", "GB202": "Blackwell", "GH100": "Hopper"},
    "metrics": [
      {"name": "a", "unit": "B", "help": "h",
       "perfworks": {"all": "x__y.sum", "GB202": "x__y_op.sum"}},
      {"name": "b", "unit": "B", "help": "h", "perfworks": {"all": "x__z.sum"},
       "unavailable": {"GA100": "no such unit"}}
    ]})",
                                "t.json");
  ASSERT_TRUE(c.ok()) << c.status();
  const CatalogMetric* a = c->FindMetric("a");
  EXPECT_EQ(a->perfworks,
            (std::map<std::string, std::string>{{"GA100", "x__y.sum"},
                                                {"GB202", "x__y_op.sum"},
                                                {"GH100", "x__y.sum"}}));
  const CatalogMetric* b = c->FindMetric("b");
  EXPECT_EQ(b->perfworks.count("GA100"), 0u);
  EXPECT_EQ(b->unavailable.at("GA100"), "no such unit");
  EXPECT_EQ(b->perfworks.at("GH100"), "x__z.sum");
}

TEST(ParseTest, MinimalCatalog) {
  auto c = MetricCatalog::Parse(kMinimal, "test.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->metrics().size(), 2u);
  EXPECT_EQ(c->MetricNames(), "a, b");
  EXPECT_EQ(c->GroupNames(), "g");
}

// Replaces the first `from` in kMinimal by `to` and expects a parse error
// containing `want`.
void ExpectBroken(const std::string& from, const std::string& to,
                  const std::string& want) {
  std::string text = kMinimal;
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  auto c = MetricCatalog::Parse(text, "test.json");
  ASSERT_FALSE(c.ok()) << "accepted: " << text;
  const std::string message(c.status().message());
  EXPECT_EQ(message.rfind("test.json: ", 0), 0u) << message;
  EXPECT_NE(message.find(want), std::string::npos) << message;
}

TEST(ParseTest, RejectsBrokenCatalogs) {
  ExpectBroken("dissect.metrics.v1", "dissect.metrics.v0",
               "\"format\" must be");
  ExpectBroken(R"("name": "b")", R"("name": "a")", "metric a: defined twice");
  ExpectBroken(R"("name": "b")", R"("name": "B-2")",
               "names are [a-z][a-z0-9_]*");
  ExpectBroken(R"({"GH100": "x__z.sum"})", R"({"GA100": "x__z.sum"})",
               "chip GA100 is not in \"chips\"");
  ExpectBroken(R"("x__z.sum")", R"("x__y.sum")",
               "a already reads x__y.sum on GH100");
  ExpectBroken(R"("x__z.sum")", R"("x__z .sum")", "perfworks name must be one word");
  ExpectBroken(R"("x__z.sum")", R"("")", "perfworks entry must be one non-empty line");
  ExpectBroken(
      R"("unit": "B", "help": "h", "perfworks": {"GH100": "x__z.sum"})",
      R"("help": "h", "perfworks": {"GH100": "x__z.sum"})",
      "metric b needs a non-empty string \"unit\"");
  ExpectBroken(R"(["a", "b"])", R"(["a", "c"])",
               "group g: member \"c\" is not a metric");
  ExpectBroken(R"("name": "g")", R"("name": "a")",
               "group a: the name is taken");
  ExpectBroken(R"("format")", R"("formats")", "unknown key \"formats\"");
  ExpectBroken("{", "[", "not valid JSON");
  ExpectBroken(R"("chips": {"GH100": "Hopper"})",
               R"("chips": {"GH100": "Hopper", "GA100": "Ampere"})",
               "metric a: chip GA100 needs a perfworks name (its own or "
               "\"all\") or an \"unavailable\" reason");
  ExpectBroken(R"({"GH100": "x__z.sum"})",
               R"({"GH100": "x__z.sum"}, "unavailable": {"GH100": "gone"})",
               "metric b: chip GH100 has a perfworks name and is unavailable");
  ExpectBroken(R"({"GH100": "x__z.sum"})",
               R"({}, "unavailable": {"GH100": "gone"})",
               "metric b: unavailable on every chip");
  ExpectBroken(R"({"GH100": "x__z.sum"})",
               R"({"GH100": "x__z.sum"}, "unavailable": {"GA100": "gone"})",
               "metric b: chip GA100 is not in \"chips\"");
}

}  // namespace
}  // namespace dissect
