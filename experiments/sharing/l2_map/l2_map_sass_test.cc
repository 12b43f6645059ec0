// Machine code of the SM-to-L2 map kernel (kernels/l2_map/l2_map.cu) as
// ptxas emitted it: each timed interval of the lap holds one L2-only LDG
// (none in the empty one), addressed by the previous re-touch's result with
// nothing else in the chain, and each closing clock read waits for its
// load (l2_map_sass_checks.h). l2_map_sass_checks_test runs the same
// checks on broken variants and on the kernel before the first-touch
// method.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/sharing/l2_map/l2_map_sass_checks.h"
#include "gtest/gtest.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class L2MapSassTest : public SassTest {};

TEST_F(L2MapSassTest, EachTimedIntervalIsOneL2OnlyLoadOfTheChain) {
  const SassFunction* f = SassFunctionNamed({"11L2MapKernel"});
  ASSERT_NE(f, nullptr);
  SCOPED_TRACE(absl::StrCat(f->name, " (", f->arch, ")"));
  const std::vector<std::string> problems = L2MapKernelProblems(*f);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
}

}  // namespace
}  // namespace dissect
