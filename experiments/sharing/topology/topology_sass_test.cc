// Machine-code test of the topology probe (kernels/topology/topology.cu), on
// the SASS ptxas emitted: the block reads its SM (S2R SR_VIRTUALSMID or
// SR_SMID) and its rank in the cluster (S2R SR_CgaCtaId) and stores three
// words before its first clock read; then a loop that reads the clock (the
// spin) holds no store and is not removed; below sm_90 (no clusters) it is
// a stub. And the blocker's waits reload their control word every trip.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class TopologySassTest : public SassTest {};

bool ReadsSpecial(const SassInstruction& in, absl::string_view reg) {
  return (in.op == "S2R" || in.op == "S2UR") && absl::StrContains(in.text, reg);
}

TEST_F(TopologySassTest, RecordsPlacementThenSpinsOnTheClock) {
  const SassFunction* f = SassFunctionNamed({"13TopologyProbe"});
  ASSERT_NE(f, nullptr);
  if (ExpectStubBelow(*f, 90, "no thread-block clusters below sm_90")) return;
  SCOPED_TRACE(f->name + " (" + f->arch + ")");
  const std::vector<size_t> clocks = ClockReads(*f);
  ASSERT_FALSE(clocks.empty()) << Listing(*f, 0, f->code.size());
  const size_t first_clock = clocks.front();
  bool smid = false;
  bool rank = false;
  for (size_t i = 0; i < first_clock; ++i) {
    smid |= ReadsSpecial(f->code[i], "SR_VIRTUALSMID") || ReadsSpecial(f->code[i], "SR_SMID");
    rank |= ReadsSpecial(f->code[i], "SR_CgaCtaId");
  }
  EXPECT_TRUE(smid) << Listing(*f, 0, first_clock);
  EXPECT_TRUE(rank) << Listing(*f, 0, first_clock);
  EXPECT_EQ(CountOps(*f, 0, first_clock, {"STG"}), 3) << Listing(*f, 0, first_clock);

  const std::vector<SassLoop> loops = FindLoops(*f);
  ASSERT_EQ(loops.size(), 1u) << Listing(*f, 0, f->code.size());
  const SassLoop& spin = loops.front();
  int clock_reads_in_loop = 0;
  for (const size_t c : clocks) {
    if (c >= spin.head && c <= spin.branch) ++clock_reads_in_loop;
  }
  EXPECT_EQ(clock_reads_in_loop, 1) << LoopListing(*f, spin);
  EXPECT_EQ(CountOps(*f, spin, {"STG", "ST", "ATOM", "RED"}), 0) << LoopListing(*f, spin);
  EXPECT_GT(spin.head, first_clock) << "the start clock is read before the loop";
}

// The blocker (TopologyBlocker) holds its SMs only while its two waits
// really wait: each must be a loop that loads its control word from memory
// on every trip (a load hoisted out of the loop would spin on a stale value
// until the cycle limit) and reads the clock for its time limit.
TEST_F(TopologySassTest, BlockerWaitsReloadTheirControlWord) {
  const SassFunction* f = SassFunctionNamed({"15TopologyBlocker"});
  ASSERT_NE(f, nullptr);
  SCOPED_TRACE(f->name + " (" + f->arch + ")");
  const std::vector<SassLoop> loops = FindLoops(*f);
  ASSERT_EQ(loops.size(), 2u) << Listing(*f, 0, f->code.size());
  const std::vector<size_t> clocks = ClockReads(*f);
  for (const SassLoop& loop : loops) {
    EXPECT_EQ(CountOps(*f, loop, {"LDG"}), 1) << LoopListing(*f, loop);
    int clock_reads = 0;
    for (const size_t c : clocks) {
      if (c >= loop.head && c <= loop.branch) ++clock_reads;
    }
    EXPECT_EQ(clock_reads, 1) << LoopListing(*f, loop);
  }
}

}  // namespace
}  // namespace dissect
