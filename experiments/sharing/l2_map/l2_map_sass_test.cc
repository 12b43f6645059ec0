// Machine code of the SM-to-L2 map kernel (kernels/l2_map/l2_map.cu) as
// ptxas emitted it: the timed loop is kL2MapUnroll L2-only LDGs, each
// addressed by the previous one's result with no address arithmetic in
// between, and both clock reads wait for the chase (l2_map_sass_checks.h).
// l2_map_sass_checks_test runs the same checks on broken variants.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/sharing/l2_map/l2_map_sass_checks.h"
#include "gtest/gtest.h"
#include "kernels/l2_map/l2_map.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class L2MapSassTest : public SassTest {};

TEST_F(L2MapSassTest, TimedLoopIsAChainOfL2OnlyLoadsWithoutAddressArithmetic) {
  const SassFunction* f = SassFunctionNamed({"11L2MapKernel"});
  ASSERT_NE(f, nullptr);
  SCOPED_TRACE(absl::StrCat(f->name, " (", f->arch, ")"));
  const std::vector<std::string> problems = L2MapKernelProblems(*f);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  ExpectTimedLoopCount(*f, {"LDG"}, kL2MapUnroll);
}

}  // namespace
}  // namespace dissect
