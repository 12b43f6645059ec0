// Analysis of the l1_bypass experiment (see l1_bypass.h).

#include "analysis/sections/l1_bypass.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "analysis/format/format.h"
#include "analysis/sections/section_util.h"

namespace dissect::analysis {
namespace {

constexpr char kExperiment[] = "l1_bypass";
constexpr char kDefault[] = "default";
constexpr char kDlcmCg[] = "dlcm_cg";
constexpr char kNone[] = "—";

struct Timed {
  double us;
  double spread;
};

// (layer, batch, working set, timing, occupancy)
using PointKey =
    std::tuple<std::string, std::string, std::string, std::string, std::string>;

struct Group {
  std::string device;
  std::string kernel;
  std::vector<std::string> variants;  // first-seen order, default included
  std::vector<PointKey> points;       // first-seen order
  std::map<PointKey, std::map<std::string, Timed>> timed;
  std::map<PointKey, double> input_bytes;
  std::map<PointKey, bool> beyond_2x_l2;
  std::map<PointKey, std::map<std::string, VariantCounters>> counters;
  // Per variant: its rows' same_code_as note (the first seen).
  std::map<std::string, SameCodeNote> same_code;

  // The variant whose code and run `variant` repeats exactly (a compiled
  // twin's same_code_as), or "" when it has no twin of that kind. Runtime
  // variants have none: the setting makes a different run.
  std::string TwinOf(const std::string& variant) const {
    const auto it = same_code.find(variant);
    return it != same_code.end() && it->second.runtime_setting.empty()
               ? it->second.same_code_as
               : "";
  }
};

std::string DeviceKey(const ResultFile& f) {
  return absl::StrCat(f.ContextOr("device_name", ""), "\n",
                      f.ContextOr("device_compute_capability", ""), "\n",
                      f.ContextOr("device_sm_count", ""));
}

// `variant`, followed by its measured twins: "dlcm_cg ≡ cg".
std::string WithTwins(const Group& g, const std::string& variant,
                      const std::map<std::string, Timed>& measured) {
  std::string out = variant;
  for (const auto& [other, timed] : measured) {
    if (other != variant && g.TwinOf(other) == variant) {
      absl::StrAppend(&out, " ≡ ", other);
    }
  }
  return out;
}

std::vector<Group> Collect(const std::vector<const ResultFile*>& files) {
  std::vector<Group> groups;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const ResultFile* f : files) {
    if (f->experiment != kExperiment) continue;
    for (const Row& row : f->rows) {
      const std::optional<double> us = row.Counter("kernel_us");
      if (row.error || !us || !(*us > 0)) continue;
      const std::string kernel = row.Axis("kernel").value_or("?");
      const auto id = std::make_pair(DeviceKey(*f), kernel);
      auto [it, added] = index.emplace(id, groups.size());
      if (added) {
        groups.push_back({});
        groups.back().device = f->ContextOr("device_name", "unknown device");
        groups.back().kernel = kernel;
      }
      Group& g = groups[it->second];
      const std::string variant = row.Axis("variant").value_or("?");
      const PointKey key{row.Axis("layer").value_or("?"),
                         row.Axis("batch").value_or(""),
                         row.Axis("working_set_bytes").value_or("0"),
                         row.Axis("timing").value_or("?"),
                         row.Axis("occupancy_pct").value_or("?")};
      auto& by_variant = g.timed[key];
      if (by_variant.empty()) g.points.push_back(key);
      // Counters may come from another file than the timing (a separate,
      // smaller --metrics run): the first row with any counter gives them.
      VariantCounters c;
      c.variant = variant;
      c.l1_hit_pct = row.Counter("cupti/l1_hit_rate");
      c.l2_sectors_read = row.Counter("cupti/l2_sectors_read");
      c.dram_bytes_read = row.Counter("cupti/dram_bytes_read");
      if (c.l1_hit_pct || c.l2_sectors_read || c.dram_bytes_read) {
        g.counters[key].emplace(variant, c);
      }
      if (auto note = ParseSameCodeNote(row.label)) g.same_code.emplace(variant, *note);
      if (by_variant.count(variant) > 0) continue;
      by_variant[variant] = {*us, row.Counter("kernel_us.spread").value_or(0)};
      if (std::find(g.variants.begin(), g.variants.end(), variant) ==
          g.variants.end()) {
        g.variants.push_back(variant);
      }
      if (auto bytes = row.Counter("input_bytes")) g.input_bytes[key] = *bytes;
      if (auto beyond = row.Counter("beyond_2x_l2")) g.beyond_2x_l2[key] = *beyond >= 1;
    }
  }
  return groups;
}

std::vector<L1BypassTable> Tables(const std::vector<const ResultFile*>& files) {
  std::vector<L1BypassTable> tables;
  for (const Group& g : Collect(files)) {
    L1BypassTable t;
    t.device = g.device;
    t.kernel = g.kernel;
    for (const std::string& v : g.variants) {
      if (v == kDefault) continue;
      t.variants.push_back(v);
      const auto same = g.same_code.find(v);
      const SameCodeNote note =
          same != g.same_code.end() ? same->second : SameCodeNote{};
      t.same_code_as.push_back(note.same_code_as);
      t.runtime_setting.push_back(note.runtime_setting);
      t.loads.push_back(note.loads);
    }
    for (const PointKey& key : g.points) {
      const auto& by_variant = g.timed.at(key);
      SpeedupRow row;
      std::tie(row.layer, row.batch, row.working_set, row.timing,
               row.occupancy_pct) = key;
      if (row.working_set == "0") row.working_set = "as configured";
      if (auto it = g.input_bytes.find(key); it != g.input_bytes.end()) {
        row.input_bytes = it->second;
      }
      if (auto it = g.beyond_2x_l2.find(key); it != g.beyond_2x_l2.end()) {
        row.beyond_2x_l2 = it->second;
      }
      const auto base = by_variant.find(kDefault);
      if (base != by_variant.end()) row.default_us = base->second.us;
      double best = 0;
      for (const std::string& v : t.variants) {
        const auto it = by_variant.find(v);
        if (base == by_variant.end() || it == by_variant.end()) {
          row.variants.push_back(std::nullopt);
          continue;
        }
        VariantSpeedup s;
        s.speedup = base->second.us / it->second.us;
        s.noise = std::max(base->second.spread, it->second.spread);
        row.variants.push_back(s);
        // A twin whose first-declared twin was measured here is that one's
        // repeat, not a candidate of its own.
        const std::string twin = g.TwinOf(v);
        if (!twin.empty() && by_variant.count(twin) > 0) continue;
        if (s.faster() && s.speedup > best) {
          best = s.speedup;
          row.winner = WithTwins(g, v, by_variant);
        }
      }
      if (auto it = g.counters.find(key); it != g.counters.end()) {
        std::vector<std::string> order = {kDefault};
        order.insert(order.end(), t.variants.begin(), t.variants.end());
        for (const std::string& v : order) {
          if (auto c = it->second.find(v); c != it->second.end()) {
            row.counters.push_back(c->second);
          }
        }
      }
      t.rows.push_back(std::move(row));
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

std::string Speedup(const VariantSpeedup& s) {
  return absl::StrFormat("%.3f ±%s", s.speedup, FormatPercent(s.noise));
}

// Markdown table text; cells must not contain '|'.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<bool>& right,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n|");
  for (bool r : right) absl::StrAppend(&out, r ? " ---: |" : " --- |");
  out += "\n";
  for (const auto& row : rows)
    absl::StrAppend(&out, "| ", absl::StrJoin(row, " | "), " |\n");
  return out;
}

std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string OrNone(const std::optional<double>& v,
                   std::string (*format)(double)) {
  return v ? format(*v) : std::string(kNone);
}

std::string OrNone(const std::string& text) {
  return text.empty() ? std::string(kNone) : text;
}

// The column header of variant i: twins and runtime variants say so.
std::string VariantHeader(const L1BypassTable& t, size_t i) {
  if (t.same_code_as[i].empty()) return t.variants[i];
  if (t.runtime_setting[i].empty()) {
    return absl::StrCat(t.variants[i], " ≡ ", t.same_code_as[i]);
  }
  return absl::StrCat(t.variants[i], " (", t.same_code_as[i], " code)");
}

// What the ≡ and "code" headers of `t` mean; "" when it has none.
std::string SameCodeParagraph(const L1BypassTable& t) {
  std::vector<std::string> twins, runtime;
  for (size_t i = 0; i < t.variants.size(); ++i) {
    if (t.same_code_as[i].empty()) continue;
    if (t.runtime_setting[i].empty()) {
      twins.push_back(absl::StrCat(
          t.same_code_as[i], " ≡ ", t.variants[i],
          t.loads[i].empty() ? "" : absl::StrCat(" (", t.loads[i], ")")));
    } else {
      runtime.push_back(absl::StrCat(t.variants[i], ": the ", t.same_code_as[i],
                                     " build with an ", t.runtime_setting[i]));
    }
  }
  std::string out;
  if (!twins.empty()) {
    absl::StrAppend(
        &out, "Same machine code, the same run: ", absl::StrJoin(twins, ", "),
        ". Twins are timed separately, so their difference is run-to-run "
        "noise; a pair counts as one candidate for the winner, timed by the "
        "first of the two as named here.");
  }
  if (!runtime.empty()) {
    absl::StrAppend(
        &out, out.empty() ? "" : " ",
        "Same machine code, another run: ", absl::StrJoin(runtime, "; "), ".");
  }
  return out.empty() ? out : out + "\n";
}

// One row per variant with counters at each point; "" when there are none.
std::string CountersTable(const L1BypassTable& t) {
  std::vector<std::vector<std::string>> rows;
  for (const SpeedupRow& r : t.rows) {
    for (const VariantCounters& c : r.counters) {
      std::string per_input = kNone;
      if (c.dram_bytes_read && r.input_bytes && *r.input_bytes > 0) {
        per_input =
            absl::StrFormat("%.2f", *c.dram_bytes_read / *r.input_bytes);
      }
      rows.push_back(
          {r.layer, OrNone(r.batch), r.working_set, r.timing, r.occupancy_pct,
           c.variant,
           OrNone(c.l1_hit_pct,
                  [](double v) { return absl::StrFormat("%.1f", v); }),
           OrNone(c.l2_sectors_read, FormatNumber),
           OrNone(c.dram_bytes_read, FormatBytes), per_input});
    }
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "Counters of the same rows (collected in a separate pass from the "
      "timing). DRAM read / input: DRAM bytes read over the kernel's input "
      "bytes; about 1 for a kernel that reads its input once from DRAM.\n\n",
      Table(
          {"layer", "batch", "working set", "timing", "occupancy %", "variant",
           "L1 hit %", "L2 sectors read", "DRAM read", "DRAM read / input"},
          {false, true, true, false, true, false, true, true, true, true},
          rows));
}

}  // namespace

std::optional<SameCodeNote> ParseSameCodeNote(std::string_view label) {
  const std::optional<std::string> text = LabelNote(label, "same_code_as", ':');
  if (!text || text->empty()) return std::nullopt;
  SameCodeNote note;
  absl::string_view code = *text;
  if (const size_t plus = code.find(" + "); plus != absl::string_view::npos) {
    note.runtime_setting = std::string(absl::StripAsciiWhitespace(code.substr(plus + 3)));
    code = code.substr(0, plus);
  }
  // Variant names have no spaces: " (" starts the loads.
  if (const size_t open = code.find(" ("); open != absl::string_view::npos &&
                                           absl::EndsWith(code, ")")) {
    note.loads = std::string(code.substr(open + 2, code.size() - open - 3));
    code = code.substr(0, open);
  }
  note.same_code_as = std::string(absl::StripAsciiWhitespace(code));
  return note;
}

std::vector<L1BypassTable> BuildL1BypassTables(
    const std::vector<ResultFile>& files) {
  std::vector<const ResultFile*> pointers;
  for (const ResultFile& f : files) pointers.push_back(&f);
  return Tables(pointers);
}

std::string RenderL1Bypass(const std::vector<L1BypassTable>& tables) {
  std::vector<std::string> blocks;
  std::string device;
  for (const L1BypassTable& t : tables) {
    if (t.device != device) {
      device = t.device;
      blocks.push_back(
          absl::StrCat("## l1_bypass: speedup over default: ", device, "\n"));
      blocks.push_back(
          "Speedup = default kernel_us / variant kernel_us (medians). ± is the "
          "noise: the "
          "larger kernel_us spread ((max − min) / median) of the two rows. "
          "**Bold**: faster "
          "than default by more than the noise; _italic_: slower by more than "
          "the noise. "
          "winner: the fastest bold variant (— when none beats the noise). "
          "L2-resident: the point's working set (bytes_moved) is under 2× "
          "device_l2_bytes, so its data stays in L2, hot or cold (L2 is "
          "write-back): no DRAM effect can show there, and its dram_peak_pct "
          "is not a % of the DRAM peak.\n");
    }
    std::vector<std::string> header = {"layer",  "batch",       "working set",
                                       "timing", "occupancy %", "default (us)"};
    std::vector<bool> right = {false, true, true, false, true, true};
    for (size_t i = 0; i < t.variants.size(); ++i) {
      header.push_back(VariantHeader(t, i));
      right.push_back(true);
    }
    header.push_back("winner");
    right.push_back(false);
    std::vector<std::vector<std::string>> rows;
    for (const SpeedupRow& r : t.rows) {
      std::string ws = r.working_set;
      if (r.input_bytes)
        ws = absl::StrCat(ws, " (", FormatBytes(*r.input_bytes), ")");
      if (r.beyond_2x_l2.has_value() && !*r.beyond_2x_l2) ws = absl::StrCat(ws, ", L2-resident");
      std::vector<std::string> cells = {
          r.layer,
          OrNone(r.batch),
          ws,
          r.timing,
          r.occupancy_pct,
          r.default_us ? FormatNumber(*r.default_us) : kNone};
      for (const std::optional<VariantSpeedup>& s : r.variants) {
        if (!s) {
          cells.push_back(kNone);
        } else if (s->faster()) {
          cells.push_back(absl::StrCat("**", Speedup(*s), "**"));
        } else if (s->slower()) {
          cells.push_back(absl::StrCat("_", Speedup(*s), "_"));
        } else {
          cells.push_back(Speedup(*s));
        }
      }
      cells.push_back(!r.default_us      ? "no default row"
                      : r.winner.empty() ? kNone
                                         : r.winner);
      rows.push_back(std::move(cells));
    }
    blocks.push_back(absl::StrCat("### ", t.kernel, "\n"));
    if (const std::string note = SameCodeParagraph(t); !note.empty()) {
      blocks.push_back(note);
    }
    blocks.push_back(Table(header, right, rows));
    const std::string counters = CountersTable(t);
    if (!counters.empty()) {
      blocks.push_back(absl::StrCat("#### ", t.kernel, ": counters\n"));
      blocks.push_back(counters);
    }
  }
  return absl::StrJoin(blocks, "\n");
}

namespace {

// The -dlcm=cg speedups of the as-configured rows: bars "kernel layer[
// batch N]", clusters (timing, occupancy), and each bar's value per cluster.
struct DlcmBars {
  std::vector<std::string> bars;
  std::vector<std::pair<std::string, std::string>> clusters;
  std::map<std::string,
           std::map<std::pair<std::string, std::string>, VariantSpeedup>>
      values;
};

DlcmBars CollectDlcmBars(const std::vector<const ResultFile*>& files) {
  DlcmBars d;
  for (const L1BypassTable& t : Tables(files)) {
    const auto column =
        std::find(t.variants.begin(), t.variants.end(), kDlcmCg);
    if (column == t.variants.end()) continue;
    const size_t c = column - t.variants.begin();
    for (const SpeedupRow& r : t.rows) {
      if (r.working_set != "as configured" || !r.variants[c]) continue;
      const std::string bar =
          absl::StrCat(t.kernel, " ", r.layer,
                       r.batch.empty() ? "" : absl::StrCat(" batch ", r.batch));
      const auto cluster = std::make_pair(r.timing, r.occupancy_pct);
      if (std::find(d.bars.begin(), d.bars.end(), bar) == d.bars.end())
        d.bars.push_back(bar);
      if (std::find(d.clusters.begin(), d.clusters.end(), cluster) ==
          d.clusters.end()) {
        d.clusters.push_back(cluster);
      }
      d.values[bar].emplace(cluster, *r.variants[c]);
    }
  }
  return d;
}

// The figure's data file: a line per bar, speedup and noise per cluster.
std::string DlcmData(const std::string& stem, const DlcmBars& d) {
  std::string data = absl::StrCat("# ", stem,
                                  ".dat: speedup of -Xptxas -dlcm=cg over "
                                  "default, % (100 x (speedup - 1)), and the "
                                  "noise, %\n# columns: kernel/layer/batch");
  for (const auto& [timing, occupancy] : d.clusters) {
    absl::StrAppend(&data, " | ", timing, ", occupancy ", occupancy,
                    "%: speedup noise");
  }
  data += "\n";
  for (const auto& bar : d.bars) {
    absl::StrAppend(&data, "\"", bar, "\"");
    const auto& bar_values = d.values.at(bar);
    for (const auto& cluster : d.clusters) {
      const auto it = bar_values.find(cluster);
      if (it == bar_values.end()) {
        data += " ? ?";
      } else {
        absl::StrAppend(
            &data,
            absl::StrFormat(" %.4f %.4f", 100 * (it->second.speedup - 1),
                            100 * it->second.noise));
      }
    }
    data += "\n";
  }
  return data;
}

}  // namespace

std::optional<L1BypassFigure> BuildL1BypassFigure(
    const std::vector<const ResultFile*>& files,
    const std::vector<std::string>& inputs, const std::string& device) {
  const DlcmBars d = CollectDlcmBars(files);
  const std::vector<std::string>& bars = d.bars;
  const std::vector<std::pair<std::string, std::string>>& clusters =
      d.clusters;
  if (bars.empty()) return std::nullopt;
  L1BypassFigure fig;
  fig.stem = "l1_bypass_dlcm_cg";
  fig.data = DlcmData(fig.stem, d);
  fig.script = absl::StrCat("# ", fig.stem,
                            ".gp: generated by //analysis:figures from\n");
  for (const std::string& input : inputs)
    absl::StrAppend(&fig.script, "#   ", input, "\n");
  const int width =
      std::max(800, 160 + 28 * static_cast<int>(bars.size() * clusters.size()));
  absl::StrAppend(
      &fig.script, "set terminal svg size ", width,
      ",600 dynamic noenhanced font 'sans,11' background rgb 'white'\n",
      "set output ", Quoted(fig.stem + ".svg"), "\n", "set title ",
      Quoted(absl::StrCat(device, ": -dlcm=cg vs default per layer")), "\n",
      "set ylabel 'speedup over default (%), error bar: noise'\n",
      "set style data histograms\n",
      "set style histogram errorbars gap 1 lw 1\n",
      "set style fill solid 0.7 border -1\n", "set boxwidth 0.9\n",
      "set datafile missing '?'\n", "set xtics rotate by -60 noenhanced\n",
      "set grid ytics\n", "set xzeroaxis lt -1\n", "set key below\n", "plot ");
  std::vector<std::string> plots;
  for (size_t i = 0; i < clusters.size(); ++i) {
    plots.push_back(absl::StrCat(
        i == 0 ? Quoted(fig.stem + ".dat") : "''", " using ", 2 + 2 * i, ":",
        3 + 2 * i, i == 0 ? ":xtic(1)" : "", " title ",
        Quoted(absl::StrCat(clusters[i].first, ", occupancy ",
                            clusters[i].second, "%"))));
  }
  absl::StrAppend(&fig.script, absl::StrJoin(plots, ", \\\n     "), "\n");
  return fig;
}

}  // namespace dissect::analysis
