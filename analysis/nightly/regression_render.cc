// The comparison's report: Markdown for people, JUnit XML for CI, and
// both written atomically (see regression.h).

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
#include "analysis/nightly/regression.h"
#include "analysis/results/results.h"
#include "analysis/nightly/thresholds_embedded.h"
#include "experiments/result_format/atomic_file.h"
#include "nlohmann/json.hpp"

namespace dissect::analysis {
namespace {

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
