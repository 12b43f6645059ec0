// Markdown report over dissect result files: one section per experiment with
// a device line per file and a table of medians, spread, clocks and notes;
// then, per device with memory experiments, the inferred memory hierarchy
// beside published reference values; then the warp stall reasons of the rows
// that carry CUPTI stall counters.

#ifndef DISSECT_ANALYSIS_SECTIONS_REPORT_H_
#define DISSECT_ANALYSIS_SECTIONS_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/format/format.h"  // FormatNumber, FormatPercent (used by tests)
#include "analysis/sections/instruction_rates.h"
#include "analysis/sections/memory_hierarchy.h"
#include "analysis/sections/published.h"
#include "analysis/results/results.h"
#include "analysis/sections/tensor.h"

namespace dissect::analysis {

// Renders `files` as markdown. Files are grouped by experiment in first-seen
// order. Within an experiment, files from one device (same name, compute
// capability and SM count) with the same axes, metrics and units share one
// table, with a `file` column when there is more than one file; otherwise
// each file gets its own table under its device line. Tables show every
// declared metric and, for files run with --kernel_activity, the
// activity/kernel_ms and activity/vs_events_pct row counters, each with its
// unit; files whose kernel activity was unavailable are listed after the
// table with the reason. Output depends only on the input (deterministic)
// and ends with a single newline ("" for no files).
std::string RenderMarkdown(const std::vector<ResultFile>& files);

struct ReportOptions {
  // Published values to show beside each memory-hierarchy table, and where
  // they come from (named in the report). With an empty origin the
  // published part is left out.
  std::vector<PublishedValue> published;
  std::string published_origin;
  // Ceilings for the tensor-core section (configs/tensor/peaks.json).
  TensorPeaks tensor_peaks;
  // Published instruction rates for the instructions section
  // (configs/published/instruction_rates.json).
  InstructionRates instruction_rates;
  // The summary first (report_summary.h), as `report` prints it. Off, the
  // report is the details alone, as pages that lay out their own summary
  // (the dashboard) want it.
  bool summary = false;
  // The details (report --detail); without them the summary ends with the
  // titles of their sections.
  bool detail = true;
};

// With options.summary, the summary (report_summary.h: per device each
// memory level's headline values with their sources, ceilings and published
// values, then the results read), then with options.detail "# details" and
// the details, else the titles of the details' sections. The details:
// RenderMarkdown(files), one "## memory hierarchy: <device>" section per
// device that has memory experiments (see memory_hierarchy.h), each followed
// by the matching published values, RenderStalls(files), the l1_bypass
// speedup tables (l1_bypass.h), one "## tensor cores: <device>" section per
// device with tensor experiments (tensor.h), the intergroup sharing sections
// (sharing.h), the activation sparsity sections (sparsity.h) and one
// "## instructions: <device>" section per device with instruction or launch
// results (instructions.h). "" for no
// files. Fails only if the inference fails.
absl::StatusOr<std::string> RenderReport(const std::vector<ResultFile>& files,
                                         const ReportOptions& options);

// The "## stall reasons" section (see stalls.h): one row per result row
// with `cupti/stall_<reason>` counters, a column per reason with its
// fraction of the row's total stall, the dominant reason, and a line per
// file whose context has `counters_unavailable`. "" when there is neither.
// Ends with a newline.
std::string RenderStalls(const std::vector<ResultFile>& files);

// The memory-hierarchy section of one device, as RenderReport writes it
// (ends with a newline). A hierarchy of imported peer results (source other
// than "dissect") is headed "## memory hierarchy: <device> (<source>)" and
// said to hold that peer's values.
std::string RenderHierarchy(const DeviceHierarchy& hierarchy,
                            const ReportOptions& options);

// `report --compare`: a title line, the input files (experiment, device,
// source), then RenderComparison over the hierarchies inferred from `files`
// (compare.h). FailedPreconditionError naming the devices and sources found
// when there is nothing to compare (one device from one source, or no
// memory experiments); the inference's error if it fails.
absl::StatusOr<std::string> RenderCompareReport(
    const std::vector<ResultFile>& files);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_REPORT_H_
