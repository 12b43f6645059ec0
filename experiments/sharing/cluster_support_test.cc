// The one-block-per-SM arithmetic of cluster_support.h against the
// occupancy calculator's shared-memory rule, on real devices' limits.
#include "experiments/sharing/cluster_support.h"

#include <cstdint>
#include <string>

#include "experiments/sharing/shared_memory_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(ClusterSupportTest, OccupancyArithmeticOfSharedMemory) {
  // dsm_bandwidth's old default, its 32 KiB buffer as the whole dynamic
  // shared memory, lets six blocks share an H100 SM.
  EXPECT_EQ(BlocksPerSmByShared(H100SharedMemory(), 32 << 10), 6);
  EXPECT_EQ(BlocksPerSmByShared(H100SharedMemory(), 232448), 1);
  EXPECT_EQ(BlocksPerSmByShared(H100SharedMemory(), (233472 / 2) - 1024), 2);
  EXPECT_EQ(BlocksPerSmByShared(H100SharedMemory(), 232449), 0);  // over the opt-in
  SmSharedMemory with_static = H100SharedMemory();
  with_static.kernel_static = 16;
  EXPECT_EQ(BlocksPerSmByShared(with_static, 232448), 0);
}

TEST(ClusterSupportTest, RefusesWhatCannotKeepBlocksApart) {
  // The buffer alone is over the opt-in.
  EXPECT_EQ(OneBlockPerSmSharedBytes(H100SharedMemory(), 232448 + 8192).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // A device whose blocks may take less than half an SM's shared memory.
  const SmSharedMemory small_optin{102400, 49152, 1024, 0};
  const absl::StatusOr<int64_t> shared = OneBlockPerSmSharedBytes(small_optin, 8192);
  EXPECT_EQ(shared.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(shared.status().message()), ::testing::HasSubstr("2 blocks"));
}

}  // namespace
}  // namespace dissect
