// The SASS checks of chase_sass_checks.h on the pointer-chase kernels as they
// were before the fix (testdata/chase_before_fix.sass): the global hop
// was IADD3 + IMAD.X + LDG and the end clock did not wait for the last load.
// The checks must reject both, so chase_sass_test can fail.
#include "experiments/chase_sass_checks.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"

namespace dissect {
namespace {

// Saved machine code of chase kernels (experiments/testdata/<name>), parsed.
absl::StatusOr<std::vector<SassFunction>> SavedSass(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir == nullptr) return absl::FailedPreconditionError("run under bazel test");
  const std::string path = std::string(srcdir) + "/dissect/experiments/testdata/" + name;
  std::ifstream in(path);
  if (!in.good()) return absl::NotFoundError("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return ParseCuobjdumpSass(text.str());
}

// The kernels before the fix.
absl::StatusOr<std::vector<SassFunction>> BeforeFixSass() {
  return SavedSass("chase_before_fix.sass");
}

// The kernels before the fix: the chain held 32-bit byte offsets, so the
// global hop was IADD3 + IMAD.X + LDG, and the end clock did not wait for the
// last load. The checks above must reject both (and find the loads and loops
// they expect).
TEST(ChaseSassBeforeFixTest, ChecksFailOnTheOffsetChase) {
  const absl::StatusOr<std::vector<SassFunction>> fs = BeforeFixSass();
  ASSERT_TRUE(fs.ok()) << fs.status();
  absl::StatusOr<const SassFunction*> ca =
      FindSassFunction(*fs, {Fragment("11ChaseKernel", ChasePath::kGlobalCa)});
  absl::StatusOr<const SassFunction*> shared =
      FindSassFunction(*fs, {Fragment("11ChaseKernel", ChasePath::kShared)});
  ASSERT_TRUE(ca.ok() && shared.ok());

  const std::string global = absl::StrJoin(ChaseKernelProblems(**ca, "LDG"), "\n");
  EXPECT_TRUE(absl::StrContains(global, "IADD3")) << global;
  EXPECT_TRUE(absl::StrContains(global, "IMAD.X")) << global;
  EXPECT_TRUE(absl::StrContains(global, "computes the address")) << global;
  EXPECT_TRUE(absl::StrContains(global, "end: the clock read")) << global;
  // The remainder loop of the old unroll: one LDG a trip in the timed region.
  EXPECT_TRUE(absl::StrContains(global, ": 1 LDG a trip, want 16")) << global;

  // The shared hop was already one LDS, but its end clock did not wait.
  const std::string lds = absl::StrJoin(ChaseKernelProblems(**shared, "LDS"), "\n");
  EXPECT_FALSE(absl::StrContains(lds, "computes the address")) << lds;
  EXPECT_TRUE(absl::StrContains(lds, "end: the clock read")) << lds;
}

// The shared chase indexed by a word index, as the published shared-memory
// chases are (p = s[p]): each hop is IMAD or LEA (index x 4 + base), then
// LDS, which adds the integer operation's latency to every hop (about 6
// cycles on an H100: 29 against the pure chain's 23). The hop check must
// reject it, so chase_sass_test fails if the shared chain ever gains
// address arithmetic.
TEST(ChaseSassBeforeFixTest, ChecksFailOnAnIndexedSharedChase) {
  const absl::StatusOr<std::vector<SassFunction>> fs = SavedSass("chase_shared_index.sass");
  ASSERT_TRUE(fs.ok()) << fs.status();
  absl::StatusOr<const SassFunction*> shared =
      FindSassFunction(*fs, {Fragment("11ChaseKernel", ChasePath::kShared)});
  ASSERT_TRUE(shared.ok()) << shared.status();
  const std::string lds = absl::StrJoin(ChaseKernelProblems(**shared, "LDS"), "\n");
  EXPECT_TRUE(absl::StrContains(lds, "is not addressed by the previous load's result")) << lds;
  // The rest of the kernel is the shipped one: loops, unroll and clocks pass.
  EXPECT_FALSE(absl::StrContains(lds, "timed loops hold")) << lds;
  EXPECT_FALSE(absl::StrContains(lds, "a trip, want")) << lds;
  EXPECT_FALSE(absl::StrContains(lds, "the clock read")) << lds;
}

// The cache-operator check is not vacuous: the global_ca kernel's loads
// (LDG.E.STRONG.SM, L1-allocating) pass as global_ca's and fail as global_cg's
// or ldg's, as they would if ptxas gave the cg chase an L1-allocating load.
TEST(ChaseSassBeforeFixTest, CacheOperatorCheckTellsL1AllocatingLoadsFromL2Only) {
  const absl::StatusOr<std::vector<SassFunction>> fs = BeforeFixSass();
  ASSERT_TRUE(fs.ok()) << fs.status();
  absl::StatusOr<const SassFunction*> ca =
      FindSassFunction(*fs, {Fragment("11ChaseKernel", ChasePath::kGlobalCa)});
  ASSERT_TRUE(ca.ok());
  EXPECT_TRUE(CacheOperatorProblems(**ca, ChasePath::kGlobalCa).empty());
  const std::string as_cg = absl::StrJoin(CacheOperatorProblems(**ca, ChasePath::kGlobalCg), "\n");
  EXPECT_TRUE(absl::StrContains(as_cg, "lacks .GPU")) << as_cg;
  const std::string as_ldg = absl::StrJoin(CacheOperatorProblems(**ca, ChasePath::kLdg), "\n");
  EXPECT_TRUE(absl::StrContains(as_ldg, "lacks .CONSTANT")) << as_ldg;
  EXPECT_TRUE(CacheOperatorProblems(**ca, ChasePath::kShared).empty());
}

}  // namespace
}  // namespace dissect
