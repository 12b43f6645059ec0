// PTX tests of the DSM kernels (kernels/dsm/dsm.cu): the timed chase of
// each path is a dependent chain of its load between the %clock64 reads
// (dsm_peer: a generic ld.u64 of 64-bit shared-window addresses, with
// mapa.u64 before the timed region), and the stream kernels read with
// 16-byte vector loads.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

struct PathLoad {
  int path;          // DsmPath value: the template argument in the mangled name
  const char* load;  // opcode prefix of the hop
};

constexpr PathLoad kPathLoads[] = {{0, "ld.shared.u32"}, {1, "ld.u64"}, {2, "ld.global.cg"}};

std::string ChaseEntry(int path) { return "8DsmChaseILNS_7DsmPathE" + std::to_string(path) + "EE"; }

std::vector<size_t> IndicesWith(const std::vector<PtxInstruction>& code, absl::string_view text) {
  std::vector<size_t> out;
  for (size_t i = 0; i < code.size(); ++i) {
    if (absl::StrContains(code[i].text, text)) out.push_back(i);
  }
  return out;
}

TEST(DsmPtxTest, EachPathChasesItsLoadBetweenTheClockReads) {
  const auto files = PtxFilesNamed("dsm");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const PathLoad& p : kPathLoads) {
      SCOPED_TRACE(f + " path " + std::to_string(p.path) + " " + p.load);
      const auto code = EntryCode(f, ChaseEntry(p.path));
      auto report = AnalyzeDependentLoads(code, "%clock64", p.load);
      ASSERT_TRUE(report.ok()) << report.status();
      EXPECT_GE(report->loads, 16);
      EXPECT_GE(report->longest_dependent_run, 16);
      // Only the dsm_peer kernel maps another block's shared memory.
      EXPECT_EQ(CountOpcodePrefix(code, "mapa") > 0, p.path == 1);
    }
  }
}

TEST(DsmPtxTest, PeerIsMappedBeforeTheTimedRegion) {
  const auto files = PtxFilesNamed("dsm");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const auto code = EntryCode(f, ChaseEntry(1));
    const std::vector<size_t> maps = IndicesWith(code, "mapa.u64");
    const std::vector<size_t> clocks = IndicesWith(code, "%clock64");
    ASSERT_GE(clocks.size(), 2u);
    // One mapa rebases the block's own chain, one maps each peer.
    ASSERT_GE(maps.size(), 2u);
    for (size_t m : maps) EXPECT_LT(m, clocks.front()) << code[m].text;
    // The clusters' barriers surround the chase.
    EXPECT_GE(IndicesWith(code, "barrier.cluster.arrive").size(), 2u);
    EXPECT_GE(IndicesWith(code, "barrier.cluster.wait").size(), 2u);
  }
}

TEST(DsmPtxTest, StreamsUseSixteenByteLoads) {
  const auto files = PtxFilesNamed("dsm");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    EXPECT_GE(
        CountOpcodePrefix(EntryCode(f, "9DsmStreamILNS_7DsmPathE1EE"), "ld.shared::cluster.v4.u32"),
        1);
    EXPECT_GE(
        CountOpcodePrefix(EntryCode(f, "9DsmStreamILNS_7DsmPathE0EE"), "ld.volatile.shared.v4.u32"),
        1);
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
