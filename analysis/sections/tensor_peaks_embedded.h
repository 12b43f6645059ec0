// configs/tensor/peaks.json as built into the binary (see the
// tensor_peaks_embedded_cc genrule in analysis/BUILD).

#ifndef DISSECT_ANALYSIS_SECTIONS_TENSOR_PEAKS_EMBEDDED_H_
#define DISSECT_ANALYSIS_SECTIONS_TENSOR_PEAKS_EMBEDDED_H_

namespace dissect::analysis {

// The file's text, NUL-terminated.
extern const char kEmbeddedTensorPeaksJson[];

inline constexpr char kEmbeddedTensorPeaksOrigin[] =
    "configs/tensor/peaks.json";

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_TENSOR_PEAKS_EMBEDDED_H_
