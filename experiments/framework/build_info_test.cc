// The build must stamp the git commit and build flags into the binary.
#include "experiments/framework/build_info.h"

#include <string>

#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(BuildInfoTest, CommitIsAFullGitHash) {
  const std::string commit = GetBuildInfo().git_commit;
  ASSERT_EQ(commit.size(), 40u) << commit;
  EXPECT_EQ(commit.find_first_not_of("0123456789abcdef"), std::string::npos) << commit;
  const std::string dirty = GetBuildInfo().git_dirty;
  EXPECT_TRUE(dirty == "true" || dirty == "false") << dirty;
}

TEST(BuildInfoTest, RecordsBuildFlags) {
  EXPECT_NE(std::string(GetBuildInfo().cuda_archs).find("sm_"), std::string::npos);
  EXPECT_FALSE(std::string(GetBuildInfo().mode).empty());
  EXPECT_FALSE(std::string(GetBuildInfo().nvcc_version).empty());
}

}  // namespace
}  // namespace dissect
