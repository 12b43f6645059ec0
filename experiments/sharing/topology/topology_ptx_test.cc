// Compiled-code test of the topology probe (kernels/topology/topology.cu):
// its PTX reads %smid, %clusterid.x and %cluster_ctarank, stores all three,
// and spins on %clock64 after the stores. Arguments: the PTX files.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

TEST(TopologyPtxTest, ReadsSmClusterAndRankThenSpins) {
  const std::vector<std::string> files = PtxFilesNamed("topology");
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const std::vector<PtxInstruction> code = EntryCode(file, "13TopologyProbe");
    ASSERT_FALSE(code.empty());
    const int smid = FirstMention(code, "%smid");
    const int cluster = FirstMention(code, "%clusterid.x");
    const int rank = FirstMention(code, "%cluster_ctarank");
    const int clock = FirstMention(code, "%clock64");
    EXPECT_GE(smid, 0) << "no read of %smid";
    EXPECT_GE(cluster, 0) << "no read of %clusterid.x";
    EXPECT_GE(rank, 0) << "no read of %cluster_ctarank";
    ASSERT_GE(clock, 0) << "no read of %clock64 (the spin)";
    int stores_before_clock = 0;
    for (int i = 0; i < clock; ++i) {
      if (absl::StartsWith(code[i].opcode, "st.global")) ++stores_before_clock;
    }
    EXPECT_EQ(stores_before_clock, 3) << "the three ids are stored before the spin starts";
    int clock_reads = 0;
    for (const PtxInstruction& in : code) {
      if (in.text.find("%clock64") != std::string::npos) ++clock_reads;
    }
    EXPECT_GE(clock_reads, 2) << "two %clock64 reads: the start and the loop's";
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
