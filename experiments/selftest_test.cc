// The selftest binary (no GPU) through the real harness, as the sweep runner
// starts it: a full run writes its 12 rows; a crash or a hang keeps the
// points measured before it; --resume measures only what is missing and
// keeps the rows it found byte for byte; a throttled point is measured once
// more; bad input exits 2 with one line on stderr and leaves files alone.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "experiments/result_format/reader.h"
#include "tools/testing/test_util.h"
#include "experiments/result_format/writer.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

using test_util::ReadText;
using test_util::Runfile;

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

struct Outcome {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string err;  // stderr
};

// Runs `args` (args[0] looked up in PATH unless it holds a '/'), stdout to
// /dev/null, and waits for it.
Outcome RunCommand(const std::vector<std::string>& args) {
  const std::string err_path = TempPath("stderr.txt");
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open("/dev/null", O_WRONLY);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(127);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  Outcome outcome;
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.err = test_util::ReadText(err_path);
  return outcome;
}

// The selftest binary with `flags`, fast: 2 samples of 1 ms a point.
std::vector<std::string> Selftest(std::vector<std::string> flags) {
  std::vector<std::string> args = {test_util::Runfile("experiments/selftest"), "--samples=2", "--warmup=0",
                                   "--selftest_ms=2"};
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

result_format::ResultFile ReadResult(const std::string& path) {
  absl::StatusOr<result_format::ResultFile> file = result_format::ReadResultFile(path);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *file : result_format::ResultFile();
}

std::vector<std::string> PointNames(const result_format::ResultFile& file) {
  std::vector<std::string> names;
  for (const result_format::Row& row : file.rows) names.push_back(result_format::RowPointName(row.name));
  return names;
}

std::vector<std::string> PointRange(int from, int to) {
  std::vector<std::string> names;
  for (int i = from; i <= to; ++i) names.push_back(absl::StrCat("selftest/point:", i));
  return names;
}

int StderrLines(const std::string& err) {
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(err, '\n', absl::SkipEmpty())) {
    (void)line;
    ++lines;
  }
  return lines;
}

TEST(SelftestTest, FullRunWritesTwelveRowsWithoutAGpu) {
  const std::string out = TempPath("full.json");
  const Outcome run = RunCommand(Selftest({"--benchmark_out=" + out}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const result_format::ResultFile file = ReadResult(out);
  EXPECT_EQ(PointNames(file), PointRange(1, 12));
  EXPECT_EQ(file.experiment, "selftest");
  EXPECT_EQ(file.ContextOr("device_name", ""), "cpu (selftest, no GPU)");
  EXPECT_EQ(file.ContextOr("clocks_source", ""), "unavailable: no GPU");
  EXPECT_EQ(file.MetricUnit("value_ms"), "ms");
  for (const result_format::Row& row : file.rows) {
    EXPECT_FALSE(row.error) << row.name << ": " << row.error_message;
    EXPECT_GE(row.Counter("value_ms").value_or(0), 2.0) << row.name;
    EXPECT_EQ(row.Counter("samples"), 2.0) << row.name;
  }
  EXPECT_NE(run.err.find("wrote 12 row(s)"), std::string::npos) << run.err;
}

// `BINARY --smoke`: the check a bundle runs instead of <experiment>_gpu_test
// (tools/bundle.sh): every point ran and every --expect holds, else exit 1.
TEST(SelftestTest, SmokeModeChecksExpectations) {
  std::vector<std::string> args = {test_util::Runfile("experiments/selftest"), "--smoke", "--samples=2",
                                   "--warmup=0", "--selftest_ms=2"};
  std::vector<std::string> pass = args;
  pass.push_back("--expect=value_ms:1:10000");
  const Outcome ok = RunCommand(pass);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.err.find("ok:   selftest/point:1"), std::string::npos) << ok.err;
  std::vector<std::string> fail = args;
  fail.push_back("--expect=value_ms:0:0.5");
  const Outcome bad = RunCommand(fail);
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_NE(bad.err.find("FAIL: selftest/point:1"), std::string::npos) << bad.err;
}

TEST(SelftestTest, CrashKeepsEarlierPointsAndResumeMeasuresOnlyTheRest) {
  const std::string out = TempPath("crash.json");
  const Outcome crash = RunCommand(Selftest({"--benchmark_out=" + out, "--selftest_crash_at=5"}));
  EXPECT_EQ(crash.signal, SIGABRT) << "exit " << crash.exit_code << ": " << crash.err;
  const result_format::ResultFile crashed = ReadResult(out);
  EXPECT_EQ(PointNames(crashed), PointRange(1, 4));
  absl::StatusOr<result_format::ResumedRows> before = result_format::ReadResumedRows(out, "selftest");
  ASSERT_TRUE(before.ok()) << before.status();

  const Outcome resume = RunCommand(Selftest({"--benchmark_out=" + out, "--resume"}));
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  EXPECT_NE(resume.err.find("resume: kept 4 row(s), measuring 8 point(s)"), std::string::npos)
      << resume.err;
  EXPECT_NE(resume.err.find("[1/8] selftest/point:5\n"), std::string::npos) << resume.err;
  const result_format::ResultFile resumed = ReadResult(out);
  const std::vector<std::string> names = PointNames(resumed);
  EXPECT_EQ(names, PointRange(1, 12));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 12u);
  EXPECT_EQ(resumed.ContextOr("resumed_rows", ""), "4");
  absl::StatusOr<result_format::ResumedRows> after = result_format::ReadResumedRows(out, "selftest");
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->rows.size(), 12u);
  for (size_t i = 0; i < before->rows.size(); ++i) {
    EXPECT_EQ(after->rows[i], before->rows[i]) << "kept row " << i << " changed";
  }

  // Nothing left: the file stays as it is.
  const std::string complete = test_util::ReadText(out);
  const Outcome again = RunCommand(Selftest({"--benchmark_out=" + out, "--resume"}));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("resume: kept 12 row(s), measuring 0 point(s)"), std::string::npos)
      << again.err;
  EXPECT_EQ(test_util::ReadText(out), complete);
}

TEST(SelftestTest, HangKeepsEarlierPoints) {
  const std::string out = TempPath("hang.json");
  std::vector<std::string> args = {"timeout", "5"};
  for (const std::string& a : Selftest({"--benchmark_out=" + out, "--selftest_hang_at=4"})) {
    args.push_back(a);
  }
  const Outcome hang = RunCommand(args);
  EXPECT_EQ(hang.exit_code, 124) << "timeout(1) did not have to stop it: " << hang.err;
  EXPECT_NE(hang.err.find("hanging at point 4"), std::string::npos) << hang.err;
  EXPECT_EQ(PointNames(ReadResult(out)), PointRange(1, 3));
}

TEST(SelftestTest, ThrottledPointIsMeasuredTwice) {
  const std::string out = TempPath("throttle.json");
  const Outcome run = RunCommand(
      Selftest({"--benchmark_out=" + out, "--selftest_throttle_at=3", "--cooldown_s=0"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const result_format::ResultFile file = ReadResult(out);
  std::vector<std::string> want = PointRange(1, 12);
  want.insert(want.begin() + 3, "selftest/point:3");
  ASSERT_EQ(PointNames(file), want);
  const result_format::Row& first = file.rows[2];
  const result_format::Row& second = file.rows[3];
  EXPECT_EQ(first.Counter("throttled"), 1.0);
  EXPECT_EQ(first.Counter("attempt"), std::nullopt);
  EXPECT_EQ(first.label, "selftest: simulated throttle");
  EXPECT_EQ(second.Counter("attempt"), 2.0);
  EXPECT_NE(second.Counter("throttled"), 1.0);
  EXPECT_EQ(second.label, "re-measured after throttling (cool-down 0 s)");
  EXPECT_NE(run.err.find("wrote 13 row(s)"), std::string::npos) << run.err;
}

TEST(SelftestTest, ResumeRefusesACorruptOrForeignFileAndLeavesItUntouched) {
  const std::string corrupt = TempPath("corrupt.json");
  const std::string text = "{\"context\": {\"dissect_experiment\": \"selftest\"},\n";
  std::ofstream(corrupt, std::ios::binary) << text;
  Outcome run = RunCommand(Selftest({"--benchmark_out=" + corrupt, "--resume"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(StderrLines(run.err), 1) << run.err;
  EXPECT_NE(run.err.find("--resume: " + corrupt), std::string::npos) << run.err;
  EXPECT_EQ(test_util::ReadText(corrupt), text);

  const std::string foreign = TempPath("foreign.json");
  const std::string golden =
      "{\"context\": {\"dissect_schema_version\": \"1\", \"dissect_experiment\": "
      "\"synthetic\", \"dissect_axes\": \"\", \"dissect_metrics\": \"\"}, \"benchmarks\": []}\n";
  std::ofstream(foreign, std::ios::binary) << golden;
  run = RunCommand(Selftest({"--benchmark_out=" + foreign, "--resume"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(StderrLines(run.err), 1) << run.err;
  EXPECT_NE(run.err.find("it holds experiment 'synthetic'"), std::string::npos) << run.err;
  EXPECT_EQ(test_util::ReadText(foreign), golden);

  // Without --resume the file is overwritten, as before.
  run = RunCommand(Selftest({"--benchmark_out=" + corrupt, "--axis=point=1"}));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(PointNames(ReadResult(corrupt)), PointRange(1, 1));
}

TEST(SelftestTest, ListNeedsNothing) {
  const std::string listed = TempPath("list.txt");
  Outcome run = RunCommand(Selftest({"--list"}));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  run = RunCommand(
      {"sh", "-c",
       absl::StrCat(test_util::Runfile("experiments/selftest"), " --list --axis=point=2,7 > ", listed)});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(test_util::ReadText(listed), "selftest/point:2\nselftest/point:7\n");
}

TEST(SelftestTest, BadInputExitsTwoWithOneLine) {
  const std::string out = TempPath("bad.json");
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{
           {"--list", "--axis=bogus=1"},
           {"--list", "--axis=point=x"},
           {"--selftest_ms=-1"},
           {"--selftest_crash_at=-2"},
           {"--metrics=dram_bytes_read"},
           {"--kernel_activity"},
           {"--resume"},
           {"--cooldown_s=-1"},
           {"--selftest_bogus=1"},
       }) {
    std::vector<std::string> args = Selftest(flags);
    const Outcome run = RunCommand(args);
    EXPECT_EQ(run.exit_code, 2) << flags[0] << ": " << run.err;
    EXPECT_EQ(StderrLines(run.err), 1) << flags[0] << ": " << run.err;
  }
  // The fault injection flags are selftest's own.
  const Outcome other =
      RunCommand({test_util::Runfile("experiments/shared_latency"), "--selftest_crash_at=1"});
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("unknown flag '--selftest_crash_at=1'"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace dissect
