#include "experiments/workloads/forward/cudnn_api.h"

#include <unistd.h>

#include <algorithm>

#include "gtest/gtest.h"

namespace dissect::forward {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CudnnApiTest, SearchPatterns) {
  const std::vector<std::string> p = CudnnSearchPatterns("/opt/cuda", "/home/u");
  EXPECT_EQ(p.front(), "/opt/cuda/lib64");
  EXPECT_TRUE(Contains(p, "/usr/local/cuda/lib64"));
  EXPECT_TRUE(Contains(p, "/usr/local/lib/python3*/dist-packages/nvidia/cudnn/lib"));
  EXPECT_TRUE(Contains(p, "/usr/local/lib/python3*/site-packages/nvidia/cudnn/lib"));
  EXPECT_TRUE(Contains(p, "/usr/lib/python3/dist-packages/nvidia/cudnn/lib"));
  EXPECT_TRUE(Contains(p, "/home/u/.local/lib/python3*/site-packages/nvidia/cudnn/lib"));
  const std::vector<std::string> bare = CudnnSearchPatterns("", "");
  EXPECT_EQ(bare.front(), "/usr/local/cuda/lib64");
  EXPECT_EQ(bare.size(), p.size() - 2);
}

TEST(CudnnApiTest, MissErrorListsWhereItLooked) {
  const absl::StatusOr<const CudnnApi*> api =
      LoadCudnnFrom({"/nonexistent/a/libcudnn.so.9", "/nonexistent/b/libcudnn.so.9"});
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kNotFound);
  const std::string message(api.status().message());
  EXPECT_EQ(message.rfind("cuDNN not found: ", 0), 0u) << message;
  EXPECT_NE(message.find("/nonexistent/a/libcudnn.so.9, /nonexistent/b/libcudnn.so.9"),
            std::string::npos)
      << message;
}

// The toolkit here ships libcudnn.so.9: every name in the table resolves
// (no GPU is needed to dlopen it or ask its version).
TEST(CudnnApiTest, ToolkitLibraryHasEveryFunction) {
  const std::string path = "/usr/local/cuda/lib64/libcudnn.so.9";
  if (access(path.c_str(), R_OK) != 0) GTEST_SKIP() << path << " is not on this machine";
  const absl::StatusOr<const CudnnApi*> api = LoadCudnnFrom({path});
  ASSERT_TRUE(api.ok()) << api.status();
#define DISSECT_CUDNN_EXPECT_(fn) EXPECT_NE((*api)->fn, nullptr) << #fn;
  DISSECT_CUDNN_FUNCTIONS(DISSECT_CUDNN_EXPECT_)
#undef DISSECT_CUDNN_EXPECT_
  EXPECT_GE((*api)->cudnnGetVersion(), 90000u);
  EXPECT_EQ((*api)->path, path);
  const absl::Status status = CudnnStatus(**api, CUDNN_STATUS_BAD_PARAM, "cudnnFoo(x)");
  EXPECT_NE(status.message().find("cudnnFoo(x) failed: CUDNN_STATUS_BAD_PARAM"), std::string::npos)
      << status;
}

}  // namespace
}  // namespace dissect::forward
