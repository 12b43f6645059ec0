// The runner's checks before a night and its --dry_run plan; see preflight.h.
#include "experiments/drivers/sweep/preflight.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "experiments/drivers/sweep/binary_check.h"

namespace dissect::sweep {
namespace {

// An axis value that reads its data from a file, and the flag that names
// the file. The experiment skips such points without the flag, so an entry
// that asks for them and gives no file would spend its time measuring
// nothing.
struct InputFlag {
  const char* axis;
  const char* value;
  const char* flag;
};
constexpr InputFlag kInputFlags[] = {
    {"activation_source", "npy_dumps", "--activations"},
};

// True when `values` (an axis value in --axis syntax, "a,b") lists `value`.
bool ListsValue(const std::string& values, const std::string& value) {
  for (absl::string_view v : absl::StrSplit(values, ',')) {
    if (absl::StripAsciiWhitespace(v) == value) return true;
  }
  return false;
}

bool HasFlag(const SweepEntry& entry, const std::string& flag) {
  return std::any_of(entry.args.begin(), entry.args.end(), [&](const std::string& a) {
    return absl::StartsWith(a, flag + "=") && a.size() > flag.size() + 1;
  });
}

std::string Seconds(double s) {
  return s == std::floor(s) ? absl::StrFormat("%.0f s", s) : absl::StrFormat("%.1f s", s);
}

// How long cuInit and the device queries may take: a driver that hangs
// ends the night here rather than in every entry's time limit.
constexpr int kDriverAnswerTimeoutS = 120;

// The CUDA driver API's C ABI, as far as the check needs it.
using CuResult = int;
constexpr CuResult kCudaSuccess = 0;

// Fixed-size, so that the child can hand it over through a pipe.
struct CudaAnswer {
  char load_error[512];
  int init_result;
  char init_error[64];
  int device_count;
  int driver_version;
  char device_name[256];
};

void Copy(char* to, size_t size, const char* from) {
  std::snprintf(to, size, "%s", from != nullptr ? from : "");
}

// Runs in the child: loads the driver and asks it.
CudaAnswer AskCudaDriver(int index) {
  CudaAnswer a = {};
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    Copy(a.load_error, sizeof(a.load_error), dlerror());
    return a;
  }
  auto init = reinterpret_cast<CuResult (*)(unsigned)>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CuResult (*)(int*)>(dlsym(lib, "cuDeviceGetCount"));
  auto version = reinterpret_cast<CuResult (*)(int*)>(dlsym(lib, "cuDriverGetVersion"));
  auto get = reinterpret_cast<CuResult (*)(int*, int)>(dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<CuResult (*)(char*, int, int)>(dlsym(lib, "cuDeviceGetName"));
  auto error_name =
      reinterpret_cast<CuResult (*)(CuResult, const char**)>(dlsym(lib, "cuGetErrorName"));
  if (init == nullptr || count == nullptr) {
    Copy(a.load_error, sizeof(a.load_error), "libcuda.so.1 has no cuInit or cuDeviceGetCount");
    return a;
  }
  if (version != nullptr) version(&a.driver_version);
  a.init_result = init(0);
  if (a.init_result != kCudaSuccess) {
    const char* text = nullptr;
    if (error_name != nullptr) error_name(a.init_result, &text);
    Copy(a.init_error, sizeof(a.init_error), text != nullptr ? text : "unknown error");
    return a;
  }
  count(&a.device_count);
  int device = 0;
  if (index < a.device_count && get != nullptr && name != nullptr &&
      get(&device, index) == kCudaSuccess) {
    name(a.device_name, sizeof(a.device_name), device);
  }
  return a;
}

std::string VisibleDevicesNote() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return "";
  return absl::StrCat(" (CUDA_VISIBLE_DEVICES='", visible, "')");
}

bool IsExpected(const std::string& expected, const CudaDriverView& cuda,
                const DeviceIdentity& nvml) {
  const std::string want = absl::AsciiStrToLower(expected);
  for (const std::string* name : {&cuda.device_name, nvml.name ? &*nvml.name : nullptr}) {
    if (name != nullptr && absl::StrContains(absl::AsciiStrToLower(*name), want)) return true;
  }
  return nvml.uuid.has_value() && absl::AsciiStrToLower(*nvml.uuid) == want;
}

}  // namespace

absl::Status CheckEntryInputs(const Sweep& sweep, const std::vector<const SweepEntry*>& selected) {
  for (const SweepEntry* e : selected) {
    for (const auto& [axis, values] : e->axes) {
      for (const InputFlag& input : kInputFlags) {
        if (axis != input.axis || !ListsValue(values, input.value) || HasFlag(*e, input.flag)) {
          continue;
        }
        return absl::InvalidArgumentError(absl::StrCat(
            sweep.path, ": entry \"", e->id, "\" asks for ", axis, "=", input.value,
            " but gives no ", input.flag, "=PATH in its \"args\" (the points would be skipped)"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBudget(const Sweep& sweep, const std::vector<const SweepEntry*>& selected) {
  if (!sweep.budget_s.has_value()) return absl::OkStatus();
  double total = 0;
  for (const SweepEntry* e : selected) total += e->time_limit_s;
  if (total <= *sweep.budget_s) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the time limits of sweep ", sweep.name, "'s ", selected.size(), " entries add up to ",
      Seconds(total), ", over the night's budget of ", Seconds(*sweep.budget_s),
      ": select fewer entries (--only) or raise the budget (--budget_s)"));
}

CudaDriverView QueryCudaDriver(int index) {
  CudaDriverView view;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    view.query_error = absl::StrCat("pipe2: ", std::strerror(errno));
    return view;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    view.query_error = absl::StrCat("fork: ", std::strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return view;
  }
  if (pid == 0) {
    close(fds[0]);
    const CudaAnswer answer = AskCudaDriver(index);
    const ssize_t written = write(fds[1], &answer, sizeof(answer));
    _exit(written == static_cast<ssize_t>(sizeof(answer)) ? 0 : 1);
  }
  close(fds[1]);
  CudaAnswer answer = {};
  size_t got = 0;
  bool hung = false;
  while (got < sizeof(answer)) {
    pollfd ready = {fds[0], POLLIN, 0};
    const int polled = poll(&ready, 1, kDriverAnswerTimeoutS * 1000);
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      hung = true;
      kill(pid, SIGKILL);
      break;
    }
    const ssize_t n = read(fds[0], reinterpret_cast<char*>(&answer) + got, sizeof(answer) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (hung) {
    view.query_error =
        absl::StrCat("the CUDA driver gave no answer within ", kDriverAnswerTimeoutS, " s");
  } else if (got != sizeof(answer)) {
    view.query_error = WIFSIGNALED(status)
                           ? absl::StrCat("the query died of signal ", WTERMSIG(status))
                           : "the query gave no answer";
  }
  if (got != sizeof(answer)) return view;
  view.load_error = answer.load_error;
  view.init_result = answer.init_result;
  view.init_error = answer.init_error;
  view.device_count = answer.device_count;
  view.driver_version = answer.driver_version;
  view.device_name = answer.device_name;
  return view;
}

std::string DeviceProblem(const CudaDriverView& cuda, const DeviceIdentity& nvml, int index,
                          const std::string& expected) {
  if (!cuda.query_error.empty()) {
    return absl::StrCat("cannot ask the CUDA driver: ", cuda.query_error);
  }
  if (!cuda.load_error.empty()) {
    return absl::StrCat("no NVIDIA driver: ", cuda.load_error);
  }
  const std::string driver =
      cuda.driver_version > 0 ? absl::StrCat("driver CUDA ", cuda.driver_version / 1000, ".",
                                             cuda.driver_version % 1000 / 10)
                              : "driver version unknown";
  if (cuda.init_result != kCudaSuccess) {
    const std::string what = cuda.init_result == 100 ? "no CUDA device visible" : "CUDA driver failed";
    return absl::StrCat(what, ": cuInit: ", cuda.init_error, " (", cuda.init_result, "; ", driver,
                        ")", VisibleDevicesNote());
  }
  if (index >= cuda.device_count) {
    return absl::StrCat("--device=", index, " but only ", cuda.device_count,
                        " CUDA device(s) are visible", VisibleDevicesNote());
  }
  if (!expected.empty() && !IsExpected(expected, cuda, nvml)) {
    const std::string name = !cuda.device_name.empty() ? cuda.device_name : nvml.name.value_or("?");
    return absl::StrCat("device ", index, " is ", name,
                        nvml.uuid ? absl::StrCat(" (", *nvml.uuid, ")") : "",
                        ", not the expected '", expected, "' (--expect_device)",
                        VisibleDevicesNote());
  }
  return "";
}

std::string CheckDevice(int index, const std::string& expected) {
  const CudaDriverView cuda = QueryCudaDriver(index);
  const bool answered = cuda.query_error.empty() && cuda.load_error.empty();
  const DeviceIdentity nvml =
      expected.empty() || !answered ? DeviceIdentity{} : QueryDeviceIdentity(index);
  return DeviceProblem(cuda, nvml, index, expected);
}

absl::StatusOr<int> CountPoints(const std::string& binary, const SweepEntry& entry,
                                double cooldown_s) {
  std::vector<std::string> argv = ListArguments(entry, cooldown_s);
  argv[0] = binary;
  const ProgramOutput run = RunProgram(argv);
  if (run.exit_code != 0) {
    std::vector<std::string> err = absl::StrSplit(run.err, '\n', absl::SkipEmpty());
    return absl::InvalidArgumentError(absl::StrCat("--list exited ", run.exit_code, ": ",
                                                   err.empty() ? "(no message)" : err.front()));
  }
  int points = 0;
  for (absl::string_view line : absl::StrSplit(run.out, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, entry.experiment + "/")) ++points;
  }
  return points;
}

void WritePlan(const std::vector<PlanRow>& rows, std::optional<double> budget_s,
               std::ostream& out) {
  const std::string kEntry = "entry", kPoints = "points", kLimit = "time limit";
  size_t entry_w = kEntry.size(), points_w = kPoints.size(), limit_w = kLimit.size();
  std::vector<std::string> points_text, limit_text;
  double total = 0;
  int total_points = 0, to_run = 0;
  bool points_known = true;
  for (const PlanRow& r : rows) {
    points_text.push_back(r.points ? absl::StrCat(*r.points) : "?");
    limit_text.push_back(r.done ? "done" : Seconds(r.time_limit_s));
    if (!r.done) {
      total += r.time_limit_s;
      ++to_run;
      total_points += r.points.value_or(0);
      points_known = points_known && r.points.has_value();
    }
  }
  const std::string total_label = absl::StrCat("total (", to_run, " to run)");
  const std::string total_points_text = absl::StrCat(total_points, points_known ? "" : "+");
  entry_w = std::max(entry_w, total_label.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    entry_w = std::max(entry_w, rows[i].entry.size());
    points_w = std::max(points_w, points_text[i].size());
    limit_w = std::max(limit_w, limit_text[i].size());
  }
  points_w = std::max(points_w, total_points_text.size());
  limit_w = std::max(limit_w, Seconds(total).size());
  auto line = [&](const std::string& a, const std::string& b, const std::string& c) {
    out << absl::StrFormat("%-*s  %*s  %*s", entry_w, a, points_w, b, limit_w, c);
  };
  line(kEntry, kPoints, kLimit);
  out << "\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    line(rows[i].entry, points_text[i], limit_text[i]);
    out << "\n";
  }
  line(total_label, total_points_text, Seconds(total));
  if (!budget_s.has_value()) {
    out << "  (no budget: give the sweep file a \"budget_s\" or pass --budget_s)\n";
  } else if (total <= *budget_s) {
    out << "  of the night's budget of " << Seconds(*budget_s) << " ("
        << Seconds(*budget_s - total) << " to spare)\n";
  } else {
    out << "  OVER the night's budget of " << Seconds(*budget_s) << " by "
        << Seconds(total - *budget_s) << "\n";
  }
  for (const PlanRow& r : rows) {
    if (!r.points.has_value()) out << "? " << r.entry << ": " << r.points_problem << "\n";
  }
}

}  // namespace dissect::sweep
