// Compiled-code test of the launch probe (kernels/launch_probe.cuh): the
// start stamp reads %globaltimer before any memory access, and the clock
// handshake answers a round in the order its bound needs (request load, a
// branch on it, the timer read, the stamp's store, a system fence, the
// reply). Arguments: the PTX files.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

TEST(LaunchProbePtxTest, StartStampReadsTheTimerFirst) {
  const std::vector<std::string> files = PtxFilesNamed("launch_probe");
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const std::vector<PtxInstruction> code = EntryCode(file, "16StartStampKernel");
    ASSERT_FALSE(code.empty());
    const int timer = FirstMention(code, "%globaltimer");
    ASSERT_GE(timer, 0) << "no %globaltimer read";
    for (int i = 0; i < timer; ++i) {
      EXPECT_FALSE(absl::StartsWith(code[i].opcode, "ld.global") ||
                   absl::StartsWith(code[i].opcode, "st."))
          << "memory access before the stamp: " << code[i].text;
    }
  }
}

TEST(LaunchProbePtxTest, HandshakeReadsTheTimerAfterTheRequestAndBeforeTheReply) {
  for (const std::string& file : PtxFilesNamed("launch_probe")) {
    SCOPED_TRACE(file);
    const std::vector<PtxInstruction> code = EntryCode(file, "20ClockHandshakeKernel");
    ASSERT_FALSE(code.empty());
    const int request = LastMention(code, "ld.volatile");
    const int answer = LastMention(code, "%globaltimer");
    const int fence = LastMention(code, "membar.sys");
    ASSERT_GE(request, 0) << "no volatile load of the request";
    ASSERT_GT(answer, request) << "the answering timer read precedes the request's load";
    int branches = 0;
    for (int i = request + 1; i < answer; ++i) {
      if (absl::StartsWith(code[i].opcode, "bra")) ++branches;
    }
    EXPECT_GE(branches, 1) << "no branch on the request between its load and the timer read";
    ASSERT_GT(fence, answer) << "no system fence after the timer read";
    int stamp_stores = 0;
    for (int i = answer + 1; i < fence; ++i) {
      if (absl::StartsWith(code[i].opcode, "st.volatile.global.u64")) ++stamp_stores;
    }
    EXPECT_EQ(stamp_stores, 1) << "the stamp is stored between the timer read and the fence";
    int replies = 0;
    for (size_t i = fence + 1; i < code.size(); ++i) {
      if (absl::StartsWith(code[i].opcode, "st.volatile.global.u32")) ++replies;
    }
    EXPECT_EQ(replies, 1) << "the reply is stored after the fence";
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
