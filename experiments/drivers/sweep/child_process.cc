// The sweep's children: each in a process group of its own, logged to a
// file, stopped at its time limit or when the runner is; see runner.h
// (RunChild, InstallStopHandlers).
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "experiments/drivers/sweep/runner.h"

namespace dissect::sweep {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void OnStopSignal(int signal) { g_stop_signal = signal; }

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A file descriptor closed on destruction.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// A child process leading its own group. The destructor leaves nothing of
// the group running and reaps the child, whatever happened before.
class ChildGroup {
 public:
  explicit ChildGroup(pid_t pid) : pid_(pid) {}
  ~ChildGroup() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ChildGroup(const ChildGroup&) = delete;
  ChildGroup& operator=(const ChildGroup&) = delete;

  void Signal(int signal) const { kill(-pid_, signal); }

  // True once the leader has exited; it is not reaped yet, so the group id
  // cannot be reused while the rest of the group is killed.
  bool Exited() const {
    siginfo_t info = {};
    if (waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) < 0) return errno == ECHILD;
    return info.si_pid == pid_;
  }

  // After Exited(): kills what is left of the group, reaps the leader and
  // returns its wait status.
  int Reap() {
    kill(-pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_;
};

// Appends spec.log_header to the log, on a line of its own after an earlier
// attempt's output.
absl::Status AppendLogHeader(int log, const ChildSpec& spec) {
  struct stat info = {};
  char last = '\n';
  if (fstat(log, &info) == 0 && info.st_size > 0 && pread(log, &last, 1, info.st_size - 1) != 1) {
    last = '\n';
  }
  const std::string header = absl::StrCat(last == '\n' ? "" : "\n", spec.log_header, "\n");
  if (write(log, header.data(), header.size()) < 0) {
    return absl::UnavailableError(
        absl::StrCat(spec.log_path, ": cannot write: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// In the forked child: leads its own group, dies with `parent`, reads
// /dev/null and writes the log, then becomes the binary. A failed exec
// writes its errno to `exec_error`.
[[noreturn]] void ExecChild(const std::vector<char*>& argv, pid_t parent, int null_in, int log,
                            int exec_error) {
  // Only async-signal-safe calls from here to exec.
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  if (null_in >= 0) dup2(null_in, STDIN_FILENO);
  dup2(log, STDOUT_FILENO);
  dup2(log, STDERR_FILENO);
  execv(argv[0], argv.data());
  const int error = errno;
  ssize_t ignored = write(exec_error, &error, sizeof(error));
  (void)ignored;
  _exit(127);
}

// Waits for the child's group, stopping it (SIGTERM, then SIGKILL after
// the grace) at its time limit or when the runner is stopped.
ChildOutcome WaitForChild(ChildGroup& group, const ChildSpec& spec,
                          std::chrono::steady_clock::time_point start) {
  ChildOutcome outcome;
  std::optional<std::chrono::steady_clock::time_point> term_sent;
  while (!group.Exited()) {
    const double elapsed = SecondsSince(start);
    if (!term_sent.has_value()) {
      const int stop = StopSignal();
      if (stop != 0 || elapsed >= spec.time_limit_s) {
        outcome.kind = stop != 0 ? ChildOutcome::Kind::kInterrupted : ChildOutcome::Kind::kTimedOut;
        outcome.signal = SIGTERM;
        group.Signal(SIGTERM);
        term_sent = std::chrono::steady_clock::now();
      }
    } else if (!outcome.sigkilled && SecondsSince(*term_sent) >= spec.kill_grace_s) {
      outcome.signal = SIGKILL;
      outcome.sigkilled = true;
      group.Signal(SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int status = group.Reap();
  outcome.seconds = SecondsSince(start);
  if (term_sent.has_value()) return outcome;
  if (WIFEXITED(status)) {
    outcome.kind = ChildOutcome::Kind::kExited;
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::kSignaled;
    outcome.signal = WTERMSIG(status);
  }
  return outcome;
}

}  // namespace

void InstallStopHandlers() {
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

int StopSignal() { return g_stop_signal; }

void SetStopSignalForTest(int signal) { g_stop_signal = signal; }

absl::StatusOr<ChildOutcome> RunChild(const ChildSpec& spec) {
  UniqueFd log(open(spec.log_path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (log.get() < 0) {
    return absl::UnavailableError(
        absl::StrCat(spec.log_path, ": cannot open: ", std::strerror(errno)));
  }
  if (!spec.log_header.empty()) {
    if (absl::Status s = AppendLogHeader(log.get(), spec); !s.ok()) return s;
  }
  UniqueFd null_in(open("/dev/null", O_RDONLY | O_CLOEXEC));
  // The child reports a failed exec through this pipe (closed on exec).
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::UnavailableError(absl::StrCat("pipe2: ", std::strerror(errno)));
  }
  UniqueFd exec_error_read(pipe_fds[0]);
  UniqueFd exec_error_write(pipe_fds[1]);

  // Everything the child needs, prepared before fork.
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(spec.binary.c_str()));
  for (const std::string& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) return absl::UnavailableError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    ExecChild(argv, parent, null_in.get(), log.get(), exec_error_write.get());
  }
  setpgid(pid, pid);  // also here, so that the group exists before any kill
  ChildGroup group(pid);
  exec_error_write.Reset();
  log.Reset();
  int exec_errno = 0;
  ssize_t n;
  while ((n = read(exec_error_read.get(), &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR) {
  }
  if (n == sizeof(exec_errno)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot execute ", spec.binary, ": ", std::strerror(exec_errno)));
  }
  return WaitForChild(group, spec, start);
}

}  // namespace dissect::sweep
