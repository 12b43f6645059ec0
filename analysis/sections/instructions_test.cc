// Tests of the published instruction rates (configs/published/
// instruction_rates.json: every op of the instruction experiments' contract
// is there, every rate has a source), their reader, the least-squares fit
// behind dispatch_ns_per_block, and the % of published: the column of the
// file's compute capability, "none published" where there is none. The rows
// here are built in code and synthetic; the section's golden tests over
// synthetic result files are in analysis/plots/instructions_test.cc.

#include "analysis/sections/instructions.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/results/results.h"
#include "analysis/sections/instruction_rates.h"
#include "analysis/sections/instruction_rates_embedded.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kRatesPath[] = "configs/published/instruction_rates.json";

// The op names of the instruction experiments' result contract.
const std::vector<std::string>& ContractOps() {
  static const auto* ops = new std::vector<std::string>{
      "ffma",       "fadd",        "fmul",          "hfma2",           "dfma",
      "imad",       "iadd3",       "lop3",          "shf",             "popc",
      "clz",        "mufu_rcp",    "mufu_rsqrt",    "mufu_sin",        "mufu_ex2",
      "mufu_lg2",   "f2i",         "i2f",           "f2f_f16",         "f2f_bf16",
      "shfl_idx",   "shfl_up",     "shfl_down",     "shfl_bfly",       "vote_ballot",
      "vote_all",   "match_any",   "redux_add",     "atom_shared_add", "atom_shared_cas",
      "atom_global_add", "atom_global_cas", "bar_sync", "barrier_cluster", "clock"};
  return *ops;
}

InstructionRates ShippedRates() {
  absl::StatusOr<InstructionRates> rates = ParseInstructionRatesJson(
      test_util::ReadText(test_util::Runfile(kRatesPath)), kRatesPath);
  EXPECT_TRUE(rates.ok()) << rates.status();
  return rates.ok() ? *std::move(rates) : InstructionRates();
}

TEST(InstructionRatesTest, ShippedFileIsTheEmbeddedOne) {
  EXPECT_EQ(test_util::ReadText(test_util::Runfile(kRatesPath)),
            std::string(kEmbeddedInstructionRatesJson));
}

TEST(InstructionRatesTest, EveryContractOpHasARateWithItsSourceOrSaysWhyNot) {
  const InstructionRates rates = ShippedRates();
  EXPECT_EQ(rates.ops.size(), ContractOps().size());
  for (const std::string& op : ContractOps()) {
    SCOPED_TRACE(op);
    const InstructionOpRate* entry = rates.Op(op);
    ASSERT_NE(entry, nullptr);
    const PublishedOpRate published = rates.For(op, "9.0");
    if (entry->row.empty()) {
      EXPECT_FALSE(entry->none_published.empty());
      EXPECT_EQ(published.none, "none published");
      continue;
    }
    ASSERT_TRUE(published.results_per_clock_per_sm.has_value());
    ASSERT_NE(published.source, nullptr);
    EXPECT_THAT(published.source->url, HasSubstr("https://docs.nvidia.com/cuda/"));
    EXPECT_THAT(published.source->transcription, HasSubstr("not re-read"));
  }
  for (const InstructionRateRow& row : rates.rows) {
    EXPECT_NE(rates.Source(row.source), nullptr) << row.id;
  }
}

TEST(InstructionRatesTest, TheTranscribedColumnForComputeCapability90) {
  const InstructionRates rates = ShippedRates();
  const std::vector<std::pair<std::string, double>> expected = {
      {"hfma2", 256}, {"ffma", 128},     {"fadd", 128},     {"fmul", 128},   {"dfma", 64},
      {"mufu_rcp", 16}, {"mufu_rsqrt", 16}, {"mufu_sin", 16}, {"mufu_ex2", 16}, {"mufu_lg2", 16},
      {"iadd3", 64},  {"imad", 64},      {"shf", 64},       {"lop3", 64},    {"clz", 16},
      {"popc", 16},   {"shfl_idx", 32},  {"shfl_up", 32},   {"shfl_down", 32}, {"shfl_bfly", 32},
      {"redux_add", 16}, {"f2i", 16},    {"i2f", 16},       {"f2f_f16", 16}, {"f2f_bf16", 16}};
  for (const auto& [op, rate] : expected) {
    EXPECT_EQ(rates.For(op, "9.0").results_per_clock_per_sm, rate) << op;
  }
  EXPECT_EQ(rates.For("hfma2", "9.0").results_per_op, 2);
  EXPECT_EQ(rates.For("ffma", "9.0").results_per_op, 1);
}

TEST(InstructionRatesTest, BadFilesAreOneLineErrors) {
  const std::string head =
      R"({"format": "dissect.instruction_rates.v1", "sources": [{"key": "s", "publisher": "p",
      "title": "t", "where": "w", "url": "u", "transcription": "x"}], "rows": [{"id": "r",
      "row": "a row", "rates": {"9.0": 4}, "source": "s"}], "ops": )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([{"op": "a", "row": "r", "none_published": "both"}])", "exactly one of"},
      {R"([{"op": "a"}])", "exactly one of"},
      {R"([{"op": "a", "row": "q"}])", "unknown row \"q\""},
      {R"([{"op": "a", "row": "r"}, {"op": "a", "row": "r"}])", "repeats op a"},
      {R"([{"op": "a", "none_published": "why", "results_per_op": 2}])", "results_per_op"}};
  for (const auto& [ops, error] : cases) {
    absl::StatusOr<InstructionRates> rates =
        ParseInstructionRatesJson(absl::StrCat(head, ops, "}"), "bad.json");
    ASSERT_FALSE(rates.ok()) << ops;
    EXPECT_THAT(std::string(rates.status().message()), HasSubstr(error));
    EXPECT_THAT(std::string(rates.status().message()), HasSubstr("bad.json: "));
    EXPECT_THAT(std::string(rates.status().message()), Not(HasSubstr("\n")));
  }
  EXPECT_FALSE(ParseInstructionRatesJson("{}", "x.json").ok());
  EXPECT_FALSE(ParseInstructionRatesJson(
                   absl::StrCat(head, R"([{"op": "a", "row": "r"}]})").substr(0, 40), "x.json")
                   .ok());
}

TEST(FitLineTest, SlopeAndInterceptOfALine) {
  const std::optional<LineFit> fit = FitLine({{1, 5}, {2, 7}, {4, 11}, {8, 19}});
  ASSERT_TRUE(fit.has_value());
  EXPECT_DOUBLE_EQ(fit->slope, 2);
  EXPECT_DOUBLE_EQ(fit->intercept, 3);
  EXPECT_EQ(fit->points, 4);
}

TEST(FitLineTest, LeastSquaresThroughNoisyPoints) {
  // y = 1 + 0.5 x, with residuals +1, -1, -1, +1 that cancel in the slope.
  const std::optional<LineFit> fit = FitLine({{0, 2}, {2, 1}, {4, 2}, {6, 5}});
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->slope, 0.5, 1e-12);
  EXPECT_NEAR(fit->intercept, 1.0, 1e-12);
}

TEST(FitLineTest, NoFitWithoutTwoDistinctX) {
  EXPECT_FALSE(FitLine({}).has_value());
  EXPECT_FALSE(FitLine({{4, 1}}).has_value());
  EXPECT_FALSE(FitLine({{4, 1}, {4, 3}}).has_value());
}

// A synthetic result file of `experiment` on a device of compute capability
// `cc`, its rows given as (axes, counters, label).
struct RowSpec {
  std::vector<std::pair<std::string, std::string>> axes;
  std::map<std::string, double> counters;
  std::string label;
  std::string error;
};
ResultFile SyntheticFile(const std::string& experiment, const std::string& cc,
                         const std::vector<RowSpec>& rows) {
  ResultFile file;
  file.path = absl::StrCat("synthetic_", experiment, "_cc", cc, ".json");
  file.experiment = experiment;
  file.context = {{"device_name", absl::StrCat("SYNTHETIC cc ", cc, " (test data)")},
                  {"device_compute_capability", cc},
                  {"device_sm_count", "4"}};
  for (const RowSpec& spec : rows) {
    Row row;
    row.axes = spec.axes;
    row.counters = spec.counters;
    row.label = spec.label;
    row.error = !spec.error.empty();
    row.error_message = spec.error;
    file.rows.push_back(std::move(row));
  }
  return file;
}

// Rates with two columns for ffma: 8.0 64, 9.0 128 (made up for the test).
InstructionRates TwoColumnRates() {
  absl::StatusOr<InstructionRates> rates = ParseInstructionRatesJson(
      R"({"format": "dissect.instruction_rates.v1", "sources": [{"key": "s", "publisher": "P",
      "title": "T", "where": "W", "url": "U", "transcription": "test data"}], "rows": [{"id":
      "fp32", "row": "fp32 fma", "rates": {"8.0": 64, "9.0": 128}, "source": "s"}], "ops":
      [{"op": "ffma", "row": "fp32"}, {"op": "clock", "none_published": "not arithmetic"}]})",
      "two_columns.json");
  EXPECT_TRUE(rates.ok()) << rates.status();
  return rates.ok() ? *std::move(rates) : InstructionRates();
}

std::vector<RowSpec> FfmaThroughputRows() {
  return {{{{"op", "ffma"}, {"chains", "1"}, {"warps_per_sm", "8"}},
           {{"results_per_clock_per_sm", 40}}, "sass_sequence: FFMA"},
          {{{"op", "ffma"}, {"chains", "4"}, {"warps_per_sm", "32"}},
           {{"results_per_clock_per_sm", 64}}, "sass_sequence: FFMA"},
          {{{"op", "clock"}, {"chains", "1"}, {"warps_per_sm", "8"}},
           {{"results_per_clock_per_sm", 2}}, "sass_sequence: CS2R"}};
}

TEST(InstructionsTest, PercentOfPublishedUsesTheColumnOfTheFilesComputeCapability) {
  const InstructionRates rates = TwoColumnRates();
  for (const auto& [cc, percent] :
       std::vector<std::pair<std::string, std::string>>{{"8.0", "100.0%"}, {"9.0", "50.0%"}}) {
    const ResultFile file = SyntheticFile("instruction_throughput", cc, FfmaThroughputRows());
    const std::vector<InstructionsDevice> devices = BuildInstructions({&file});
    ASSERT_EQ(devices.size(), 1u);
    ASSERT_EQ(devices[0].ops.size(), 2u);
    const InstructionOpSummary& ffma = devices[0].ops[0];
    EXPECT_EQ(ffma.results_per_clock_per_sm, 64);  // the best, at 4 chains and 32 warps
    EXPECT_EQ(ffma.chains, 4);
    const std::optional<double> fraction = FractionOfPublished(ffma, rates.For("ffma", cc));
    ASSERT_TRUE(fraction.has_value()) << cc;
    EXPECT_DOUBLE_EQ(*fraction, cc == "8.0" ? 1.0 : 0.5);
    EXPECT_THAT(RenderInstructionsSections({file}, rates), HasSubstr(percent)) << cc;
  }
}

// More than 105 % of the published rate is no faster unit: the row is
// flagged as not describing the SASS, and listed with its rate and SASS.
TEST(InstructionsTest, ARateAboveThePublishedOneIsFlagged) {
  const InstructionRates rates = TwoColumnRates();
  for (const auto& [rate, flagged] :
       std::vector<std::pair<double, bool>>{{134, false}, {141, true}}) {
    const ResultFile file = SyntheticFile(
        "instruction_throughput", "9.0",
        {{{{"op", "ffma"}, {"chains", "4"}, {"warps_per_sm", "32"}},
          {{"results_per_clock_per_sm", rate}}, "sass_sequence: FFMA"}});
    const std::string section = RenderInstructionsSections({file}, rates);
    if (flagged) {
      EXPECT_THAT(section, HasSubstr("110.2% (above published: see below)"));
      EXPECT_THAT(section, HasSubstr("Above the published rate (more than 105.0% of it): the "
                                     "table's row does not describe this SASS (or the rate is "
                                     "wrong)"));
      EXPECT_THAT(section, HasSubstr("- ffma: 110.2% of 128 (\"fp32 fma\"), SASS FFMA\n"));
    } else {
      EXPECT_THAT(section, HasSubstr("104.7%"));
      EXPECT_THAT(section, Not(HasSubstr("above published")));
      EXPECT_THAT(section, Not(HasSubstr("Above the published rate")));
    }
  }
}

TEST(InstructionsTest, MissingRateSaysNonePublished) {
  const InstructionRates rates = TwoColumnRates();
  const ResultFile file = SyntheticFile("instruction_throughput", "7.0", FfmaThroughputRows());
  const std::string section = RenderInstructionsSections({file}, rates);
  // ffma's row has no 7.0 column; clock has no row at all.
  EXPECT_THAT(section, HasSubstr("none published for cc 7.0"));
  EXPECT_THAT(section, HasSubstr("no column for compute capability 7.0"));
  EXPECT_THAT(section, HasSubstr("- clock: not arithmetic"));
  EXPECT_THAT(section, Not(::testing::ContainsRegex("[0-9]%")));
  EXPECT_EQ(rates.For("clock", "9.0").none, "none published");
  EXPECT_EQ(rates.For("not_an_op", "9.0").none, "none published");
  EXPECT_FALSE(FractionOfPublished(BuildInstructions({&file})[0].ops[1], rates.For("clock", "9.0"))
                   .has_value());
}

TEST(InstructionsTest, LatencyAtTheLongestChainAndSkippedRowsWithTheirReason) {
  const ResultFile file = SyntheticFile(
      "instruction_latency", "9.0",
      {{{{"op", "dfma"}, {"chain_length", "128"}}, {{"latency_cycles", 8.5}}, "sass_sequence: DFMA"},
       {{{"op", "dfma"}, {"chain_length", "512"}}, {{"latency_cycles", 8.1}}, "sass_sequence: DFMA"},
       {{{"op", "dfma"}, {"chain_length", "256"}}, {{"latency_cycles", 8.3}}, "sass_sequence: DFMA"},
       {{{"op", "barrier_cluster"}, {"chain_length", "128"}}, {}, "",
        "skipped: barrier.cluster needs sm_90"}});
  const std::vector<InstructionsDevice> devices = BuildInstructions({&file});
  ASSERT_EQ(devices.size(), 1u);
  ASSERT_EQ(devices[0].ops.size(), 2u);
  EXPECT_EQ(devices[0].ops[0].latency_cycles, 8.1);
  EXPECT_EQ(devices[0].ops[0].chain_length, 512);
  EXPECT_FALSE(devices[0].ops[1].latency_cycles.has_value());
  EXPECT_THAT(devices[0].ops[1].not_measured,
              ::testing::ElementsAre("latency: skipped: barrier.cluster needs sm_90"));
}

TEST(InstructionsTest, DispatchNsPerBlockIsTheSlopeOfKernelTimeOverBlocks) {
  std::vector<RowSpec> rows;
  // kernel_time_us = 4 + 0.002 x blocks: 2 ns per block.
  for (int blocks : {1, 128, 1024, 4096}) {
    rows.push_back({{{"measure", "block_dispatch"}, {"mode", "stream"},
                     {"blocks", std::to_string(blocks)}},
                    {{"kernel_time_us", 4 + 0.002 * blocks}}, ""});
  }
  rows.push_back({{{"measure", "block_dispatch"}, {"mode", "graph"}, {"blocks", "1"}},
                  {{"kernel_time_us", 3}}, ""});
  const ResultFile file = SyntheticFile("launch_overhead", "9.0", rows);
  const std::vector<InstructionsDevice> devices = BuildInstructions({&file});
  ASSERT_EQ(devices.size(), 1u);
  const LaunchValue& stream = devices[0].launch.at("block_dispatch").at("stream");
  ASSERT_TRUE(stream.value.has_value());
  EXPECT_NEAR(*stream.value, 2.0, 1e-9);
  EXPECT_EQ(stream.blocks_min, 1);
  EXPECT_EQ(stream.blocks_max, 4096);
  EXPECT_FALSE(devices[0].launch.at("block_dispatch").at("graph").value.has_value());
  EXPECT_THAT(RenderInstructionsSections({file}, TwoColumnRates()),
              HasSubstr("graph: no fit: needs kernel times at two or more block counts"));
}

}  // namespace
}  // namespace dissect::analysis
