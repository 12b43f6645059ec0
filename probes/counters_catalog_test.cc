// Checks the metric catalog against CUPTI's host API for every chip it
// names, and that it names every chip of the fleet (Ampere to Blackwell). No
// GPU is needed, libcupti is: the test fails, not skips, without it. The pass count of every metric and group is pinned in
// testdata/metric_passes.golden; to accept a deliberate change:
//   DISSECT_UPDATE_GOLDEN=1 bazel run //probes:counters_catalog_test
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/testing/test_util.h"
#include "gtest/gtest.h"
#include "probes/counters.h"
#include "probes/cupti_host.h"
#include "probes/cupti_status.h"
#include "probes/metric_catalog.h"

namespace dissect {
namespace {

constexpr char kGolden[] = "probes/testdata/metric_passes.golden";

// The CUPTI dimension each catalog unit stands for.
const std::map<std::string, std::set<std::string>>& UnitDimensions() {
  static const auto* m = new std::map<std::string, std::set<std::string>>{
      {"%", {"percent"}},
      {"B", {"byte"}},
      {"sectors", {"l2_sector"}},
      {"conflicts", {"l1data_bank_conflict"}},
      {"inst", {"instruction"}},
      {"inst/cycle", {"instruction/gpc_cycle"}},
      // CUPTI labels the per-issue stall ratios "instruction".
      {"warps/issue", {"instruction"}},
  };
  return *m;
}

// The chips the catalog must cover, as CUPTI names them: the discrete
// Ampere, Ada, Hopper and Blackwell chips that CUDA 13 builds for.
constexpr const char* kFleetChips[] = {
    "GA100", "GA102", "GA103", "GA104", "GA106", "GA107", "AD102",
    "AD103", "AD104", "AD106", "AD107", "GH100", "GB100", "GB102",
    "GB110", "GB202", "GB203", "GB205", "GB206", "GB207"};

std::set<std::string> CuptiChips() {
  auto chips = CuptiHost::SupportedChips();
  if (!chips.ok()) return {};
  return std::set<std::string>(chips->begin(), chips->end());
}

TEST(CatalogAgainstCuptiTest, EveryChipIsKnownToCupti) {
  auto chips = CuptiHost::SupportedChips();
  ASSERT_TRUE(chips.ok()) << chips.status();
  const std::set<std::string> known(chips->begin(), chips->end());
  const MetricCatalog& catalog = MetricCatalog::Embedded();
  for (const auto& [chip, unused] : catalog.chips()) {
    EXPECT_EQ(known.count(chip), 1u)
        << chip << " is in the catalog but this CUPTI does not support it";
  }
  // CUPTI's list also holds chips the catalog leaves out (Volta, Turing and
  // the integrated Tegra chips); the log names them, nothing passes quietly.
  std::string uncovered;
  for (const std::string& chip : known) {
    if (catalog.chips().count(chip) == 0) absl::StrAppend(&uncovered, " ", chip);
  }
  std::cout << "CUPTI supports, the catalog does not cover:" << uncovered
            << "\n";
}

class ChipCatalogTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ChipCatalogTest, CuptiSupportsTheChip) {
  const std::string chip = GetParam();
  EXPECT_EQ(CuptiChips().count(chip), 1u)
      << "the installed CUPTI does not support " << chip;
  EXPECT_EQ(MetricCatalog::Embedded().chips().count(chip), 1u)
      << chip << " is not in the catalog";
}

TEST_P(ChipCatalogTest, EveryNameExistsWithAMatchingUnit) {
  const std::string chip = GetParam();
  auto host = CuptiHost::Create(chip);
  ASSERT_TRUE(host.ok()) << host.status();
  for (const CatalogMetric& m : MetricCatalog::Embedded().metrics()) {
    const auto it = m.perfworks.find(chip);
    if (it == m.perfworks.end()) {
      EXPECT_EQ(m.unavailable.count(chip), 1u)
          << m.name << " has neither a name nor a reason on " << chip;
      continue;
    }
    auto info = (*host)->Describe(it->second);
    ASSERT_TRUE(info.ok()) << m.name << ": " << info.status();
    const auto dims = UnitDimensions().find(m.unit);
    ASSERT_NE(dims, UnitDimensions().end())
        << m.name << ": unit " << m.unit
        << " has no CUPTI dimension in this test";
    EXPECT_EQ(dims->second.count(info->dim_unit), 1u)
        << m.name << " [" << m.unit << "] reads " << it->second
        << ", whose unit is " << info->dim_unit << " on " << chip;
  }
}

// A metric called unavailable on a chip really is: its name on the chips
// that have it is not a metric of this one.
TEST_P(ChipCatalogTest, UnavailableMetricsAreAbsentFromTheChip) {
  const std::string chip = GetParam();
  auto host = CuptiHost::Create(chip);
  ASSERT_TRUE(host.ok()) << host.status();
  for (const CatalogMetric& m : MetricCatalog::Embedded().metrics()) {
    if (m.unavailable.count(chip) == 0) continue;
    for (const auto& [other, name] : m.perfworks) {
      EXPECT_FALSE((*host)->Describe(name).ok())
          << m.name << " is unavailable on " << chip << ", but " << name
          << " (its name on " << other << ") exists there";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FleetChips, ChipCatalogTest,
                         ::testing::ValuesIn(kFleetChips),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::string(p.param);
                         });

TEST(CatalogAgainstCuptiTest, PassCountsMatchGolden) {
  const MetricCatalog& catalog = MetricCatalog::Embedded();
  std::string actual =
      "# Passes CUPTI schedules for each catalog metric alone and each group\n"
      "# (//probes:counters_catalog_test; chip metric-or-group passes).\n";
  for (const auto& [chip, unused] : catalog.chips()) {
    auto counts = CatalogPassCounts(catalog, chip);
    ASSERT_TRUE(counts.ok()) << counts.status();
    ASSERT_FALSE(counts->empty());
    for (const PassCount& c : *counts) {
      EXPECT_GE(c.passes, 1) << c.name;
      absl::StrAppendFormat(&actual, "%s %s %d\n", chip, c.name, c.passes);
    }
  }
  const char* update = std::getenv("DISSECT_UPDATE_GOLDEN");
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update != nullptr && workspace != nullptr) {
    std::ofstream(std::string(workspace) + "/" + kGolden) << actual;
    std::cerr << "updated " << kGolden << "\n";
    return;
  }
  const std::string golden =
      test_util::ReadText(test_util::Runfile(kGolden));
  EXPECT_EQ(actual, golden)
      << "regenerate with DISSECT_UPDATE_GOLDEN=1 bazel run "
         "//probes:counters_catalog_test";
}

TEST(CuptiHostTest, BogusMetricNameIsNamed) {
  auto host = CuptiHost::Create("GH100");
  ASSERT_TRUE(host.ok()) << host.status();
  auto info = (*host)->Describe("dram__bytes_reed.sum");
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(info.status().message(),
            "chip GH100 has no metric 'dram__bytes_reed.sum' "
            "(CUPTI_ERROR_INVALID_METRIC_NAME)");

  auto config =
      (*host)->BuildConfig({"dram__bytes_read.sum", "lts__t_sectorz.sum"});
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("'lts__t_sectorz.sum'"),
            absl::string_view::npos)
      << config.status();
  // A rollup is part of the name: the bare counter cannot be collected.
  EXPECT_FALSE((*host)->BuildConfig({"dram__bytes_read"}).ok());
  EXPECT_FALSE(
      (*host)
          ->BuildConfig({"dram__bytes_read.sum", "dram__bytes_read.sum"})
          .ok());
}

TEST(CuptiHostTest, OneConfigPassAndAMultiPassOne) {
  auto host = CuptiHost::Create("GH100");
  ASSERT_TRUE(host.ok()) << host.status();
  auto one =
      (*host)->BuildConfig({"dram__bytes_read.sum", "dram__bytes_write.sum"});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->passes, 1);
  EXPECT_FALSE(one->image.empty());
  auto info = (*host)->Describe("dram__bytes_read.sum");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->dim_unit, "byte");
  EXPECT_EQ(info->hw_unit, "dram");
}

TEST(CuptiHostTest, UnknownChipIsAnUnsupportedDevice) {
  auto host = CuptiHost::Create("GH999");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(CounterCauseOf(host.status()), CounterCause::kUnsupportedDevice)
      << host.status();
  EXPECT_NE(host.status().message().find("chip GH999"),
            absl::string_view::npos);
}

TEST(CatalogPassCountsTest, AWrongCatalogNameFailsNamingIt) {
  auto catalog = MetricCatalog::Parse(R"({
    "format": "dissect.metrics.v1",
    "chips": {"GH100": "Hopper"},
    "metrics": [
      {"name": "good", "unit": "B", "help": "h", "perfworks": {"GH100": "dram__bytes_read.sum"}},
      {"name": "typo", "unit": "B", "help": "h", "perfworks": {"GH100": "dram__bytes_raed.sum"}}
    ]})",
                                      "bad.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  auto counts = CatalogPassCounts(*catalog, "GH100");
  ASSERT_FALSE(counts.ok());
  EXPECT_NE(counts.status().message().find("typo: chip GH100 has no metric "
                                           "'dram__bytes_raed.sum'"),
            absl::string_view::npos)
      << counts.status();
}

}  // namespace
}  // namespace dissect
