// Machine-code test of the launch probe (kernels/launch_probe.cuh) on the
// SASS ptxas emitted, for every architecture built: the start stamp reads
// %globaltimer before any memory access or other work and stores that
// read; the clock handshake's stamped timer read follows the poll loop that
// observes the host's request, then a system fence, then the reply. The
// checks are launch_probe_sass_checks.{h,cc}; launch_probe_sass_checks_test
// shows them failing on listings edited by hand.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "experiments/launch/launch_probe_sass_checks.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class LaunchProbeSassTest : public SassTest {};

TEST_F(LaunchProbeSassTest, StartStampReadsTheTimerFirstAndStoresIt) {
  const SassFunction* f = SassFunctionNamed({"16StartStampKernel"});
  ASSERT_NE(f, nullptr);
  const std::vector<std::string> problems = StartStampProblems(*f);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n") << "\n"
                                << Listing(*f, 0, f->code.size());
}

TEST_F(LaunchProbeSassTest, HandshakeReadsTheTimerAfterThePollLoop) {
  const SassFunction* f = SassFunctionNamed({"20ClockHandshakeKernel"});
  ASSERT_NE(f, nullptr);
  const std::vector<std::string> problems = ClockHandshakeProblems(*f);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n") << "\n"
                                << Listing(*f, 0, f->code.size());
}

}  // namespace
}  // namespace dissect
