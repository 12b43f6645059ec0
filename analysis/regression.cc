#include "analysis/regression.h"

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
#include "analysis/entry_problems.h"
#include "analysis/format.h"
#include "analysis/results.h"
#include "analysis/thresholds_embedded.h"
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
std::string ShortCommit(const std::string& commit) { return commit.substr(0, 12); }

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

std::string SignedPercent(double fraction) {
  if (!std::isfinite(fraction)) return FormatNumber(fraction);
  return absl::StrCat(fraction > 0 ? "+" : (fraction < 0 ? "-" : ""),
                      FormatPercent(std::fabs(fraction)));
}

std::string ValueText(double value, const std::string& unit) {
  return unit.empty() || unit == "-" ? FormatNumber(value)
                                     : absl::StrCat(FormatNumber(value), " ", unit);
}

std::string RunCell(const std::vector<RunInfo>& runs, std::string RunInfo::*field,
                    bool short_commit = false) {
  std::vector<std::string> distinct;
  for (const RunInfo& run : runs) {
    std::string value = run.*field;
    if (short_commit) value = ShortCommit(value);
    if (value.empty()) value = "unknown";
    if (std::find(distinct.begin(), distinct.end(), value) == distinct.end()) {
      distinct.push_back(value);
    }
  }
  return distinct.empty() ? std::string(kEmptyCell) : CellText(absl::StrJoin(distinct, ", "));
}

std::string Notes(const MetricComparison& row) {
  std::vector<std::string> notes;
  if (row.baseline_throttled && row.candidate_throttled) {
    notes.push_back("throttled in both runs: not counted");
  } else if (row.baseline_throttled) {
    notes.push_back("throttled in the baseline: not counted");
  } else if (row.candidate_throttled) {
    notes.push_back("throttled in the candidate: not counted");
  }
  for (const std::string& annotation : row.annotations) notes.push_back(annotation);
  return notes.empty() ? std::string(kEmptyCell) : CellText(absl::StrJoin(notes, "; "));
}

// The one-line description of a compared metric used in JUnit messages.
std::string Describe(const MetricComparison& row) {
  return absl::StrCat(row.metric, " ", ValueText(row.baseline, row.unit), " -> ",
                      ValueText(row.candidate, row.unit), " (", SignedPercent(row.change),
                      ", threshold ", FormatPercent(row.threshold), ", ",
                      DirectionName(row.direction), ")");
}

// The markdown table of the two sides' identities, a row per RunInfo field.
MarkdownTable RunsTable(const RegressionReport& report) {
  MarkdownTable runs;
  runs.columns = {{""}, {"baseline"}, {"candidate"}};
  const std::vector<RunInfo> candidate = {report.candidate_run};
  const std::vector<std::pair<std::string, std::string RunInfo::*>> fields = {
      {"run", &RunInfo::run_id},
      {"started", &RunInfo::started},
      {"host", &RunInfo::host},
      {"device", &RunInfo::device_name},
      {"uuid", &RunInfo::device_uuid},
      {"serial", &RunInfo::device_serial},
      {"driver", &RunInfo::driver_version},
      {"vbios", &RunInfo::vbios},
  };
  for (const auto& [label, field] : fields) {
    runs.rows.push_back({label, RunCell(report.baseline_runs, field), RunCell(candidate, field)});
  }
  runs.rows.push_back({"suite commit", RunCell(report.baseline_runs, &RunInfo::git_commit, true),
                       RunCell(candidate, &RunInfo::git_commit, true)});
  return runs;
}

// The verdict line of a report without regressions: never a plain "No
// regressions" for a candidate with entries that measured nothing.
std::string NoRegressionsLine(const RegressionReport& report) {
  if (report.candidate_measured_nothing) {
    return "**No regression check: the candidate measured nothing.**";
  }
  if (!report.candidate_problems.empty()) {
    return absl::StrCat("**No regressions among the points measured; ",
                        report.candidate_problems.size(), " entries not measured (above).**");
  }
  return "**No regressions.**";
}

// The JUnit XML up to the first testcase: the prolog, <testsuites>,
// <testsuite> with the counts, and the sides and changes as properties.
std::string JUnitHead(const RegressionReport& report, size_t tests, int failures, int skipped) {
  const std::string suite = XmlEscape(absl::StrCat("dissect regressions: ", report.candidate_label,
                                                   " against ", report.baseline_label));
  const std::string counts = absl::StrCat("tests=\"", tests, "\" failures=\"", failures,
                                          "\" errors=\"0\" skipped=\"", skipped, "\"");
  std::string out = absl::StrCat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", "<testsuites name=\"dissect compare\" ",
      counts, ">\n", "  <testsuite name=\"", suite, "\" ", counts, ">\n", "    <properties>\n");
  absl::StrAppend(&out, "      <property name=\"baseline\" value=\"",
                  XmlEscape(report.baseline_label), "\"/>\n",
                  "      <property name=\"candidate\" value=\"", XmlEscape(report.candidate_label),
                  "\"/>\n");
  for (const std::string& change : report.context_changes) {
    absl::StrAppend(&out, "      <property name=\"change\" value=\"", XmlEscape(change), "\"/>\n");
  }
  return out + "    </properties>\n";
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

std::string PointWithoutExperiment(const std::string& point, const std::string& experiment) {
  const std::string prefix = experiment + "/";
  if (!experiment.empty() && point.rfind(prefix, 0) == 0 && point.size() > prefix.size()) {
    return point.substr(prefix.size());
  }
  return point;
}

std::string RenderRegressionMarkdown(const RegressionReport& report) {
  std::ostringstream out;
  out << "# Regression check: " << report.candidate_label << " against " << report.baseline_label
      << "\n\n";
  out << RenderMarkdownTable(RunsTable(report)) << "\n";
  if (report.context_changes.empty()) {
    out << "Changes between the runs: none (driver, suite commit, vbios and device as before).\n";
  } else {
    out << "Changes between the runs: **" << absl::StrJoin(report.context_changes, "; ")
        << "** (noted on every flagged row).\n";
  }
  if (const std::string problems =
          ProblemsMarkdown(report.candidate_problems, report.candidate_measured_nothing);
      !problems.empty()) {
    out << "\n" << problems;
  }
  const int regressions = report.Count(Verdict::kRegression);
  out << "\n"
      << report.comparisons.size() << " (point, metric) pairs compared: " << regressions
      << " regression(s), " << report.Count(Verdict::kImprovement) << " improvement(s), "
      << report.Count(Verdict::kThrottled)
      << " significant change(s) on throttled points (not counted), "
      << report.Count(Verdict::kUnchanged) << " within the noise, "
      << report.Count(Verdict::kNotComparable) << " not comparable; "
      << report.only_in_baseline.size() << " point(s) only in the baseline, "
      << report.only_in_candidate.size()
      << " only in the candidate. A change counts when it exceeds both the metric's relative "
         "tolerance and k x the measured spread (configs/regression/thresholds.json).\n";
  if (regressions == 0) out << "\n" << NoRegressionsLine(report) << "\n";

  struct Section {
    Verdict verdict;
    const char* title;
  };
  for (const Section& section : {Section{Verdict::kRegression, "Regressions"},
                                 Section{Verdict::kImprovement, "Improvements"},
                                 Section{Verdict::kThrottled, "Throttled (not counted)"},
                                 Section{Verdict::kNotComparable, "Not comparable"}}) {
    MarkdownTable table;
    table.columns = {{"experiment"},      {"point"},        {"metric"},          {"baseline", true},
                     {"candidate", true}, {"change", true}, {"threshold", true}, {"notes"}};
    for (const MetricComparison& row : report.comparisons) {
      if (row.verdict != section.verdict) continue;
      const bool noise_bound = row.noise_threshold > row.relative_tolerance;
      table.rows.push_back(
          {CellText(row.experiment),
           CellText(absl::StrCat("`", PointWithoutExperiment(row.point, row.experiment), "`")),
           CellText(row.metric), CellText(ValueText(row.baseline, row.unit)),
           CellText(ValueText(row.candidate, row.unit)), SignedPercent(row.change),
           absl::StrCat(FormatPercent(row.threshold), noise_bound ? " (k×spread)" : " (tolerance)"),
           Notes(row)});
    }
    if (table.rows.empty()) continue;
    out << "\n## " << section.title << "\n\n" << RenderMarkdownTable(table);
  }
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
      {"Points only in the baseline (not compared)", &report.only_in_baseline},
      {"Points only in the candidate (not compared)", &report.only_in_candidate},
      {"Metrics only in one run (not compared)", &report.metrics_only_in_one}};
  for (const auto& [title, items] : lists) {
    if (items->empty()) continue;
    out << "\n## " << title << "\n\n";
    for (const std::string& item : *items) out << "- `" << item << "`\n";
  }
  return out.str();
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out += "\xEF\xBF\xBD";
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string RenderRegressionJUnit(const RegressionReport& report) {
  const std::vector<EntryProblem>& problems = report.candidate_problems;
  const int failed_entries =
      static_cast<int>(std::count_if(problems.begin(), problems.end(), IsFailure));
  // A run that measured nothing without an entry saying why still fails.
  const bool nothing_case = report.candidate_measured_nothing && failed_entries == 0;
  const int skipped =
      report.Count(Verdict::kThrottled) + report.Count(Verdict::kNotComparable) +
      static_cast<int>(report.only_in_baseline.size() + report.only_in_candidate.size()) +
      static_cast<int>(problems.size()) - failed_entries;
  const size_t tests = report.comparisons.size() + report.only_in_baseline.size() +
                       report.only_in_candidate.size() + problems.size() + (nothing_case ? 1 : 0);
  const int failures = report.Count(Verdict::kRegression) + failed_entries + (nothing_case ? 1 : 0);
  std::ostringstream out;
  out << JUnitHead(report, tests, failures, skipped) << ProblemsJUnitCases(problems, 4);
  if (nothing_case) {
    out << "    <testcase classname=\"sweep run\" name=\"measured points\">\n"
        << "      <failure type=\"nothing measured\" message=\"nothing measured: "
        << XmlEscape(report.candidate_label) << " has no measured point\"/>\n"
        << "    </testcase>\n";
  }
  for (const MetricComparison& row : report.comparisons) {
    out << "    <testcase classname=\"" << XmlEscape(row.experiment) << "\" name=\""
        << XmlEscape(
               absl::StrCat(PointWithoutExperiment(row.point, row.experiment), " ", row.metric))
        << "\"";
    std::string note;
    if (!row.annotations.empty()) note = absl::StrCat("; ", absl::StrJoin(row.annotations, "; "));
    switch (row.verdict) {
      case Verdict::kRegression:
        out << ">\n      <failure type=\"regression\" message=\""
            << XmlEscape(absl::StrCat("regression: ", Describe(row), note)) << "\">"
            << XmlEscape(absl::StrCat(row.point, "\n", Describe(row), note)) << "</failure>\n"
            << "    </testcase>\n";
        break;
      case Verdict::kThrottled:
        out << ">\n      <skipped message=\""
            << XmlEscape(absl::StrCat("throttled, not counted: ", Describe(row), note))
            << "\"/>\n    </testcase>\n";
        break;
      case Verdict::kNotComparable:
        out << ">\n      <skipped message=\""
            << XmlEscape(absl::StrCat("not comparable: ", Describe(row))) << "\"/>\n"
            << "    </testcase>\n";
        break;
      case Verdict::kImprovement:
        out << ">\n      <system-out>"
            << XmlEscape(absl::StrCat("improvement: ", Describe(row), note))
            << "</system-out>\n    </testcase>\n";
        break;
      case Verdict::kUnchanged:
        out << "/>\n";
        break;
    }
  }
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
      {"only in the baseline, not compared", &report.only_in_baseline},
      {"only in the candidate, not compared", &report.only_in_candidate}};
  for (const auto& [why, points] : lists) {
    for (const std::string& point : *points) {
      const size_t slash = point.find('/');
      const std::string experiment = point.substr(0, slash);
      out << "    <testcase classname=\"" << XmlEscape(experiment) << "\" name=\""
          << XmlEscape(PointWithoutExperiment(point, experiment)) << "\">\n"
          << "      <skipped message=\"" << XmlEscape(why) << "\"/>\n    </testcase>\n";
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

absl::Status WriteReportOutputs(const std::string& markdown, const std::string& markdown_path,
                                const std::string& junit, const std::string& junit_path) {
  if (!junit_path.empty()) {
    if (absl::Status s = result_format::WriteFileAtomically(junit_path, junit); !s.ok()) return s;
  }
  if (!markdown_path.empty()) return result_format::WriteFileAtomically(markdown_path, markdown);
  std::cout << markdown;
  std::cout.flush();
  if (!std::cout) return absl::UnavailableError("cannot write to stdout");
  return absl::OkStatus();
}

}  // namespace dissect::analysis
