#include "analysis/nightly/regression.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/nightly/entry_problems.h"
#include "analysis/format/format.h"
#include "analysis/results/results.h"
#include "analysis/nightly/thresholds_embedded.h"
#include "experiments/result_format/atomic_file.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

constexpr char kThresholdsFormat[] = "dissect.regression_thresholds.v1";
constexpr double kMadScale = 1.4826;

absl::Status ParseThreshold(const nlohmann::json& json, const std::string& where,
                            MetricThreshold* threshold) {
  if (!json.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, ": not an object"));
  for (const auto& [key, value] : json.items()) {
    if (key == "direction") {
      const std::string name = value.is_string() ? value.get<std::string>() : "";
      if (name == "higher_is_better") {
        threshold->direction = Direction::kHigherIsBetter;
      } else if (name == "lower_is_better") {
        threshold->direction = Direction::kLowerIsBetter;
      } else if (name == "either") {
        threshold->direction = Direction::kEither;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ".direction: '", value.dump(),
                         "' is not higher_is_better, lower_is_better or either"));
      }
    } else if (key == "relative_tolerance" || key == "k" || key == "fleet_k") {
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ".", key, ": '", value.dump(), "' is not a non-negative number"));
      }
      const double number = value.get<double>();
      if (key == "relative_tolerance") {
        threshold->relative_tolerance = number;
      } else if (key == "k") {
        threshold->k = number;
      } else {
        threshold->fleet_k = number;
      }
    } else if (key == "ignore") {
      if (!value.is_boolean()) {
        return absl::InvalidArgumentError(absl::StrCat(where, ".ignore: not true or false"));
      }
      threshold->ignore = value.get<bool>();
    } else if (key != "about") {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": unknown key '", key,
                       "' (direction, relative_tolerance, k, fleet_k, ignore, about)"));
    }
  }
  return absl::OkStatus();
}

// 12 characters of a commit, as the report shows them.
std::string DeviceIdentity(const RunInfo& info) {
  std::string id = !info.device_uuid.empty() ? info.device_uuid : info.device_serial;
  if (info.device_name.empty()) return id;
  return id.empty() ? info.device_name : absl::StrCat(info.device_name, " (", id, ")");
}

// "what A, B -> C" when the candidate's value is known and differs from the
// baseline's (distinct known values, in order).
void AddChange(const std::string& what, const std::vector<std::string>& baseline,
               const std::string& candidate, std::vector<std::string>* changes) {
  if (candidate.empty()) return;
  std::vector<std::string> distinct;
  for (const std::string& value : baseline) {
    if (!value.empty() && std::find(distinct.begin(), distinct.end(), value) == distinct.end()) {
      distinct.push_back(value);
    }
  }
  if (distinct.empty() || (distinct.size() == 1 && distinct[0] == candidate)) return;
  changes->push_back(absl::StrCat(what, " ", absl::StrJoin(distinct, ", "), " -> ", candidate));
}

}  // namespace

std::string DirectionName(Direction direction) {
  switch (direction) {
    case Direction::kHigherIsBetter:
      return "higher_is_better";
    case Direction::kLowerIsBetter:
      return "lower_is_better";
    case Direction::kEither:
      break;
  }
  return "either";
}

std::string VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kUnchanged:
      return "unchanged";
    case Verdict::kRegression:
      return "regression";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kThrottled:
      return "throttled";
    case Verdict::kNotComparable:
      break;
  }
  return "not comparable";
}

const MetricThreshold& Thresholds::For(const std::string& experiment,
                                       const std::string& metric) const {
  if (auto it = metrics.find(absl::StrCat(experiment, "/", metric)); it != metrics.end()) {
    return it->second;
  }
  if (auto it = metrics.find(metric); it != metrics.end()) return it->second;
  return defaults;
}

absl::StatusOr<Thresholds> LoadThresholds(const std::string& path) {
  if (path.empty()) return ParseThresholdsJson(kEmbeddedThresholdsJson, kEmbeddedThresholdsOrigin);
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseThresholdsJson(text.str(), path);
}

absl::StatusOr<Thresholds> ParseThresholdsJson(std::string_view text, const std::string& origin) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": not valid JSON"));
  }
  if (!json.is_object() || !json.contains("format") || json["format"] != kThresholdsFormat) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin, ": not a thresholds file (\"format\" is not \"", kThresholdsFormat, "\")"));
  }
  Thresholds thresholds;
  for (const auto& [key, value] : json.items()) {
    if (key == "format" || key == "about") continue;
    if (key == "default") {
      if (absl::Status status =
              ParseThreshold(value, absl::StrCat(origin, ": default"), &thresholds.defaults);
          !status.ok()) {
        return status;
      }
    } else if (key != "metrics") {
      return absl::InvalidArgumentError(
          absl::StrCat(origin, ": unknown key '", key, "' (format, about, default, metrics)"));
    }
  }
  if (json.contains("metrics")) {
    const nlohmann::json& metrics = json["metrics"];
    if (!metrics.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(origin, ": metrics is not an object"));
    }
    for (const auto& [name, value] : metrics.items()) {
      MetricThreshold threshold = thresholds.defaults;
      if (absl::Status status =
              ParseThreshold(value, absl::StrCat(origin, ": metrics.", name), &threshold);
          !status.ok()) {
        return status;
      }
      thresholds.metrics[name] = threshold;
    }
  }
  return thresholds;
}

std::map<std::string, const RunPoint*> LatestAttempts(const RunData& run) {
  std::map<std::string, const RunPoint*> points;
  for (const RunPoint& point : run.points) {
    const RunPoint*& slot = points[point.point];
    if (slot == nullptr || point.attempt >= slot->attempt) slot = &point;
  }
  return points;
}

ComparisonSide SideOfRun(const RunData& run) {
  ComparisonSide side;
  side.label =
      absl::StrCat("run ", run.info.run_id.empty() ? DeviceIdentity(run.info) : run.info.run_id);
  side.runs = {run.info};
  side.problems = run.problems;
  for (const auto& [key, point] : LatestAttempts(run)) {
    SidePoint& out = side.points[key];
    out.experiment = point->experiment;
    out.throttled = point->throttled;
    out.attempt = point->attempt;
    for (const auto& [name, metric] : point->metrics) {
      out.metrics[name] = SideMetric{metric.value, metric.spread, metric.unit, std::nullopt, 1};
    }
  }
  return side;
}

absl::StatusOr<ComparisonSide> SideOfNights(const std::vector<RunData>& nights) {
  if (nights.empty()) return absl::NotFoundError("no earlier nights to form a baseline");
  if (nights.size() == 1) return SideOfRun(nights[0]);
  ComparisonSide side;
  side.label = absl::StrCat("median of ", nights.size(), " nights (", nights.front().info.started,
                            " .. ", nights.back().info.started, ")");
  // point -> the nights' latest attempts of it.
  std::map<std::string, std::vector<const RunPoint*>> by_point;
  for (const RunData& night : nights) {
    side.runs.push_back(night.info);
    for (const auto& [key, point] : LatestAttempts(night)) by_point[key].push_back(point);
  }
  for (const auto& [key, all] : by_point) {
    std::vector<const RunPoint*> used;
    for (const RunPoint* point : all) {
      if (!point->throttled) used.push_back(point);
    }
    SidePoint& out = side.points[key];
    out.experiment = all.front()->experiment;
    if (used.empty()) {
      used = all;
      out.throttled = true;
    }
    std::map<std::string, std::vector<const MetricValue*>> by_metric;
    for (const RunPoint* point : used) {
      for (const auto& [name, metric] : point->metrics) {
        if (std::isfinite(metric.value)) by_metric[name].push_back(&metric);
      }
    }
    for (const auto& [name, metrics] : by_metric) {
      std::vector<double> values;
      std::vector<double> spreads;
      for (const MetricValue* metric : metrics) {
        values.push_back(metric->value);
        if (metric->spread.has_value()) spreads.push_back(*metric->spread);
      }
      SideMetric metric;
      metric.value = Median(values);
      if (!spreads.empty()) metric.spread = Median(spreads);
      metric.unit = metrics.front()->unit;
      metric.nights = static_cast<int>(values.size());
      if (values.size() >= 3) {
        std::vector<double> deviations;
        for (double value : values) deviations.push_back(std::fabs(value - metric.value));
        metric.nights_scaled_mad = kMadScale * Median(deviations);
      }
      out.metrics[name] = metric;
    }
  }
  return side;
}

int RegressionReport::Count(Verdict verdict) const {
  return static_cast<int>(
      std::count_if(comparisons.begin(), comparisons.end(),
                    [verdict](const MetricComparison& row) { return row.verdict == verdict; }));
}

std::vector<std::string> ContextChanges(const std::vector<RunInfo>& baseline,
                                        const RunInfo& candidate) {
  std::vector<std::string> changes;
  std::vector<std::string> drivers, commits, vbioses, devices;
  for (const RunInfo& run : baseline) {
    drivers.push_back(run.driver_version);
    commits.push_back(ShortCommit(run.git_commit));
    vbioses.push_back(run.vbios);
    devices.push_back(DeviceIdentity(run));
  }
  AddChange("driver", drivers, candidate.driver_version, &changes);
  AddChange("suite", commits, ShortCommit(candidate.git_commit), &changes);
  AddChange("vbios", vbioses, candidate.vbios, &changes);
  AddChange("device", devices, DeviceIdentity(candidate), &changes);
  return changes;
}

RegressionReport CompareSides(const ComparisonSide& baseline, const ComparisonSide& candidate,
                              const Thresholds& thresholds) {
  RegressionReport report;
  report.baseline_label = baseline.label;
  report.candidate_label = candidate.label;
  report.baseline_runs = baseline.runs;
  if (!candidate.runs.empty()) report.candidate_run = candidate.runs.back();
  report.context_changes = ContextChanges(baseline.runs, report.candidate_run);
  report.candidate_problems = candidate.problems;
  report.candidate_measured_nothing = candidate.points.empty();
  for (const auto& [key, base] : baseline.points) {
    if (!candidate.points.count(key)) report.only_in_baseline.push_back(key);
  }
  for (const auto& [key, cand] : candidate.points) {
    auto base_it = baseline.points.find(key);
    if (base_it == baseline.points.end()) {
      report.only_in_candidate.push_back(key);
      continue;
    }
    const SidePoint& base = base_it->second;
    std::set<std::string> names;
    for (const auto& [name, metric] : base.metrics) names.insert(name);
    for (const auto& [name, metric] : cand.metrics) names.insert(name);
    for (const std::string& name : names) {
      const MetricThreshold& threshold = thresholds.For(cand.experiment, name);
      if (threshold.ignore) continue;
      auto b_it = base.metrics.find(name);
      auto c_it = cand.metrics.find(name);
      if (b_it == base.metrics.end() || c_it == cand.metrics.end()) {
        report.metrics_only_in_one.push_back(
            absl::StrCat(key, " ", name, " (only in the ",
                         b_it == base.metrics.end() ? "candidate" : "baseline", ")"));
        continue;
      }
      const SideMetric& b = b_it->second;
      const SideMetric& c = c_it->second;
      MetricComparison row;
      row.experiment = cand.experiment;
      row.point = key;
      row.metric = name;
      row.unit = !c.unit.empty() ? c.unit : b.unit;
      row.baseline = b.value;
      row.candidate = c.value;
      row.direction = threshold.direction;
      row.relative_tolerance = threshold.relative_tolerance;
      row.baseline_throttled = base.throttled;
      row.candidate_throttled = cand.throttled;
      if (!std::isfinite(b.value) || !std::isfinite(c.value) || b.value == 0) {
        row.change = b.value == c.value ? 0 : std::nan("");
        row.verdict = b.value == c.value ? Verdict::kUnchanged : Verdict::kNotComparable;
        report.comparisons.push_back(std::move(row));
        continue;
      }
      const double scale = std::fabs(b.value);
      row.change = (c.value - b.value) / scale;
      double noise = std::max(b.spread.value_or(0), c.spread.value_or(0));
      if (b.nights_scaled_mad.has_value()) noise = std::max(noise, *b.nights_scaled_mad / scale);
      row.noise_threshold = threshold.k * noise;
      row.threshold = std::max(row.relative_tolerance, row.noise_threshold);
      if (std::fabs(row.change) > row.threshold) {
        const bool worse = threshold.direction == Direction::kEither ||
                           (threshold.direction == Direction::kHigherIsBetter && row.change < 0) ||
                           (threshold.direction == Direction::kLowerIsBetter && row.change > 0);
        if (base.throttled || cand.throttled) {
          row.verdict = Verdict::kThrottled;
        } else {
          row.verdict = worse ? Verdict::kRegression : Verdict::kImprovement;
        }
        row.annotations = report.context_changes;
      }
      report.comparisons.push_back(std::move(row));
    }
  }
  return report;
}
}  // namespace dissect::analysis
