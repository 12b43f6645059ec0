// PTX of the SM-to-L2 map kernel (kernels/l2_map/l2_map.cu): between its two
// clock reads a dependent chain of kL2MapUnroll ld.global.cg loads and no
// other load; the value the chain starts from and its last result are
// stored to shared memory (st.volatile.shared) before the clock reads; the
// block claims the launch with atom.global.cas after reading %smid. PTX is
// not the machine code (l2_map_sass_test checks that), but a kernel whose
// PTX lacks these never had them.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/l2_map/l2_map.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

// Instructions strictly between the first two that mention %clock64.
std::vector<PtxInstruction> TimedRegion(const std::vector<PtxInstruction>& code) {
  std::vector<size_t> marks;
  for (size_t i = 0; i < code.size(); ++i) {
    if (absl::StrContains(code[i].text, "%clock64")) marks.push_back(i);
  }
  if (marks.size() < 2) return {};
  return {code.begin() + marks[0] + 1, code.begin() + marks[1]};
}

TEST(L2MapPtxTest, TimedRegionIsADependentChainOfL2OnlyLoads) {
  const auto files = PtxFilesNamed("l2_map");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const std::vector<PtxInstruction> code = EntryCode(f, "L2MapKernel");
    ASSERT_FALSE(code.empty());
    absl::StatusOr<DependentLoadReport> report =
        AnalyzeDependentLoads(code, "%clock64", "ld.global.cg");
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->loads, kL2MapUnroll);
    EXPECT_EQ(report->longest_dependent_run, kL2MapUnroll);
    const std::vector<PtxInstruction> region = TimedRegion(code);
    int other_loads = 0;
    int waits = 0;
    for (const PtxInstruction& in : region) {
      if (absl::StartsWith(in.opcode, "ld.") && !absl::StartsWith(in.opcode, "ld.global.cg")) {
        ++other_loads;
      }
      if (absl::StartsWith(in.opcode, "st.volatile.shared")) ++waits;
    }
    EXPECT_EQ(other_loads, 0);
    EXPECT_EQ(waits, 1) << "the end clock read waits for the chase";
    EXPECT_EQ(CountOpcodePrefix(code, "st.volatile.shared"), 2);
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
