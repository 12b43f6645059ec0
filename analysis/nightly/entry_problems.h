// The entries of a run that measured nothing (analysis/nightly/run_data.h
// EntryProblem) as the text reports show them: compare's markdown and JUnit
// XML. The dashboard's HTML is analysis/pages/night_status.h.

#ifndef DISSECT_ANALYSIS_NIGHTLY_ENTRY_PROBLEMS_H_
#define DISSECT_ANALYSIS_NIGHTLY_ENTRY_PROBLEMS_H_

#include <string>
#include <vector>

#include "analysis/nightly/run_data.h"

namespace dissect::analysis {

// A skipped entry is reported as skipped; every other problem (failed,
// timeout, pending, unreadable) as a failure.
bool IsFailure(const EntryProblem& problem);

// "3 entries not measured (2 failed, 1 timeout)" (statuses in the order
// failed, timeout, pending, unreadable, skipped, then any other); a failed
// device check (kDeviceCheckEntry) is "the device check failed" before them.
std::string ProblemsSummary(const std::vector<EntryProblem>& problems);

// A markdown section for a run whose entries did not all measure:
//   ## Entries not measured (N)
// a sentence (the summary, and "nothing was measured" when
// `nothing_measured`), then a table of entry, experiment, status and
// reason. "" when there is no problem and something was measured.
std::string ProblemsMarkdown(const std::vector<EntryProblem>& problems, bool nothing_measured);

// JUnit <testcase> elements, one per problem (classname "sweep entry",
// name the entry id): a <failure type="STATUS"> with the reason, or
// <skipped> for a skipped entry; each line indented by `indent` spaces.
std::string ProblemsJUnitCases(const std::vector<EntryProblem>& problems, int indent);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_NIGHTLY_ENTRY_PROBLEMS_H_
