// The experiment binaries' command line: parsing (ParseArgs) and --help
// (HelpText).
//
// It stays on gflags parsed here rather than on //tools/cli:flags: an
// experiment's command line also takes repeated --axis/-a, --metrics with
// its own errors, and Google Benchmark's --benchmark_* flags passed through,
// its --help lists the experiment's declaration, and its error lines ("bad
// value 'abc' for --samples", "unexpected argument 'stray'") are checked by
// experiments/bad_input_test.sh; the shared layer words those differently.
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "experiments/framework/runner_internal.h"
#include "gflags/gflags.h"
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
namespace runner_internal {
namespace {

constexpr const char* kOurFlags[] = {"device",          "samples", "warmup",    "list",
                                     "kernel_activity", "resume",  "cooldown_s"};

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


// A --benchmark_* argument: the result path, the (json only) format, or one
// handed to Google Benchmark. Whether `arg` was one.
absl::StatusOr<bool> TakeBenchmarkArg(absl::string_view arg, Args& args) {
  if (absl::ConsumePrefix(&arg, "--benchmark_out=")) {
    args.out_path = cli::UserPath(std::string(arg));
    return true;
  }
  if (absl::ConsumePrefix(&arg, "--benchmark_out_format=")) {
    if (arg != "json") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--benchmark_out_format=", arg, ": dissect writes json only"));
    }
    return true;
  }
  if (absl::StartsWith(arg, "--benchmark_repetitions")) {
    return absl::InvalidArgumentError(
        "--benchmark_repetitions is not supported: every point already "
        "reports median, min, max and spread over --samples");
  }
  if (absl::StartsWith(arg, "--benchmark_")) {
    args.benchmark_args.emplace_back(arg);
    return true;
  }
  return false;
}

// An argument that is not a gflag: --help, --axis, --metrics or
// --benchmark_*; may take the next argument as its value. Whether argv[*i]
// was one.
absl::StatusOr<bool> TakeHarnessArg(int argc, char** argv, int* i, Args& args) {
  absl::string_view arg = argv[*i];
  if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
    args.help = true;
    return true;
  }
  if (arg == "--axis" || arg == "-a") {
    if (*i + 1 >= argc) {
      return absl::InvalidArgumentError(absl::StrCat(arg, " needs name=values"));
    }
    args.axis_specs.emplace_back(argv[++*i]);
    return true;
  }
  if (absl::ConsumePrefix(&arg, "--axis=")) {
    args.axis_specs.emplace_back(arg);
    return true;
  }
  if (arg == "--metrics" || absl::StartsWith(arg, "--metrics=")) {
    if (arg == "--metrics" && *i + 1 < argc) {
      args.metrics = argv[++*i];
    } else if (absl::ConsumePrefix(&arg, "--metrics=")) {
      args.metrics = std::string(arg);
    }
    if (!args.metrics.has_value() || args.metrics->empty()) {
      return absl::InvalidArgumentError(
          "--metrics needs metric or group names (see --metrics=list)");
    }
    return true;
  }
  return TakeBenchmarkArg(arg, args);
}

// argv[*i], one of the harness's or the experiment's gflags: --name=value,
// --name value, or a boolean --name or --noname.
absl::Status TakeOurFlag(int argc, char** argv, int* i, const Experiment& experiment) {
  absl::string_view arg = argv[*i];
  if (!absl::ConsumePrefix(&arg, "--")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unexpected argument '", argv[*i], "' (flags start with --; see --help)"));
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
      } else if (*i + 1 < argc) {
        value = argv[++*i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
    }
    return SetOurFlag(name, *value);
  }
  if (absl::string_view negated = name;
      absl::ConsumePrefix(&negated, "no") && IsOurBoolFlag(negated, experiment) &&
      !value.has_value()) {
    return SetOurFlag(negated, "false");
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown flag '", argv[*i], "' (see --help)"));
}

// The ranges of the harness's flags, once all are set.
absl::Status CheckFlagValues(const Args& args) {
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
  return absl::OkStatus();
}

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

// The experiment's declaration: its axes, metrics, compute capability
// needs, context and vectors.
std::string DeclarationHelp(const Experiment& experiment) {
  std::string text;
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
  if (!experiment.headline_metric().empty()) {
    absl::StrAppend(&text, "  headline: ", experiment.headline_metric(),
                    " (the metric dashboards plot; context dissect_headline_metric)\n");
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
  return text;
}

// The harness's flags, the result file and the exit statuses.
std::string HarnessFlagsHelp() {
  return absl::StrCat(
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
}

// The flags the experiment defined itself (Experiment::AddFlag).
std::string OwnFlagsHelp(const Experiment& experiment) {
  std::string text;
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
  return text;
}

}  // namespace

absl::StatusOr<Args> ParseArgs(int argc, char** argv, const Experiment& experiment) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    absl::StatusOr<bool> taken = TakeHarnessArg(argc, argv, &i, args);
    if (!taken.ok()) return taken.status();
    if (*taken) continue;
    if (absl::Status s = TakeOurFlag(argc, argv, &i, experiment); !s.ok()) return s;
  }
  if (absl::Status s = CheckFlagValues(args); !s.ok()) return s;
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

}  // namespace runner_internal

std::string HelpText(const Experiment& experiment, const std::string& argv0) {
  using runner_internal::DeclarationHelp;
  using runner_internal::HarnessFlagsHelp;
  using runner_internal::OwnFlagsHelp;
  using runner_internal::WrapList;
  std::string text = absl::StrCat(experiment.name(), ": ", experiment.question(),
                                  "\n\nUsage: ", argv0, " [flags]\n"
                                  "   or: bazel run //experiments:",
                                  experiment.name(), " -- [flags]\n\nAxes",
                                  " (override with --axis=NAME=VALUES, repeatable):\n");
  absl::StrAppend(&text, DeclarationHelp(experiment), HarnessFlagsHelp(),
                  OwnFlagsHelp(experiment));
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

}  // namespace dissect
