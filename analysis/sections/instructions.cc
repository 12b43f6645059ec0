// The instruction chapter's section: building the per-device summaries
// (see instructions.h); instructions_render.cc writes them.

#include "analysis/sections/instructions.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis {
namespace {

constexpr char kLatency[] = "instruction_latency";
constexpr char kThroughput[] = "instruction_throughput";
constexpr char kLaunch[] = "launch_overhead";

// The metric a launch_overhead measure reports, "" for an unknown measure.
std::string LaunchMetric(const std::string& measure) {
  if (measure == "launch_to_start" || measure == "sync_round_trip") return "latency_us";
  if (measure == "back_to_back") return "launch_interval_us";
  if (measure == "block_dispatch") return "kernel_time_us";
  return "";
}

// Ops of `files` measured at a contention other than none: their rows are
// told apart by contention.
std::set<std::string> ContendedOps(const std::vector<const ResultFile*>& files) {
  std::set<std::string> ops;
  for (const ResultFile* file : files) {
    for (const Row& row : file->rows) {
      const std::optional<std::string> contention = row.Axis("contention");
      if (contention && *contention != "none") ops.insert(row.Axis("op").value_or(""));
    }
  }
  return ops;
}

InstructionOpSummary& OpEntry(InstructionsDevice& device, const std::string& op,
                              const std::string& contention) {
  for (InstructionOpSummary& entry : device.ops) {
    if (entry.op == op && entry.contention == contention) return entry;
  }
  device.ops.push_back({});
  device.ops.back().op = op;
  device.ops.back().contention = contention;
  return device.ops.back();
}

// One row of instruction_latency or instruction_throughput into its op's
// summary.
void AddOpRow(const ResultFile& file, const Row& row, const std::set<std::string>& contended,
              InstructionsDevice& device) {
  const std::optional<std::string> op = row.Axis("op");
  if (!op) return;
  const std::string contention = contended.count(*op) ? row.Axis("contention").value_or("") : "";
  InstructionOpSummary& entry = OpEntry(device, *op, contention);
  const bool latency = file.experiment == kLatency;
  if (row.error) {
    AddOnce(entry.not_measured,
            absl::StrCat(latency ? "latency" : "throughput", ": ", row.error_message));
    return;
  }
  if (const std::optional<std::string> sass = LabelNote(row.label, "sass_sequence", ':')) {
    AddOnce(entry.sass_sequences, *sass);
  }
  if (latency) {
    const std::optional<double> cycles = FiniteCounter(row, "latency_cycles");
    const double chain = AxisNumber(row, "chain_length").value_or(0);
    if (cycles && (!entry.latency_cycles || chain >= entry.chain_length)) {
      entry.latency_cycles = cycles;
      entry.chain_length = chain;
    }
    return;
  }
  const std::optional<double> rate = FiniteCounter(row, "results_per_clock_per_sm");
  if (rate && (!entry.results_per_clock_per_sm || *rate > *entry.results_per_clock_per_sm)) {
    entry.results_per_clock_per_sm = rate;
    entry.chains = AxisNumber(row, "chains").value_or(0);
    entry.warps_per_sm = AxisNumber(row, "warps_per_sm").value_or(0);
  }
}

// (blocks, value) of every measured row, per measure and mode.
using LaunchPoints =
    std::map<std::string, std::map<std::string, std::vector<std::pair<double, double>>>>;

void AddLaunchRow(const Row& row, InstructionsDevice& device, LaunchPoints& points) {
  const std::string measure = row.Axis("measure").value_or("");
  const std::string metric = LaunchMetric(measure);
  if (metric.empty()) return;
  const std::string mode = row.Axis("mode").value_or("stream");
  LaunchValue& value = device.launch[measure][mode];
  value.metric = measure == "block_dispatch" ? "dispatch_ns_per_block" : metric;
  if (row.error) {
    AddOnce(value.not_measured, row.error_message);
    return;
  }
  if (const std::optional<std::string> clock = LabelNote(row.label, "clock", ':');
      clock && value.clock_note.empty()) {
    value.clock_note = *clock;
  }
  const std::optional<double> v = FiniteCounter(row, metric);
  if (v) points[measure][mode].emplace_back(AxisNumber(row, "blocks").value_or(1), *v);
}

// The launch values from their points: the median, or for block_dispatch
// the slope of kernel_time_us (µs) over blocks, in ns per block.
void FinishLaunch(const LaunchPoints& points, InstructionsDevice& device) {
  for (const auto& [measure, modes] : points) {
    for (const auto& [mode, xy] : modes) {
      LaunchValue& value = device.launch[measure][mode];
      if (measure != "block_dispatch") {
        std::vector<double> values;
        for (const auto& p : xy) values.push_back(p.second);
        value.value = Median(values);
        continue;
      }
      value.points = xy;
      value.fit = FitLine(xy);
      if (value.fit) value.value = value.fit->slope * 1000;
      value.blocks_min = value.blocks_max = xy.front().first;
      for (const auto& p : xy) {
        value.blocks_min = std::min(value.blocks_min, p.first);
        value.blocks_max = std::max(value.blocks_max, p.first);
      }
    }
  }
}

InstructionsDevice BuildDevice(const std::vector<const ResultFile*>& files) {
  InstructionsDevice device;
  device.title = SectionTitle(*files.front());
  device.device_line = SectionDeviceLine(*files.front());
  device.compute_capability = files.front()->ContextOr("device_compute_capability", "?");
  const std::set<std::string> contended = ContendedOps(files);
  LaunchPoints points;
  for (const ResultFile* file : files) {
    device.files.push_back(file->path);
    for (const Row& row : file->rows) {
      if (file->experiment == kLaunch) {
        AddLaunchRow(row, device, points);
      } else {
        AddOpRow(*file, row, contended, device);
      }
    }
  }
  FinishLaunch(points, device);
  return device;
}

}  // namespace

bool IsInstructionExperiment(const std::string& experiment) {
  return experiment == kLatency || experiment == kThroughput || experiment == kLaunch;
}

std::optional<LineFit> FitLine(const std::vector<std::pair<double, double>>& points) {
  if (points.size() < 2) return std::nullopt;
  double mean_x = 0, mean_y = 0;
  for (const auto& [x, y] : points) {
    mean_x += x;
    mean_y += y;
  }
  mean_x /= points.size();
  mean_y /= points.size();
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    sxx += (x - mean_x) * (x - mean_x);
    sxy += (x - mean_x) * (y - mean_y);
  }
  if (sxx <= 0) return std::nullopt;
  LineFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = mean_y - fit.slope * mean_x;
  fit.points = static_cast<int>(points.size());
  return fit;
}

std::string InstructionOpSummary::Label() const {
  return contention.empty() ? op : absl::StrCat(op, " (contention ", contention, ")");
}

std::vector<InstructionsDevice> BuildInstructions(const std::vector<const ResultFile*>& files) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ResultFile*>> by_device;
  for (const ResultFile* file : files) {
    if (!IsInstructionExperiment(file->experiment)) continue;
    auto& group = by_device[SectionDeviceKey(*file)];
    if (group.empty()) order.push_back(SectionDeviceKey(*file));
    group.push_back(file);
  }
  std::vector<InstructionsDevice> devices;
  for (const std::string& key : order) devices.push_back(BuildDevice(by_device[key]));
  return devices;
}

std::optional<double> FractionOfPublished(const InstructionOpSummary& op,
                                          const PublishedOpRate& published) {
  if (!op.results_per_clock_per_sm || !published.results_per_clock_per_sm) return std::nullopt;
  return *op.results_per_clock_per_sm * published.results_per_op /
         *published.results_per_clock_per_sm;
}

}  // namespace dissect::analysis
