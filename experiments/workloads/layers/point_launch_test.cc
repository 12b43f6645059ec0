// The timed callback of a point does the launch and nothing else: the
// carveout and occupancy query (VariantKernels::prepare), the grid size and
// the L2 window all happen once, in Prepare, before timing. Fake kernels
// record every call, so this runs without a GPU.
#include "experiments/workloads/layers/point_launch.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace dissect::l1_bypass {
namespace {

using layers::LayerArgs;
using layers::LayerKernel;

std::vector<std::string>& Calls() {
  static std::vector<std::string> calls;
  return calls;
}
int g_max_blocks = 8;
cudaError_t g_prepare_error = cudaSuccess;

cudaError_t FakeLaunch(const LayerArgs& args, cudaStream_t) {
  Calls().push_back("launch " + std::to_string(args.blocks));
  return cudaSuccess;
}

cudaError_t FakePrepare(LayerKernel, int* max_blocks_per_sm) {
  Calls().push_back("prepare");
  *max_blocks_per_sm = g_max_blocks;
  return g_prepare_error;
}

constexpr layers::VariantKernels kFake = {FakeLaunch, FakePrepare};

class PointLaunchTest : public testing::Test {
 protected:
  void SetUp() override {
    Calls().clear();
    g_max_blocks = 8;
    g_prepare_error = cudaSuccess;
  }
};

PreparedLaunch::SettingFn FakeWindow() {
  return []() -> absl::StatusOr<std::unique_ptr<L2AccessWindow>> {
    Calls().push_back("window");
    return nullptr;
  };
}

TEST_F(PointLaunchTest, HostWorkHappensOnceBeforeTheLaunches) {
  auto launch = PreparedLaunch::Prepare(kFake, LayerArgs{}, 25, 132, FakeWindow());
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(Calls(), (std::vector<std::string>{"prepare", "window"}));
  Calls().clear();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(launch->Launch(nullptr), cudaSuccess);
  // 25 % of 8 resident blocks = 2 per SM, times 132 SMs: nothing but launches.
  EXPECT_EQ(Calls(), std::vector<std::string>(5, "launch 264"));
  EXPECT_EQ(launch->blocks_per_sm(), 2);
}

TEST_F(PointLaunchTest, AtLeastOneBlockPerSmAndNoSettingWhenNoneIsGiven) {
  g_max_blocks = 1;
  auto launch = PreparedLaunch::Prepare(kFake, LayerArgs{}, 1, 100);
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(launch->args().blocks, 100);
  EXPECT_EQ(Calls(), (std::vector<std::string>{"prepare"}));
}

TEST_F(PointLaunchTest, FailuresOfTheHostWorkAreErrors) {
  g_prepare_error = cudaErrorInvalidValue;
  EXPECT_FALSE(PreparedLaunch::Prepare(kFake, LayerArgs{}, 100, 1).ok());
  g_prepare_error = cudaSuccess;
  g_max_blocks = 0;
  EXPECT_FALSE(PreparedLaunch::Prepare(kFake, LayerArgs{}, 100, 1).ok());
  g_max_blocks = 8;
  const auto skipped = PreparedLaunch::Prepare(
      kFake, LayerArgs{}, 100, 1, []() -> absl::StatusOr<std::unique_ptr<L2AccessWindow>> {
        return absl::UnavailableError("no window");
      });
  EXPECT_EQ(skipped.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace dissect::l1_bypass
