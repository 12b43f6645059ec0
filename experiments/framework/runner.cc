// The experiment runner; see runner.h. Its parts: the command line (cli.cc),
// the result path (output_paths.cc), the device (device_setup.cc) and each
// point's measurement and row (point_recording.cc).
#include "experiments/framework/runner.h"

#include <sys/stat.h>

#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/framework/build_info.h"
#include "experiments/framework/runner_internal.h"
#include "experiments/result_format/reader.h"
#include "experiments/result_format/writer.h"

namespace dissect {
namespace {

using Context = std::vector<std::pair<std::string, std::string>>;
using runner_internal::Args;
using runner_internal::ComputeCapabilityOf;

// The context of --metrics: the counters' names, units and source, or why
// there are none.
void AppendCounterContext(const CounterSetup& counters, Context& ctx) {
  if (counters.metrics.empty()) return;
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

// The context of --kernel_activity: its row counters and source, or why
// there are none.
void AppendActivityContext(const ActivitySetup& activity, Context& ctx) {
  if (!activity.requested) return;
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

// The counters --metrics names (none without it); an exit status if they
// are unknown or this experiment cannot collect them.
std::optional<int> ResolveMetrics(const Experiment& experiment, const Args& args,
                                  const std::string& prefix,
                                  std::vector<const CatalogMetric*>& metrics) {
  if (args.metrics.has_value()) {
    absl::StatusOr<std::vector<const CatalogMetric*>> resolved =
        MetricCatalog::Embedded().Resolve(*args.metrics);
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
  return std::nullopt;
}

// The experiment's axes with the --axis overrides applied, and the points
// they span; an exit status if the declaration, an override or a point is
// bad.
std::optional<int> PlanPoints(const Experiment& experiment, const Args& args,
                              const std::string& prefix, std::vector<AxisSpec>& axes,
                              std::vector<Point>& points) {
  axes = experiment.axes();
  for (const AxisSpec& a : axes) {
    if (absl::Status s = ValidateAxisSpec(a); !s.ok()) {
      std::cerr << prefix << "bad declaration: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  for (const std::string& spec : args.axis_specs) {
    if (absl::Status s = ApplyAxisOverride(axes, spec); !s.ok()) {
      std::cerr << prefix << s.message() << "\n";
      return kExitBadInput;
    }
  }
  points = CartesianProduct(axes);
  for (const Point& p : points) {
    if (!experiment.validate()) break;
    if (absl::Status s = experiment.validate()(p); !s.ok()) {
      std::cerr << prefix << p.Name(experiment.name()) << ": " << s.message()
                << "\n";
      return kExitBadInput;
    }
  }
  return std::nullopt;
}

// --resume: the rows kept from an existing result file and the points
// without one, still to measure; an exit status if the file is not one of
// this experiment's, or if nothing is left to measure.
std::optional<int> Resume(const Experiment& experiment, const std::string& out_path,
                          const std::vector<Point>& points, const std::string& prefix,
                          std::vector<Point>& to_measure, result_format::ResumedRows& resumed) {
  struct stat st{};
  if (stat(out_path.c_str(), &st) == 0) {
    absl::StatusOr<result_format::ResumedRows> kept =
        result_format::ReadResumedRows(out_path, experiment.name());
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
  return std::nullopt;
}

// The device the points run on (a CPU-only experiment: none) and the timing
// flags; an exit status if the device cannot be set up.
std::optional<int> SetUpEnv(const Experiment& experiment,
                            const std::vector<const CatalogMetric*>& metrics, int resumed_rows,
                            const std::string& prefix, RunEnv& env,
                            runner_internal::GpuResources& gpu) {
  env.cooldown_s = FLAGS_cooldown_s;
  env.resumed_rows = resumed_rows;
  env.timing.samples = FLAGS_samples;
  env.timing.warmup = FLAGS_warmup;
  if (!experiment.requires_gpu()) {
    env.device.name = absl::StrCat("cpu (", experiment.name(), ", no GPU)");
    env.clocks_source = "unavailable: no GPU";
    return std::nullopt;
  }
  if (const int status = runner_internal::SetUpGpu(env, gpu, metrics, prefix);
      status != kExitOk) {
    return status;
  }
  if (const std::string unmet =
          UnmetComputeCapability(experiment, ComputeCapabilityOf(env.device));
      !unmet.empty()) {
    std::cerr << prefix << "skipping every point on " << env.device.name << ": " << unmet
              << "\n";
  }
  return std::nullopt;
}

// Measures `to_measure` into the result file at `out_path`, after the rows
// kept by --resume; returns the exit status.
int MeasureAndWrite(const Experiment& experiment, const std::vector<AxisSpec>& axes,
                    const std::vector<Point>& to_measure, const RunEnv& env,
                    const std::string& out_path, bool default_path,
                    result_format::ResumedRows resumed, const std::string& prefix) {
  if (default_path) {
    if (absl::Status s = runner_internal::CreateDefaultFolder(out_path); !s.ok()) {
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

}  // namespace

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
  if (!experiment.headline_metric().empty()) {
    ctx.emplace_back(result_format::kHeadlineMetricKey, experiment.headline_metric());
  }
  if (!experiment.vectors().empty()) {
    std::vector<std::string> vector_names;
    for (const VectorSpec& v : experiment.vectors()) {
      vector_names.push_back(v.name);
      ctx.emplace_back(absl::StrCat("vector.", v.name, ".unit"), v.unit);
      ctx.emplace_back(absl::StrCat("vector.", v.name, ".index"), v.index);
    }
    ctx.emplace_back("dissect_vectors", absl::StrJoin(vector_names, ","));
  }
  AppendCounterContext(env.counters, ctx);
  AppendActivityContext(env.activity, ctx);
  for (const auto& [key, value] : experiment.context()) ctx.emplace_back(key, value);
  return ctx;
}

int RunMain(const Experiment& experiment, int argc, char** argv) {
  const std::string argv0 = argc > 0 ? argv[0] : experiment.name();
  const std::string prefix = experiment.name() + ": ";
  absl::StatusOr<Args> args = runner_internal::ParseArgs(argc, argv, experiment);
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
  if (auto exit = ResolveMetrics(experiment, *args, prefix, metrics)) return *exit;
  if (absl::Status s = runner_internal::InitializeBenchmark(argv0, args->benchmark_args);
      !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitBadInput;
  }
  std::vector<AxisSpec> axes;
  std::vector<Point> points;
  if (auto exit = PlanPoints(experiment, *args, prefix, axes, points)) return *exit;
  if (FLAGS_list) {
    for (const Point& p : points) std::cout << p.Name(experiment.name()) << "\n";
    return kExitOk;
  }

  // Before the device: an unwritable result path must not cost a run.
  const bool default_path = args->out_path.empty();
  const std::string out_path =
      default_path ? runner_internal::DefaultOutputPath(experiment.name()) : args->out_path;
  if (absl::Status s = runner_internal::CheckOutputPath(out_path, default_path); !s.ok()) {
    std::cerr << prefix << s.message() << "\n";
    return kExitBadInput;
  }
  std::vector<Point> to_measure = points;
  result_format::ResumedRows resumed;
  if (FLAGS_resume) {
    if (auto exit = Resume(experiment, out_path, points, prefix, to_measure, resumed)) {
      return *exit;
    }
  }
  RunEnv env;
  runner_internal::GpuResources gpu;
  if (auto exit = SetUpEnv(experiment, metrics, static_cast<int>(resumed.rows.size()), prefix,
                           env, gpu)) {
    return *exit;
  }
  return MeasureAndWrite(experiment, axes, to_measure, env, out_path, default_path,
                         std::move(resumed), prefix);
}

}  // namespace dissect
