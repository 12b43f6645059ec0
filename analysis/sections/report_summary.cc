// The summary `report` leads with (see report_summary.h).

#include "analysis/sections/report_summary.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/sections/compare.h"
#include "analysis/format/format.h"
#include "analysis/sections/provenance.h"

namespace dissect::analysis {
namespace {

// The headline metrics of a level, in table order.
constexpr const char* kMetrics[] = {"latency", "capacity", "bandwidth"};

// `text` as words wrapped at kSummaryWidth: the first line starts with
// `first`, the others with `indent`. Ends with a newline.
std::string Wrap(const std::string& text, const std::string& first, const std::string& indent) {
  std::string out = first;
  size_t width = DisplayWidth(first);
  bool line_empty = true;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    const size_t w = DisplayWidth(std::string(word));
    if (!line_empty && width + 1 + w > kSummaryWidth) {
      absl::StrAppend(&out, "\n", indent);
      width = DisplayWidth(indent);
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++width;
    }
    absl::StrAppend(&out, word);
    width += w;
    line_empty = false;
  }
  return out + "\n";
}

// One measured value of a level: its cell text, the program it came from,
// and the level's ceiling for it where one is defined.
struct Measured {
  std::string value;
  std::string program;
  std::optional<double> ceiling;
  std::optional<double> fraction;
  std::string unit;
};

std::optional<Measured> MeasuredValue(const HierarchyRow& row, const std::string& metric) {
  if (metric == "latency" && row.latency_cycles) {
    return Measured{absl::StrCat(FormatNumber(*row.latency_cycles), " cycles"), row.latency_from};
  }
  if (metric == "capacity" && row.capacity_bytes) {
    return Measured{CapacityCell(row), row.capacity_from};
  }
  if (metric == "bandwidth" && row.bandwidth) {
    return Measured{BandwidthCell(row), row.bandwidth_from, row.ceiling_value,
                    row.ceiling_fraction, row.bandwidth_unit};
  }
  return std::nullopt;
}

// Who measured a value: the program, said to be imported for a peer's.
std::string SourceCell(const DeviceHierarchy& h, const std::string& program) {
  const bool ours = h.source == "dissect";
  const std::string who = program.empty() ? SourceSuite(h.source) : program;
  return CellText(ours ? who : absl::StrCat(who, " (imported)"));
}

// The summary's metric of a published quantity; "" for the quantities the
// summary leaves to the details (line and sector size).
std::string PublishedMetric(const std::string& quantity) {
  const std::string name = QuantityName(quantity);
  return std::find(std::begin(kMetrics), std::end(kMetrics), name) != std::end(kMetrics) ? name
                                                                                          : "";
}

// The published references of one device table (a source and where in it),
// numbered in first use, with the GPUs they were measured on.
struct References {
  std::vector<const PublishedSource*> sources;
  std::vector<std::vector<std::string>> measured_on;  // per reference

  size_t Number(const PublishedValue& v) {
    size_t i = 0;
    while (i < sources.size() &&
           std::tie(sources[i]->title, sources[i]->venue, sources[i]->where) !=
               std::tie(v.source.title, v.source.venue, v.source.where)) {
      ++i;
    }
    if (i == sources.size()) {
      sources.push_back(&v.source);
      measured_on.emplace_back();
    }
    std::vector<std::string>& on = measured_on[i];
    if (std::find(on.begin(), on.end(), v.measured_on) == on.end()) on.push_back(v.measured_on);
    return i + 1;
  }
};

// The levels of `hierarchies` in first-seen order.
std::vector<std::string> Levels(const std::vector<const DeviceHierarchy*>& hierarchies) {
  std::vector<std::string> levels;
  for (const DeviceHierarchy* h : hierarchies) {
    for (const HierarchyRow& row : h->rows) {
      if (std::find(levels.begin(), levels.end(), row.level) == levels.end()) {
        levels.push_back(row.level);
      }
    }
  }
  return levels;
}

// The table rows of one level and metric: each source's value, then the
// published ones.
void AddMetricRows(const ComparedDevice& device, const std::string& level,
                   const std::string& metric, const std::vector<const PublishedValue*>& published,
                   References& references, MarkdownTable& table) {
  for (const DeviceHierarchy* h : device.hierarchies) {
    const HierarchyRow* row = h->Find(level);
    if (row == nullptr) continue;
    const std::optional<Measured> m = MeasuredValue(*row, metric);
    if (!m) continue;
    table.rows.push_back(
        {level, metric, m->value, SourceCell(*h, m->program),
         m->ceiling ? absl::StrCat(FormatNumber(*m->ceiling), " ", m->unit) : kEmptyCell,
         m->fraction ? FormatPercent(*m->fraction) : kEmptyCell});
  }
  for (const PublishedValue* v : published) {
    if (v->level != level || PublishedMetric(v->quantity) != metric) continue;
    const size_t n = references.Number(*v);
    table.rows.push_back({level, metric, PublishedCell(*v),
                          absl::StrCat("published [", n, "]"),
                          kEmptyCell, kEmptyCell});
  }
}

// What defines each ceiling in the table, and the references, as lines.
std::string Origins(const ComparedDevice& device, const References& references) {
  std::vector<std::string> ceilings;
  for (const DeviceHierarchy* h : device.hierarchies) {
    for (const HierarchyRow& row : h->rows) {
      if (!row.ceiling_value) continue;
      const std::string line = absl::StrCat(
          row.level, " bandwidth ceiling (", row.ceiling, ", ", FormatNumber(*row.ceiling_value),
          " ", row.bandwidth_unit, "): ", row.ceiling_from);
      if (std::find(ceilings.begin(), ceilings.end(), line) == ceilings.end()) {
        ceilings.push_back(line);
      }
    }
  }
  std::string out = Wrap(
      "ceiling: the level's own limit for the metric, defined only for DRAM bandwidth (the "
      "device's DRAM peak) and shared bandwidth (shared_bandwidth's ceiling); — elsewhere.",
      "", "");
  for (const std::string& line : ceilings) absl::StrAppend(&out, Wrap(line, "- ", "  "));
  if (!references.sources.empty()) out += "\n";
  for (size_t i = 0; i < references.sources.size(); ++i) {
    const PublishedSource& cited = *references.sources[i];
    absl::StrAppend(&out, Wrap(absl::StrCat(ShortCitation(cited), "; measured on ",
                                            absl::StrJoin(references.measured_on[i], ", ")),
                               absl::StrCat("[", i + 1, "] "), "    "));
    if (!cited.url.empty()) absl::StrAppend(&out, "    ", cited.url, "\n");
  }
  return out;
}

// "Sources: dissect (2 files); mt4g@4cc55662a954, imported (1 file)".
std::string SourcesLine(const ComparedDevice& device) {
  std::vector<std::string> parts;
  for (const DeviceHierarchy* h : device.hierarchies) {
    parts.push_back(absl::StrCat(h->source, h->source == "dissect" ? "" : ", imported", " (",
                                 h->files.size(), h->files.size() == 1 ? " file)" : " files)"));
  }
  return absl::StrCat("Sources: ", absl::StrJoin(parts, "; "), ".");
}

std::string DeviceSummary(const ComparedDevice& device,
                          const std::vector<PublishedValue>& published) {
  std::vector<const PublishedValue*> matching;
  for (const PublishedValue& v : published) {
    if (DeviceMatches(v.device, device.name, device.compute_capability)) matching.push_back(&v);
  }
  MarkdownTable table;
  table.columns = {{"level", false},  {"metric", false},  {"value", true},
                   {"source", false}, {"ceiling", true}, {"% of ceiling", true}};
  References references;
  for (const std::string& level : Levels(device.hierarchies)) {
    for (const char* metric : kMetrics) {
      AddMetricRows(device, level, metric, matching, references, table);
    }
  }
  std::string out = absl::StrCat(
      "## summary: ", device.name, " · cc ",
      device.compute_capability.empty() ? "?" : device.compute_capability, " · ",
      device.sm_count.empty() ? "?" : device.sm_count, " SMs\n\n", Wrap(SourcesLine(device), "", ""),
      "\n", RenderMarkdownTable(table), "\n", Origins(device, references));
  std::vector<std::string> findings;
  for (const DeviceHierarchy* h : device.hierarchies) {
    for (const std::string& note : h->notes) {
      findings.push_back(Wrap(h->source == "dissect" ? note : absl::StrCat(h->source, ": ", note),
                              "- ", "  "));
    }
  }
  if (!findings.empty()) absl::StrAppend(&out, "\nFindings:\n\n", absl::StrJoin(findings, ""));
  return out;
}

// "## results read": one row per experiment, device and source.
std::string ResultsRead(const std::vector<ResultFile>& files) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::vector<Key> order;
  std::map<Key, std::pair<int, size_t>> counts;  // files, rows
  for (const ResultFile& file : files) {
    const std::string source = file.ContextOr("source", "");
    const Key key{file.experiment, file.ContextOr("device_name", "unknown device"),
                  source.empty() ? MeasuringProgram(file)
                                 : absl::StrCat(MeasuringProgram(file), " (imported)")};
    auto [it, inserted] = counts.insert({key, {0, 0}});
    if (inserted) order.push_back(key);
    it->second.first += 1;
    it->second.second += file.rows.size();
  }
  MarkdownTable table;
  table.columns = {{"experiment", false}, {"device", false}, {"measured by", false},
                   {"files", true},       {"rows", true}};
  for (const Key& key : order) {
    const auto& [files_n, rows_n] = counts[key];
    table.rows.push_back({CellText(std::get<0>(key)), CellText(std::get<1>(key)),
                          CellText(std::get<2>(key)), absl::StrCat(files_n),
                          absl::StrCat(rows_n)});
  }
  return absl::StrCat("## results read\n\n", RenderMarkdownTable(table));
}

}  // namespace

std::string PublishedCell(const PublishedValue& v) {
  auto number = [&](double x) { return v.unit == "B" ? FormatBytes(x) : FormatNumber(x); };
  const std::string unit = v.unit == "B" ? "" : absl::StrCat(" ", v.unit);
  if (!IsRange(v)) return absl::StrCat(number(v.value), unit);
  if (!v.range_high) return absl::StrCat("≥ ", number(*v.range_low), unit);
  if (!v.range_low) return absl::StrCat("≤ ", number(*v.range_high), unit);
  return absl::StrCat(number(*v.range_low), " – ", number(*v.range_high), unit);
}

std::string QuantityName(const std::string& quantity) {
  if (quantity == "latency_cycles" || quantity == "latency_ns") return "latency";
  if (quantity == "capacity_bytes") return "capacity";
  if (quantity == "line_bytes") return "line size";
  if (quantity == "sector_bytes") return "sector size";
  return "bandwidth";
}

std::string CapacityCell(const HierarchyRow& row) {
  if (!row.capacity_bytes) return kEmptyCell;
  return absl::StrCat(row.capacity_is_lower_bound ? "≥ " : "", FormatBytes(*row.capacity_bytes));
}

std::string BandwidthCell(const HierarchyRow& row) {
  if (!row.bandwidth) return kEmptyCell;
  return absl::StrCat(FormatNumber(*row.bandwidth), " ", row.bandwidth_unit);
}

std::string RenderSummary(const std::vector<ResultFile>& files,
                          const std::vector<DeviceHierarchy>& hierarchies,
                          const std::vector<PublishedValue>& published) {
  std::vector<std::string> blocks;
  for (const ComparedDevice& device : MatchDevices(hierarchies)) {
    blocks.push_back(DeviceSummary(device, published));
  }
  blocks.push_back(ResultsRead(files));
  return absl::StrJoin(blocks, "\n");
}

}  // namespace dissect::analysis
