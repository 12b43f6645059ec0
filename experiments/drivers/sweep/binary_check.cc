#include "experiments/drivers/sweep/binary_check.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace dissect::sweep {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string TmpDir() {
  for (const char* name : {"TEST_TMPDIR", "TMPDIR"}) {
    const char* dir = std::getenv(name);
    if (dir != nullptr && *dir != '\0') return dir;
  }
  return "/tmp";
}

}  // namespace

ProgramOutput RunProgram(const std::vector<std::string>& argv) {
  static int runs = 0;
  // The process id keeps runners that share a temporary folder apart.
  const std::string base = absl::StrCat(TmpDir(), "/dissect-run-", getpid(), "-", ++runs);
  const std::string out_path = base + ".out", err_path = base + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ProgramOutput outcome;
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    outcome.err = absl::StrCat("cannot start: ", std::strerror(spawned));
    return outcome;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) == pid && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  outcome.out = ReadAll(out_path);
  outcome.err = ReadAll(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return outcome;
}

std::vector<std::string> ListArguments(const SweepEntry& e, double cooldown_s) {
  std::vector<std::string> argv = {e.binary, "--list"};
  for (const std::string& a : EntryArguments(e, cooldown_s, "unused.json", false)) {
    if (!absl::StartsWith(a, "--benchmark_out=")) argv.push_back(a);
  }
  return argv;
}

std::vector<std::string> CheckAgainstBinaries(const Sweep& sweep,
                                              const std::set<std::string>& binaries) {
  std::vector<std::string> problems;
  for (const SweepEntry& e : sweep.entries) {
    const std::string where = absl::StrCat(sweep.path, ": entry \"", e.id, "\"");
    if (binaries.count(e.binary) == 0) {
      problems.push_back(absl::StrCat(where, ": binary ", e.binary,
                                      " is not an experiment this test depends on (a typo, an "
                                      "experiment that does not exist, or a missing data dep)"));
      continue;
    }
    const std::vector<std::string> argv = ListArguments(e, sweep.cooldown_s);
    const ProgramOutput run = RunProgram(argv);
    const std::string command = absl::StrJoin(argv, " ");
    if (run.exit_code != 0) {
      std::vector<std::string> err = absl::StrSplit(run.err, '\n', absl::SkipEmpty());
      problems.push_back(absl::StrCat(where, ": `", command, "` exited ", run.exit_code, ": ",
                                      err.empty() ? "(no message)" : err.front()));
      continue;
    }
    const std::vector<std::string> points = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
    if (points.empty()) {
      problems.push_back(absl::StrCat(where, ": `", command, "` lists no points"));
      continue;
    }
    for (const std::string& p : points) {
      if (!absl::StartsWith(p, e.experiment + "/")) {
        problems.push_back(absl::StrCat(where, ": ", e.binary, " is not experiment \"",
                                        e.experiment, "\" (it lists ", p, ")"));
        break;
      }
    }
  }
  return problems;
}

}  // namespace dissect::sweep
