// Machine-code tests of the DSM kernels (kernels/dsm/dsm.cu) on the SASS
// ptxas really emitted: the dsm_peer chase is 16 dependent LD.E.64 a
// timed-loop trip, each addressed by the previous load's 64-bit result with
// no instruction in between (a register move there would be timed as part
// of the hardware's hop), with the peer mapped (mapa: PRMT) outside the
// timed loops; shared_local chases LDS and l2 LDG the same way; the stream
// kernels keep their 16-byte loads inside the pass loop. The checks are
// dsm_sass_checks.{h,cc}; dsm_sass_checks_test shows them failing on broken
// listings. Below sm_90 (no clusters) every DSM kernel is a stub.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/sharing/dsm/dsm_sass_checks.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class DsmSassTest : public SassTest {};

constexpr int kClustersArch = 90;
constexpr char kNoClusters[] = "no thread-block clusters below sm_90";

TEST_F(DsmSassTest, PeerChaseIsOneClusterLoadPerHopWithTheMapOutsideTheLoop) {
  const SassFunction* f = SassFunctionNamed({"8DsmChaseILNS_7DsmPathE1EE"});
  ASSERT_NE(f, nullptr);
  if (ExpectStubBelow(*f, kClustersArch, kNoClusters)) return;
  const std::vector<std::string> problems = DsmChaseProblems(*f, "LD", /*expect_mapa=*/true);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
}

TEST_F(DsmSassTest, LocalChaseIsOneLdsPerHop) {
  const SassFunction* f = SassFunctionNamed({"8DsmChaseILNS_7DsmPathE0EE"});
  ASSERT_NE(f, nullptr);
  if (ExpectStubBelow(*f, kClustersArch, kNoClusters)) return;
  const std::vector<std::string> problems = DsmChaseProblems(*f, "LDS", /*expect_mapa=*/false);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  // Own shared memory: no copy in a hop either.
  const auto loop = TimedLoopWith(*f, {"LDS"});
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(CountOps(*f, *loop, {"MOV"}), 0) << LoopListing(*f, *loop);
}

TEST_F(DsmSassTest, L2ChaseIsOneLdgPerHop) {
  const SassFunction* f = SassFunctionNamed({"8DsmChaseILNS_7DsmPathE2EE"});
  ASSERT_NE(f, nullptr);
  if (ExpectStubBelow(*f, kClustersArch, kNoClusters)) return;
  const std::vector<std::string> problems = DsmChaseProblems(*f, "LDG", /*expect_mapa=*/false);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
}

TEST_F(DsmSassTest, StreamsKeepTheirWideLoadsInThePassLoop) {
  const SassFunction* peer = SassFunctionNamed({"9DsmStreamILNS_7DsmPathE1EE"});
  ASSERT_NE(peer, nullptr);
  const SassFunction* local = SassFunctionNamed({"9DsmStreamILNS_7DsmPathE0EE"});
  ASSERT_NE(local, nullptr);
  const bool peer_stub = ExpectStubBelow(*peer, kClustersArch, kNoClusters);
  const bool local_stub = ExpectStubBelow(*local, kClustersArch, kNoClusters);
  if (peer_stub || local_stub) return;
  std::vector<std::string> problems = DsmStreamProblems(*peer, "LD", 4);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  problems = DsmStreamProblems(*local, "LDS", 4);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
}

}  // namespace
}  // namespace dissect
