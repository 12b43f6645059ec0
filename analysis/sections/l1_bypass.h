// Analysis of the l1_bypass experiment: per device and kernel, the
// speedup of every cache variant over the default build for each measured
// point, with the noise it has to beat and the winner; and the paper-style
// figure of -dlcm=cg's speedup per layer. Variants that run the same machine
// code (their rows' `same_code_as:` note, see SCHEMA.md) are labelled so: a
// twin pair counts as one candidate for the winner.

#ifndef DISSECT_ANALYSIS_SECTIONS_L1_BYPASS_H_
#define DISSECT_ANALYSIS_SECTIONS_L1_BYPASS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/results/results.h"

namespace dissect::analysis {

// A row's `same_code_as: <variant>[ (<loads>)][ + <runtime setting>]` note
// (SCHEMA.md, l1_bypass): the variant runs another variant's machine code.
struct SameCodeNote {
  std::string same_code_as;
  std::string loads;            // what the loads are; "" when not said
  std::string runtime_setting;  // "" for a compiled twin (the same run)
};

// The note in `label` (notes separated by ';'), or nullopt without one.
std::optional<SameCodeNote> ParseSameCodeNote(std::string_view label);

// One variant at one point, against the default variant at that point.
struct VariantSpeedup {
  double speedup = 0;  // default kernel_us / variant kernel_us (medians)
  double noise = 0;    // max of the two rows' kernel_us spreads, a fraction
  // Faster (or slower) than the default by more than the noise.
  bool faster() const { return speedup - 1 > noise; }
  bool slower() const { return 1 - speedup > noise; }
};

// The hardware counters of one variant at one point, where the run collected
// them (--metrics=l1_hit_rate,l2_sectors_read,dram_bytes_read, or
// --metrics=all_memory): the evidence for why a variant gained or lost.
struct VariantCounters {
  std::string variant;
  std::optional<double> l1_hit_pct;       // cupti/l1_hit_rate, %
  std::optional<double> l2_sectors_read;  // cupti/l2_sectors_read
  std::optional<double> dram_bytes_read;  // cupti/dram_bytes_read, bytes
};

// One measured point (all axes but `variant`).
struct SpeedupRow {
  std::string layer;
  std::string batch;        // the batch axis value; "" in files without it
  std::string working_set;  // "as configured" or the axis value in bytes
  std::string timing;
  std::string occupancy_pct;
  std::optional<double> input_bytes;  // what the working set came to
  // The point's beyond_2x_l2: false when its working set (bytes_moved) is
  // under 2 x device_l2_bytes, so its data stayed in L2 (no DRAM effect can
  // show); absent in files from before the rule.
  std::optional<bool> beyond_2x_l2;
  std::optional<double> default_us;   // absent: no default row here
  std::vector<std::optional<VariantSpeedup>>
      variants;  // per L1BypassTable::variants
  // The fastest variant faster than the noise, or "". Twins (the same code
  // and run) are one candidate, timed by the first declared of them that
  // was measured here, and named together: "dlcm_cg ≡ cg".
  std::string winner;
  // Default first, then in the order of L1BypassTable::variants; only the
  // variants with at least one counter. Empty when the run had no counters.
  std::vector<VariantCounters> counters;
};

struct L1BypassTable {
  std::string device;  // device_name
  std::string kernel;
  std::vector<std::string>
      variants;  // every variant but default, first-seen order
  // Per variant, from its rows' same_code_as note: the variant whose machine
  // code it runs ("" for none or no note), for a runtime variant the setting
  // it adds (else ""), and what its loads are (else "").
  std::vector<std::string> same_code_as;
  std::vector<std::string> runtime_setting;
  std::vector<std::string> loads;
  std::vector<SpeedupRow> rows;  // in the order of the files' rows
};

// The tables of every device (name, compute capability, SM count) and kernel
// with l1_bypass rows, in first-seen order. Rows that errored or were
// skipped are left out; a point measured twice keeps its first row's timing
// and the first counters seen for it (which may come from a later file).
std::vector<L1BypassTable> BuildL1BypassTables(
    const std::vector<ResultFile>& files);

// "## l1_bypass: speedup over default: <device>" sections, one table per
// kernel (an L2-resident point's working set reads "L2-resident"), followed by a counters table (L1 hit rate, L2 sectors and DRAM
// bytes read per variant) where the rows carry counters; "" when `tables` is
// empty. Ends with a newline.
std::string RenderL1Bypass(const std::vector<L1BypassTable>& tables);

// The figure of one device: gnuplot data and script drawing -dlcm=cg's
// speedup over default, in %, as one bar per kernel, layer and batch
// (clusters:
// timing and occupancy), at the configured working set (working_set_bytes 0),
// with the noise as error bars. Absent when the device has no such points.
struct L1BypassFigure {
  std::string stem;  // file names: <stem>.dat, <stem>.gp -> <stem>.svg
  std::string data;
  std::string script;
};
std::optional<L1BypassFigure> BuildL1BypassFigure(
    const std::vector<const ResultFile*>& files,
    const std::vector<std::string>& inputs, const std::string& device);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_L1_BYPASS_H_
