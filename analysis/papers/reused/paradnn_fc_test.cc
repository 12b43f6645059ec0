// ParaDnn's gpu_fc.json reader: the synthetic fixture, malformed files, and
// the authors' real file (../shared/data/papers/paradnn) where it is present.
#include "analysis/papers/reused/paradnn_fc.h"

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "analysis/importers/peers_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/testing/test_util.h"

namespace dissect::analysis::papers::reused {
namespace {

using ::testing::HasSubstr;

TEST(ParaDnnFcTest, ParsesTheSyntheticFixtureAndMarksCappedCells) {
  absl::StatusOr<std::vector<ParaDnnFcCell>> cells = ReadParaDnnFc(
      test_util::Runfile("analysis/papers/reused/testdata/synthetic_paradnn_gpu_fc.json"));
  ASSERT_TRUE(cells.ok()) << cells.status();
  ASSERT_EQ(cells->size(), 7u);
  EXPECT_EQ((*cells)[1].layers, 4);
  EXPECT_EQ((*cells)[1].width, 32);
  EXPECT_EQ((*cells)[1].batch, 16384);
  EXPECT_DOUBLE_EQ((*cells)[1].gflops, 300);
  // 85 % of the largest examples/s (30,000) is 25,500.
  std::set<std::pair<int64_t, int64_t>> bound;  // (layers, batch x width)
  for (const ParaDnnFcCell &c : *cells) {
    if (c.framework_bound) bound.insert({c.layers, c.batch * c.width});
  }
  EXPECT_EQ(bound, (std::set<std::pair<int64_t, int64_t>>{
                       {4, 16384 * 32}, {4, 16384 * 1024}, {8, 16384 * 32}}));
  const std::string md = ParaDnnFcMarkdown(*cells);
  EXPECT_THAT(md, HasSubstr("#### 8 hidden layers"));
  EXPECT_THAT(md, HasSubstr("**300 (30000)**"));
}

TEST(ParaDnnFcTest, BadFilesGetAClearError) {
  const std::map<std::string, std::string> bad = {
      {"{", "not a JSON object"},
      {R"({"labels": []})", "needs the lists"},
      {R"({"labels": ["layer_4-node_32-input_2000-output_1000-bs_64"], "flops": [], "example_per_sec": [1]})",
       "one entry per label"},
      {R"({"labels": ["node_32-bs_64"], "flops": [1], "example_per_sec": [1]})", "labels[0]"},
      {R"({"labels": ["layer_4-node_32-input_2000-output_1000-bs_64"], "flops": ["x"], "example_per_sec": [1]})",
       "must be numbers"},
      {R"({"labels": [], "flops": [], "example_per_sec": []})", "no finished models"},
  };
  for (const auto &[text, why] : bad) {
    absl::StatusOr<std::vector<ParaDnnFcCell>> cells = ParseParaDnnFc(text, "f.json");
    ASSERT_FALSE(cells.ok()) << text;
    EXPECT_EQ(cells.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(cells.status().message(), HasSubstr("f.json: "));
    EXPECT_THAT(cells.status().message(), HasSubstr(why));
  }
  EXPECT_TRUE(absl::IsNotFound(ReadParaDnnFc("/nonexistent/gpu_fc.json").status()));
}

// The authors' real file: the paper's grid is covered and the small-width,
// large-batch cells are marked framework-bound. Skipped, visibly, without it.
TEST(ParaDnnFcTest, RealFileCoversThePapersGridAndMarksTheCap) {
  const std::string path = (std::filesystem::path(testing::FindPeersDir()).parent_path() /
                            "papers" / "paradnn" / "gpu_fc.json")
                               .string();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "skipped: file absent: " << path;
  absl::StatusOr<std::vector<ParaDnnFcCell>> cells = ReadParaDnnFc(path);
  ASSERT_TRUE(cells.ok()) << cells.status();
  EXPECT_EQ(cells->size(), 176u);
  std::set<int64_t> layers, widths, batches;
  std::map<std::tuple<int64_t, int64_t, int64_t>, bool> bound;
  for (const ParaDnnFcCell &c : *cells) {
    layers.insert(c.layers);
    widths.insert(c.width);
    batches.insert(c.batch);
    bound[{c.layers, c.width, c.batch}] = c.framework_bound;
  }
  EXPECT_EQ(layers, (std::set<int64_t>{4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(widths, (std::set<int64_t>{32, 128, 512, 2048, 8192}));
  EXPECT_EQ(batches, (std::set<int64_t>{64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}));
  EXPECT_TRUE(bound.at({4, 512, 8192}));   // 32,312 examples/s
  EXPECT_TRUE(bound.at({4, 2048, 1024}));  // 32,093 examples/s
  EXPECT_FALSE(bound.at({64, 512, 64}));   // 5,745 examples/s
  EXPECT_FALSE(bound.at({4, 8192, 256}));  // 11,783 examples/s
  int marked = 0;
  for (const auto &[cell, is_bound] : bound) marked += is_bound ? 1 : 0;
  EXPECT_EQ(marked, 86);
}

}  // namespace
}  // namespace dissect::analysis::papers::reused
