// The experiment runner; see runner.h.
#include "experiments/harness/runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "absl/strings/string_view.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "experiments/harness/build_info.h"
#include "experiments/result_format/writer.h"
#include "gflags/gflags.h"
#include "kernels/noop.h"
#include "probes/cuda_status.h"
#include "probes/cupti_status.h"
#include "probes/kernel_records.h"
#include "probes/stats.h"
#include "tools/cli/user_path.h"

DEFINE_int32(device, 0, "CUDA device ordinal to measure");
DEFINE_int32(samples, 20, "timed samples per point (1..100000)");
DEFINE_int32(warmup, 3, "untimed launches before the samples (0..10000)");
DEFINE_bool(list, false, "print the axis points that would run, then exit");
DEFINE_bool(kernel_activity, false,
            "also time each point from CUPTI kernel activity records");
DEFINE_bool(resume, false,
            "keep the rows of an existing --benchmark_out file and measure only the points "
            "not in it");
DEFINE_double(cooldown_s, 30,
              "seconds to wait before measuring a throttled point once more (0..3600)");

namespace dissect {
namespace {

constexpr const char* kOurFlags[] = {"device",          "samples", "warmup",    "list",
                                     "kernel_activity", "resume",  "cooldown_s"};

// The error message of a re-measure that was not needed (its point was not
// throttled): such rows are dropped before any reporter sees them.
constexpr char kRemeasureNotNeeded[] = "dissect: re-measure not needed";

struct Args {
  bool help = false;
  std::optional<std::string> metrics;  // --metrics, as given
  std::vector<std::string> axis_specs;
  std::string out_path;
  std::vector<std::string> benchmark_args;  // forwarded to Google Benchmark
};

// One of the harness's flags or of the experiment's own (Experiment::AddFlag).
bool IsOurFlag(absl::string_view name, const Experiment& experiment) {
  for (const char* f : kOurFlags) {
    if (name == f) return true;
  }
  for (const std::string& f : experiment.flags()) {
    if (name == f) return true;
  }
  return false;
}

// Boolean flags: --name means true, --noname false.
bool IsOurBoolFlag(absl::string_view name, const Experiment& experiment) {
  gflags::CommandLineFlagInfo info;
  return IsOurFlag(name, experiment) &&
         gflags::GetCommandLineFlagInfo(std::string(name).c_str(), &info) && info.type == "bool";
}

// Sets one of our gflags from its text, reporting a bad value as a Status.
absl::Status SetOurFlag(absl::string_view name, absl::string_view value) {
  const std::string result = gflags::SetCommandLineOption(
      std::string(name).c_str(), std::string(value).c_str());
  if (result.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad value '", value, "' for --", name));
  }
  return absl::OkStatus();
}

absl::StatusOr<Args> ParseArgs(int argc, char** argv, const Experiment& experiment) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
      args.help = true;
      continue;
    }
    if (arg == "--axis" || arg == "-a") {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError(absl::StrCat(arg, " needs name=values"));
      }
      args.axis_specs.emplace_back(argv[++i]);
      continue;
    }
    if (absl::ConsumePrefix(&arg, "--axis=")) {
      args.axis_specs.emplace_back(arg);
      continue;
    }
    if (arg == "--metrics" || absl::StartsWith(arg, "--metrics=")) {
      if (arg == "--metrics" && i + 1 < argc) {
        args.metrics = argv[++i];
      } else if (absl::ConsumePrefix(&arg, "--metrics=")) {
        args.metrics = std::string(arg);
      }
      if (!args.metrics.has_value() || args.metrics->empty()) {
        return absl::InvalidArgumentError(
            "--metrics needs metric or group names (see --metrics=list)");
      }
      continue;
    }
    if (absl::ConsumePrefix(&arg, "--benchmark_out=")) {
      args.out_path = cli::UserPath(std::string(arg));
      continue;
    }
    if (absl::ConsumePrefix(&arg, "--benchmark_out_format=")) {
      if (arg != "json") {
        return absl::InvalidArgumentError(absl::StrCat(
            "--benchmark_out_format=", arg, ": dissect writes json only"));
      }
      continue;
    }
    if (absl::StartsWith(arg, "--benchmark_repetitions")) {
      return absl::InvalidArgumentError(
          "--benchmark_repetitions is not supported: every point already "
          "reports median, min, max and spread over --samples");
    }
    if (absl::StartsWith(arg, "--benchmark_")) {
      args.benchmark_args.emplace_back(arg);
      continue;
    }
    if (!absl::ConsumePrefix(&arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", argv[i], "' (flags start with --; see --help)"));
    }
    absl::string_view name = arg;
    std::optional<absl::string_view> value;
    if (const size_t eq = arg.find('='); eq != absl::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (IsOurFlag(name, experiment)) {
      if (!value.has_value()) {
        if (IsOurBoolFlag(name, experiment)) {
          value = "true";
        } else if (i + 1 < argc) {
          value = argv[++i];
        } else {
          return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
        }
      }
      if (absl::Status s = SetOurFlag(name, *value); !s.ok()) return s;
      continue;
    }
    if (absl::string_view negated = name;
        absl::ConsumePrefix(&negated, "no") && IsOurBoolFlag(negated, experiment) &&
        !value.has_value()) {
      if (absl::Status s = SetOurFlag(negated, "false"); !s.ok()) return s;
      continue;
    }
    return absl::InvalidArgumentError(
        absl::StrCat("unknown flag '", argv[i], "' (see --help)"));
  }
  if (FLAGS_samples < 1 || FLAGS_samples > 100000) {
    return absl::InvalidArgumentError("--samples must be in 1..100000");
  }
  if (FLAGS_warmup < 0 || FLAGS_warmup > 10000) {
    return absl::InvalidArgumentError("--warmup must be in 0..10000");
  }
  if (FLAGS_device < 0) {
    return absl::InvalidArgumentError("--device must be >= 0");
  }
  if (!(FLAGS_cooldown_s >= 0 && FLAGS_cooldown_s <= 3600)) {
    return absl::InvalidArgumentError("--cooldown_s must be in 0..3600");
  }
  if (FLAGS_resume && args.out_path.empty()) {
    return absl::InvalidArgumentError("--resume needs --benchmark_out=FILE");
  }
  return args;
}

// Hands --benchmark_* flags to Google Benchmark; rejects the ones it does
// not know.
absl::Status InitializeBenchmark(const std::string& argv0,
                                 const std::vector<std::string>& flags) {
  // Google Benchmark keeps argv[0] (the context's "executable"): it must
  // outlive the run.
  static auto* const executable = new std::string();
  *executable = argv0;
  std::vector<std::string> storage = {*executable};
  storage.insert(storage.end(), flags.begin(), flags.end());
  std::vector<char*> ptrs;
  for (std::string& s : storage) ptrs.push_back(s.data());
  ptrs[0] = executable->data();
  ptrs.push_back(nullptr);
  int argc = static_cast<int>(storage.size());
  benchmark::Initialize(&argc, ptrs.data());
  if (argc > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown flag '", ptrs[1], "' (see --help)"));
  }
  return absl::OkStatus();
}

std::string DefaultOutputPath(const std::string& experiment) {
  const std::string dir = cli::UserPath("dissect-results");
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &utc);
  return absl::StrCat(dir, "/", experiment, "-", stamp, ".json");
}

// The folder of a result path ("." for a bare file name).
std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Makes sure the result file can be written, before anything is measured. A
// folder named in --benchmark_out must exist, and a file must be creatable in
// it (tried with the `<path>.tmp` the atomic writer uses, then removed). The
// default folder (`is_default`) may be missing if it can be created: the
// folder above it must be writable (CreateDefaultFolder makes it later, once
// a device is there, so that a run without a GPU leaves nothing behind).
absl::Status CheckOutputPath(const std::string& path, bool is_default) {
  const std::string what =
      is_default ? absl::StrCat("results file ", path) : absl::StrCat("--benchmark_out=", path);
  const std::string dir = FolderOf(path);
  struct stat st{};
  if (stat(dir.c_str(), &st) != 0) {
    if (!is_default) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": folder ", dir, " does not exist"));
    }
    const std::string above = FolderOf(dir);
    if (access(above.c_str(), W_OK | X_OK) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": cannot create folder ", dir, ": ",
                                                     above, ": ", std::strerror(errno)));
    }
    return absl::OkStatus();
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", dir, " is not a folder"));
  }
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": is a folder, not a file"));
  }
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot write there: ", std::strerror(errno)));
  }
  close(fd);
  unlink(tmp.c_str());
  return absl::OkStatus();
}

// Creates the folder of the default result path if it is missing.
absl::Status CreateDefaultFolder(const std::string& path) {
  const std::string dir = FolderOf(path);
  struct stat st{};
  if (stat(dir.c_str(), &st) == 0 || mkdir(dir.c_str(), 0755) == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("cannot create folder ", dir, ": ", std::strerror(errno)));
}

// Owns the measurement stream. It is a blocking stream, so that plain
// cudaMemcpy calls in experiment bodies stay ordered with its kernels.
class Stream {
 public:
  ~Stream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  absl::Status Create() {
    DISSECT_CUDA_RETURN_IF_ERROR(cudaStreamCreate(&stream_));
    return absl::OkStatus();
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

void SetSummaryCounters(benchmark::State& state, const std::string& metric,
                        const Summary& s) {
  state.counters[metric] = s.median;
  state.counters[metric + ".min"] = s.min;
  state.counters[metric + ".max"] = s.max;
  state.counters[metric + ".spread"] = s.spread;
}

// A pass over the point that failed or was never made: a label for the row,
// and for a failure one line on stderr.
void NoteMissingPass(absl::string_view what, absl::string_view collect_fn,
                     const std::string& error, const std::string& point,
                     std::vector<std::string>& labels) {
  if (error.empty()) {
    labels.push_back(absl::StrCat(what, ": not collected (no TimeKernel or ",
                                  collect_fn, ")"));
    return;
  }
  labels.push_back(absl::StrCat(what, ": ", error));
  std::cerr << absl::StrFormat("%s: %s failed, timings kept: %s\n", point,
                               what, error);
}

// The row's cupti/<name> counters, or why it has none.
void ReportCounters(benchmark::State& state, const PointContext& ctx,
                    const std::string& point,
                    std::vector<std::string>& labels) {
  if (const std::optional<CounterReading>& r = ctx.counter_reading();
      r.has_value()) {
    for (const CounterValue& v : r->values) {
      state.counters[absl::StrCat(kCounterPrefix, v.name)] = v.value;
    }
    state.counters[absl::StrCat(kCounterPrefix, "passes")] = r->passes;
  } else if (ctx.counters_requested()) {
    NoteMissingPass("counters", "CollectCounters", ctx.counters_error(), point,
                    labels);
  }
}

// The row's activity/* counters, or why it has none. `time` summarizes the
// event-timed samples.
void ReportActivity(benchmark::State& state, const PointContext& ctx,
                    const std::optional<Summary>& time,
                    const std::string& point,
                    std::vector<std::string>& labels) {
  if (!ctx.activity_requested()) return;
  std::string error = ctx.activity_error();
  if (error.empty() && !ctx.activity_samples().empty()) {
    absl::StatusOr<Summary> activity = Summarize(ctx.activity_samples());
    if (activity.ok()) {
      SetSummaryCounters(state, kActivityKernelMs, *activity);
      const double pct =
          time.has_value() ? AgreementPercent(activity->median, time->median)
                           : std::numeric_limits<double>::quiet_NaN();
      if (std::isfinite(pct)) state.counters[kActivityVsEventsPct] = pct;
      return;
    }
    error = std::string(activity.status().message());
  }
  NoteMissingPass("activity", "CollectKernelActivity", error, point, labels);
}

// The row's SM clock: the reads after the warm-up and after the samples
// (sm_clock_mhz.before/.after), the readings polled while the samples ran
// (sm_clock_mhz.min/.median/.max, sm_clock_readings, clock_moved), and
// `throttled` if any of them had a slowdown reason. A throttle and a clock
// that moved are named first in the label.
void ReportClock(benchmark::State& state, const PointContext& ctx,
                 std::vector<std::string>& labels) {
  const std::optional<ClockReading>& before = ctx.clock_before();
  const std::optional<ClockReading>& after = ctx.clock_after();
  const std::optional<ClockSpan>& span = ctx.clock_span();
  uint64_t reasons = 0;
  bool known = !ctx.throttle_reason().empty();
  if (before.has_value() && after.has_value()) {
    state.counters["sm_clock_mhz.before"] = before->sm_clock_mhz;
    state.counters["sm_clock_mhz.after"] = after->sm_clock_mhz;
    reasons |= before->reasons | after->reasons;
    known = true;
  }
  if (span.has_value()) {
    state.counters["sm_clock_mhz.min"] = span->min_mhz;
    state.counters["sm_clock_mhz.median"] = span->median_mhz;
    state.counters["sm_clock_mhz.max"] = span->max_mhz;
    state.counters["sm_clock_readings"] = span->readings;
    state.counters["clock_moved"] = span->moved() ? 1 : 0;
    if (span->moved()) {
      labels.insert(labels.begin(), absl::StrFormat("clock moved %.0f-%.0f MHz", span->min_mhz,
                                                    span->max_mhz));
    }
    reasons |= span->reasons;
    known = true;
  }
  if (!known) return;
  const bool throttled = (reasons & kThrottleSlowdownMask) != 0;
  state.counters["throttled"] = throttled || !ctx.throttle_reason().empty() ? 1 : 0;
  if (throttled) labels.insert(labels.begin(), DescribeThrottleReasons(reasons));
  if (!ctx.throttle_reason().empty()) labels.insert(labels.begin(), ctx.throttle_reason());
}

// The compute capability of `device` as major * 10 + minor.
int ComputeCapabilityOf(const DeviceInfo& device) {
  return device.cc_major * 10 + device.cc_minor;
}

// The experiment's body, or Skipped(why) without it on a device whose
// compute capability the experiment did not declare it can use.
absl::Status RunBody(const Experiment& experiment, PointContext& ctx) {
  if (!experiment.requires_gpu()) return experiment.run()(ctx);
  const std::string unmet = UnmetComputeCapability(experiment, ComputeCapabilityOf(ctx.device()));
  if (!unmet.empty()) return Skipped(unmet);
  return experiment.run()(ctx);
}

// Measures one point inside a Google Benchmark run; `attempt` 2 is the
// re-measure of a throttled point. Returns whether the row is throttled.
bool RunOnePoint(benchmark::State& state, const Experiment& experiment,
                 const Point& point, const RunEnv& env, int index, int total,
                 int attempt, int* failures) {
  if (env.progress) {
    std::cerr << absl::StrFormat("[%d/%d] %s%s\n", index + 1, total,
                                 point.Name(experiment.name()),
                                 attempt > 1 ? absl::StrCat(": ", RemeasuredNote(env.cooldown_s))
                                             : "");
  }
  PointContext ctx(point, env.device, env.timing, env.stream, env.clock,
                   env.counters.collector, env.activity.timer);
  ctx.set_attempt(attempt);
  absl::Status status = RunBody(experiment, ctx);
  std::optional<Summary> time;
  if (status.ok()) {
    for (const MetricSpec& m : experiment.metrics()) {
      if (ctx.metric_samples().count(m.name) == 0) {
        status = absl::InternalError(
            absl::StrCat("experiment reported no samples for metric ", m.name));
        break;
      }
    }
    for (const auto& [name, samples] : ctx.metric_samples()) {
      if (experiment.FindMetric(name) == nullptr) {
        status = absl::InternalError(
            absl::StrCat("experiment reported undeclared metric ", name));
      }
    }
    for (const auto& [name, values] : ctx.vectors()) {
      if (experiment.FindVector(name) == nullptr) {
        status = absl::InternalError(
            absl::StrCat("experiment reported undeclared vector ", name));
      }
    }
    if (status.ok() && !ctx.time_samples().empty()) {
      absl::StatusOr<Summary> t = Summarize(ctx.time_samples());
      if (t.ok()) {
        time = *t;
      } else {
        status = t.status();
      }
    }
  }
  if (!status.ok()) {
    if (IsSkipped(status)) {
      state.SkipWithError(absl::StrCat("skipped: ", status.message()).c_str());
    } else {
      ++*failures;
      state.SkipWithError(absl::StrCat("error: ", status.ToString()).c_str());
    }
    return false;
  }
  for (auto _ : state) {
    state.SetIterationTime(time.has_value() ? time->median * 1e-3 : 0.0);
  }
  for (const auto& [name, samples] : ctx.metric_samples()) {
    // A metric the point cannot define (e.g. a per-GPC figure on a GPU
    // without clusters) is reported as NaN samples only: written as NaN.
    if (std::all_of(samples.begin(), samples.end(), [](double v) { return std::isnan(v); })) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      SetSummaryCounters(state, name, Summary{nan, nan, nan, nan, samples.size()});
      continue;
    }
    absl::StatusOr<Summary> s = Summarize(samples);
    if (!s.ok()) {
      ++*failures;
      state.SkipWithError(
          absl::StrCat("error: metric ", name, ": ", s.status().message()).c_str());
      return false;
    }
    SetSummaryCounters(state, name, *s);
  }
  for (const auto& [name, values] : ctx.vectors()) {
    for (size_t i = 0; i < values.size(); ++i) {
      state.counters[absl::StrCat(name, "[", i, "]")] = values[i];
    }
  }
  size_t samples = time.has_value() ? time->count : 0;
  if (!time.has_value() && !ctx.metric_samples().empty()) {
    samples = ctx.metric_samples().begin()->second.size();
  }
  state.counters["samples"] = static_cast<double>(samples);
  std::vector<std::string> labels;
  const std::string point_name = point.Name(experiment.name());
  ReportCounters(state, ctx, point_name, labels);
  ReportActivity(state, ctx, time, point_name, labels);
  ReportClock(state, ctx, labels);
  if (ctx.timing_retries() > 0) state.counters["timing_retries"] = ctx.timing_retries();
  if (ctx.launches_per_sample() != 1) {
    state.counters["launches_per_sample"] = ctx.launches_per_sample();
  }
  if (attempt > 1) {
    state.counters["attempt"] = attempt;
    labels.push_back(RemeasuredNote(env.cooldown_s));
  }
  labels.insert(labels.end(), ctx.notes().begin(), ctx.notes().end());
  if (!labels.empty()) state.SetLabel(absl::StrJoin(labels, "; "));
  const auto throttled = state.counters.find("throttled");
  return throttled != state.counters.end() && throttled->second.value != 0;
}

// Hands reports on to `next`, without the rows of re-measures that were not
// needed.
class DropUnneededRemeasures : public benchmark::BenchmarkReporter {
 public:
  explicit DropUnneededRemeasures(benchmark::BenchmarkReporter* next) : next_(next) {}
  bool ReportContext(const Context& context) override { return next_->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> kept;
    for (const Run& run : runs) {
      if (!(run.error_occurred && run.error_message == kRemeasureNotNeeded)) kept.push_back(run);
    }
    if (!kept.empty()) next_->ReportRuns(kept);
  }
  void Finalize() override { next_->Finalize(); }

 private:
  benchmark::BenchmarkReporter* next_;
};

}  // namespace

std::string RemeasuredNote(double cooldown_s) {
  return absl::StrFormat("re-measured after throttling (cool-down %g s)", cooldown_s);
}

std::vector<std::pair<std::string, std::string>> ResultContext(
    const Experiment& experiment, const std::vector<AxisSpec>& axes,
    const RunEnv& env) {
  const BuildInfo& build = GetBuildInfo();
  std::vector<std::pair<std::string, std::string>> ctx = {
      {"dissect_schema_version", kSchemaVersion},
      {"dissect_experiment", experiment.name()},
      {"dissect_question", experiment.question()},
      {"git_commit", build.git_commit},
      {"git_dirty", build.git_dirty},
      {"build_mode", build.mode},
      {"build_cuda_archs", build.cuda_archs},
      {"build_nvcc_version", build.nvcc_version},
      {"build_host_compiler", build.host_compiler},
      {"clocks_source", env.clocks_source},
      {"timing_samples", absl::StrCat(env.timing.samples)},
      {"timing_warmup", absl::StrCat(env.timing.warmup)},
      {"timing_method", experiment.requires_gpu() ? kTimingMethod : kHostTimingMethod},
  };
  if (experiment.requires_gpu()) {
    for (auto& kv : env.device.ContextEntries()) ctx.push_back(std::move(kv));
    const std::string unmet =
        UnmetComputeCapability(experiment, ComputeCapabilityOf(env.device));
    if (!unmet.empty()) ctx.emplace_back(kSkippedOnDeviceKey, unmet);
  } else {
    ctx.emplace_back("device_name", env.device.name);
  }
  if (env.resumed_rows > 0) ctx.emplace_back("resumed_rows", absl::StrCat(env.resumed_rows));
  std::vector<std::string> axis_names;
  for (const AxisSpec& a : axes) {
    axis_names.push_back(a.name);
    ctx.emplace_back(absl::StrCat("axis.", a.name, ".unit"), a.unit);
    ctx.emplace_back(absl::StrCat("axis.", a.name, ".type"),
                     a.type == AxisType::kInt64 ? "int64" : "string");
  }
  std::vector<std::string> metric_names;
  for (const MetricSpec& m : experiment.metrics()) {
    metric_names.push_back(m.name);
    ctx.emplace_back(absl::StrCat("metric.", m.name, ".unit"), m.unit);
  }
  ctx.emplace_back("dissect_axes", absl::StrJoin(axis_names, ","));
  ctx.emplace_back("dissect_metrics", absl::StrJoin(metric_names, ","));
  if (!experiment.vectors().empty()) {
    std::vector<std::string> vector_names;
    for (const VectorSpec& v : experiment.vectors()) {
      vector_names.push_back(v.name);
      ctx.emplace_back(absl::StrCat("vector.", v.name, ".unit"), v.unit);
      ctx.emplace_back(absl::StrCat("vector.", v.name, ".index"), v.index);
    }
    ctx.emplace_back("dissect_vectors", absl::StrJoin(vector_names, ","));
  }
  const CounterSetup& counters = env.counters;
  if (!counters.metrics.empty()) {
    std::vector<std::string> counter_names;
    std::vector<std::string> skipped;  // "name: why" of metrics the chip lacks
    for (const CatalogMetric* m : counters.metrics) {
      const std::string name = absl::StrCat(kCounterPrefix, m->name);
      counter_names.push_back(name);
      ctx.emplace_back(absl::StrCat("metric.", name, ".unit"), m->unit);
      if (const auto it = m->perfworks.find(counters.chip); it != m->perfworks.end()) {
        ctx.emplace_back(absl::StrCat("metric.", name, ".perfworks"), it->second);
      }
      if (const auto why = m->unavailable.find(counters.chip); why != m->unavailable.end()) {
        skipped.push_back(absl::StrCat(m->name, ": ", why->second));
      }
    }
    ctx.emplace_back("dissect_counters", absl::StrJoin(counter_names, ","));
    if (counters.collector != nullptr) {
      ctx.emplace_back("counters_source",
                       absl::StrCat("cupti range profiler, ", counters.replay, " replay"));
      ctx.emplace_back("counters_chip", counters.chip);
      ctx.emplace_back("counters_passes", absl::StrCat(counters.passes));
      if (!skipped.empty()) ctx.emplace_back("counters_skipped", absl::StrJoin(skipped, "; "));
    } else {
      ctx.emplace_back("counters_unavailable", counters.unavailable);
    }
  }
  const ActivitySetup& activity = env.activity;
  if (activity.requested) {
    ctx.emplace_back("dissect_activity", absl::StrCat(kActivityKernelMs, ",",
                                                      kActivityVsEventsPct));
    ctx.emplace_back(absl::StrCat("metric.", kActivityKernelMs, ".unit"), "ms");
    ctx.emplace_back(absl::StrCat("metric.", kActivityVsEventsPct, ".unit"),
                     "%");
    if (activity.timer != nullptr) {
      ctx.emplace_back("activity_source",
                       "cupti activity api, concurrent kernel records, own pass");
    } else {
      ctx.emplace_back("activity_unavailable", activity.unavailable);
    }
  }
  for (const auto& [key, value] : experiment.context()) ctx.emplace_back(key, value);
  return ctx;
}

int RunPoints(const Experiment& experiment, const std::vector<AxisSpec>& axes,
              const std::vector<Point>& points, const RunEnv& env,
              benchmark::BenchmarkReporter* display,
              benchmark::BenchmarkReporter* file) {
  for (const auto& [key, value] : ResultContext(experiment, axes, env)) {
    benchmark::AddCustomContext(key, value);
  }
  int failures = 0;
  const int total = static_cast<int>(points.size());
  // Whether each point's first measurement was throttled. Its re-measure is
  // registered next to it (Google Benchmark runs what was registered
  // before the run started) and runs only then.
  std::vector<char> throttled(total, 0);
  for (int i = 0; i < total; ++i) {
    const Point& point = points[i];
    const std::string name = point.Name(experiment.name());
    benchmark::RegisterBenchmark(
        name.c_str(),
        [&experiment, &point, &env, i, total, &failures, &throttled](benchmark::State& st) {
          throttled[i] = RunOnePoint(st, experiment, point, env, i, total, 1, &failures);
        })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [&experiment, &point, &env, i, total, &failures, &throttled](benchmark::State& st) {
          if (!throttled[i]) {
            st.SkipWithError(kRemeasureNotNeeded);
            return;
          }
          std::this_thread::sleep_for(std::chrono::duration<double>(env.cooldown_s));
          RunOnePoint(st, experiment, point, env, i, total, 2, &failures);
        })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  result_format::TeeReporter tee(display, file);
  DropUnneededRemeasures reports(&tee);
  benchmark::RunSpecifiedBenchmarks(&reports);
  benchmark::ClearRegisteredBenchmarks();
  return failures;
}

namespace {

// `head` then the comma-separated `list`, wrapped at 80 columns under it.
std::string WrapList(const std::string& head, const std::string& list) {
  std::string text = head;
  size_t column = head.size();
  const std::vector<std::string> items = absl::StrSplit(list, ", ");
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (column > head.size() && column + 1 + item.size() > 80) {
      absl::StrAppend(&text, "\n", std::string(head.size(), ' '));
      column = head.size();
    } else if (column > head.size()) {
      text += ' ';
      ++column;
    }
    text += item;
    column += item.size();
  }
  return text + "\n";
}

// "<cause>: <reason>" of a failed counter or activity setup, for the
// result context; warns once on stderr.
std::string Unavailable(absl::string_view what, const absl::Status& status,
                        const std::string& prefix) {
  const std::string why =
      absl::StrCat(CounterCauseName(CounterCauseOf(status)), ": ", status.message());
  std::cerr << prefix << what << " unavailable, timings only: " << why << "\n";
  return why;
}

// Sets up --kernel_activity and times an empty kernel with it once, so that
// a missing CUPTI or another CUPTI client shows before any point (and lands
// in the result context). Returns the timer to keep alive; on failure
// records why in env.activity.unavailable and warns on stderr.
std::unique_ptr<KernelTimer> SetUpActivity(RunEnv& env, const std::string& prefix) {
  auto timer = std::make_unique<CuptiKernelTimer>();
  TimingOptions trial;
  trial.warmup = 0;
  trial.samples = 1;
  const absl::Status status =
      timer->Time(LaunchNoop, trial, nullptr, env.stream).status();
  if (!status.ok()) {
    env.activity.unavailable = Unavailable("kernel activity", status, prefix);
    return nullptr;
  }
  env.activity.timer = timer.get();
  return timer;
}

// Sets up the --metrics counters and runs them once over an empty kernel, so
// that a missing permission or an attached profiler shows before any point
// (and lands in the result context). Returns the collector to keep alive;
// on failure records why in env.counters.unavailable and warns on stderr.
std::unique_ptr<CuptiCounters> SetUpCounters(RunEnv& env, const std::string& prefix) {
  absl::StatusOr<std::unique_ptr<CuptiCounters>> counters =
      CuptiCounters::Create(env.device.index, env.counters.metrics);
  absl::Status status = counters.status();
  if (status.ok()) {
    env.counters.chip = (*counters)->chip();
    status = (*counters)->Collect(LaunchNoop, env.stream, nullptr).status();
  }
  if (!status.ok()) {
    env.counters.unavailable = Unavailable("counters", status, prefix);
    return nullptr;
  }
  for (const SkippedCounter& skipped : (*counters)->skipped()) {
    std::cerr << prefix << "counter " << skipped.name << " skipped on " << env.counters.chip
              << ": " << skipped.reason << "\n";
  }
  env.counters.collector = counters->get();
  env.counters.replay = CounterReplayName((*counters)->replay());
  env.counters.passes = (*counters)->passes();
  return *std::move(counters);
}

// What a GPU run holds until its points are measured.
struct GpuResources {
  std::unique_ptr<NvmlClock> clock;
  Stream stream;
  std::unique_ptr<CuptiCounters> counters;
  std::unique_ptr<KernelTimer> activity;
};

// Selects --device and fills `env` with it: device properties, SM clocks,
// the stream, --metrics counters and --kernel_activity. Returns an exit
// status (kExitOk when the points can run).
int SetUpGpu(RunEnv& env, GpuResources& gpu, const std::vector<const CatalogMetric*>& metrics,
             const std::string& prefix) {
  absl::StatusOr<int> count = VisibleDeviceCount();
  if (!count.ok()) {
    std::cerr << prefix << count.status().message() << "\n";
    return kExitBadInput;
  }
  if (FLAGS_device >= *count) {
    std::cerr << prefix << "--device=" << FLAGS_device << " but only " << *count
              << " CUDA device(s) are visible\n";
    return kExitBadInput;
  }
  if (absl::Status s = CudaStatus(cudaSetDevice(FLAGS_device), "cudaSetDevice",
                                  __FILE__, __LINE__);
      !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitBadInput;
  }
  absl::StatusOr<DeviceInfo> device = QueryDevice(FLAGS_device);
  if (!device.ok()) {
    std::cerr << prefix << device.status().message() << "\n";
    return kExitPointFailed;
  }
  env.device = *std::move(device);
  absl::StatusOr<std::unique_ptr<NvmlClock>> clock =
      NvmlClock::Open(env.device.pci_bus_id);
  if (clock.ok()) {
    gpu.clock = *std::move(clock);
    env.clock = gpu.clock.get();
    env.clocks_source = "nvml";
  } else {
    env.clocks_source = absl::StrCat("unavailable: ", clock.status().message());
    std::cerr << prefix << "SM clocks will not be recorded: "
              << clock.status().message() << "\n";
  }
  if (absl::Status s = gpu.stream.Create(); !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitPointFailed;
  }
  env.stream = gpu.stream.get();
  env.counters.metrics = metrics;
  if (!metrics.empty()) gpu.counters = SetUpCounters(env, prefix);
  env.activity.requested = FLAGS_kernel_activity;
  if (FLAGS_kernel_activity) gpu.activity = SetUpActivity(env, prefix);
  return kExitOk;
}

}  // namespace

std::string HelpText(const Experiment& experiment, const std::string& argv0) {
  std::string text = absl::StrCat(experiment.name(), ": ", experiment.question(),
                                  "\n\nUsage: ", argv0, " [flags]\n"
                                  "   or: bazel run //experiments:",
                                  experiment.name(), " -- [flags]\n\nAxes",
                                  " (override with --axis=NAME=VALUES, repeatable):\n");
  for (const AxisSpec& a : experiment.axes()) {
    absl::StrAppendFormat(&text, "  %-18s [%s] %s\n", a.name, a.unit,
                          a.type == AxisType::kInt64 ? "int64" : "string");
    if (!a.help.empty()) absl::StrAppend(&text, "      ", a.help, "\n");
    absl::StrAppend(&text, "      default: ", DescribeValues(a), "\n");
    if (a.type == AxisType::kString) {
      absl::StrAppend(&text, "      choices: ", absl::StrJoin(a.choices, ", "), "\n");
    }
  }
  absl::StrAppend(&text, "\nMetrics (each reported as median, .min, .max, .spread):\n");
  for (const MetricSpec& m : experiment.metrics()) {
    absl::StrAppendFormat(&text, "  %-18s [%s] %s\n", m.name, m.unit, m.help);
  }
  if (!experiment.compute_capability_needs().empty()) {
    absl::StrAppend(&text, "\nNeeds (every point is skipped on another GPU):\n");
    for (const ComputeCapabilityNeed& need : experiment.compute_capability_needs()) {
      absl::StrAppend(&text, "  ", DescribeNeed(need), "\n");
    }
  }
  if (!experiment.context().empty()) {
    absl::StrAppend(&text, "\nContext (in every result file, see analysis/SCHEMA.md):\n");
    for (const auto& [key, value] : experiment.context()) {
      absl::StrAppendFormat(&text, "  %-18s %s\n", key, value);
    }
  }
  if (!experiment.vectors().empty()) {
    absl::StrAppend(&text, "\nVectors (row counters NAME[i], i = the index shown):\n");
    for (const VectorSpec& v : experiment.vectors()) {
      absl::StrAppendFormat(&text, "  %-18s [%s] index %s. %s\n", v.name, v.unit, v.index,
                            v.help);
    }
  }
  absl::StrAppend(
      &text,
      "\nFlags:\n"
      "  --axis=NAME=VALUES   integers: 4096 | 1KiB,4KiB,1MiB | 1KiB:64KiB:*2 | "
      "0:256:+64\n"
      "                       (K/KiB, M/MiB, G/GiB are binary); strings: "
      "comma-separated choices\n",
      absl::StrFormat("  --device=N           CUDA device ordinal (default %d)\n",
                      FLAGS_device),
      absl::StrFormat("  --samples=N          timed samples per point (default %d)\n",
                      FLAGS_samples),
      absl::StrFormat("  --warmup=N           untimed launches first (default %d)\n",
                      FLAGS_warmup),
      "  --list               print the points that would run, then exit\n"
      "  --metrics=NAMES      hardware counters per point (CUPTI), comma-separated\n"
      "                       metrics and groups (below); --metrics=list shows\n"
      "                       units and help. Collected in replay passes after the\n"
      "                       timed samples, as cupti/<name> in each row\n"
      "  --kernel_activity    also time each point from CUPTI's kernel activity\n"
      "                       records (GPU start/end of its kernels, no launch\n"
      "                       overhead), in a pass of its own after the timed\n"
      "                       samples and counters: activity/kernel_ms and\n"
      "                       activity/vs_events_pct (vs the event median) per row\n"
      "  --resume             with --benchmark_out=FILE: keep the rows of an existing\n"
      "                       FILE of this experiment and measure only the points\n"
      "                       without a row there (a file that is not one: exit 2,\n"
      "                       left untouched)\n",
      absl::StrFormat("  --cooldown_s=S       seconds to wait before measuring a throttled point\n"
                      "                       once more; both rows are kept, the second with\n"
                      "                       counter attempt 2 (default %g, 0..3600)\n",
                      FLAGS_cooldown_s),
      "  --benchmark_out=FILE result JSON (default: "
      "dissect-results/<experiment>-<UTC time>.json\n"
      "                       under the directory bazel run was started from); its\n"
      "                       folder must exist and be writable (checked first)\n"
      "  --benchmark_filter=REGEX and the other --benchmark_* flags of Google "
      "Benchmark 1.7.1\n"
      "                       (--benchmark_min_time takes plain seconds)\n"
      "\nResults: Google Benchmark JSON with dissect context; see "
      "analysis/SCHEMA.md.\n"
      "Summarize: bazel run //analysis:report -- <files or folders>\n"
      "Exit status: 0 ok (skipped points included), 1 a point failed, "
      "2 bad input or no GPU.\n");
  if (!experiment.flags().empty()) {
    absl::StrAppend(&text, "\n", experiment.name(), "'s own flags:\n");
    for (const std::string& name : experiment.flags()) {
      gflags::CommandLineFlagInfo info;
      if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info)) continue;
      absl::StrAppendFormat(&text, "  --%s=%s (default %s)\n      %s\n", name,
                            info.type == "bool" ? "true|false" : "V", info.default_value,
                            info.description);
    }
  }
  if (!experiment.requires_gpu()) {
    absl::StrAppend(&text, "\n", experiment.name(),
                    " needs no GPU: --device, --metrics and --kernel_activity do not apply.\n");
    return text;
  }
  const MetricCatalog& catalog = MetricCatalog::Embedded();
  absl::StrAppend(&text, "\nHardware counters (--metrics):\n",
                  WrapList("  groups:  ", catalog.GroupNames()),
                  WrapList("  metrics: ", catalog.MetricNames()));
  return text;
}

int RunMain(const Experiment& experiment, int argc, char** argv) {
  const std::string argv0 = argc > 0 ? argv[0] : experiment.name();
  const std::string prefix = experiment.name() + ": ";
  absl::StatusOr<Args> args = ParseArgs(argc, argv, experiment);
  if (!args.ok()) {
    std::cerr << prefix << args.status().message() << "\n";
    return kExitBadInput;
  }
  if (args->help) {
    std::cout << HelpText(experiment, argv0);
    return kExitOk;
  }
  if (args->metrics == "list") {
    std::cout << MetricCatalog::Embedded().Describe();
    return kExitOk;
  }
  std::vector<const CatalogMetric*> metrics;
  if (args->metrics.has_value()) {
    absl::StatusOr<std::vector<const CatalogMetric*>> resolved =
        MetricCatalog::Embedded().Resolve(*args->metrics);
    if (!resolved.ok()) {
      std::cerr << prefix << "--metrics: " << resolved.status().message() << "\n";
      return kExitBadInput;
    }
    metrics = *std::move(resolved);
  }
  if (!experiment.requires_gpu() && (!metrics.empty() || FLAGS_kernel_activity)) {
    std::cerr << prefix << (metrics.empty() ? "--kernel_activity" : "--metrics")
              << " needs a GPU; " << experiment.name() << " runs on the CPU only\n";
    return kExitBadInput;
  }
  if (absl::Status s = InitializeBenchmark(argv0, args->benchmark_args); !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitBadInput;
  }
  std::vector<AxisSpec> axes = experiment.axes();
  for (const AxisSpec& a : axes) {
    if (absl::Status s = ValidateAxisSpec(a); !s.ok()) {
      std::cerr << prefix << "bad declaration: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  for (const std::string& spec : args->axis_specs) {
    if (absl::Status s = ApplyAxisOverride(axes, spec); !s.ok()) {
      std::cerr << prefix << s.message() << "\n";
      return kExitBadInput;
    }
  }
  const std::vector<Point> points = CartesianProduct(axes);
  for (const Point& p : points) {
    if (!experiment.validate()) break;
    if (absl::Status s = experiment.validate()(p); !s.ok()) {
      std::cerr << prefix << p.Name(experiment.name()) << ": " << s.message()
                << "\n";
      return kExitBadInput;
    }
  }
  if (FLAGS_list) {
    for (const Point& p : points) std::cout << p.Name(experiment.name()) << "\n";
    return kExitOk;
  }

  // Before the device: an unwritable result path must not cost a run.
  const std::string out_path = args->out_path.empty()
                                   ? DefaultOutputPath(experiment.name())
                                   : args->out_path;
  if (absl::Status s = CheckOutputPath(out_path, args->out_path.empty()); !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitBadInput;
  }
  std::vector<Point> to_measure = points;
  result_format::ResumedRows resumed;
  if (FLAGS_resume) {
    struct stat st{};
    if (stat(out_path.c_str(), &st) == 0) {
      absl::StatusOr<result_format::ResumedRows> kept = result_format::ReadResumedRows(out_path, experiment.name());
      if (!kept.ok()) {
        std::cerr << prefix << kept.status().message() << "\n";
        return kExitBadInput;
      }
      resumed = *std::move(kept);
      to_measure.clear();
      for (const Point& p : points) {
        if (resumed.point_names.count(p.Name(experiment.name())) == 0) to_measure.push_back(p);
      }
    }
    std::cerr << prefix << "resume: kept " << resumed.rows.size() << " row(s), measuring "
              << to_measure.size() << " point(s)\n";
    if (to_measure.empty()) return resumed.failed > 0 ? kExitPointFailed : kExitOk;
  }

  RunEnv env;
  env.cooldown_s = FLAGS_cooldown_s;
  env.resumed_rows = static_cast<int>(resumed.rows.size());
  env.timing.samples = FLAGS_samples;
  env.timing.warmup = FLAGS_warmup;
  GpuResources gpu;
  if (experiment.requires_gpu()) {
    if (const int status = SetUpGpu(env, gpu, metrics, prefix); status != kExitOk) {
      return status;
    }
  } else {
    env.device.name = absl::StrCat("cpu (", experiment.name(), ", no GPU)");
    env.clocks_source = "unavailable: no GPU";
  }

  if (experiment.requires_gpu()) {
    if (const std::string unmet =
            UnmetComputeCapability(experiment, ComputeCapabilityOf(env.device));
        !unmet.empty()) {
      std::cerr << prefix << "skipping every point on " << env.device.name << ": " << unmet
                << "\n";
    }
  }
  if (args->out_path.empty()) {
    if (absl::Status s = CreateDefaultFolder(out_path); !s.ok()) {
      std::cerr << prefix << s.message() << "\n";
      return kExitBadInput;
    }
  }
  benchmark::ConsoleReporter console;
  result_format::AtomicJsonReporter file(out_path);
  file.CarryRows(std::move(resumed.rows));
  const int failures =
      RunPoints(experiment, axes, to_measure, env, &console, &file) + resumed.failed;
  if (!file.status().ok()) {
    std::cerr << prefix << "results not saved: " << file.status().message() << "\n";
    return kExitPointFailed;
  }
  std::cerr << prefix << "wrote " << file.rows() << " row(s) to " << out_path
            << "\n";
  if (failures > 0) {
    std::cerr << prefix << failures << " point(s) failed; see error_message in "
              << out_path << "\n";
    return kExitPointFailed;
  }
  return kExitOk;
}

}  // namespace dissect
