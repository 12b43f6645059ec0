// Machine-code tests of the pointer-chase kernels (kernels/pointer_chase.cu),
// on the SASS that ptxas really emitted (the PTX cannot show the extra
// integer work of a hop or a clock read that does not wait):
// - every timed loop of ChaseKernel holds exactly kChaseUnroll loads of its
//   path's load instruction (LDS, LDG, TLD, LDC) and no other load, one loop
//   per timed segment;
// - every hop is exactly one load whose address register is the previous
//   load's destination, and no instruction between two loads writes that
//   address (no IADD3 + IMAD.X of a 32-bit offset onto a base);
// - each segment's clocks wait for the chase: an instruction that reads the
//   last load's result comes before the end clock read, and the value a
//   segment starts from is read before its start clock read;
// - ChaseTraceKernel times exactly one load between each pair of clock
//   reads and stores that load's result before the second read;
// - the global paths' timed loads carry their cache operator in the machine
//   code (the PTX test sees only ld.global.cg, which ptxas could map to an
//   L1-allocating load): global_cg's L2 plateau is not L1 hits.
// The checks live in chase_sass_checks.{h,cc}; chase_sass_checks_test runs
// them on the SASS of the kernels before the fix, where they must fail.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/chase_sass_checks.h"
#include "gtest/gtest.h"
#include "kernels/pointer_chase.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

struct PathOp {
  ChasePath path;
  const char* op;  // the SASS op of the path's load
};

// tex1Dfetch on a linear texture object compiles to TLD.LZ on sm_90a.
constexpr PathOp kPathOps[] = {
    {ChasePath::kShared, "LDS"}, {ChasePath::kGlobalCa, "LDG"}, {ChasePath::kGlobalCg, "LDG"},
    {ChasePath::kLdg, "LDG"},    {ChasePath::kTex, "TLD"},      {ChasePath::kConst, "LDC"},
};

class ChaseSassTest : public SassTest {};

TEST_F(ChaseSassTest, TimedLoopsAreChainsOfExactlyOneLoadPerHop) {
  for (const PathOp& p : kPathOps) {
    const SassFunction* f = SassFunctionNamed({Fragment("11ChaseKernel", p.path)});
    if (f == nullptr) continue;
    SCOPED_TRACE(absl::StrCat(f->name, " (", f->arch, ")"));
    const std::vector<std::string> problems = ChaseKernelProblems(*f, p.op);
    EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  }
}

TEST_F(ChaseSassTest, TraceTimesOneLoadPerClockPairAndWaitsForIt) {
  for (const PathOp& p : kPathOps) {
    const SassFunction* f = SassFunctionNamed({Fragment("16ChaseTraceKernel", p.path)});
    if (f == nullptr) continue;
    SCOPED_TRACE(absl::StrCat(f->name, " (", f->arch, ")"));
    const std::vector<std::string> problems = TraceKernelProblems(*f, p.op);
    EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  }
}

TEST_F(ChaseSassTest, GlobalPathsLoadWithTheirCacheOperator) {
  constexpr ChasePath kGlobal[] = {ChasePath::kGlobalCa, ChasePath::kGlobalCg, ChasePath::kLdg};
  for (ChasePath path : kGlobal) {
    for (const char* kernel : {"11ChaseKernel", "16ChaseTraceKernel"}) {
      const SassFunction* f = SassFunctionNamed({Fragment(kernel, path)});
      if (f == nullptr) continue;
      SCOPED_TRACE(absl::StrCat(f->name, " (", f->arch, ")"));
      const std::vector<std::string> problems = CacheOperatorProblems(*f, path);
      EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
    }
  }
}

}  // namespace
}  // namespace dissect
