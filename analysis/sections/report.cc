// Markdown report over dissect result files (see report.h).

#include "analysis/sections/report.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/sections/compare.h"
#include "analysis/sections/instructions.h"
#include "analysis/sections/l1_bypass.h"
#include "analysis/sections/published.h"
#include "analysis/sections/report_summary.h"
#include "analysis/sections/sharing.h"
#include "analysis/sections/sparsity.h"
#include "analysis/sections/stalls.h"

namespace dissect::analysis {
namespace {

// `name (unit)`, or just `name` when the unit is unknown or `-`.
std::string Header(const std::string& name, const std::string& unit) {
  if (unit.empty() || unit == "-") return name;
  return absl::StrCat(name, " (", unit, ")");
}

std::string DeviceLine(const ResultFile& file) {
  // Imported peer results (analysis/import) carry `source` and no commit of
  // ours: say whose numbers they are.
  std::string origin;
  if (const std::string source = file.ContextOr("source", ""); !source.empty()) {
    origin = absl::StrCat("imported from ", source, " (not measured by dissect)");
  } else {
    std::string commit = file.ContextOr("git_commit", "").substr(0, 12);
    if (commit.empty()) commit = "unknown";
    if (file.ContextOr("git_dirty", "") == "true") commit += "+dirty";
    origin = absl::StrCat("commit ", commit);
  }
  return absl::StrCat(file.ContextOr("device_name", "unknown device"), " · cc ",
                      file.ContextOr("device_compute_capability", "?"), " · ",
                      file.ContextOr("device_sm_count", "?"), " SMs · ", origin, " · `", file.path,
                      "`");
}

// Files of one device and one source share tables.
std::string DeviceKey(const ResultFile& file) {
  return absl::StrCat(file.ContextOr("device_name", ""), "\n",
                      file.ContextOr("device_compute_capability", ""), "\n",
                      file.ContextOr("device_sm_count", ""), "\n", file.ContextOr("source", ""));
}

// The value columns of a file's table: its declared metrics, then the row
// counters of --kernel_activity (context dissect_activity: activity/kernel_ms,
// activity/vs_events_pct), each with the unit the context gives it.
std::vector<std::string> ValueColumns(const ResultFile& file) {
  std::vector<std::string> columns = file.metric_names;
  for (absl::string_view name :
       absl::StrSplit(file.ContextOr("dissect_activity", ""), ',', absl::SkipEmpty())) {
    columns.emplace_back(name);
  }
  return columns;
}

// True if `a` and `b` produce the same table columns.
bool SameColumns(const ResultFile& a, const ResultFile& b) {
  const std::vector<std::string> values = ValueColumns(a);
  if (a.axis_names != b.axis_names || values != ValueColumns(b)) {
    return false;
  }
  for (const std::string& axis : a.axis_names) {
    if (a.AxisUnit(axis) != b.AxisUnit(axis)) return false;
    const std::string type_key = absl::StrCat("axis.", axis, ".type");
    if (a.ContextOr(type_key, "") != b.ContextOr(type_key, "")) return false;
  }
  for (const std::string& metric : values) {
    if (a.MetricUnit(metric) != b.MetricUnit(metric)) return false;
  }
  return true;
}

std::string SmClock(const Row& row) {
  const std::optional<double> mhz = RowSmClockMhz(row);
  return mhz ? absl::StrFormat("%.0f", *mhz) : "";
}

// A metric's median. dram_peak_pct of a row whose working set stayed under
// 2 x L2 (beyond_2x_l2 0, experiments/framework/l2_residency.h) reads
// "L2-resident", never a % of the DRAM peak, whatever number the row holds.
std::string MetricCell(const Row& row, const std::string& metric) {
  if (metric == "dram_peak_pct" && row.Counter("beyond_2x_l2") == 0.0) return "L2-resident";
  const std::optional<double> value = row.Counter(metric);
  return value ? FormatNumber(*value) : "";
}

// One table over `files`, which all have the columns of files[0]. With
// `file_column`, a leading column gives the 1-based index of each row's file.
MarkdownTable BuildTable(const std::vector<const ResultFile*>& files, bool file_column) {
  const ResultFile& shape = *files.front();
  MarkdownTable table;
  if (file_column) table.columns.push_back({"file", false});
  for (const std::string& axis : shape.axis_names) {
    const bool numeric = shape.ContextOr(absl::StrCat("axis.", axis, ".type"), "") == "int64";
    table.columns.push_back({Header(axis, shape.AxisUnit(axis)), numeric});
  }
  const std::vector<std::string> values = ValueColumns(shape);
  for (const std::string& metric : values) {
    table.columns.push_back({Header(metric, shape.MetricUnit(metric)), true});
  }
  const bool has_spread = !shape.metric_names.empty();
  if (has_spread) table.columns.push_back({"spread", true});
  table.columns.push_back({"sm MHz", true});
  table.columns.push_back({"notes", false});

  for (size_t f = 0; f < files.size(); ++f) {
    for (const Row& row : files[f]->rows) {
      std::vector<std::string> cells;
      if (file_column) cells.push_back(absl::StrCat("[", f + 1, "]"));
      for (const std::string& axis : shape.axis_names) {
        cells.push_back(CellText(row.Axis(axis).value_or("")));
      }
      for (const std::string& metric : values) {
        cells.push_back(row.error ? kEmptyCell : MetricCell(row, metric));
      }
      if (has_spread) {
        const std::optional<double> spread =
            row.Counter(absl::StrCat(shape.metric_names.front(), ".spread"));
        cells.push_back(row.error ? kEmptyCell : spread ? FormatPercent(*spread) : "");
      }
      cells.push_back(SmClock(row));
      cells.push_back(CellText(RowNotes(row)));
      table.rows.push_back(std::move(cells));
    }
  }
  return table;
}

// The blocks (paragraphs, lists, tables) of one experiment's section.
std::vector<std::string> SectionBlocks(const std::vector<const ResultFile*>& files) {
  std::vector<std::string> blocks;
  const ResultFile& first = *files.front();
  blocks.push_back(absl::StrCat("## ", first.experiment, "\n"));
  const std::string question = first.ContextOr("dissect_question", "");
  if (!question.empty()) blocks.push_back(absl::StrCat(question, "\n"));

  const bool one_table = std::all_of(files.begin(), files.end(), [&](const ResultFile* f) {
    return DeviceKey(*f) == DeviceKey(first) && SameColumns(*f, first);
  });
  if (!one_table) {
    for (const ResultFile* file : files) {
      blocks.push_back(absl::StrCat(DeviceLine(*file), "\n"));
      blocks.push_back(RenderMarkdownTable(BuildTable({file}, false)));
    }
    return blocks;
  }
  if (files.size() == 1) {
    blocks.push_back(absl::StrCat(DeviceLine(first), "\n"));
  } else {
    std::string list;
    for (size_t i = 0; i < files.size(); ++i) {
      absl::StrAppend(&list, "- [", i + 1, "] ", DeviceLine(*files[i]), "\n");
    }
    blocks.push_back(list);
  }
  blocks.push_back(RenderMarkdownTable(BuildTable(files, files.size() > 1)));
  return blocks;
}

// How many points of `files` the harness measured once more after a
// throttled first measurement (rows with counter attempt 2 or more), and
// that both rows are in the table; "" when there is none.
std::string RemeasuredBlock(const std::vector<const ResultFile*>& files) {
  int remeasured = 0;
  for (const ResultFile* file : files) {
    for (const Row& row : file->rows) {
      const std::optional<double> attempt = row.Counter("attempt");
      if (attempt.has_value() && *attempt > 1) ++remeasured;
    }
  }
  if (remeasured == 0) return "";
  return absl::StrCat(remeasured, remeasured == 1 ? " point was" : " points were",
                      " throttled and re-measured after a cool-down; both measurements are kept "
                      "above (the re-measure's notes say \"re-measured after throttling\").\n");
}

// "Kernel activity was not recorded for:" and a line per file of `files`
// with activity_unavailable; "" when there is none.
std::string ActivityUnavailableBlock(const std::vector<const ResultFile*>& files) {
  std::string list;
  for (const ResultFile* file : files) {
    const std::string why = file->ContextOr("activity_unavailable", "");
    if (why.empty()) continue;
    absl::StrAppend(&list, "- `", file->path, "`: ", CellText(why), "\n");
  }
  if (list.empty()) return "";
  return absl::StrCat("Kernel activity (`--kernel_activity`) was not recorded for:\n\n", list);
}

// The cells of one memory-hierarchy row.
std::string Cell(const std::optional<double>& value) {
  return value ? FormatNumber(*value) : kEmptyCell;
}

std::string BytesCell(const std::optional<double>& bytes) {
  return bytes ? FormatBytes(*bytes) : kEmptyCell;
}

std::string FootprintsCell(const HierarchyRow& row) {
  const std::string range = FootprintRange(row);
  return range.empty() ? kEmptyCell : range;
}

// "75.8% of DRAM peak (1555 GB/s)": only levels with a ceiling of their own
// (memory_hierarchy.h) have one.
std::string CeilingCell(const HierarchyRow& row) {
  if (!row.ceiling_fraction) return kEmptyCell;
  std::string cell = absl::StrCat(FormatPercent(*row.ceiling_fraction), " of ", row.ceiling);
  if (row.ceiling_value) {
    absl::StrAppend(&cell, " (", FormatNumber(*row.ceiling_value), " ", row.bandwidth_unit, ")");
  }
  return cell;
}

// What we measured for a published quantity (capacities that are only a
// lower bound excluded), if anything.
std::optional<double> MeasuredNumber(const DeviceHierarchy& h, const PublishedValue& v) {
  const HierarchyRow* row = h.Find(v.level);
  if (row == nullptr) return std::nullopt;
  if (v.quantity == "latency_cycles") return row->latency_cycles;
  if (v.quantity == "latency_ns") return row->latency_ns;
  if (v.quantity == "capacity_bytes") {
    if (row->capacity_is_lower_bound) return std::nullopt;
    return row->capacity_bytes;
  }
  if (v.quantity == "line_bytes") return row->line_bytes;
  if (v.quantity == "sector_bytes") return row->sector_bytes;
  if (row->bandwidth_unit == v.unit) return row->bandwidth;
  return std::nullopt;
}

// Measured against published: "in range" / "**outside**" for a range, the
// ratio measured / published for a value, "—" without a measurement.
std::string CheckCell(const DeviceHierarchy& h, const PublishedValue& v) {
  const std::optional<double> measured = MeasuredNumber(h, v);
  if (!measured) return kEmptyCell;
  if (IsRange(v)) return InRange(v, *measured) ? "in range" : "**outside**";
  return absl::StrFormat("×%.2f", *measured / v.value);
}

// What we measured for a published quantity, or "—".
std::string MeasuredCell(const DeviceHierarchy& h, const PublishedValue& v) {
  const HierarchyRow* row = h.Find(v.level);
  if (row == nullptr) return kEmptyCell;
  auto with_unit = [&](const std::optional<double>& value) -> std::string {
    if (!value) return kEmptyCell;
    return absl::StrCat(FormatNumber(*value), " ", v.unit);
  };
  if (v.quantity == "latency_cycles") return with_unit(row->latency_cycles);
  if (v.quantity == "latency_ns") return with_unit(row->latency_ns);
  if (v.quantity == "capacity_bytes") return CapacityCell(*row);
  if (v.quantity == "line_bytes") return BytesCell(row->line_bytes);
  if (v.quantity == "sector_bytes") return BytesCell(row->sector_bytes);
  if (row->bandwidth_unit == v.unit) return with_unit(row->bandwidth);
  return kEmptyCell;
}

std::string PublishedBlock(const DeviceHierarchy& h, const ReportOptions& options) {
  std::vector<const PublishedValue*> matching;
  for (const std::string& level : HierarchyLevels()) {
    for (const PublishedValue& v : options.published) {
      if (v.level == level && DeviceMatches(v.device, h.device_name, h.compute_capability)) {
        matching.push_back(&v);
      }
    }
  }
  std::string out = absl::StrCat("### published values: ", h.device_name, "\n\n");
  if (matching.empty()) {
    absl::StrAppend(&out, "_no entry of `", options.published_origin,
                    "` matches this device (name or compute capability)_\n");
    return out;
  }
  absl::StrAppend(&out, "Entries of `", options.published_origin,
                  "` that match this device by name and/or compute capability. They were "
                  "measured elsewhere, often on another model of the same architecture "
                  "(\"published for\"), with other methods and clocks. `check` is "
                  "measured / published for a value, and whether the measurement lies "
                  "in an acceptance range.\n\n");
  MarkdownTable table;
  // An imported peer's table compares the peer's values, not ours.
  const std::string measured =
      h.source == "dissect" ? "measured here" : absl::StrCat("measured by ", h.source);
  table.columns = {{"level", false},         {"quantity", false}, {"published", true},
                   {"published for", false}, {measured, true},    {"check", false},
                   {"source", false}};
  std::vector<const PublishedSource*> sources;
  // Each distinct note once, with the rows it belongs to.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const PublishedValue* v : matching) {
    size_t index = 0;
    while (index < sources.size() && !(sources[index]->title == v->source.title &&
                                       sources[index]->venue == v->source.venue)) {
      ++index;
    }
    if (index == sources.size()) sources.push_back(&v->source);
    table.rows.push_back({v->level, QuantityName(v->quantity), PublishedCell(*v),
                          CellText(v->measured_on), MeasuredCell(h, *v), CheckCell(h, *v),
                          CellText(absl::StrCat("[", index + 1, "] ", v->source.where))});
    if (!v->note.empty()) {
      auto it = std::find_if(notes.begin(), notes.end(),
                             [&](const auto& n) { return n.first == v->note; });
      if (it == notes.end()) it = notes.insert(notes.end(), {v->note, {}});
      it->second.push_back(absl::StrCat(v->level, " ", QuantityName(v->quantity)));
    }
  }
  absl::StrAppend(&out, RenderMarkdownTable(table), "\n");
  for (size_t i = 0; i < sources.size(); ++i) {
    const PublishedSource& s = *sources[i];
    absl::StrAppend(&out, "[", i + 1, "] ", s.authors, ": \"", s.title, "\", ", s.venue, ", ",
                    s.year, ".", s.url.empty() ? "" : absl::StrCat(" ", s.url), "\n");
  }
  if (!notes.empty()) {
    absl::StrAppend(&out, "\nNotes on these values:\n\n");
    for (const auto& [note, rows] : notes) {
      absl::StrAppend(&out, "- ", absl::StrJoin(rows, ", "), ": ", note, "\n");
    }
  }
  return out;
}

std::string FractionCell(const StallBreakdown& b, const std::string& reason) {
  auto it = b.fractions.find(reason);
  if (it == b.fractions.end()) return kEmptyCell;
  return absl::StrFormat("%.3f", it->second);
}

}  // namespace

std::string RenderStalls(const std::vector<ResultFile>& files) {
  const StallTable stalls = BuildStallTable(files);
  if (stalls.empty()) return "";
  std::vector<std::string> blocks;
  blocks.push_back("## stall reasons\n");
  if (!stalls.rows.empty()) {
    blocks.push_back(
        "Each warp stall reason's share of the row's total stall, from the "
        "`cupti/stall_<reason>` counters (the shares of a row sum to 1). "
        "Reasons are ordered by their total share over the rows; `dominant` "
        "is the row's largest. `—`: the row has no counter for that reason, "
        "or no stall to share (see notes).\n");
    if (stalls.files.size() == 1) {
      blocks.push_back(absl::StrCat(DeviceLine(*stalls.files.front()), "\n"));
    } else {
      std::string list;
      for (size_t i = 0; i < stalls.files.size(); ++i) {
        absl::StrAppend(&list, "- [", i + 1, "] ", DeviceLine(*stalls.files[i]), "\n");
      }
      blocks.push_back(list);
    }
    const bool file_column = stalls.files.size() > 1;
    const bool notes = std::any_of(stalls.rows.begin(), stalls.rows.end(), [](const StallRow& row) {
      return !row.breakdown.problem.empty();
    });
    MarkdownTable table;
    if (file_column) table.columns.push_back({"file", false});
    table.columns.push_back({"benchmark", false});
    for (const std::string& reason : stalls.reasons) {
      table.columns.push_back({CellText(reason), true});
    }
    table.columns.push_back({"dominant", false});
    if (notes) table.columns.push_back({"notes", false});
    for (const StallRow& row : stalls.rows) {
      std::vector<std::string> cells;
      if (file_column) cells.push_back(absl::StrCat("[", row.file + 1, "]"));
      cells.push_back(CellText(row.name));
      for (const std::string& reason : stalls.reasons) {
        cells.push_back(FractionCell(row.breakdown, reason));
      }
      cells.push_back(row.breakdown.dominant.empty() ? kEmptyCell
                                                     : CellText(row.breakdown.dominant));
      if (notes) cells.push_back(CellText(row.breakdown.problem));
      table.rows.push_back(std::move(cells));
    }
    blocks.push_back(RenderMarkdownTable(table));
  }
  if (!stalls.unavailable.empty()) {
    std::string list = "Counters were not collected for:\n\n";
    for (const auto& [file, reason] : stalls.unavailable) {
      absl::StrAppend(&list, "- `", file->path, "` (", file->experiment, " on ",
                      file->ContextOr("device_name", "unknown device"), "): ", CellText(reason),
                      "\n");
    }
    blocks.push_back(list);
  }
  return absl::StrJoin(blocks, "\n");
}

std::string RenderMarkdown(const std::vector<ResultFile>& files) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ResultFile*>> by_experiment;
  for (const ResultFile& file : files) {
    auto& group = by_experiment[file.experiment];
    if (group.empty()) order.push_back(file.experiment);
    group.push_back(&file);
  }
  std::vector<std::string> blocks;
  for (const std::string& experiment : order) {
    const std::vector<const ResultFile*>& group = by_experiment[experiment];
    for (std::string& block : SectionBlocks(group)) {
      blocks.push_back(std::move(block));
    }
    std::string remeasured = RemeasuredBlock(group);
    if (!remeasured.empty()) blocks.push_back(std::move(remeasured));
    std::string unavailable = ActivityUnavailableBlock(group);
    if (!unavailable.empty()) blocks.push_back(std::move(unavailable));
  }
  // Blocks end in a newline; a blank line separates them.
  return absl::StrJoin(blocks, "\n");
}

std::string RenderHierarchy(const DeviceHierarchy& h, const ReportOptions& options) {
  std::vector<std::string> blocks;
  const bool imported = h.source != "dissect";
  blocks.push_back(absl::StrCat("## memory hierarchy: ", h.device_name,
                                imported ? absl::StrCat(" (", h.source, ")") : std::string(),
                                "\n"));
  std::vector<std::string> files;
  for (const std::string& f : h.files) files.push_back(absl::StrCat("`", f, "`"));
  const std::string device =
      absl::StrCat(h.device_name, " · cc ", h.compute_capability, " · ", h.sm_count, " SMs");
  if (imported) {
    blocks.push_back(
        absl::StrCat(device, " · the values of ", h.source, ", imported (analysis/import) from ",
                     absl::StrJoin(files, ", "),
                     "; measured by that suite with its own method, not by dissect\n"));
  } else {
    blocks.push_back(absl::StrCat(device, " · inferred from the curves of ",
                                  absl::StrJoin(files, ", "), " (rules: analysis/README.md)\n"));
  }
  MarkdownTable table;
  table.columns = {{"level", false},      {"latency (cycles)", true}, {"latency (ns)", true},
                   {"footprints", true},  {"capacity", true},         {"line size", true},
                   {"sector size", true}, {"bandwidth", true},        {"% of ceiling", false}};
  for (const HierarchyRow& row : h.rows) {
    table.rows.push_back({row.level, Cell(row.latency_cycles), Cell(row.latency_ns),
                          FootprintsCell(row), CapacityCell(row), BytesCell(row.line_bytes),
                          BytesCell(row.sector_bytes), BandwidthCell(row), CeilingCell(row)});
  }
  blocks.push_back(RenderMarkdownTable(table));
  if (!h.notes.empty()) {
    std::string list = "Findings:\n\n";
    for (const std::string& note : h.notes) absl::StrAppend(&list, "- ", note, "\n");
    blocks.push_back(list);
  }
  if (!h.basis.empty()) {
    std::string list = "How each value was obtained:\n\n";
    for (const std::string& line : h.basis) absl::StrAppend(&list, "- ", line, "\n");
    blocks.push_back(list);
  }
  if (!options.published_origin.empty()) {
    blocks.push_back(PublishedBlock(h, options));
  }
  return absl::StrJoin(blocks, "\n");
}

// Every section after the summary: the per-experiment tables, the memory
// hierarchies, stalls, l1_bypass, tensor cores, sharing, sparsity and
// instructions.
std::string RenderDetails(const std::vector<ResultFile>& files,
                          const std::vector<DeviceHierarchy>& hierarchies,
                          const ReportOptions& options) {
  std::vector<std::string> sections = {RenderMarkdown(files)};
  for (const DeviceHierarchy& h : hierarchies) sections.push_back(RenderHierarchy(h, options));
  sections.push_back(RenderStalls(files));
  sections.push_back(RenderL1Bypass(BuildL1BypassTables(files)));
  sections.push_back(RenderTensorSections(files, options.tensor_peaks));
  sections.push_back(RenderSharingSections(files));
  sections.push_back(RenderSparsitySections(files));
  sections.push_back(RenderInstructionsSections(files, options.instruction_rates));
  sections.erase(std::remove(sections.begin(), sections.end(), std::string()), sections.end());
  return absl::StrJoin(sections, "\n");
}

// What --detail would add: the titles of its sections, wrapped.
std::string DetailHint(const std::string& details) {
  std::vector<std::string> titles;
  for (absl::string_view line : absl::StrSplit(details, '\n')) {
    if (absl::StartsWith(line, "## ")) titles.emplace_back(line.substr(3));
  }
  if (titles.empty()) return "";
  std::string out = "With --detail, the report goes on with these sections:\n\n";
  for (const std::string& title : titles) absl::StrAppend(&out, "- ", title, "\n");
  return out;
}

absl::StatusOr<std::string> RenderReport(const std::vector<ResultFile>& files,
                                         const ReportOptions& options) {
  absl::StatusOr<std::vector<DeviceHierarchy>> hierarchies = InferMemoryHierarchies(files);
  if (!hierarchies.ok()) return hierarchies.status();
  if (files.empty()) return std::string();
  const std::string details = RenderDetails(files, *hierarchies, options);
  if (!options.summary) return details;
  const std::string summary = RenderSummary(files, *hierarchies, options.published);
  if (!options.detail) {
    const std::string hint = DetailHint(details);
    return hint.empty() ? summary : absl::StrCat(summary, "\n", hint);
  }
  return absl::StrCat(summary, "\n# details\n\n", details);
}

absl::StatusOr<std::string> RenderCompareReport(const std::vector<ResultFile>& files) {
  absl::StatusOr<std::vector<DeviceHierarchy>> hierarchies = InferMemoryHierarchies(files);
  if (!hierarchies.ok()) return hierarchies.status();
  if (!HasComparison(*hierarchies)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--compare: nothing to compare: found ", DescribeDevicesAndSources(*hierarchies),
        "; it needs one device with results from two sources (dissect and "
        "an import of analysis/import) or two devices"));
  }
  std::string inputs = "Inputs:\n\n";
  for (const ResultFile& file : files) {
    absl::StrAppend(&inputs, "- `", file.path, "` · ", file.experiment, " · ",
                    file.ContextOr("device_name", "unknown device"), " · ",
                    file.ContextOr("source", "dissect"), "\n");
  }
  return absl::StrCat("# memory hierarchy compared across sources and devices\n\n", inputs, "\n",
                      RenderComparison(*hierarchies));
}

}  // namespace dissect::analysis
