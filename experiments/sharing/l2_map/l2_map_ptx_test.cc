// PTX of the SM-to-L2 map kernel (kernels/l2_map/l2_map.cu): six %clock64
// reads in the lap, as three intervals (empty, first touch, re-touch) of
// which the last two hold one ld.global.cg each and the first none; the
// re-touch at +8 from the same address register as the first touch, that
// register being the re-touch's result; every load of the sweep
// ld.global.cg too; the block claims the launch with atom.global.cas
// after reading %smid. PTX is not the machine code (l2_map_sass_test
// checks that), but a kernel whose PTX lacks these never had them.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/l2_map/l2_map.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

std::vector<size_t> ClockReads(const std::vector<PtxInstruction>& code) {
  std::vector<size_t> marks;
  for (size_t i = 0; i < code.size(); ++i) {
    if (absl::StrContains(code[i].text, "%clock64")) marks.push_back(i);
  }
  return marks;
}

// The ld.* instructions strictly between code[begin] and code[end].
std::vector<PtxInstruction> LoadsBetween(const std::vector<PtxInstruction>& code, size_t begin,
                                         size_t end) {
  std::vector<PtxInstruction> loads;
  for (size_t i = begin + 1; i < end; ++i) {
    if (absl::StartsWith(code[i].opcode, "ld.")) loads.push_back(code[i]);
  }
  return loads;
}

TEST(L2MapPtxTest, LapTimesOneL2OnlyLoadPerIntervalOfOneChain) {
  const auto files = PtxFilesNamed("l2_map");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const std::vector<PtxInstruction> code = EntryCode(f, "L2MapKernel");
    ASSERT_FALSE(code.empty());
    const std::vector<size_t> clocks = ClockReads(code);
    ASSERT_EQ(clocks.size(), 6u);
    EXPECT_TRUE(LoadsBetween(code, clocks[0], clocks[1]).empty());
    const std::vector<PtxInstruction> first = LoadsBetween(code, clocks[2], clocks[3]);
    const std::vector<PtxInstruction> again = LoadsBetween(code, clocks[4], clocks[5]);
    ASSERT_EQ(first.size(), 1u);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_TRUE(absl::StartsWith(first[0].opcode, "ld.global.cg.u64")) << first[0].text;
    EXPECT_TRUE(absl::StartsWith(again[0].opcode, "ld.global.cg.u64")) << again[0].text;
    ASSERT_EQ(again[0].operands.size(), 2u);
    ASSERT_EQ(first[0].operands.size(), 2u);
    // ld [%rdN] and ld %rdN, [%rdN+8]: both addressed by the re-touch's result.
    const std::string chain = again[0].operands[0];
    EXPECT_EQ(first[0].operands[1], "[" + chain + "]");
    EXPECT_EQ(again[0].operands[1], "[" + chain + "+" + std::to_string(kL2MapRetouchOffset) + "]");
    int other_loads = 0;
    for (const PtxInstruction& in : code) {
      if (absl::StartsWith(in.opcode, "ld.global.") &&
          !absl::StartsWith(in.opcode, "ld.global.cg")) {
        ++other_loads;
      }
    }
    EXPECT_EQ(other_loads, 0) << "the sweep and the lap load L2-only";
    EXPECT_EQ(CountOpcodePrefix(code, "ld.global.cg"), kL2MapSweepUnroll + 2);
    // Waits: the sweep's, and one in each interval.
    EXPECT_EQ(CountOpcodePrefix(code, "st.volatile.shared"), 4);
    EXPECT_EQ(CountOpcodePrefix(code, "atom.global.cas"), 1);
    bool smid = false;
    for (const PtxInstruction& in : code) smid |= absl::StrContains(in.text, "%smid");
    EXPECT_TRUE(smid);
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
