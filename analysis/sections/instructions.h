// The instruction chapter's report section, `## instructions: <device>`:
// per op of instruction_latency and instruction_throughput its dependent
// latency, its best throughput and that throughput as a % of the published
// rate of the device's compute capability (instruction_rates.h), with the
// SASS one chain step is; and launch_overhead's launch, back-to-back, sync
// and block-dispatch costs, the last fitted as a least-squares slope. Reads
// result files only (the contracts: analysis/SCHEMA.md).

#ifndef DISSECT_ANALYSIS_SECTIONS_INSTRUCTIONS_H_
#define DISSECT_ANALYSIS_SECTIONS_INSTRUCTIONS_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/results/results.h"
#include "analysis/sections/instruction_rates.h"

namespace dissect::analysis {

// instruction_latency, instruction_throughput or launch_overhead.
bool IsInstructionExperiment(const std::string& experiment);

// A straight line through points by least squares.
struct LineFit {
  double slope = 0;
  double intercept = 0;
  int points = 0;
};
// nullopt with fewer than two distinct x.
std::optional<LineFit> FitLine(const std::vector<std::pair<double, double>>& points);

// One op (and, for atomics, one contention) of the instruction experiments.
struct InstructionOpSummary {
  std::string op;
  // The contention axis value where the op is measured at several, else "".
  std::string contention;
  // instruction_latency's latency_cycles at the longest measured chain_length.
  std::optional<double> latency_cycles;
  double chain_length = 0;
  // instruction_throughput's best results_per_clock_per_sm over chains and
  // warps_per_sm, and where it was reached.
  std::optional<double> results_per_clock_per_sm;
  double chains = 0;
  double warps_per_sm = 0;
  // The rows' `sass_sequence: ...` notes: latency's, then throughput's where
  // it differs.
  std::vector<std::string> sass_sequences;
  // Rows that were not measured: "latency (chain_length 64): skipped: ...",
  // each distinct message once per experiment.
  std::vector<std::string> not_measured;
  // "ffma" or "atom_shared_add (contention warp)".
  std::string Label() const;
};

// One measure of launch_overhead in one mode (stream, graph).
struct LaunchValue {
  std::optional<double> value;  // the median over the measured rows
  std::string metric;           // the metric it is, or dispatch_ns_per_block
  // block_dispatch: the (blocks, kernel_time_us) points, the fit through
  // them and the blocks they span.
  std::vector<std::pair<double, double>> points;
  std::optional<LineFit> fit;
  double blocks_min = 0;
  double blocks_max = 0;
  std::vector<std::string> not_measured;  // "skipped: ..." / "error: ..."
  // The first measured row's `clock: ...` note: how launch_to_start put the
  // host and %globaltimer on one clock; "" without one.
  std::string clock_note;
};

struct InstructionsDevice {
  std::string title;        // SectionTitle
  std::string device_line;  // SectionDeviceLine
  std::string compute_capability;
  std::vector<std::string> files;
  std::vector<InstructionOpSummary> ops;  // first-seen order
  // measure (launch_to_start, back_to_back, sync_round_trip,
  // block_dispatch) -> mode -> value; only those with rows.
  std::map<std::string, std::map<std::string, LaunchValue>> launch;
};

// One entry per device (name, compute capability, SM count, source) with
// instruction or launch results, in first-seen order.
std::vector<InstructionsDevice> BuildInstructions(const std::vector<const ResultFile*>& files);

// An op's throughput as a fraction of its published rate on `cc`
// (results_per_clock_per_sm x results_per_op / published), or nullopt.
std::optional<double> FractionOfPublished(const InstructionOpSummary& op,
                                          const PublishedOpRate& published);

// One "## instructions: <device>" section per device of BuildInstructions,
// "" without any. Ends with a newline.
std::string RenderInstructionsSections(const std::vector<ResultFile>& files,
                                       const InstructionRates& rates);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_INSTRUCTIONS_H_
