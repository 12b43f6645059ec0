// configs/published/instruction_rates.json as built into the binary (see the
// instruction_rates_embedded rule in analysis/sections/BUILD).

#ifndef DISSECT_ANALYSIS_SECTIONS_INSTRUCTION_RATES_EMBEDDED_H_
#define DISSECT_ANALYSIS_SECTIONS_INSTRUCTION_RATES_EMBEDDED_H_

namespace dissect::analysis {

// The file's text, NUL-terminated.
extern const char kEmbeddedInstructionRatesJson[];

inline constexpr char kEmbeddedInstructionRatesOrigin[] =
    "configs/published/instruction_rates.json";

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_INSTRUCTION_RATES_EMBEDDED_H_
