// The sweep runner's pieces on the CPU: child processes (exit, signal, time
// limit, SIGKILL escalation, stop signal, nothing of the group left),
// manifest round trip, ETA, and a whole sweep of shell-script stand-ins
// (status mapping, skipped binaries, resume arguments, --only, the checks
// before a night and the --dry_run plan). The runner
// with the real harness is experiments/drivers/sweep/sweep_test.cc.
#include "experiments/drivers/sweep/runner.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "experiments/drivers/sweep/preflight.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::sweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(base != nullptr ? base : "/tmp") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteScript(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
}

ChildSpec Shell(const std::string& dir, const std::string& script, double limit_s = 30) {
  ChildSpec spec;
  spec.binary = "/bin/sh";
  spec.args = {"-c", script};
  spec.log_path = dir + "/child.log";
  spec.log_header = "=== header";
  spec.time_limit_s = limit_s;
  spec.kill_grace_s = 5;
  return spec;
}

// True when `pid` is gone or a zombie (waits up to 10 s for its reaper).
bool Dead(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    if (kill(pid, 0) != 0) return true;
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t paren = text.rfind(')');
    if (paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z') {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(RunChildTest, ExitStatusAndLog) {
  const std::string dir = TempDir("exit");
  absl::StatusOr<ChildOutcome> out = RunChild(Shell(dir, "echo to-out; echo to-err >&2; exit 3"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->kind, ChildOutcome::Kind::kExited);
  EXPECT_EQ(out->exit_code, 3);
  EXPECT_EQ(ReadFile(dir + "/child.log"), "=== header\nto-out\nto-err\n");
  // A second attempt appends, its header on a line of its own.
  ASSERT_TRUE(RunChild(Shell(dir, "printf no-newline")).ok());
  ASSERT_TRUE(RunChild(Shell(dir, "exit 0")).ok());
  EXPECT_EQ(ReadFile(dir + "/child.log"),
            "=== header\nto-out\nto-err\n=== header\nno-newline\n=== header\n");
}

TEST(RunChildTest, LeadsItsOwnProcessGroup) {
  const std::string dir = TempDir("group");
  ASSERT_TRUE(RunChild(Shell(dir, "set -- $(cat /proc/$$/stat); echo $5; echo $$")).ok());
  std::istringstream lines(ReadFile(dir + "/child.log"));
  std::string header, pgid, pid;
  std::getline(lines, header);
  std::getline(lines, pgid);
  std::getline(lines, pid);
  EXPECT_EQ(pgid, pid);
  EXPECT_NE(pgid, absl::StrCat(getpgrp()));
}

TEST(RunChildTest, KilledBySignal) {
  const std::string dir = TempDir("signal");
  absl::StatusOr<ChildOutcome> out = RunChild(Shell(dir, "kill -ABRT $$"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->kind, ChildOutcome::Kind::kSignaled);
  EXPECT_EQ(out->signal, SIGABRT);
}

TEST(RunChildTest, TimeLimitStopsTheWholeGroup) {
  const std::string dir = TempDir("timeout");
  const std::string pid_file = dir + "/grandchild.pid";
  absl::StatusOr<ChildOutcome> out =
      RunChild(Shell(dir, "sleep 60 & echo $! > " + pid_file + "; wait", 0.5));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->kind, ChildOutcome::Kind::kTimedOut);
  EXPECT_EQ(out->signal, SIGTERM);
  EXPECT_FALSE(out->sigkilled);
  const pid_t grandchild = std::atoi(ReadFile(pid_file).c_str());
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(Dead(grandchild));
}

TEST(RunChildTest, SigkillAfterGraceWhenSigtermIsIgnored) {
  const std::string dir = TempDir("sigkill");
  ChildSpec spec = Shell(dir, "trap '' TERM; echo ready; while :; do sleep 0.05; done", 0.3);
  spec.kill_grace_s = 0.3;
  absl::StatusOr<ChildOutcome> out = RunChild(spec);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->kind, ChildOutcome::Kind::kTimedOut);
  EXPECT_TRUE(out->sigkilled);
  EXPECT_EQ(out->signal, SIGKILL);
}

TEST(RunChildTest, StopSignalStopsTheChild) {
  const std::string dir = TempDir("stop");
  SetStopSignalForTest(SIGTERM);
  absl::StatusOr<ChildOutcome> out = RunChild(Shell(dir, "sleep 60"));
  SetStopSignalForTest(0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->kind, ChildOutcome::Kind::kInterrupted);
}

TEST(RunChildTest, NotExecutableIsAnError) {
  const std::string dir = TempDir("noexec");
  std::ofstream(dir + "/plain") << "not a program\n";
  ChildSpec spec = Shell(dir, "");
  spec.binary = dir + "/plain";
  spec.args.clear();
  absl::StatusOr<ChildOutcome> out = RunChild(spec);
  EXPECT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("cannot execute"));
}

TEST(ManifestTest, RoundTrip) {
  Manifest m;
  m.run_id = "host-0-20261123T020000Z";
  m.sweep = "nightly";
  m.sweep_file = "configs/sweeps/nightly.json";
  m.host = "host";
  m.started = "2026-11-23T02:00:00Z";
  m.git_commit = "abc";
  m.device = {{"index", 0}, {"device_unavailable", "no NVML"}};
  EntryRecord e;
  e.id = "crash";
  e.experiment = "selftest";
  e.status = EntryStatus::kFailed;
  e.signal = 6;
  e.attempts = 2;
  e.seconds = 1.5;
  e.reason = "killed by SIGABRT";
  e.result_file = "crash.json";
  m.entries.push_back(e);
  const std::string text = ManifestToJson(m).dump(2);
  absl::StatusOr<Manifest> back = ParseManifest(text, "m.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ManifestToJson(*back).dump(2), text);
  EXPECT_EQ(back->entries[0].status, EntryStatus::kFailed);
  EXPECT_THAT(text, Not(HasSubstr("finished")));

  EXPECT_FALSE(ParseManifest("{", "m.json").ok());
  EXPECT_FALSE(ParseManifest(R"({"format": "other"})", "m.json").ok());
  absl::StatusOr<Manifest> bad_status = ParseManifest(
      R"({"format": "dissect.manifest.v1", "run_id": "r", "sweep": "s", "started": "t",
          "entries": [{"id": "a", "status": "exploded"}]})",
      "m.json");
  ASSERT_FALSE(bad_status.ok());
  EXPECT_THAT(std::string(bad_status.status().message()), HasSubstr("exploded"));
}

TEST(EtaTest, ScalesRemainingLimitsByTheRatioSoFar) {
  EtaEstimator eta;
  EXPECT_DOUBLE_EQ(eta.Remaining(100), 100);  // nothing ran: the limits
  eta.Record(10, 5);
  eta.Record(30, 5);
  EXPECT_DOUBLE_EQ(eta.Remaining(100), 25);
  EXPECT_EQ(FormatEta(12.2), "13 s");
  EXPECT_EQ(FormatEta(240), "4 min");
  EXPECT_EQ(FormatEta(7500), "2 h 05 min");
  EXPECT_EQ(FormatSeconds(12.34), "12.3 s");
}

// A whole sweep of shell-script stand-ins for experiment binaries.
class RunSweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = TempDir("sweep_bins");
    out_ = TempDir("sweep_out");
    fs::create_directories(root_ + "/experiments");
    // Writes its arguments to <result>.args (one attempt a line) and a
    // result file; behaves as $MODE says.
    const std::string common =
        "out=''; for a in \"$@\"; do case $a in --benchmark_out=*) out=${a#*=};; esac; done\n"
        "echo \"$*\" >> \"$out.args\"\n"
        "echo '{}' > \"$out\"\n";
    WriteScript(root_ + "/experiments/good", common + "exit 0");
    WriteScript(root_ + "/experiments/one_failed", common + "exit 1");
    WriteScript(
        root_ + "/experiments/bad_input",
        common + "echo 'first line'; echo 'bad_input: --axis=x is not an axis' >&2; exit 2");
    WriteScript(root_ + "/experiments/aborts", common + "kill -ABRT $$");
    sweep_.name = "unit";
    sweep_.path = "unit.json";
    sweep_.cooldown_s = 7;
    for (const char* name : {"good", "one_failed", "bad_input", "aborts", "missing"}) {
      SweepEntry e;
      e.id = std::string("e_") + name;
      e.experiment = name;
      e.binary = std::string("experiments/") + name;
      e.axes = {{"point", "1,2"}};
      e.samples = 3;
      e.time_limit_s = 30;
      sweep_.entries.push_back(e);
    }
    options_.out_dir = out_;
    options_.search_roots = {root_ + "/nowhere", root_};
    options_.host = "testhost";
    options_.git_commit = "c0ffee";
    options_.progress = &progress_;
    options_.out = &commands_;
    options_.query_device = [](int index) {
      DeviceIdentity d;
      d.index = index;
      d.name = "Fake GPU";
      d.uuid = "GPU-fake";
      return d;
    };
  }

  Manifest Read() {
    absl::StatusOr<std::optional<Manifest>> m = ReadManifest(out_ + "/manifest.json");
    EXPECT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(m->has_value());
    return m->value_or(Manifest{});
  }

  std::string root_, out_;
  Sweep sweep_;
  RunnerOptions options_;
  std::ostringstream progress_, commands_;
};

// Without a UUID (no NVML, the CPU-only selftest) runners on one host that
// start in the same second must still get distinct run ids: the process id.
TEST_F(RunSweepTest, RunIdWithoutUuidCarriesTheProcessId) {
  options_.query_device = [](int index) {
    DeviceIdentity d;
    d.index = index;
    return d;
  };
  sweep_.entries.resize(1);
  ASSERT_TRUE(RunSweep(sweep_, options_).ok());
  const std::string run_id = Read().run_id;
  EXPECT_EQ(run_id.rfind("testhost-0-", 0), 0u) << run_id;
  const std::string suffix = absl::StrCat("-p", getpid());
  EXPECT_EQ(run_id.substr(run_id.size() - suffix.size()), suffix) << run_id;
}

TEST_F(RunSweepTest, StatusesExitCodesAndReasons) {
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, kExitSomeFailed);
  Manifest m = Read();
  EXPECT_EQ(m.run_id.rfind("testhost-GPU-fake-", 0), 0u) << m.run_id;
  EXPECT_EQ(m.sweep, "unit");
  EXPECT_EQ(m.git_commit, "c0ffee");
  EXPECT_EQ(m.device.value("name", ""), "Fake GPU");
  EXPECT_FALSE(m.finished.empty());
  ASSERT_EQ(m.entries.size(), 5u);
  const EntryRecord& good = *m.Find("e_good");
  EXPECT_EQ(good.status, EntryStatus::kOk);
  EXPECT_EQ(good.exit_code, 0);
  EXPECT_EQ(good.attempts, 1);
  EXPECT_EQ(good.result_file, "e_good.json");
  EXPECT_EQ(good.log_file, "e_good.log");
  const EntryRecord& one_failed = *m.Find("e_one_failed");
  EXPECT_EQ(one_failed.status, EntryStatus::kFailed);
  EXPECT_EQ(one_failed.exit_code, 1);
  const EntryRecord& bad_input = *m.Find("e_bad_input");
  EXPECT_EQ(bad_input.status, EntryStatus::kFailed);
  EXPECT_EQ(bad_input.exit_code, 2);
  EXPECT_EQ(bad_input.reason, "exit 2: bad_input: --axis=x is not an axis");
  const EntryRecord& aborts = *m.Find("e_aborts");
  EXPECT_EQ(aborts.status, EntryStatus::kFailed);
  EXPECT_EQ(aborts.signal, SIGABRT);
  EXPECT_EQ(aborts.exit_code, -1);
  EXPECT_THAT(aborts.reason, HasSubstr("SIGABRT"));
  const EntryRecord& missing = *m.Find("e_missing");
  EXPECT_EQ(missing.status, EntryStatus::kSkipped);
  EXPECT_EQ(missing.attempts, 0);
  EXPECT_THAT(missing.reason, HasSubstr("experiments/missing not found"));
  // The arguments the harness expects, from the sweep file.
  EXPECT_EQ(ReadFile(out_ + "/e_good.json.args"),
            absl::StrCat("--benchmark_out=", out_,
                         "/e_good.json --samples=3 --axis=point=1,2 --cooldown_s=7\n"));
  EXPECT_THAT(progress_.str(), HasSubstr("[1/5] e_good: ok in "));
  EXPECT_THAT(progress_.str(), HasSubstr("; ETA "));
}

TEST_F(RunSweepTest, ResumeSkipsOkEntriesAndResumesTheOthers) {
  ASSERT_TRUE(RunSweep(sweep_, options_).ok());
  const std::string run_id = Read().run_id;
  const std::string started = Read().started;
  options_.device = 1;
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  Manifest m = Read();
  EXPECT_EQ(m.run_id, run_id);
  EXPECT_EQ(m.started, started);
  EXPECT_EQ(m.Find("e_good")->attempts, 1);
  EXPECT_EQ(m.Find("e_one_failed")->attempts, 2);
  EXPECT_EQ(m.Find("e_missing")->attempts, 0);
  // ok: not run again; failed: run again with --resume.
  EXPECT_EQ(ReadFile(out_ + "/e_good.json.args"),
            absl::StrCat("--benchmark_out=", out_,
                         "/e_good.json --samples=3 --axis=point=1,2 --cooldown_s=7\n"));
  EXPECT_EQ(ReadFile(out_ + "/e_one_failed.json.args"),
            absl::StrCat("--benchmark_out=", out_,
                         "/e_one_failed.json --samples=3 --axis=point=1,2 --cooldown_s=7\n",
                         "--benchmark_out=", out_,
                         "/e_one_failed.json --samples=3 --axis=point=1,2 --cooldown_s=7 "
                         "--resume --device=1\n"));
  EXPECT_THAT(progress_.str(), HasSubstr("e_good: done"));
}

TEST_F(RunSweepTest, OnlyRunsTheNamedEntries) {
  options_.only = {"e_good"};
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, kExitAllOk);
  Manifest m = Read();
  EXPECT_EQ(m.Find("e_good")->status, EntryStatus::kOk);
  EXPECT_EQ(m.Find("e_aborts")->status, EntryStatus::kPending);
  EXPECT_EQ(m.Find("e_aborts")->attempts, 0);

  options_.only = {"e_nope"};
  absl::StatusOr<int> unknown = RunSweep(sweep_, options_);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("no entry 'e_nope'"));
}

TEST_F(RunSweepTest, DryRunWritesNothing) {
  options_.dry_run = true;
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_FALSE(fs::exists(out_ + "/manifest.json"));
  EXPECT_FALSE(fs::exists(out_ + "/e_good.json.args"));
  EXPECT_THAT(commands_.str(),
              HasSubstr(root_ + "/experiments/good --benchmark_out=" + out_ + "/e_good.json"));
}

TEST_F(RunSweepTest, RefusesAnotherSweepsOrDevicesFolder) {
  ASSERT_TRUE(RunSweep(sweep_, options_).ok());
  Sweep other = sweep_;
  other.name = "other";
  absl::StatusOr<int> status = RunSweep(other, options_);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("is a run of sweep 'unit'"));

  options_.query_device = [](int index) {
    DeviceIdentity d;
    d.index = index;
    d.uuid = "GPU-other";
    return d;
  };
  status = RunSweep(sweep_, options_);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("GPU-fake"));
}

// A night without a device: one line, one recorded reason, no entry run;
// the next night on the same folder that has a device clears it.
TEST_F(RunSweepTest, NoDeviceEndsTheNightBeforeAnyEntry) {
  int asked = -1;
  options_.device = 1;
  options_.check_device = [&asked](int index) {
    asked = index;
    return std::string("no CUDA device visible: cuInit: CUDA_ERROR_NO_DEVICE (100)");
  };
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, kExitNoDevice);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(progress_.str(), "sweep unit: no entry ran: no CUDA device visible: cuInit: "
                             "CUDA_ERROR_NO_DEVICE (100); recorded in " +
                                 out_ + "/manifest.json\n");
  Manifest m = Read();
  EXPECT_EQ(m.preflight_failure, "no CUDA device visible: cuInit: CUDA_ERROR_NO_DEVICE (100)");
  EXPECT_FALSE(m.finished.empty());
  for (const EntryRecord& e : m.entries) {
    EXPECT_EQ(e.status, EntryStatus::kPending) << e.id;
    EXPECT_EQ(e.attempts, 0) << e.id;
    EXPECT_TRUE(e.reason.empty()) << e.id;
  }
  EXPECT_FALSE(fs::exists(out_ + "/e_good.json.args"));

  options_.check_device = [](int) { return std::string(); };
  status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, kExitSomeFailed);
  EXPECT_EQ(Read().preflight_failure, "");
  EXPECT_EQ(Read().Find("e_good")->status, EntryStatus::kOk);
}

TEST_F(RunSweepTest, NoDeviceCheckForCpuSweepsOrDryRuns) {
  options_.check_device = [](int) { return std::string("no device"); };
  sweep_.needs_gpu = false;
  sweep_.entries.resize(1);
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, kExitAllOk);
  sweep_.needs_gpu = true;
  options_.dry_run = true;
  status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, kExitAllOk);
}

// Inputs and the budget are checked before the device is asked about.
TEST_F(RunSweepTest, InputsAndBudgetBeforeTheDevice) {
  bool asked = false;
  options_.check_device = [&asked](int) {
    asked = true;
    return std::string();
  };
  sweep_.entries[0].axes = {{"activation_source", "npy_dumps"}};
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("no --activations=PATH"));
  sweep_.entries[0].axes.clear();
  sweep_.budget_s = 100;  // 5 entries x 30 s
  status = RunSweep(sweep_, options_);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("over the night's budget"));
  EXPECT_FALSE(asked);
  EXPECT_FALSE(fs::exists(out_ + "/manifest.json"));
  options_.only = {"e_good", "e_aborts", "e_missing"};
  status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE(asked);
}

TEST_F(RunSweepTest, DryRunPrintsThePlanTable) {
  WriteScript(root_ + "/experiments/lists",
              "echo lists/point:1; echo lists/point:2; echo lists/point:3");
  SweepEntry lists = sweep_.entries[0];
  lists.id = "e_lists";
  lists.experiment = "lists";
  lists.binary = "experiments/lists";
  lists.time_limit_s = 12;
  sweep_.entries = {lists, sweep_.entries[4]};  // and e_missing
  sweep_.budget_s = 60;
  options_.dry_run = true;
  absl::StatusOr<int> status = RunSweep(sweep_, options_);
  ASSERT_TRUE(status.ok()) << status.status();
  const std::string plan = commands_.str();
  EXPECT_THAT(plan, HasSubstr("entry             points  time limit\n"
                              "e_lists                3        12 s\n"
                              "e_missing              ?        30 s\n"
                              "total (2 to run)      3+        42 s  of the night's budget "
                              "of 60 s (18 s to spare)\n"
                              "? e_missing: binary experiments/missing not found"));
  EXPECT_THAT(plan, HasSubstr(root_ + "/experiments/lists --benchmark_out="));
}

TEST(DeviceIdentityTest, AbsentFieldsAreLeftOutAndExplained) {
  DeviceIdentity d;
  d.index = 2;
  d.name = "X";
  d.unavailable = "nvmlDeviceGetSerial failed: Not Supported (3)";
  nlohmann::ordered_json j = DeviceIdentityToJson(d);
  EXPECT_EQ(
      j.dump(),
      R"json({"index":2,"name":"X","device_unavailable":"nvmlDeviceGetSerial failed: Not Supported (3)"})json");
  // Without NVML (CI) the query still answers, and says why.
  DeviceIdentity here = QueryDeviceIdentity(0);
  EXPECT_EQ(here.index, 0);
  if (!here.uuid.has_value()) EXPECT_FALSE(here.unavailable.empty());
}

}  // namespace
}  // namespace dissect::sweep
