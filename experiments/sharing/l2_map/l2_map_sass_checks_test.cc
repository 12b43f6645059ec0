// The checks of l2_map_sass_checks.h on deliberately broken variants of
// L2MapKernel (testdata/l2_map_broken.sass: nvcc 13.0 -O3 -arch=sm_90a,
// cuobjdump -sass), so that l2_map_sass_test can fail:
//   L2MapNoWaitKernel   the clock reads do not wait for the loads
//   L2MapIndexedKernel  a hop is __ldcg(base + j): LEA + LEA.HI.X per hop
//   L2MapCaKernel       __ldca loads (LDG.E.64.STRONG.SM, cached in L1)
//   L2MapGenericKernel  plain dereferences of a generic pointer (LD.E.64)
#include "experiments/sharing/l2_map/l2_map_sass_checks.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"

namespace dissect {
namespace {

std::vector<SassFunction> Broken() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  EXPECT_NE(srcdir, nullptr) << "run under bazel test";
  if (srcdir == nullptr) return {};
  std::ifstream in(std::string(srcdir) +
                   "/dissect/experiments/sharing/l2_map/testdata/l2_map_broken.sass");
  EXPECT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(text.str());
  EXPECT_TRUE(fs.ok()) << fs.status();
  return fs.ok() ? *fs : std::vector<SassFunction>{};
}

std::string Problems(const std::vector<SassFunction>& fs, const std::string& name) {
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {name});
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? absl::StrJoin(L2MapKernelProblems(**f), "\n") : "";
}

TEST(L2MapSassChecksTest, ClocksThatDoNotWaitAreCaught) {
  const std::string p = Problems(Broken(), "L2MapNoWaitKernel");
  EXPECT_TRUE(absl::StrContains(p, "end: the clock read")) << p;
  EXPECT_TRUE(absl::StrContains(p, "start: the clock read")) << p;
  EXPECT_FALSE(absl::StrContains(p, "computes an address")) << p;
}

TEST(L2MapSassChecksTest, AddressArithmeticBetweenHopsIsCaught) {
  const std::string p = Problems(Broken(), "L2MapIndexedKernel");
  EXPECT_TRUE(absl::StrContains(p, "is not addressed by the previous load's result")) << p;
  EXPECT_TRUE(absl::StrContains(p, "LEA")) << p;
  EXPECT_TRUE(absl::StrContains(p, "computes an address")) << p;
  EXPECT_TRUE(absl::StrContains(p, "instructions besides the loads")) << p;
}

TEST(L2MapSassChecksTest, L1CachedLoadsAreCaught) {
  const std::string p = Problems(Broken(), "L2MapCaKernel");
  EXPECT_TRUE(absl::StrContains(p, "is not an L2-only load")) << p;
  EXPECT_FALSE(absl::StrContains(p, "computes an address")) << p;
  EXPECT_FALSE(absl::StrContains(p, "does not wait")) << p;
}

TEST(L2MapSassChecksTest, GenericLoadsAreNotCountedAsHops) {
  const std::string p = Problems(Broken(), "L2MapGenericKernel");
  EXPECT_TRUE(absl::StrContains(p, "timed loop: 0 LDG a trip, want 16")) << p;
  EXPECT_TRUE(absl::StrContains(p, "timed loop: 16 other loads")) << p;
}

}  // namespace
}  // namespace dissect
