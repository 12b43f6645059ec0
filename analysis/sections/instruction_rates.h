// The published instruction rates, configs/published/instruction_rates.json
// (format documented in configs/README.md): rows of NVIDIA's table of native
// arithmetic instruction throughput (results per clock per SM, by compute
// capability), each with its source, and for every op of the instruction
// experiments the row it stands for, or why none is published.

#ifndef DISSECT_ANALYSIS_SECTIONS_INSTRUCTION_RATES_H_
#define DISSECT_ANALYSIS_SECTIONS_INSTRUCTION_RATES_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::analysis {

inline constexpr std::string_view kInstructionRatesFormat = "dissect.instruction_rates.v1";

struct InstructionRateSource {
  std::string key;
  std::string publisher;
  std::string title;
  std::string where;
  std::string url;
  // How the numbers got into the file (who transcribed them, whether they
  // were checked against the source).
  std::string transcription;
};

// One row of the source's table.
struct InstructionRateRow {
  std::string id;
  std::string row;                      // the table's row heading
  std::map<std::string, double> rates;  // compute capability "9.0" -> results/clk/SM
  std::string source;                   // an InstructionRateSource key
};

// One op of the instruction experiments.
struct InstructionOpRate {
  std::string op;
  std::string row;             // an InstructionRateRow id; "" when none is published
  double results_per_op = 1;   // the table's results per op (hfma2: 2)
  std::string note;            // optional
  std::string none_published;  // why there is no row, without one
};

// An op's published rate on one compute capability, or why there is none.
struct PublishedOpRate {
  std::optional<double> results_per_clock_per_sm;
  double results_per_op = 1;
  const InstructionRateRow* row = nullptr;
  const InstructionRateSource* source = nullptr;
  // Without a rate: the table cell ("none published", or "none published
  // for cc 8.0" where the op's row has no such column) and why.
  std::string none;
  std::string why;
};

struct InstructionRates {
  std::vector<InstructionRateSource> sources;
  std::vector<InstructionRateRow> rows;
  std::vector<InstructionOpRate> ops;
  std::string origin;  // where the file came from, named in the report

  const InstructionRateSource* Source(std::string_view key) const;
  const InstructionRateRow* Row(std::string_view id) const;
  const InstructionOpRate* Op(std::string_view op) const;
  // The rate of `op` in the column of `compute_capability`; an op missing
  // from the file, one with none_published, and a column the row lacks give
  // the reason instead.
  PublishedOpRate For(std::string_view op, std::string_view compute_capability) const;
};

// Parses and validates the file: every row names a known source and has at
// least one column, every op names a known row or says why none is
// published, no op twice. Errors are one line that starts with `path: `.
absl::StatusOr<InstructionRates> ParseInstructionRatesJson(std::string_view text,
                                                           std::string_view path);

// `Publisher: "Title", where. url`.
std::string InstructionRateCitation(const InstructionRateSource& source);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_INSTRUCTION_RATES_H_
