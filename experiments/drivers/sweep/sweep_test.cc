// The sweep runner end to end on the CPU: //experiments:sweep runs the
// selftest experiment through the real harness (testdata/sweep_test.json):
// a crash mid-entry, a hang past the time limit, a SIGKILL of the runner in
// the middle of an entry and a resume with the same --out, a SIGTERM, a
// missing binary and bad usage. Nothing measured may be lost or measured
// twice, and manifest.json is valid after every step.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string Runfile(const std::string& path) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/dissect/" + path;
}

std::string TempDir(const std::string& name) {
  fs::path dir = fs::path(std::getenv("TEST_TMPDIR")) / name;
  fs::remove_all(dir);
  return dir.string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The runner, started in the background, stderr to a file.
class Runner {
 public:
  explicit Runner(std::vector<std::string> args)
      : stdout_path_(TempDir("stdout.txt")), stderr_path_(TempDir("stderr.txt")) {
    args.insert(args.begin(), Runfile("experiments/drivers/sweep/sweep"));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 1, stdout_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Runner() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait();
    }
  }

  // The exit status, or 128 + signal.
  int Wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  void Signal(int signal) const { kill(pid_, signal); }
  bool started() const { return pid_ > 0; }
  std::string Stdout() const { return ReadFile(stdout_path_); }
  std::string Stderr() const { return ReadFile(stderr_path_); }

 private:
  pid_t pid_ = -1;
  std::string stdout_path_, stderr_path_;
};

int RunToEnd(const std::vector<std::string>& args, std::string* err = nullptr,
             std::string* out = nullptr) {
  Runner runner(args);
  EXPECT_TRUE(runner.started());
  const int status = runner.Wait();
  if (err != nullptr) *err = runner.Stderr();
  if (out != nullptr) *out = runner.Stdout();
  return status;
}

Json ReadJson(const std::string& path) {
  Json j = Json::parse(ReadFile(path), nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << path << " is not valid JSON:\n" << ReadFile(path);
  return j;
}

Json Manifest(const std::string& out) {
  Json m = ReadJson(out + "/manifest.json");
  EXPECT_EQ(m.value("format", ""), "dissect.manifest.v1");
  return m;
}

Json Entry(const Json& manifest, const std::string& id) {
  for (const Json& e : manifest["entries"]) {
    if (e["id"] == id) return e;
  }
  ADD_FAILURE() << "no entry " << id << " in the manifest";
  return Json::object();
}

// The rows of a result file; none when it does not exist.
std::vector<Json> Rows(const std::string& path) {
  if (!fs::exists(path)) return {};
  Json j = ReadJson(path);
  std::vector<Json> rows;
  for (const Json& row : j["benchmarks"]) rows.push_back(row);
  return rows;
}

// "point:3" of each row, in order.
std::vector<std::string> Points(const std::vector<Json>& rows) {
  std::vector<std::string> points;
  for (const Json& row : rows) {
    const std::string name = row["name"];
    const size_t begin = name.find('/') + 1;
    points.push_back(name.substr(begin, name.find('/', begin) - begin));
  }
  return points;
}

std::vector<std::string> Range(int first, int last) {
  std::vector<std::string> points;
  for (int i = first; i <= last; ++i) points.push_back(absl::StrCat("point:", i));
  return points;
}

// No row name twice, except a throttled row measured again (attempt 2).
void ExpectNoRowTwice(const std::vector<Json>& rows, const std::string& file) {
  std::map<std::string, int> seen;
  for (const Json& row : rows) {
    const std::string name = row["name"];
    if (row.value("attempt", 1.0) == 2.0) continue;
    EXPECT_EQ(++seen[name], 1) << name << " measured twice in " << file;
  }
}

// True when no process has `needle` in its command line (waits up to 5 s
// for one that is exiting: a child killed with the runner dies at once,
// while an orphan of the slow entry would go on measuring for 9 s more).
bool NoProcessWith(const std::string& needle) {
  for (int i = 0; i < 500; ++i) {
    bool found = false;
    for (const fs::directory_entry& d : fs::directory_iterator("/proc")) {
      const std::string name = d.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmdline = ReadFile(d.path() / "cmdline");
      std::string stat = ReadFile(d.path() / "stat");
      const size_t paren = stat.rfind(')');
      const bool zombie =
          paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
      if (!zombie && absl::StrContains(cmdline, needle)) found = true;
    }
    if (!found) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Waits (up to 40 s) until `path` holds at least `rows` rows.
bool WaitForRows(const std::string& path, size_t rows) {
  for (int i = 0; i < 4000; ++i) {
    if (fs::exists(path)) {
      Json j = Json::parse(ReadFile(path), nullptr, false);
      if (!j.is_discarded() && j["benchmarks"].size() >= rows) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

const std::string kSweep = "--sweep=" + Runfile("experiments/drivers/sweep/testdata/sweep_test.json");

TEST(SweepTest, CrashHangKillAndResume) {
  const std::string out = TempDir("night");
  const std::string out_flag = "--out=" + out;

  // 1. The runner runs ok, crash, hang, then is SIGKILLed during slow.
  {
    Runner runner({kSweep, out_flag});
    ASSERT_TRUE(runner.started());
    ASSERT_TRUE(WaitForRows(out + "/slow.json", 2)) << runner.Stderr();
    runner.Signal(SIGKILL);
    EXPECT_EQ(runner.Wait(), 128 + SIGKILL);
  }
  // Its child dies with it: nothing writes slow.json behind the resume.
  EXPECT_TRUE(NoProcessWith(out + "/slow.json"));
  Json m1 = Manifest(out);
  EXPECT_FALSE(m1.contains("finished"));
  EXPECT_EQ(Entry(m1, "ok")["status"], "ok");
  EXPECT_EQ(Entry(m1, "crash")["status"], "failed");
  EXPECT_EQ(Entry(m1, "crash")["signal"], SIGABRT);
  EXPECT_EQ(Entry(m1, "hang")["status"], "timeout");
  EXPECT_EQ(Entry(m1, "slow")["status"], "pending");
  EXPECT_EQ(Entry(m1, "slow")["attempts"], 1);
  EXPECT_EQ(Entry(m1, "throttle")["status"], "pending");
  EXPECT_EQ(Entry(m1, "throttle")["attempts"], 0);
  // The crashed entry's rows before the crash are kept.
  const std::vector<Json> crash_before = Rows(out + "/crash.json");
  EXPECT_EQ(Points(crash_before), Range(1, 3));
  EXPECT_EQ(Points(Rows(out + "/hang.json")), Range(1, 1));
  const std::vector<Json> slow_before = Rows(out + "/slow.json");
  ASSERT_GE(slow_before.size(), 2u);
  ASSERT_LT(slow_before.size(), 8u);
  const std::vector<Json> ok_before = Rows(out + "/ok.json");

  // 2. Resume with the same --out: to the end of the night.
  std::string err;
  EXPECT_EQ(RunToEnd({kSweep, out_flag}, &err), 1) << err;
  Json m2 = Manifest(out);
  EXPECT_TRUE(m2.contains("finished"));
  EXPECT_EQ(m2["run_id"], m1["run_id"]);
  EXPECT_EQ(m2["started"], m1["started"]);
  EXPECT_EQ(m2["sweep_file"], "experiments/drivers/sweep/testdata/sweep_test.json");
  EXPECT_TRUE(absl::StrContains(err, "ok: done")) << err;
  EXPECT_TRUE(absl::StrContains(err, "; ETA ")) << err;
  EXPECT_EQ(Entry(m2, "ok")["attempts"], 1);
  EXPECT_EQ(Rows(out + "/ok.json"), ok_before);  // not run again
  // crash: resumed after its 3 rows; the selftest counts points per process,
  // so the second process measures 4..6 before reaching its 4th.
  EXPECT_EQ(Entry(m2, "crash")["attempts"], 2);
  EXPECT_EQ(Entry(m2, "crash")["status"], "ok");
  const std::vector<Json> crash_after = Rows(out + "/crash.json");
  EXPECT_EQ(Points(crash_after), Range(1, 6));
  EXPECT_EQ(std::vector<Json>(crash_after.begin(), crash_after.begin() + 3), crash_before);
  // hang: resumed after point 1, hangs again at its second point.
  EXPECT_EQ(Entry(m2, "hang")["status"], "timeout");
  EXPECT_EQ(Entry(m2, "hang")["attempts"], 2);
  EXPECT_EQ(Points(Rows(out + "/hang.json")), Range(1, 2));
  // slow: every point once; the rows measured before the kill are kept as
  // they were.
  EXPECT_EQ(Entry(m2, "slow")["status"], "ok");
  EXPECT_EQ(Entry(m2, "slow")["attempts"], 2);
  const std::vector<Json> slow_after = Rows(out + "/slow.json");
  EXPECT_EQ(Points(slow_after), Range(1, 8));
  EXPECT_EQ(std::vector<Json>(slow_after.begin(), slow_after.begin() + slow_before.size()),
            slow_before);
  // throttle: point 2 measured once more (attempt 2), nothing else twice.
  EXPECT_EQ(Entry(m2, "throttle")["status"], "ok");
  const std::vector<Json> throttle = Rows(out + "/throttle.json");
  EXPECT_EQ(Points(throttle),
            (std::vector<std::string>{"point:1", "point:2", "point:2", "point:3", "point:4"}));
  EXPECT_EQ(throttle[1].value("throttled", 0.0), 1.0);
  EXPECT_EQ(throttle[2].value("attempt", 0.0), 2.0);
  // missing binary: skipped with the reason.
  EXPECT_EQ(Entry(m2, "missing")["status"], "skipped");
  EXPECT_TRUE(absl::StrContains(Entry(m2, "missing").value("reason", ""),
                                "experiments/no_such_experiment not found"));
  for (const char* id : {"ok", "crash", "hang", "slow", "throttle"}) {
    const std::string file = out + "/" + id + ".json";
    ExpectNoRowTwice(Rows(file), file);
    EXPECT_TRUE(fs::exists(out + "/" + id + ".log"));
  }

  // 3. Only the ok entries: nothing to do, exit 0.
  EXPECT_EQ(RunToEnd({kSweep, out_flag, "--only=ok,slow"}, &err), 0) << err;
  EXPECT_EQ(Rows(out + "/slow.json"), slow_after);
}

TEST(SweepTest, SigtermLeavesTheEntryPending) {
  const std::string out = TempDir("term");
  Runner runner({kSweep, "--out=" + out, "--only=slow"});
  ASSERT_TRUE(runner.started());
  ASSERT_TRUE(WaitForRows(out + "/slow.json", 2)) << runner.Stderr();
  // A second runner on the same folder is refused.
  std::string err;
  EXPECT_EQ(RunToEnd({kSweep, "--out=" + out}, &err), 2) << err;
  EXPECT_TRUE(absl::StrContains(err, "in use by another sweep runner")) << err;
  runner.Signal(SIGTERM);
  EXPECT_EQ(runner.Wait(), 128 + SIGTERM) << runner.Stderr();
  EXPECT_TRUE(NoProcessWith(out + "/slow.json"));
  Json m = Manifest(out);
  EXPECT_FALSE(m.contains("finished"));
  EXPECT_EQ(Entry(m, "slow")["status"], "pending");
  EXPECT_TRUE(absl::StrContains(Entry(m, "slow").value("reason", ""), "SIGTERM"));
  EXPECT_EQ(Entry(m, "ok")["attempts"], 0);
  const std::vector<Json> rows = Rows(out + "/slow.json");
  EXPECT_GE(rows.size(), 2u);
  ExpectNoRowTwice(rows, "slow.json");
}

TEST(SweepTest, BadUsageExits2WithOneLine) {
  const std::string out = TempDir("usage");
  std::ofstream(out + ".file") << "x";
  const std::vector<std::vector<std::string>> cases = {
      {"--out=" + out},
      {"--sweep=no_such_sweep", "--out=" + out},
      {kSweep, "--out=" + out, "--frobnicate"},
      {kSweep, "--out=" + out, "--device=minus"},
      {kSweep, "--out=" + out, "--only=nope"},
      {kSweep, "--out=" + out + ".file/sub"},
  };
  for (const std::vector<std::string>& args : cases) {
    std::string err;
    EXPECT_EQ(RunToEnd(args, &err), 2) << args.back() << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_TRUE(absl::StartsWith(err, "sweep: ")) << err;
  }
  std::string err;
  EXPECT_EQ(RunToEnd({"--help"}, &err), 0);
}

// A night with no device visible (none on this machine; hidden on a GPU
// machine): one line, the reason in the manifest, no entry started.
TEST(SweepTest, NoDeviceIsOneLineAndNoEntryRuns) {
  const std::string out = TempDir("no_device");
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  std::string err;
  const int status = RunToEnd({"--sweep=smoke", "--out=" + out}, &err);
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(status, 3) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_TRUE(absl::StartsWith(err, "sweep smoke: no entry ran: no NVIDIA driver") ||
              absl::StartsWith(err, "sweep smoke: no entry ran: no CUDA device visible"))
      << err;
  Json m = Manifest(out);
  EXPECT_TRUE(absl::StartsWith(m.value("preflight_failure", ""), "no ")) << m.dump();
  EXPECT_TRUE(m.contains("finished"));
  for (const Json& e : m["entries"]) {
    EXPECT_EQ(e["status"], "pending") << e.dump();
    EXPECT_EQ(e["attempts"], 0) << e.dump();
    EXPECT_FALSE(fs::exists(out + "/" + e["log_file"].get<std::string>())) << e.dump();
  }
}

// The entry's missing input is reported before the device is looked at:
// exit 2 (bad usage), not 3 (no device), with no device visible.
TEST(SweepTest, NpyDumpsWithoutActivationsBeforeTheDevice) {
  const std::string out = TempDir("npy");
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  std::string err;
  const int status = RunToEnd(
      {"--sweep=" + Runfile("experiments/drivers/sweep/testdata/npy_dumps_without_activations.json"),
       "--out=" + out},
      &err);
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(status, 2) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_TRUE(absl::StrContains(err, "entry \"trained\" asks for activation_source=npy_dumps "
                                     "but gives no --activations=PATH"))
      << err;
  EXPECT_FALSE(fs::exists(out + "/manifest.json"));
}

TEST(SweepTest, TimeLimitsOverTheBudgetExit2) {
  std::string err;
  EXPECT_EQ(RunToEnd({"--sweep=smoke", "--out=" + TempDir("budget"), "--budget_s=10"}, &err), 2);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_TRUE(absl::StrContains(err, "over the night's budget of 10 s")) << err;
}

// --dry_run: the plan table (every smoke entry with the points its binary
// lists, aligned), the total against smoke.json's budget, then the commands.
TEST(SweepTest, DryRunPrintsThePlan) {
  const std::string out = TempDir("dry_run");
  std::string err, plan;
  EXPECT_EQ(RunToEnd({"--sweep=smoke", "--out=" + out, "--dry_run"}, &err, &plan), 0) << err;
  EXPECT_FALSE(fs::exists(out));
  std::vector<std::string> lines = absl::StrSplit(plan, '\n');
  ASSERT_GE(lines.size(), 13u) << plan;
  EXPECT_TRUE(absl::StartsWith(lines[0], "entry ")) << plan;
  const size_t width = lines[0].size();
  EXPECT_TRUE(absl::EndsWith(lines[0], "points  time limit")) << plan;
  for (size_t i = 1; i <= 11; ++i) {
    EXPECT_EQ(lines[i].size(), width) << "not aligned: " << lines[i];
    EXPECT_TRUE(absl::EndsWith(lines[i], " s")) << lines[i];
    EXPECT_EQ(lines[i].find('?'), std::string::npos) << "points not listed: " << plan;
  }
  EXPECT_TRUE(absl::StartsWith(lines[1], "shared_latency ")) << plan;
  EXPECT_TRUE(absl::StartsWith(lines[12], "total (11 to run) ")) << plan;
  EXPECT_TRUE(absl::StrContains(lines[12], "60 s  of the night's budget of 60 s (0 s to spare)"))
      << plan;
  EXPECT_TRUE(absl::StrContains(plan, "experiments/memory_latency --benchmark_out=" + out))
      << plan;
}

}  // namespace
