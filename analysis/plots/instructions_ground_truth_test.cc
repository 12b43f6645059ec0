// The instruction chapter's section on REAL data: the committed ground truth
// of an H100 (analysis/reference/h100_80gb_hbm3/, raw files as they came
// back): the second first-contact run (2026-11-27-second-contact,
// //analysis/reference:h100_second_contact_instructions), the chapter's
// ground truth before the loop and CAS fixes, and the recheck run after
// them (2026-11-27-recheck, //analysis/reference:h100_recheck_instructions:
// 128 ops a loop trip, CAS under contention checked against the operands it
// ran with), and the final check (2026-11-27-final-check,
// //analysis/reference:h100_final_check_instructions: all 35 ops, clock and
// vote_all measured too). Not a golden of the page: properties that must hold on each
// run, each taken from the run's own files. Skips, saying why, where a
// run's folder is absent.

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "analysis/plots/fixture_test_util.h"
#include "analysis/results/results.h"
#include "analysis/sections/instruction_rates.h"
#include "analysis/sections/instruction_rates_embedded.h"
#include "analysis/sections/instructions.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/testing/test_util.h"

namespace dissect::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CellWith;
using testing::TableRow;

const std::vector<std::string>& InstructionFiles() {
  static const auto* files = new std::vector<std::string>{
      "ref_instructions/instruction_latency.json",
      "ref_instructions/instruction_latency_contention.json",
      "ref_instructions/instruction_throughput.json",
      "ref_instructions/instruction_throughput_contention.json"};
  return *files;
}

// The CAS chains of the contention experiments (lanes sharing a word).
constexpr const char* kCasUnderContention[] = {
    "atom_shared_cas (contention warp)", "atom_global_cas (contention warp)",
    "atom_shared_cas (contention all)", "atom_global_cas (contention all)"};

// One run's instruction section, rendered with the embedded rates table.
class InstructionsRunTest : public ::testing::Test {
 protected:
  // Reads `run` + each of `names` (the first must be an instruction file);
  // skips where the first is absent.
  void Load(const std::string& run, const std::vector<std::string>& names) {
    if (!std::filesystem::exists(test_util::Runfile(absl::StrCat(run, names.front())))) {
      GTEST_SKIP() << "the committed H100 ground truth is absent (" << run
                   << "): nothing to check";
    }
    files_ = testing::ReadResultFixtures(run, names);
    ASSERT_EQ(files_.size(), names.size());
    absl::StatusOr<InstructionRates> rates =
        ParseInstructionRatesJson(kEmbeddedInstructionRatesJson, kEmbeddedInstructionRatesOrigin);
    ASSERT_TRUE(rates.ok()) << rates.status();
    rates_ = *std::move(rates);
    section_ = RenderInstructionsSections(files_, rates_);
    std::vector<const ResultFile*> pointers;
    for (const ResultFile& f : files_) pointers.push_back(&f);
    devices_ = BuildInstructions(pointers);
    ASSERT_EQ(devices_.size(), 1u);
  }

  const InstructionOpSummary& Op(const std::string& label) const {
    for (const InstructionOpSummary& op : devices_[0].ops) {
      if (op.Label() == label) return op;
    }
    ADD_FAILURE() << "no op " << label;
    static const InstructionOpSummary kNone;
    return kNone;
  }

  std::vector<ResultFile> files_;
  InstructionRates rates_;
  std::string section_;
  std::vector<InstructionsDevice> devices_;
};

// The second first-contact run: the instruction files and launch_overhead's.
class InstructionsGroundTruthTest : public InstructionsRunTest {
 protected:
  void SetUp() override {
    std::vector<std::string> names = InstructionFiles();
    names.push_back("ref_launch_overhead/launch_overhead.json");
    names.push_back("ref_launch_overhead/launch_block_dispatch.json");
    Load("analysis/reference/h100_80gb_hbm3/2026-11-27-second-contact/rotation/", names);
  }
};

TEST_F(InstructionsGroundTruthTest, RendersARowForEveryOpOfTheRun) {
  EXPECT_THAT(section_, HasSubstr("## instructions: NVIDIA H100 80GB HBM3\n"));
  std::set<std::string> ops;
  for (const ResultFile& file : files_) {
    if (file.experiment == "launch_overhead") continue;
    for (const Row& row : file.rows) ops.insert(row.Axis("op").value_or(""));
  }
  EXPECT_EQ(ops.size(), 33u);  // the 35 of the rates table less clock and vote_all
  for (const std::string& op : ops) {
    const bool contended = op.rfind("atom_", 0) == 0;
    const std::string label = contended ? absl::StrCat(op, " (contention none)") : op;
    EXPECT_FALSE(TableRow(section_, label).empty()) << label;
  }
}

TEST_F(InstructionsGroundTruthTest, FfmaLatencyAndDfmaThroughputAreWhereAnH100Puts) {
  ASSERT_TRUE(Op("ffma").latency_cycles.has_value());
  EXPECT_GE(*Op("ffma").latency_cycles, 4.0);
  EXPECT_LE(*Op("ffma").latency_cycles, 5.0);
  const std::optional<double> dfma = FractionOfPublished(Op("dfma"), rates_.For("dfma", "9.0"));
  ASSERT_TRUE(dfma.has_value());
  EXPECT_GE(*dfma, 0.90);
  EXPECT_LE(*dfma, 1.01);
  EXPECT_THAT(TableRow(section_, "dfma"), Not(CellWith("above published")));
}

// The CAS chains under contention failed their CPU check on the GPU: the
// rows say so instead of showing a number.
TEST_F(InstructionsGroundTruthTest, FailedRowsShowTheirError) {
  for (const char* label : kCasUnderContention) {
    SCOPED_TRACE(label);
    EXPECT_FALSE(Op(label).results_per_clock_per_sm.has_value());
    EXPECT_THAT(TableRow(section_, label), CellWith("throughput: error: INTERNAL"));
    EXPECT_THAT(TableRow(section_, label), CellWith("the CPU model at 0x5"));
  }
}

TEST_F(InstructionsGroundTruthTest, LaunchTableHasStreamAndGraphValues) {
  for (const char* measure :
       {"launch_to_start", "back_to_back", "sync_round_trip", "block_dispatch"}) {
    SCOPED_TRACE(measure);
    for (const char* mode : {"stream", "graph"}) {
      const auto& by_mode = devices_[0].launch.at(measure);
      ASSERT_EQ(by_mode.count(mode), 1u) << mode;
      ASSERT_TRUE(by_mode.at(mode).value.has_value()) << mode;
      EXPECT_GT(*by_mode.at(mode).value, 0) << mode;
    }
  }
  const std::vector<std::string> row = TableRow(section_, "launch to kernel start");
  // measure, metric, stream, graph, notes, and the empty text after the last |.
  ASSERT_EQ(row.size(), 6u);
  EXPECT_NE(row[2], "—");
  EXPECT_NE(row[3], "—");
}

// I2FP (the SASS of i2f on sm_90) runs at the integer rate, ~3.8x the
// "all other type conversions" row: flagged, never shown as plain 380 %.
TEST_F(InstructionsGroundTruthTest, RatesAboveThePublishedOneAreFlagged) {
  const std::optional<double> i2f = FractionOfPublished(Op("i2f"), rates_.For("i2f", "9.0"));
  ASSERT_TRUE(i2f.has_value());
  EXPECT_GT(*i2f, 1.05);
  EXPECT_THAT(TableRow(section_, "i2f"), CellWith("above published: see below"));
  EXPECT_THAT(section_,
              HasSubstr("the table's row does not describe this SASS (or the rate is wrong)"));
  EXPECT_THAT(section_, HasSubstr("\n- i2f: "));
  EXPECT_THAT(section_, HasSubstr("\n- f2f_f16: "));
  // Every flagged op is more than 105 % of its rate, and every op above it
  // is flagged.
  for (const InstructionOpSummary& op : devices_[0].ops) {
    const std::optional<double> fraction =
        FractionOfPublished(op, rates_.For(op.op, devices_[0].compute_capability));
    EXPECT_EQ(fraction && *fraction > 1.05,
              ::testing::Matches(CellWith("above published"))(TableRow(section_, op.Label())))
        << op.Label();
  }
}

// The recheck run, after the fixes: 128 ops a loop trip leave at most
// ~11/128 = 0.09 cycles of loop per step (at 16 a trip the second run read
// FFMA at 4.69 cycles), so the dependent FP32 and IMAD chains read the
// pipeline's own latency, about 4 cycles.
class InstructionsRecheckTest : public InstructionsRunTest {
 protected:
  void SetUp() override {
    Load("analysis/reference/h100_80gb_hbm3/2026-11-27-recheck/first_contact/rotation/",
         InstructionFiles());
  }
};

TEST_F(InstructionsRecheckTest, Fp32AndImadLatencyIsFourCycles) {
  for (const char* op : {"ffma", "fadd", "fmul", "imad"}) {
    SCOPED_TRACE(op);
    ASSERT_TRUE(Op(op).latency_cycles.has_value());
    EXPECT_GE(*Op(op).latency_cycles, 3.9);
    EXPECT_LE(*Op(op).latency_cycles, 4.3);
  }
}

// Near the rates table's FP32 rate for compute capability 9.0 (128 results
// a clock an SM) and not above it.
TEST_F(InstructionsRecheckTest, FfmaThroughputNearsThePublishedRate) {
  ASSERT_TRUE(Op("ffma").results_per_clock_per_sm.has_value());
  EXPECT_GE(*Op("ffma").results_per_clock_per_sm, 120);
  const std::optional<double> fraction = FractionOfPublished(Op("ffma"), rates_.For("ffma", "9.0"));
  ASSERT_TRUE(fraction.has_value());
  EXPECT_LE(*fraction, 1.01);
}

// The CAS chains under contention now pass their CPU check: measured, no
// error text.
TEST_F(InstructionsRecheckTest, CasUnderContentionIsMeasured) {
  for (const char* label : kCasUnderContention) {
    SCOPED_TRACE(label);
    ASSERT_TRUE(Op(label).results_per_clock_per_sm.has_value());
    EXPECT_GT(*Op(label).results_per_clock_per_sm, 0);
    EXPECT_FALSE(TableRow(section_, label).empty());
    EXPECT_THAT(TableRow(section_, label), Not(CellWith("error")));
  }
}

// The final check: every op of the rates table, the %clock reads and
// vote.all measured too.
class InstructionsFinalCheckTest : public InstructionsRunTest {
 protected:
  void SetUp() override {
    Load("analysis/reference/h100_80gb_hbm3/2026-11-27-final-check/runs/ref/",
         {"instruction_latency.json", "instruction_throughput.json"});
  }
};

TEST_F(InstructionsFinalCheckTest, RendersARowForEveryOpOfTheRatesTable) {
  std::set<std::string> ops;
  for (const ResultFile& file : files_) {
    for (const Row& row : file.rows) ops.insert(row.Axis("op").value_or(""));
  }
  EXPECT_EQ(ops.size(), 35u);
  EXPECT_EQ(ops.count("clock"), 1u);
  EXPECT_EQ(ops.count("vote_all"), 1u);
  // Without the contention files each atomic is measured at contention
  // none only, so its row carries the op's plain name.
  EXPECT_EQ(devices_[0].ops.size(), 35u);
  for (const std::string& op : ops) EXPECT_FALSE(TableRow(section_, op).empty()) << op;
}

// %clock: the interval between back-to-back reads (6.8 cycles here), a few
// issue slots, far below a memory access; measured throughput at 1 chain.
// Its chains=4 point needs more registers than 16 blocks of 4 warps have on
// one SM (8 fold accumulators a chain), so it is skipped with that reason.
TEST_F(InstructionsFinalCheckTest, ClockReadsAreMeasuredAndChains4IsSkippedWithItsReason) {
  const InstructionOpSummary& clock = Op("clock");
  ASSERT_TRUE(clock.latency_cycles.has_value());
  EXPECT_GE(*clock.latency_cycles, 2.0);
  EXPECT_LE(*clock.latency_cycles, 20.0);
  ASSERT_TRUE(clock.results_per_clock_per_sm.has_value());
  EXPECT_GT(*clock.results_per_clock_per_sm, 0);
  EXPECT_EQ(clock.chains, 1);
  EXPECT_THAT(clock.not_measured,
              ::testing::ElementsAre(HasSubstr("throughput: skipped: 64 warps per SM need 16 "
                                               "blocks of 4 warps; 10 fit on one SM at once")));
  EXPECT_THAT(TableRow(section_, "clock"), Not(CellWith("error")));
}

// vote.all (ISETP + VOTE.ALL + SEL a step): 21.1 cycles here (the ballot
// chain read 17); some tens of cycles, measured at both chain counts.
TEST_F(InstructionsFinalCheckTest, VoteAllLatencyIsSomeTensOfCycles) {
  const InstructionOpSummary& vote_all = Op("vote_all");
  ASSERT_TRUE(vote_all.latency_cycles.has_value());
  EXPECT_GE(*vote_all.latency_cycles, 10.0);
  EXPECT_LE(*vote_all.latency_cycles, 40.0);
  ASSERT_TRUE(vote_all.results_per_clock_per_sm.has_value());
  EXPECT_GT(*vote_all.results_per_clock_per_sm, 0);
  EXPECT_TRUE(vote_all.not_measured.empty());
}

}  // namespace
}  // namespace dissect::analysis
