// Tests for axis parsing, overrides and the point space.
#include "experiments/framework/axes.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

std::vector<int64_t> Parse(const char* text) {
  auto v = ParseIntValues(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.ok() ? *v : std::vector<int64_t>{};
}

TEST(ParseIntValuesTest, ListsAndBinarySuffixes) {
  EXPECT_EQ(Parse("4096"), (std::vector<int64_t>{4096}));
  EXPECT_EQ(Parse("1KiB, 4K,1MiB,2G"),
            (std::vector<int64_t>{1024, 4096, 1 << 20, int64_t{2} << 30}));
  EXPECT_EQ(Parse("-4"), (std::vector<int64_t>{-4}));
}

TEST(ParseIntValuesTest, Ranges) {
  EXPECT_EQ(Parse("1KiB:8KiB:*2"), (std::vector<int64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(Parse("0:256:+64"), (std::vector<int64_t>{0, 64, 128, 192, 256}));
  EXPECT_EQ(Parse("3:10:*3"), (std::vector<int64_t>{3, 9}));
  EXPECT_EQ(Parse("4,16:64:*4"), (std::vector<int64_t>{4, 16, 64}));
}

TEST(ParseIntValuesTest, Errors) {
  for (const char* bad : {"", "abc", "4KB", "1:2", "8:1:*2", "0:8:*2", "1:8:*1",
                          "1:8:+0", "1:8:2", "99999999999G", "1:1G:+1"}) {
    EXPECT_FALSE(ParseIntValues(bad).ok()) << bad;
  }
}

std::vector<AxisSpec> TwoAxes() {
  return {IntAxis("stride_bytes", "B", {4, 64}),
          StringAxis("timing", {"hot", "cold"})};
}

TEST(ApplyAxisOverrideTest, ReplacesValues) {
  auto axes = TwoAxes();
  ASSERT_TRUE(ApplyAxisOverride(axes, "stride_bytes=128,256").ok());
  EXPECT_EQ(axes[0].int_values, (std::vector<int64_t>{128, 256}));
  ASSERT_TRUE(ApplyAxisOverride(axes, "timing=cold").ok());
  EXPECT_EQ(axes[1].string_values, (std::vector<std::string>{"cold"}));
}

TEST(ApplyAxisOverrideTest, UnknownAxisListsTheKnownOnes) {
  auto axes = TwoAxes();
  absl::Status s = ApplyAxisOverride(axes, "strde=4");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "unknown axis 'strde'"));
  EXPECT_TRUE(absl::StrContains(s.message(), "stride_bytes, timing"));
}

TEST(ApplyAxisOverrideTest, RejectsBadValuesAndSyntax) {
  auto axes = TwoAxes();
  EXPECT_FALSE(ApplyAxisOverride(axes, "timing=warm").ok());
  EXPECT_FALSE(ApplyAxisOverride(axes, "stride_bytes=x").ok());
  EXPECT_FALSE(ApplyAxisOverride(axes, "stride_bytes").ok());
  EXPECT_EQ(axes[0].int_values, (std::vector<int64_t>{4, 64}));
}

TEST(AxisSpecTest, Validation) {
  EXPECT_TRUE(ValidateAxisSpec(IntAxis("bytes", "B", {1})).ok());
  EXPECT_FALSE(ValidateAxisSpec(IntAxis("by tes", "B", {1})).ok());
  EXPECT_FALSE(ValidateAxisSpec(IntAxis("bytes", "", {1})).ok());
  EXPECT_FALSE(ValidateAxisSpec(IntAxis("bytes", "B", {})).ok());
  EXPECT_FALSE(ValidateAxisSpec(StringAxis("mode", {"a/b"})).ok());
}

TEST(CartesianProductTest, FirstAxisOutermostAndNamed) {
  auto points = CartesianProduct(TwoAxes());
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].Name("exp"), "exp/stride_bytes:4/timing:hot");
  EXPECT_EQ(points[1].Name("exp"), "exp/stride_bytes:4/timing:cold");
  EXPECT_EQ(points[3].Name("exp"), "exp/stride_bytes:64/timing:cold");
  EXPECT_EQ(points[2].Int("stride_bytes"), 64);
  EXPECT_EQ(points[2].Str("timing"), "hot");
}

}  // namespace
}  // namespace dissect
