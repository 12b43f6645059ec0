// Markdown report over dissect result files: one section per experiment with
// a device line per file and a table of medians, spread, clocks and notes.

#ifndef DISSECT_ANALYSIS_REPORT_H_
#define DISSECT_ANALYSIS_REPORT_H_

#include <string>
#include <vector>

#include "analysis/results.h"

namespace dissect::analysis {

// Renders `files` as markdown. Files are grouped by experiment in first-seen
// order. Within an experiment, files from one device (same name, compute
// capability and SM count) with the same axes, metrics and units share one
// table, with a `file` column when there is more than one file; otherwise
// each file gets its own table under its device line. Output depends only on
// the input (deterministic) and ends with a single newline ("" for no files).
std::string RenderMarkdown(const std::vector<ResultFile>& files);

// Formatting used in the tables, exposed for tests.
// A number with about four significant digits: "29.03", "0.5", "12346",
// "1.5e-05", "nan", "inf".
std::string FormatNumber(double value);
// A fraction as a percentage with one decimal: 0.0123 -> "1.2%",
// 0.0001 -> "<0.1%", 0 -> "0.0%".
std::string FormatPercent(double fraction);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_REPORT_H_
