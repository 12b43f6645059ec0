#include "analysis/nightly/entry_problems.h"

#include <map>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/nightly/regression.h"

namespace dissect::analysis {
namespace {

constexpr const char* kStatusOrder[] = {"failed", "timeout", "pending", "unreadable", "skipped"};

}  // namespace

bool IsFailure(const EntryProblem& problem) { return problem.status != "skipped"; }

std::string ProblemsSummary(const std::vector<EntryProblem>& problems) {
  std::map<std::string, int> count;
  bool device_check = false;
  size_t entries = 0;
  for (const EntryProblem& problem : problems) {
    if (problem.entry == kDeviceCheckEntry) {
      device_check = true;
      continue;
    }
    ++count[problem.status];
    ++entries;
  }
  const std::string check = device_check ? "the device check failed" : "";
  if (entries == 0) return check;
  std::vector<std::string> parts;
  for (const char* status : kStatusOrder) {
    auto it = count.find(status);
    if (it == count.end()) continue;
    parts.push_back(absl::StrCat(it->second, " ", it->first));
    count.erase(it);
  }
  for (const auto& [status, n] : count) parts.push_back(absl::StrCat(n, " ", status));
  return absl::StrCat(check, check.empty() ? "" : "; ", entries,
                      entries == 1 ? " entry" : " entries", " not measured (",
                      absl::StrJoin(parts, ", "), ")");
}

std::string ProblemsMarkdown(const std::vector<EntryProblem>& problems, bool nothing_measured) {
  if (problems.empty() && !nothing_measured) return "";
  std::ostringstream out;
  out << "## Entries not measured (" << problems.size() << ")\n\n";
  if (nothing_measured) out << "**Nothing was measured: the run has no measured point.** ";
  if (!problems.empty()) out << "**" << ProblemsSummary(problems) << ".**";
  out << "\n\n";
  if (problems.empty()) return out.str();
  MarkdownTable table;
  table.columns = {{"entry"}, {"experiment"}, {"status"}, {"reason"}};
  for (const EntryProblem& problem : problems) {
    table.rows.push_back({CellText(problem.entry),
                          problem.experiment.empty() ? kEmptyCell : CellText(problem.experiment),
                          CellText(problem.status), CellText(problem.reason)});
  }
  out << RenderMarkdownTable(table);
  return out.str();
}

std::string ProblemsJUnitCases(const std::vector<EntryProblem>& problems, int indent) {
  const std::string pad(indent, ' ');
  std::string out;
  for (const EntryProblem& problem : problems) {
    const std::string message = absl::StrCat(problem.status, ": ", problem.reason);
    absl::StrAppend(&out, pad, "<testcase classname=\"sweep entry\" name=\"",
                    XmlEscape(problem.entry), "\">\n");
    if (IsFailure(problem)) {
      absl::StrAppend(
          &out, pad, "  <failure type=\"", XmlEscape(problem.status), "\" message=\"",
          XmlEscape(message), "\">",
          XmlEscape(absl::StrCat(
              problem.entry,
              problem.experiment.empty() ? "" : absl::StrCat(" (", problem.experiment, ")"), "\n",
              message)),
          "</failure>\n");
    } else {
      absl::StrAppend(&out, pad, "  <skipped message=\"", XmlEscape(message), "\"/>\n");
    }
    absl::StrAppend(&out, pad, "</testcase>\n");
  }
  return out;
}

}  // namespace dissect::analysis
