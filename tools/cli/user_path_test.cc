#include "tools/cli/user_path.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Each test starts in a fresh folder with neither variable set and leaves the
// working directory as it found it.
class UserPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    original_ = fs::current_path();
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = fs::path(tmp != nullptr ? tmp : "/tmp") / ::testing::UnitTest::GetInstance()
                                                          ->current_test_info()
                                                          ->name();
    fs::create_directories(root_ / "caller");
    fs::create_directories(root_ / "bazel");
    fs::create_directories(root_ / "start");
    fs::current_path(root_ / "start");
    unsetenv("DISSECT_CALLER_DIR");
    unsetenv("BUILD_WORKING_DIRECTORY");
  }
  void TearDown() override {
    fs::current_path(original_);
    unsetenv("DISSECT_CALLER_DIR");
    unsetenv("BUILD_WORKING_DIRECTORY");
  }
  std::string Dir(const char* name) const { return (root_ / name).string(); }

  fs::path original_;
  fs::path root_;
};

TEST_F(UserPathTest, CallerDirectoryPrefersBazelwOverBazelOverWorkingDirectory) {
  EXPECT_EQ(CallerDirectory(), Dir("start"));
  setenv("BUILD_WORKING_DIRECTORY", Dir("bazel").c_str(), 1);
  EXPECT_EQ(CallerDirectory(), Dir("bazel"));
  setenv("DISSECT_CALLER_DIR", Dir("caller").c_str(), 1);
  EXPECT_EQ(CallerDirectory(), Dir("caller"));
}

TEST_F(UserPathTest, EmptyVariablesCountAsUnset) {
  setenv("DISSECT_CALLER_DIR", "", 1);
  setenv("BUILD_WORKING_DIRECTORY", Dir("bazel").c_str(), 1);
  EXPECT_EQ(CallerDirectory(), Dir("bazel"));
  setenv("BUILD_WORKING_DIRECTORY", "", 1);
  EXPECT_EQ(CallerDirectory(), Dir("start"));
}

TEST_F(UserPathTest, AbsolutePathStays) {
  setenv("DISSECT_CALLER_DIR", Dir("caller").c_str(), 1);
  EXPECT_EQ(UserPath("/data/r/x.json"), "/data/r/x.json");
  EXPECT_EQ(UserPath("/data/./r/../x.json"), "/data/x.json");
}

TEST_F(UserPathTest, RelativePathJoinsTheCallersFolder) {
  EXPECT_EQ(UserPath("rel/x.json"), Dir("start") + "/rel/x.json");
  setenv("BUILD_WORKING_DIRECTORY", Dir("bazel").c_str(), 1);
  EXPECT_EQ(UserPath("rel/x.json"), Dir("bazel") + "/rel/x.json");
  setenv("DISSECT_CALLER_DIR", Dir("caller").c_str(), 1);
  EXPECT_EQ(UserPath("rel/x.json"), Dir("caller") + "/rel/x.json");
  EXPECT_EQ(UserPath("./a/../results"), Dir("caller") + "/results");
  EXPECT_EQ(UserPath("../bazel/r"), Dir("bazel") + "/r");
}

TEST_F(UserPathTest, TildeIsAFolderName) {
  setenv("DISSECT_CALLER_DIR", Dir("caller").c_str(), 1);
  EXPECT_EQ(UserPath("~/r"), Dir("caller") + "/~/r");
}

TEST_F(UserPathTest, EmptyPathStaysEmpty) { EXPECT_EQ(UserPath(""), ""); }

TEST_F(UserPathTest, EnterCallerDirectoryEntersItAndForgetsTheVariables) {
  setenv("BUILD_WORKING_DIRECTORY", Dir("bazel").c_str(), 1);
  setenv("DISSECT_CALLER_DIR", Dir("caller").c_str(), 1);
  ASSERT_TRUE(EnterCallerDirectory().ok());
  EXPECT_EQ(fs::current_path(), root_ / "caller");
  EXPECT_EQ(std::getenv("DISSECT_CALLER_DIR"), nullptr);
  EXPECT_EQ(std::getenv("BUILD_WORKING_DIRECTORY"), nullptr);
  // The same answer afterwards, now from the working directory.
  EXPECT_EQ(UserPath("rel"), Dir("caller") + "/rel");
}

TEST_F(UserPathTest, EnterCallerDirectoryWithoutVariablesStays) {
  ASSERT_TRUE(EnterCallerDirectory().ok());
  EXPECT_EQ(fs::current_path(), root_ / "start");
}

TEST_F(UserPathTest, EnterCallerDirectoryNamesAFolderItCannotEnter) {
  setenv("DISSECT_CALLER_DIR", Dir("gone").c_str(), 1);
  const absl::Status entered = EnterCallerDirectory();
  EXPECT_FALSE(entered.ok());
  EXPECT_THAT(std::string(entered.message()),
              HasSubstr("DISSECT_CALLER_DIR=" + Dir("gone") + "): No such file or directory"));
  EXPECT_EQ(fs::current_path(), root_ / "start");
}

}  // namespace
}  // namespace dissect::cli
