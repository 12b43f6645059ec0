#include "tools/cli/flags.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gflags/gflags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

DEFINE_string(out, "", "the folder to write to");
DEFINE_string(tag, "", "a label; may be empty");
DEFINE_int32(nights, 7, "how many nights to look back");
DEFINE_double(budget_s, 0, "seconds to spend");
DEFINE_bool(detail, false, "print everything");

namespace dissect::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Program TestProgram() {
  Program program;
  program.name = "tool";
  program.args = "IN...";
  program.about = "Reads IN and writes it to --out.\n";
  program.flags = {{"out", "DIR"}, {"tag", "TEXT", true}, {"nights", "N"}, {"budget_s", "S"},
                   {"detail"}};
  program.more = "Exit status 2 on bad usage.\n";
  program.min_args = 1;
  program.bad_usage_exit = 3;
  return program;
}

// Each test parses into fresh flags: gflags are global.
class FlagsTest : public ::testing::Test {
 protected:
  // Parses `words` (argv without the program name); stdout and stderr land
  // in out_ and err_.
  CommandLine Parse(std::vector<std::string> words, const Program& program = TestProgram()) {
    words.insert(words.begin(), "tool");
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    CommandLine line = ParseCommandLine(program, static_cast<int>(argv.size()), argv.data());
    out_ = ::testing::internal::GetCapturedStdout();
    err_ = ::testing::internal::GetCapturedStderr();
    return line;
  }
  gflags::FlagSaver saver_;
  std::string out_;
  std::string err_;
};

TEST_F(FlagsTest, SetsFlagsAndKeepsPositionalArgumentsInOrder) {
  const CommandLine line =
      Parse({"a", "--out=/tmp/x", "--nights", "3", "-", "--detail", "--budget_s=2.5", "b"});
  EXPECT_FALSE(line.exit_status.has_value()) << err_;
  EXPECT_THAT(line.args, ElementsAre("a", "-", "b"));
  EXPECT_EQ(FLAGS_out, "/tmp/x");
  EXPECT_EQ(FLAGS_nights, 3);
  EXPECT_TRUE(FLAGS_detail);
  EXPECT_DOUBLE_EQ(FLAGS_budget_s, 2.5);
  EXPECT_TRUE(Given("out"));
  EXPECT_FALSE(Given("tag"));
}

TEST_F(FlagsTest, DoubleDashEndsTheFlags) {
  const CommandLine line = Parse({"--detail", "--", "--out=x", "-h"});
  EXPECT_FALSE(line.exit_status.has_value()) << err_;
  EXPECT_THAT(line.args, ElementsAre("--out=x", "-h"));
  EXPECT_EQ(FLAGS_out, "");
}

TEST_F(FlagsTest, NoSwitchTurnsABooleanOff) {
  FLAGS_detail = true;
  const CommandLine line = Parse({"--nodetail", "a"});
  EXPECT_FALSE(line.exit_status.has_value()) << err_;
  EXPECT_FALSE(FLAGS_detail);
}

TEST_F(FlagsTest, UnknownFlagIsOneLineWithTheBadUsageStatus) {
  const CommandLine line = Parse({"a", "--colour"});
  EXPECT_EQ(line.exit_status, 3);
  EXPECT_EQ(err_, "tool: unknown flag '--colour' (see --help)\n");
  EXPECT_EQ(Parse({"--k=3", "a"}).exit_status, 3);
  EXPECT_EQ(err_, "tool: unknown flag '--k=3' (see --help)\n");
  EXPECT_EQ(Parse({"-x", "a"}).exit_status, 3);
  EXPECT_EQ(err_, "tool: unknown flag '-x' (see --help)\n");
}

TEST_F(FlagsTest, GflagsBuiltInFlagsAreNotTheToolsFlags) {
  EXPECT_EQ(Parse({"--flagfile=/etc/passwd", "a"}).exit_status, 3);
  EXPECT_THAT(err_, HasSubstr("unknown flag '--flagfile=/etc/passwd'"));
  EXPECT_EQ(Parse({"--nonights", "a"}).exit_status, 3);
}

TEST_F(FlagsTest, BadValueNamesTheFlagAndTheValue) {
  EXPECT_EQ(Parse({"--nights=7x", "a"}).exit_status, 3);
  EXPECT_EQ(err_, "tool: --nights='7x' is not a whole number (see --help)\n");
  EXPECT_EQ(Parse({"--budget_s=soon", "a"}).exit_status, 3);
  EXPECT_EQ(err_, "tool: --budget_s='soon' is not a number (see --help)\n");
  EXPECT_EQ(Parse({"--detail=maybe", "a"}).exit_status, 3);
  EXPECT_THAT(err_, HasSubstr("--detail='maybe' is not true or false"));
}

TEST_F(FlagsTest, MissingValueNamesTheFlag) {
  EXPECT_EQ(Parse({"a", "--out="}).exit_status, 3);
  EXPECT_EQ(err_, "tool: --out needs DIR (see --help)\n");
  EXPECT_EQ(Parse({"a", "--out"}).exit_status, 3);
  EXPECT_EQ(err_, "tool: --out needs DIR (see --help)\n");
  const CommandLine empty_tag = Parse({"a", "--tag="});
  EXPECT_FALSE(empty_tag.exit_status.has_value()) << err_;
  EXPECT_TRUE(Given("tag"));
}

TEST_F(FlagsTest, PositionalArgumentCountIsChecked) {
  EXPECT_EQ(Parse({"--detail"}).exit_status, 3);
  EXPECT_EQ(err_, "tool: needs IN..., got 0 argument(s) (see --help)\n");
  Program none = TestProgram();
  none.min_args = 0;
  none.max_args = 0;
  EXPECT_EQ(Parse({"stray"}, none).exit_status, 3);
  EXPECT_EQ(err_, "tool: takes no arguments, got 'stray' (see --help)\n");
}

TEST_F(FlagsTest, HelpGoesToStdoutWithStatusZero) {
  const CommandLine line = Parse({"--help"});
  EXPECT_EQ(line.exit_status, 0);
  EXPECT_THAT(err_, IsEmpty());
  EXPECT_EQ(out_, Help(TestProgram()));
  EXPECT_EQ(Parse({"a", "-h"}).exit_status, 0);
  EXPECT_EQ(out_, Help(TestProgram()));
}

TEST_F(FlagsTest, HelpHasUsageAboutEveryFlagWithItsDefaultAndMore) {
  EXPECT_EQ(Help(TestProgram()),
            "usage: tool [--help] [--out=DIR] [--tag=TEXT] [--nights=N] [--budget_s=S]\n"
            "            [--detail] [--] IN...\n"
            "\n"
            "Reads IN and writes it to --out.\n"
            "\n"
            "flags:\n"
            "  --out=DIR     the folder to write to\n"
            "  --tag=TEXT    a label; may be empty\n"
            "  --nights=N    how many nights to look back (default: 7)\n"
            "  --budget_s=S  seconds to spend (default: 0)\n"
            "  --detail      print everything\n"
            "  --help        print this help and exit\n"
            "\n"
            "Exit status 2 on bad usage.\n");
}

TEST_F(FlagsTest, LongDescriptionsWrapUnderTheirColumn) {
  Program program = TestProgram();
  program.flags = {{"tag", "A_VERY_LONG_VALUE_NAME"}};
  gflags::SetCommandLineOptionWithMode("tag", "x", gflags::SET_FLAGS_DEFAULT);
  const std::string help = Help(program);
  EXPECT_THAT(help, HasSubstr("  --tag=A_VERY_LONG_VALUE_NAME\n          a label; may be empty "
                              "(default: x)\n"));
  for (absl::string_view line : absl::StrSplit(help, '\n')) EXPECT_LE(line.size(), 80u) << line;
}

}  // namespace
}  // namespace dissect::cli
