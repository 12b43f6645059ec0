// Tests of //analysis:import_lib: each peer format's parser and mapping on
// the hand-made excerpts of analysis/testdata/peers, and the real files of
// the peer data folder (skipped when it is absent).

#include <string>

#include "analysis/peers_test_util.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

TEST(PeersTestUtil, FindsThePeerDataFolder) {
  const std::string peers = testing::FindPeersDir();
  if (!testing::IsDirectory(peers)) GTEST_SKIP() << testing::PeersMissing(peers);
  EXPECT_TRUE(testing::IsDirectory(peers + "/gpu-benches")) << peers;
  EXPECT_TRUE(testing::IsDirectory(peers + "/mt4g")) << peers;
}

}  // namespace
}  // namespace dissect::analysis
