// The verdict on the headline numbers (see verdict.h).

#include "analysis/sections/verdict.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/format/format.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis {
namespace {

constexpr char kOutOfRange[] = "OUT OF RANGE";

bool ContainsNoCase(const std::string& haystack, const std::string& needle) {
  return absl::StrContains(absl::AsciiStrToLower(haystack), absl::AsciiStrToLower(needle));
}

bool NameMatches(const std::string& name, const std::vector<std::string>& any_of) {
  return std::any_of(any_of.begin(), any_of.end(),
                     [&](const std::string& n) { return ContainsNoCase(name, n); });
}

bool InDeviceSet(const ResultFile& file, const VerdictDeviceSet& set) {
  if (!set.name_contains.empty() && !NameMatches(file.ContextOr("device_name", ""), set.name_contains)) {
    return false;
  }
  if (!set.compute_capability.empty() &&
      file.ContextOr("device_compute_capability", "") != set.compute_capability) {
    return false;
  }
  return !set.sm_count || file.ContextOr("device_sm_count", "") == std::to_string(*set.sm_count);
}

const VerdictJudgement* JudgementFor(const VerdictHeadline& h, const ResultFile& device,
                                     const VerdictRanges& ranges) {
  for (const VerdictJudgement& j : h.judge) {
    const VerdictDeviceSet* set = ranges.FindDeviceSet(j.devices);
    if (set != nullptr && InDeviceSet(device, *set)) return &j;
  }
  return nullptr;
}

std::string KindOf(const std::string& device_name, const VerdictRanges& ranges) {
  for (const VerdictKind& k : ranges.kinds) {
    if (NameMatches(device_name, k.name_contains)) return k.kind;
  }
  return "";
}

bool RowMatches(const Row& row, const VerdictSelector& s) {
  if (row.error) return false;
  for (const auto& [axis, value] : s.axes) {
    if (row.Axis(axis) != value) return false;
  }
  for (const VerdictSelector::Between& b : s.between) {
    const std::optional<double> v = AxisNumber(row, b.axis);
    if (!v || (b.low && *v < *b.low) || (b.high && *v > *b.high)) return false;
  }
  return true;
}

// A headline's number and what it came from.
struct Measured {
  double value = 0;
  int rows = 0;
  std::string how;  // the selector, described
  std::optional<double> clock_mhz;
  std::string clock_note;  // "" (the rows' NVML clock) or "max, from the context"
  std::vector<std::string> commits;
  bool throttled = false;
};

std::string DescribeBound(const std::string& axis, double value) {
  return absl::EndsWith(axis, "_bytes") ? FormatBytes(value) : FormatNumber(value);
}

std::string DescribeSelector(const VerdictSelector& s) {
  std::vector<std::string> parts = {s.experiment};
  for (const auto& [axis, value] : s.axes) parts.push_back(axis + "=" + value);
  for (const VerdictSelector::Between& b : s.between) {
    if (b.low && b.high) {
      parts.push_back(absl::StrCat(b.axis, " ", DescribeBound(b.axis, *b.low), "–",
                                   DescribeBound(b.axis, *b.high)));
    } else if (b.low || b.high) {
      parts.push_back(absl::StrCat(b.axis, b.low ? " ≥ " : " ≤ ",
                                   DescribeBound(b.axis, b.low ? *b.low : *b.high)));
    }
  }
  const std::string reduce = s.reduce == "best_of_medians"
                                 ? "best over " + s.knob + " of the median " + s.metric
                                 : s.reduce + " " + s.metric;
  return absl::StrCat(absl::StrJoin(parts, " "), ": ", reduce);
}

std::string CommitOf(const ResultFile& file) {
  const std::string commit = file.ContextOr("git_commit", "");
  if (commit.empty()) return "no commit";
  return commit.substr(0, 12) + (file.ContextOr("git_dirty", "") == "true" ? "+dirty" : "");
}

std::optional<Measured> Measure(const std::vector<const ResultFile*>& files,
                                const VerdictSelector& s) {
  std::vector<double> values, clocks;
  std::map<double, std::vector<double>> by_knob;
  Measured m;
  for (const ResultFile* file : files) {
    if (file->experiment != s.experiment) continue;
    bool used = false;
    for (const Row& row : file->rows) {
      const std::optional<double> v = FiniteCounter(row, s.metric);
      if (!v || !RowMatches(row, s)) continue;
      const std::optional<double> knob = s.knob.empty() ? 0.0 : AxisNumber(row, s.knob);
      if (!knob) continue;
      values.push_back(*v);
      by_knob[*knob].push_back(*v);
      if (const std::optional<double> mhz = RowSmClockMhz(row)) clocks.push_back(*mhz);
      m.throttled |= row.Counter("throttled").value_or(0) > 0;
      used = true;
    }
    const std::string commit = CommitOf(*file);
    if (used && std::find(m.commits.begin(), m.commits.end(), commit) == m.commits.end()) {
      m.commits.push_back(commit);
    }
    if (used && clocks.empty() && !m.clock_mhz) {
      double khz = 0;
      if (absl::SimpleAtod(file->ContextOr("device_sm_clock_max_khz", ""), &khz) && khz > 0) {
        m.clock_mhz = khz / 1000;
        m.clock_note = "max, from the context";
      }
    }
  }
  if (values.empty()) return std::nullopt;
  m.rows = static_cast<int>(values.size());
  if (s.reduce == "median") {
    m.value = Median(values);
  } else if (s.reduce == "max") {
    m.value = *std::max_element(values.begin(), values.end());
  } else {
    m.value = BestOfMedians(by_knob);
  }
  if (!clocks.empty()) {
    m.clock_mhz = Median(clocks);
    m.clock_note.clear();
  }
  m.how = absl::StrCat(DescribeSelector(s), " (", m.rows, m.rows == 1 ? " row)" : " rows)");
  return m;
}

std::optional<Measured> MeasureHeadline(const std::vector<const ResultFile*>& files,
                                        const VerdictHeadline& h) {
  for (const VerdictSelector& s : h.measure) {
    if (std::optional<Measured> m = Measure(files, s)) return m;
  }
  return std::nullopt;
}

std::string PublishedCell(const VerdictJudgement* j) {
  if (j == nullptr) return kEmptyCell;
  if (j->published.empty()) return "none published";
  std::vector<std::string> parts;
  for (const VerdictPublished& p : j->published) {
    parts.push_back(absl::StrCat(p.value, " ", p.unit, " (", p.source, ")"));
  }
  return absl::StrJoin(parts, "; ");
}

// The peers' values of the headline's level, from peer files of the same
// kind of device as `device_name`.
std::string PeerCell(const VerdictHeadline& h, const std::string& device_name,
                     const VerdictRanges& ranges, const VerdictPeers& peers) {
  if (peers.dir.empty()) return "no peers (" + peers.note + ")";
  if (h.peer_levels.empty()) return kEmptyCell;
  const std::string kind = KindOf(device_name, ranges);
  std::vector<std::string> parts;
  for (const VerdictPeerTable& t : peers.tables) {
    if (kind.empty() || t.peer.kind != kind || !t.hierarchy) continue;
    for (const std::string& level : h.peer_levels) {
      const HierarchyRow* row = t.hierarchy->Find(level);
      if (row == nullptr) continue;
      const std::optional<double>& v =
          h.peer_quantity == "bandwidth" ? row->bandwidth : row->latency_cycles;
      if (!v) continue;
      const std::string unit = h.peer_quantity == "bandwidth" ? row->bandwidth_unit : "cycles";
      parts.push_back(absl::StrCat(FormatNumber(*v), " ", unit, " (", level, "; ",
                                   t.hierarchy->source, ", ", t.hierarchy->device_name, ", ",
                                   t.peer.file, ")"));
      break;
    }
  }
  return parts.empty() ? "none of this kind" : absl::StrJoin(parts, "; ");
}

std::string ClockCell(const Measured& m) {
  const std::string clock =
      m.clock_mhz ? absl::StrCat(FormatNumber(*m.clock_mhz), " MHz",
                                 m.clock_note.empty() ? "" : " (" + m.clock_note + ")")
                  : "clock unknown";
  return absl::StrCat(clock, ", ", absl::StrJoin(m.commits, ", "));
}

// The bounds as the ranges file gives them (StrCat's six significant
// digits, not FormatNumber's four: a bound must read as it was chosen).
std::string RangeText(const VerdictJudgement& j, const std::string& unit) {
  return absl::StrCat("[", j.low, ", ", j.high, "] ", unit);
}

struct Counts {
  int in_range = 0, out_of_range = 0, missing = 0;
  int judged_rows = 0;  // headline rows some range applied to
};

// Our files by device (name, compute capability, SM count), first seen
// first; imported peer files (context `source`) are not ours.
std::vector<std::vector<const ResultFile*>> OurDevices(const std::vector<ResultFile>& files) {
  std::vector<std::string> keys;
  std::vector<std::vector<const ResultFile*>> groups;
  for (const ResultFile& f : files) {
    if (!f.ContextOr("source", "").empty()) continue;
    const std::string key = SectionDeviceKey(f);
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      groups.push_back({&f});
    } else {
      groups[it - keys.begin()].push_back(&f);
    }
  }
  return groups;
}

// The out-of-range details and the ranges' reasons under a device's table.
struct DeviceNotes {
  std::vector<std::string> out_of_range, why;
};

std::vector<std::string> HeadlineRow(const VerdictHeadline& h,
                                     const std::vector<const ResultFile*>& files,
                                     const VerdictRanges& ranges, const VerdictPeers& peers,
                                     Counts& counts, DeviceNotes& notes) {
  const ResultFile& device = *files.front();
  const std::string name = device.ContextOr("device_name", "?");
  const VerdictJudgement* j = JudgementFor(h, device, ranges);
  const std::optional<Measured> m = MeasureHeadline(files, h);
  std::string verdict;
  if (j == nullptr) {
    verdict = "not judged (no ranges for " + name + ")";
  } else if (!m) {
    verdict = "missing";
    ++counts.missing;
  } else if (m->value >= j->low && m->value <= j->high) {
    verdict = "in range";
    ++counts.in_range;
  } else {
    verdict = kOutOfRange;
    ++counts.out_of_range;
    const bool low = m->value < j->low;
    std::string text = absl::StrCat("#### `", h.id, "`: ", kOutOfRange, ": ", FormatNumber(m->value),
                                    " ", h.unit, low ? " below " : " above ", RangeText(*j, h.unit),
                                    "\n\nThe range: ", j->why, ".\n\nLikely causes (",
                                    low ? "low" : "high", "):\n\n");
    for (const std::string& cause : low ? h.causes_low : h.causes_high) {
      absl::StrAppend(&text, "- ", cause, "\n");
    }
    notes.out_of_range.push_back(text);
  }
  if (j != nullptr) {
    ++counts.judged_rows;
    notes.why.push_back(absl::StrCat("- `", h.id, "` ", RangeText(*j, h.unit), " (", j->devices,
                                     "): ", j->why));
  }
  const std::string value =
      m ? absl::StrCat(FormatNumber(m->value), " ", h.unit, m->throttled ? " (throttled)" : "")
        : kEmptyCell;
  return {absl::StrCat("`", h.id, "` ", h.title), value, m ? ClockCell(*m) : kEmptyCell,
          j ? RangeText(*j, h.unit) : kEmptyCell, verdict, PublishedCell(j),
          PeerCell(h, name, ranges, peers), m ? m->how : kEmptyCell};
}

void RenderDevice(const std::vector<const ResultFile*>& files, const VerdictRanges& ranges,
                  const VerdictPeers& peers, Counts& counts, std::string& out) {
  MarkdownTable table = ColumnsTable({{"headline", false}, {"measured", true},
                                      {"SM clock, commit", false}, {"range", false},
                                      {"verdict", false}, {"published", false},
                                      {"peers (same kind of device)", false},
                                      {"measured from", false}});
  DeviceNotes notes;
  for (const VerdictHeadline& h : ranges.headlines) {
    table.rows.push_back(HeadlineRow(h, files, ranges, peers, counts, notes));
  }
  absl::StrAppend(&out, "## ", SectionDeviceLine(*files.front()), "\n\n", files.size(),
                  " result file(s) of this device.\n\n", RenderMarkdownTable(table));
  if (!notes.out_of_range.empty()) {
    absl::StrAppend(&out, "\n### out of range\n\n", absl::StrJoin(notes.out_of_range, "\n"));
  }
  if (!notes.why.empty()) {
    absl::StrAppend(&out, "\n### why these ranges\n\n", absl::StrJoin(notes.why, "\n"), "\n");
  }
  out += "\n";
}

void RenderCrossCheck(const VerdictCrossCheck& c, const VerdictInputs& inputs, Counts& counts,
                      std::string& out) {
  std::vector<const NcuCsv*> csvs;
  for (const NcuCsv& csv : inputs.csvs) {
    if (csv.values.count(c.ncu_metric) > 0) csvs.push_back(&csv);
  }
  if (csvs.empty()) {
    absl::StrAppend(&out, "- `", c.id, "`: no ncu CSV with ", c.ncu_metric,
                    " among the inputs: not checked.\n");
    return;
  }
  std::vector<const ResultFile*> ours;
  for (const ResultFile& f : inputs.files) {
    if (f.ContextOr("source", "").empty()) ours.push_back(&f);
  }
  const std::optional<Measured> m = Measure(ours, c.row);
  for (const NcuCsv* csv : csvs) {
    const double ncu = csv->values.at(c.ncu_metric);
    absl::StrAppend(&out, "- `", c.id, "` (", c.title, "): ncu ", FormatNumber(ncu), " (",
                    c.ncu_metric, ", ", csv->path, ")");
    if (!m) {
      ++counts.missing;
      absl::StrAppend(&out, "; CUPTI: missing (no row: ", DescribeSelector(c.row), "): missing\n");
      continue;
    }
    const double pct = ncu != 0 ? 100 * (m->value - ncu) / ncu : NAN;
    const bool ok = std::isfinite(pct) && std::fabs(pct) <= c.max_difference_pct;
    ++(ok ? counts.in_range : counts.out_of_range);
    absl::StrAppend(&out, "; CUPTI ", FormatNumber(m->value), " (", m->how, "; ", ClockCell(*m),
                    "); difference ", FormatNumber(pct), " % (limit ±",
                    FormatNumber(c.max_difference_pct), " %: ", c.why, "): ",
                    ok ? "in range" : kOutOfRange, "\n");
    if (!ok) {
      for (const std::string& cause : c.causes) absl::StrAppend(&out, "  - likely: ", cause, "\n");
    }
  }
}

std::string PeersLine(const VerdictPeers& peers) {
  if (peers.dir.empty()) return "Peers: none (" + peers.note + ").\n";
  std::string line = absl::StrCat("Peers: ", peers.dir, " (imported with analysis/import, levels "
                                  "from the memory-hierarchy inference).\n");
  for (const VerdictPeerTable& t : peers.tables) {
    if (!t.problem.empty()) absl::StrAppend(&line, "- peer file left out: ", t.problem, "\n");
  }
  return line;
}

}  // namespace

Verdict JudgeHeadlines(const VerdictInputs& inputs, const VerdictRanges& ranges) {
  Counts counts;
  std::string body;
  const std::vector<std::vector<const ResultFile*>> devices = OurDevices(inputs.files);
  for (const std::vector<const ResultFile*>& files : devices) {
    RenderDevice(files, ranges, inputs.peers, counts, body);
  }
  if (devices.empty()) body += "No result file of ours among the inputs (only imported ones).\n\n";
  // A run whose GPU produced no result of its own (every headline step
  // failed) must not read as "0 missing" because the only files left are
  // another device's.
  if (counts.judged_rows == 0) {
    counts.missing += static_cast<int>(ranges.headlines.size());
    absl::StrAppend(&body, "No result file of a device these ranges judge: all ",
                    ranges.headlines.size(), " headlines count as missing.\n\n");
  }
  if (!ranges.cross_checks.empty()) {
    body += "## ncu cross-checks\n\n";
    for (const VerdictCrossCheck& c : ranges.cross_checks) RenderCrossCheck(c, inputs, counts, body);
    body += "\n";
  }
  body += "## sources\n\n";
  for (const auto& [key, text] : ranges.sources) absl::StrAppend(&body, "- ", key, ": ", text, "\n");
  Verdict verdict{counts.in_range, counts.out_of_range, counts.missing, ""};
  verdict.markdown = absl::StrCat(
      "verdict: ", counts.in_range, " in range, ", counts.out_of_range, " out of range, ",
      counts.missing, " missing\n\n# first-contact verdict\n\nRanges: ", ranges.origin,
      ". Each headline is read from the rows of any input file by experiment, axes and "
      "metric; a range is judged only on a device its device set matches.\n",
      PeersLine(inputs.peers),
      inputs.unreadable.empty()
          ? ""
          : absl::StrCat("Unreadable result files left out: ", inputs.unreadable.size(),
                         " (named on stderr).\n"),
      "\n", body);
  return verdict;
}

}  // namespace dissect::analysis
