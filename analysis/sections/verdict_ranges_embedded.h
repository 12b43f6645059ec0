// configs/verdict/h100.json as built into //analysis:verdict (the
// verdict_ranges_embedded target in analysis/BUILD, made by
// //tools:embed.bzl), so that a bundled verdict needs no data path.

#ifndef DISSECT_ANALYSIS_SECTIONS_VERDICT_RANGES_EMBEDDED_H_
#define DISSECT_ANALYSIS_SECTIONS_VERDICT_RANGES_EMBEDDED_H_

namespace dissect::analysis {

// The file's text, NUL-terminated.
extern const char kEmbeddedVerdictRangesJson[];

// How the verdict names it.
inline constexpr char kEmbeddedVerdictRangesOrigin[] = "configs/verdict/h100.json (built in)";

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_VERDICT_RANGES_EMBEDDED_H_
