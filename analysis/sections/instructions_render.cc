// The instruction chapter's section: writing it (see instructions.h).

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/format/format.h"
#include "analysis/sections/instructions.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis {
namespace {

// The launch_overhead measures in the order the table lists them, with the
// row's title and the metric column's text.
struct LaunchMeasure {
  const char* measure;
  const char* title;
  const char* metric;
};
constexpr LaunchMeasure kLaunchMeasures[] = {
    {"launch_to_start", "launch to kernel start", "latency_us (µs)"},
    {"back_to_back", "back-to-back launches", "launch_interval_us (µs per launch)"},
    {"sync_round_trip", "sync round trip", "latency_us (µs)"},
    {"block_dispatch", "block dispatch",
     "dispatch_ns_per_block (ns per block: least-squares slope of "
     "kernel_time_us over blocks)"},
};

// "4 chains · 32 warps/SM": where the best throughput was reached.
std::string BestAtCell(const InstructionOpSummary& op) {
  if (!op.results_per_clock_per_sm) return kEmptyCell;
  return absl::StrCat(FormatNumber(op.chains), op.chains == 1 ? " chain · " : " chains · ",
                      FormatNumber(op.warps_per_sm), " warps/SM");
}

// A unit does not run faster than its published rate: a measurement more
// than 5 % above it (room for clock and timing noise) means the published
// row is not the one of the SASS the chain runs, or the rate is wrong, and
// its % compares nothing.
constexpr double kAbovePublishedFraction = 1.05;

bool AbovePublished(const std::optional<double>& fraction) {
  return fraction && *fraction > kAbovePublishedFraction;
}

std::string PercentCell(const InstructionOpSummary& op, const PublishedOpRate& published) {
  if (!published.results_per_clock_per_sm) return published.none;
  const std::optional<double> fraction = FractionOfPublished(op, published);
  if (!fraction) return kEmptyCell;
  return AbovePublished(fraction)
             ? absl::StrCat(FormatPercent(*fraction), " (above published: see below)")
             : FormatPercent(*fraction);
}

// `op` under `key` in groups kept in first-seen order.
template <typename Key>
void AddToGroup(std::vector<std::pair<Key, std::vector<std::string>>>& groups, const Key& key,
                const std::string& op) {
  auto it = std::find_if(groups.begin(), groups.end(),
                         [&](const auto& group) { return group.first == key; });
  if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
  AddOnce(it->second, op);
}

// What a reader needs beside the ops table.
struct OpNotes {
  // The published rows used, with the ops that use them.
  std::vector<std::pair<const InstructionRateRow*, std::vector<std::string>>> rows_used;
  // Why there is no published rate, with the ops it holds for.
  std::vector<std::pair<std::string, std::vector<std::string>>> none;
  // The ops measured above their published rate, with the rate and SASS.
  std::vector<std::string> above;
  // The rates file's notes of the ops, chain steps of several instructions.
  std::vector<std::string> notes;
  std::vector<const InstructionRateSource*> sources;
};

OpNotes CollectOpNotes(const InstructionsDevice& d, const InstructionRates& rates) {
  OpNotes out;
  for (const InstructionOpSummary& op : d.ops) {
    const PublishedOpRate published = rates.For(op.op, d.compute_capability);
    if (published.results_per_clock_per_sm) {
      if (const std::optional<double> fraction = FractionOfPublished(op, published);
          AbovePublished(fraction)) {
        out.above.push_back(absl::StrCat(
            op.Label(), ": ", FormatPercent(*fraction), " of ",
            FormatNumber(*published.results_per_clock_per_sm), " (\"", published.row->row,
            "\"), SASS ",
            op.sass_sequences.empty() ? "unknown" : absl::StrJoin(op.sass_sequences, " / ")));
      }
      AddToGroup(out.rows_used, published.row, op.op);
      if (std::find(out.sources.begin(), out.sources.end(), published.source) ==
          out.sources.end()) {
        out.sources.push_back(published.source);
      }
    } else {
      AddToGroup(out.none, published.why, op.op);
    }
    const InstructionOpRate* entry = rates.Op(op.op);
    if (entry != nullptr && !entry->note.empty()) {
      AddOnce(out.notes, absl::StrCat(op.op, ": ", entry->note));
    }
    for (const std::string& sass : op.sass_sequences) {
      const size_t steps = std::vector<std::string>(absl::StrSplit(sass, " + ")).size();
      if (steps < 2) continue;
      AddOnce(out.notes, absl::StrCat(op.Label(), ": a chain step is ", steps, " instructions (",
                                      sass, "); latency and throughput count one step as one op"));
    }
  }
  return out;
}

// The parts of OpNotes that have entries, as paragraphs and lists.
std::string RenderOpNotes(const OpNotes& n, const std::string& cc) {
  std::vector<std::string> parts;
  if (!n.above.empty()) {
    std::string part = absl::StrCat(
        "Above the published rate (more than ", FormatPercent(kAbovePublishedFraction),
        " of it): the table's row does not describe this SASS (or the rate is wrong), so its % "
        "compares nothing (where the rates table knows why, its note is under Notes):\n\n");
    for (const std::string& entry : n.above) absl::StrAppend(&part, "- ", entry, "\n");
    parts.push_back(std::move(part));
  }
  if (!n.rows_used.empty()) {
    std::string part =
        absl::StrCat("Published rates (results per clock per SM, compute capability ", cc,
                     "), by the row of the source's table:\n\n");
    for (const auto& [row, ops] : n.rows_used) {
      size_t index = 0;
      while (n.sources[index]->key != row->source) ++index;
      absl::StrAppend(&part, "- ", row->row, ": ", FormatNumber(row->rates.at(cc)), " [", index + 1,
                      "] (", absl::StrJoin(ops, ", "), ")\n");
    }
    parts.push_back(std::move(part));
  }
  if (!n.notes.empty()) {
    std::string part = "Notes:\n\n";
    for (const std::string& note : n.notes) absl::StrAppend(&part, "- ", note, "\n");
    parts.push_back(std::move(part));
  }
  if (!n.none.empty()) {
    std::string part = "No published rate:\n\n";
    for (const auto& [why, ops] : n.none) {
      absl::StrAppend(&part, "- ", absl::StrJoin(ops, ", "), ": ", why, "\n");
    }
    parts.push_back(std::move(part));
  }
  if (!n.sources.empty()) {
    std::string part;
    for (size_t i = 0; i < n.sources.size(); ++i) {
      absl::StrAppend(&part, "[", i + 1, "] ", InstructionRateCitation(*n.sources[i]), " (",
                      n.sources[i]->transcription, ")\n");
    }
    parts.push_back(std::move(part));
  }
  return absl::StrJoin(parts, "\n");
}

// (who, text) pairs as one cell, each text once with all who said it:
// "latency, throughput: skipped: ..."; kEmptyCell for none.
std::string GroupedCell(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_text;
  for (const auto& [who, text] : entries) AddToGroup(by_text, text, who);
  std::vector<std::string> cells;
  for (const auto& [text, whos] : by_text) {
    cells.push_back(absl::StrCat(absl::StrJoin(whos, ", "), ": ", text));
  }
  return cells.empty() ? kEmptyCell : CellText(absl::StrJoin(cells, "; "));
}

// The rows of an op that were not measured, each reason once.
std::string NotMeasuredCell(const InstructionOpSummary& op) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const std::string& entry : op.not_measured) {
    entries.push_back(absl::StrSplit(entry, absl::MaxSplits(": ", 1)));
  }
  return GroupedCell(entries);
}

std::string OpsBlock(const InstructionsDevice& d, const InstructionRates& rates) {
  std::string out = absl::StrCat(
      "### instructions\n\nLatency: instruction_latency's latency_cycles (the slope over two "
      "dependent chains) at the longest chain length measured. Throughput: "
      "instruction_throughput's results_per_clock_per_sm (warp-lane results per SM clock), the "
      "best over chains per thread and warps per SM. % of published: that throughput × the "
      "table's results per op over the published rate of compute capability ",
      d.compute_capability, " (`", rates.origin.empty() ? "no rates table" : rates.origin,
      "`).\n\n");
  MarkdownTable table = ColumnsTable({{"op", false},
                                      {"latency (cycles)", true},
                                      {"chain length", true},
                                      {"throughput (results/clk/SM)", true},
                                      {"best at", false},
                                      {"published (results/clk/SM)", true},
                                      {"% of published", true},
                                      {"SASS (one chain step)", false},
                                      {"not measured", false}});
  for (const InstructionOpSummary& op : d.ops) {
    const PublishedOpRate published = rates.For(op.op, d.compute_capability);
    table.rows.push_back(
        {CellText(op.Label()), OptionalCell(op.latency_cycles),
         op.latency_cycles ? FormatNumber(op.chain_length) : kEmptyCell,
         OptionalCell(op.results_per_clock_per_sm), BestAtCell(op),
         OptionalCell(published.results_per_clock_per_sm), PercentCell(op, published),
         op.sass_sequences.empty() ? kEmptyCell : CellText(absl::StrJoin(op.sass_sequences, " / ")),
         NotMeasuredCell(op)});
  }
  absl::StrAppend(&out, RenderMarkdownTable(table));
  if (const std::string notes = RenderOpNotes(CollectOpNotes(d, rates), d.compute_capability);
      !notes.empty())
    absl::StrAppend(&out, "\n", notes);
  return out;
}

// "slope over 5 points, blocks 1-1024, intercept 3.2 µs".
std::string FitNote(const LaunchValue& v) {
  if (v.fit) {
    return absl::StrCat("slope over ", v.fit->points, " points, blocks ",
                        FormatNumber(v.blocks_min), "-", FormatNumber(v.blocks_max), ", intercept ",
                        FormatNumber(v.fit->intercept), " µs");
  }
  if (v.blocks_max > 0) {
    return "no fit: needs kernel times at two or more block counts";
  }
  return "";
}

std::string LaunchBlock(const InstructionsDevice& d) {
  std::vector<std::string> modes = {"stream", "graph"};
  for (const auto& [measure, by_mode] : d.launch) {
    for (const auto& [mode, value] : by_mode) {
      if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
    }
  }
  MarkdownTable table = ColumnsTable({{"measure", false}, {"metric", false}});
  for (const std::string& mode : modes) table.columns.push_back({mode, true});
  table.columns.push_back({"notes", false});
  for (const LaunchMeasure& m : kLaunchMeasures) {
    const auto it = d.launch.find(m.measure);
    if (it == d.launch.end()) continue;
    std::vector<std::string> cells = {m.title, m.metric};
    std::vector<std::pair<std::string, std::string>> notes;
    for (const std::string& mode : modes) {
      const auto v = it->second.find(mode);
      if (v == it->second.end()) {
        cells.push_back(kEmptyCell);
        continue;
      }
      cells.push_back(OptionalCell(v->second.value));
      if (const std::string fit = FitNote(v->second); !fit.empty()) notes.push_back({mode, fit});
      if (!v->second.clock_note.empty()) {
        notes.push_back({mode, absl::StrCat("clock: ", v->second.clock_note)});
      }
      for (const std::string& why : v->second.not_measured) {
        notes.push_back({mode, why});
      }
    }
    cells.push_back(GroupedCell(notes));
    table.rows.push_back(std::move(cells));
  }
  return absl::StrCat(
      "### launch overhead\n\nlaunch_overhead's medians per mode (stream: kernel launches on a "
      "stream; graph: the same kernel launched through a CUDA graph).\n\n",
      RenderMarkdownTable(table));
}

std::string RenderDevice(const InstructionsDevice& d, const InstructionRates& rates) {
  std::vector<std::string> files;
  for (const std::string& f : d.files) files.push_back(absl::StrCat("`", f, "`"));
  std::vector<std::string> blocks = {
      absl::StrCat("## instructions: ", d.title, "\n"),
      absl::StrCat(d.device_line, " · from ", absl::StrJoin(files, ", "), "\n")};
  if (!d.ops.empty()) blocks.push_back(OpsBlock(d, rates));
  if (!d.launch.empty()) blocks.push_back(LaunchBlock(d));
  return absl::StrJoin(blocks, "\n");
}

}  // namespace

std::string RenderInstructionsSections(const std::vector<ResultFile>& files,
                                       const InstructionRates& rates) {
  std::vector<const ResultFile*> pointers;
  for (const ResultFile& f : files) pointers.push_back(&f);
  std::vector<std::string> sections;
  for (const InstructionsDevice& d : BuildInstructions(pointers)) {
    sections.push_back(RenderDevice(d, rates));
  }
  return absl::StrJoin(sections, "\n");
}

}  // namespace dissect::analysis
