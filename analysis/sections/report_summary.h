// The summary `report` leads with: per device, each memory level's headline
// values (latency, capacity, bandwidth), each with its source, its ceiling
// where the level has one, and the published values that match the device;
// then what was read. The per-experiment tables and the reasoning follow
// only with --detail (report.h).

#ifndef DISSECT_ANALYSIS_SECTIONS_REPORT_SUMMARY_H_
#define DISSECT_ANALYSIS_SECTIONS_REPORT_SUMMARY_H_

#include <string>
#include <vector>

#include "analysis/sections/memory_hierarchy.h"
#include "analysis/sections/published.h"
#include "analysis/results/results.h"

namespace dissect::analysis {

// "## summary: <device>" per device (hierarchies of several sources of one
// device share a table, compare.h MatchDevices), each a table with the
// columns level, metric, value, source (the program that measured it, or
// the published reference) and ceiling / % of ceiling (only where the level
// defines one), then the ceilings' and references' origins and the
// findings; then "## results read" (experiment, device, source, files,
// rows). Lines are at most kSummaryWidth characters, except a table whose
// cells are that long. Ends with a newline.
std::string RenderSummary(const std::vector<ResultFile>& files,
                          const std::vector<DeviceHierarchy>& hierarchies,
                          const std::vector<PublishedValue>& published);

// The widest line the summary's prose is wrapped to.
inline constexpr size_t kSummaryWidth = 100;

// A published value or range as a cell shows it: "29 cycles",
// "200 KiB – 240 KiB", "≥ 120 B/clk/SM".
std::string PublishedCell(const PublishedValue& v);

// "latency", "capacity", "line size", "sector size" or "bandwidth".
std::string QuantityName(const std::string& quantity);

// A row's capacity ("≥ 212.9 KiB" for a lower bound) and bandwidth
// ("5407 GB/s"); "—" without one.
std::string CapacityCell(const HierarchyRow& row);
std::string BandwidthCell(const HierarchyRow& row);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_REPORT_SUMMARY_H_
