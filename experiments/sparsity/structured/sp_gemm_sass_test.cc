// SASS test of the 2:4 GEMM probe (kernels/sparsity_24): per architecture,
// the innermost loop of the dense kernel holds exactly kSp24DenseMmaPerTrip
// HMMA.16816.F32 and no HMMA.SP; the sparse kernel's exactly
// kSp24SparseMmaPerTrip HMMA.SP.16832.F32 and no dense HMMA; and neither
// holds a tensor instruction outside its loop. (ptxas once folded repeated
// mma.sync in this project: PTX counts are not enough.)
// Both loops also issue every operand load of a trip before the trip's first
// tensor instruction, the same number of loads in both: a load placed after
// an HMMA (ptxas did this to the sparse loop, reusing the register the
// first HMMA.SP had just read) makes that trip wait for a second memory
// round trip, and the sparse kernel would read slower than the dense one
// for a reason that has nothing to do with mma.sp.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/sparsity_24/sp_gemm.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// Instructions of code[begin, end) whose whole opcode is `opcode`.
int CountOpcode(const SassFunction& f, size_t begin, size_t end, const std::string& opcode) {
  int n = 0;
  for (size_t i = begin; i < end; ++i) n += f.code[i].opcode == opcode;
  return n;
}

void CheckKernel(const SassFunction& f, const std::string& want_opcode, int want,
                 const std::string& other_opcode) {
  SCOPED_TRACE(absl::StrCat(f.name, " ", f.arch));
  const std::vector<SassLoop> loops = InnermostLoops(f);
  ASSERT_EQ(loops.size(), 1u) << "one loop (the k steps)";
  const SassLoop& loop = loops[0];
  EXPECT_EQ(CountOpcode(f, loop.head, loop.branch + 1, want_opcode), want)
      << Listing(f, loop.head, loop.branch + 1);
  EXPECT_EQ(CountOpcode(f, loop.head, loop.branch + 1, other_opcode), 0);
  EXPECT_EQ(CountOps(f, loop, {"HMMA"}), want) << "no other tensor instruction in the loop";
  EXPECT_EQ(CountOps(f, 0, f.code.size(), {"HMMA", "IMMA", "QMMA", "HGMMA"}), want)
      << "tensor instructions outside the loop";
}

// Loads of the operands (global, shared or generic memory). LDC is left out:
// ptxas re-reads kernel parameters (k_steps) from the constant bank inside
// the loop, for the exit test, and no tensor instruction waits for that.
const std::vector<std::string>& OperandLoadOps() {
  static const auto* ops = new std::vector<std::string>{"LD", "LDG", "LDS", "LDSM", "LDGSTS"};
  return *ops;
}

// Expects that every operand load of `f`'s one loop comes before the loop's
// first tensor instruction, and that there are `want_loads` of them.
void CheckLoadsBeforeFirstMma(const SassFunction& f, int want_loads) {
  SCOPED_TRACE(absl::StrCat(f.name, " ", f.arch));
  const std::vector<SassLoop> loops = InnermostLoops(f);
  ASSERT_EQ(loops.size(), 1u) << "one loop (the k steps)";
  const SassLoop& loop = loops[0];
  const std::vector<size_t> mmas = IndicesOfOps(f, loop, {"HMMA"});
  ASSERT_FALSE(mmas.empty()) << LoopListing(f, loop);
  const std::vector<size_t> loads = IndicesOfOps(f, loop, OperandLoadOps());
  EXPECT_EQ(static_cast<int>(loads.size()), want_loads)
      << "operand loads per trip\n" << LoopListing(f, loop);
  for (size_t i : loads) {
    EXPECT_LT(i, mmas.front()) << "a load after the trip's first tensor instruction "
                               << SassLine(f, mmas.front()) << ": " << SassLine(f, i) << "\n"
                               << LoopListing(f, loop);
  }
}

TEST_F(SassTest, DenseLoopHoldsHmmaSparseLoopHoldsHmmaSp) {
  int checked = 0;
  for (const SassFunction& f : AllSassFunctions()) {
    if (f.name.find("Sp24GemmKernelILb0E") != std::string::npos) {
      CheckKernel(f, "HMMA.16816.F32", kSp24DenseMmaPerTrip, "HMMA.SP.16832.F32");
      ++checked;
    } else if (f.name.find("Sp24GemmKernelILb1E") != std::string::npos) {
      CheckKernel(f, "HMMA.SP.16832.F32", kSp24SparseMmaPerTrip, "HMMA.16816.F32");
      ++checked;
    }
  }
  EXPECT_GE(checked, 2) << "both kernels, on every architecture built";
}

// Dense: A's two k16 halves and one B fragment per column tile; sparse: the
// compressed A, its metadata word and the same B fragments.
TEST_F(SassTest, BothLoopsLoadEveryOperandBeforeTheirFirstHmma) {
  constexpr int kLoadsPerTrip = 2 + kSp24ColTilesPerWarp;
  int checked = 0;
  for (const SassFunction& f : AllSassFunctions()) {
    if (f.name.find("Sp24GemmKernelILb0E") != std::string::npos ||
        f.name.find("Sp24GemmKernelILb1E") != std::string::npos) {
      CheckLoadsBeforeFirstMma(f, kLoadsPerTrip);
      ++checked;
    }
  }
  EXPECT_GE(checked, 2) << "both kernels, on every architecture built";
}

}  // namespace
}  // namespace dissect
