// PTX test of the 2:4 GEMM probe (kernels/sparsity_24): the dense kernel
// issues kSp24DenseMmaPerTrip mma.sync m16n8k16 f16→f32 and no mma.sp, the
// sparse kernel kSp24SparseMmaPerTrip mma.sp::ordered_metadata m16n8k32
// f16→f32 and no mma.sync, each inside its one loop (no unrolling). What
// ptxas makes of them is sp_gemm_sass_test's to check.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/sparsity_24/sp_gemm.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

constexpr char kDenseMma[] = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
constexpr char kSparseMma[] =
    "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32";

// Instructions with `opcode` between the loop's label and its backward
// branch (the entry's only backward branch), and outside it.
struct Counts {
  int in_loop = 0;
  int outside = 0;
};

Counts CountInLoop(const std::vector<PtxInstruction>& code, const std::string& opcode) {
  // The loop: the last label that a later branch jumps back to.
  size_t head = code.size(), tail = code.size();
  for (size_t i = 0; i < code.size(); ++i) {
    if (!absl::StartsWith(code[i].opcode, "bra") || code[i].operands.empty()) continue;
    for (size_t j = 0; j < i; ++j) {
      if (code[j].is_label() && code[j].label == code[i].operands[0]) {
        head = j;
        tail = i;
      }
    }
  }
  Counts counts;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i].opcode != opcode) continue;
    (head < i && i < tail ? counts.in_loop : counts.outside) += 1;
  }
  return counts;
}

TEST(SpGemmPtxTest, EachKernelIssuesItsMmaInTheLoop) {
  const std::vector<std::string> files = PtxFilesNamed("sp_gemm");
  ASSERT_FALSE(files.empty()) << "no sp_gemm PTX on the command line";
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const std::vector<PtxInstruction> dense = EntryCode(file, "Sp24GemmKernelILb0E");
    const std::vector<PtxInstruction> sparse = EntryCode(file, "Sp24GemmKernelILb1E");
    const Counts dense_mma = CountInLoop(dense, kDenseMma);
    EXPECT_EQ(dense_mma.in_loop, kSp24DenseMmaPerTrip);
    EXPECT_EQ(dense_mma.outside, 0);
    EXPECT_EQ(CountOpcodePrefix(dense, "mma.sp"), 0);
    const Counts sparse_mma = CountInLoop(sparse, kSparseMma);
    EXPECT_EQ(sparse_mma.in_loop, kSp24SparseMmaPerTrip);
    EXPECT_EQ(sparse_mma.outside, 0);
    EXPECT_EQ(CountOpcodePrefix(sparse, "mma.sync"), 0);
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
