// The checks of l2_map_sass_checks.h on deliberately broken variants of
// L2MapKernel (testdata/l2_map_broken.sass from testdata/l2_map_broken.cu:
// nvcc 13.0 -O3 -arch=sm_90a, cuobjdump -sass), so that l2_map_sass_test
// can fail:
//   L2MapRepeatedHopKernel  the kernel before the first-touch method: a
//                           warm load, then one line chased between two
//                           clock reads (no timed first touch at all)
//   L2MapNoWaitKernel       the clock reads do not wait for the loads
//   L2MapIndexedKernel      lines hold an index: address arithmetic per hop
//   L2MapCaKernel           ld.global.ca loads (cached in L1)
//   L2MapGenericKernel      generic loads (LD.E.64)
//   L2MapStoreInsideKernel  a store between a clock read and the load
#include "experiments/sharing/l2_map/l2_map_sass_checks.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

std::vector<SassFunction> Broken() {
  return SavedSassFunctions("experiments/sharing/l2_map/testdata/l2_map_broken.sass");
}

std::string Problems(const std::vector<SassFunction>& fs, const std::string& name) {
  absl::StatusOr<const SassFunction*> f = FindSassFunction(fs, {name});
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? absl::StrJoin(L2MapKernelProblems(**f), "\n") : "";
}

TEST(L2MapSassChecksTest, TheRepeatedHopKernelHasNoTimedLap) {
  const std::string p = Problems(Broken(), "L2MapRepeatedHopKernel");
  EXPECT_TRUE(absl::StrContains(p, "no loop reads the clock")) << p;
}

TEST(L2MapSassChecksTest, ClocksThatDoNotWaitAreCaught) {
  const std::string p = Problems(Broken(), "L2MapNoWaitKernel");
  // ptxas drops the first touch whose result nothing waits for.
  EXPECT_TRUE(absl::StrContains(p, "first touch")) << p;
  EXPECT_TRUE(absl::StrContains(p, "0 loads, want 1")) << p;
  EXPECT_TRUE(absl::StrContains(p, "re-touch end: the clock read")) << p;
  EXPECT_FALSE(absl::StrContains(p, "between two hops")) << p;
}

TEST(L2MapSassChecksTest, AddressArithmeticBetweenHopsIsCaught) {
  const std::string p = Problems(Broken(), "L2MapIndexedKernel");
  EXPECT_TRUE(absl::StrContains(p, "writes the chain's address")) << p;
  EXPECT_TRUE(absl::StrContains(p, "is timed with the load")) << p;
}

TEST(L2MapSassChecksTest, L1CachedLoadsAreCaught) {
  const std::string p = Problems(Broken(), "L2MapCaKernel");
  EXPECT_TRUE(absl::StrContains(p, "is not an L2-only load")) << p;
  EXPECT_FALSE(absl::StrContains(p, "between two hops")) << p;
  EXPECT_FALSE(absl::StrContains(p, "does not wait")) << p;
}

TEST(L2MapSassChecksTest, GenericLoadsAreCaught) {
  const std::string p = Problems(Broken(), "L2MapGenericKernel");
  EXPECT_TRUE(absl::StrContains(p, "is not an L2-only load")) << p;
}

TEST(L2MapSassChecksTest, AStoreInsideATimedIntervalIsCaught) {
  const std::string p = Problems(Broken(), "L2MapStoreInsideKernel");
  EXPECT_TRUE(absl::StrContains(p, "is timed with the load")) << p;
}

}  // namespace
}  // namespace dissect
