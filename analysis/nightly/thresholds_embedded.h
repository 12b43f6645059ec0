// configs/regression/thresholds.json, compiled in by //analysis/nightly:thresholds_embedded.

#ifndef DISSECT_ANALYSIS_NIGHTLY_THRESHOLDS_EMBEDDED_H_
#define DISSECT_ANALYSIS_NIGHTLY_THRESHOLDS_EMBEDDED_H_

namespace dissect::analysis {

extern const char kEmbeddedThresholdsJson[];
inline constexpr char kEmbeddedThresholdsOrigin[] = "configs/regression/thresholds.json (built in)";

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_NIGHTLY_THRESHOLDS_EMBEDDED_H_
