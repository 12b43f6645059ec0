// Number formatting shared by the report, the memory-hierarchy table and the
// figures.

#ifndef DISSECT_ANALYSIS_FORMAT_H_
#define DISSECT_ANALYSIS_FORMAT_H_

#include <string>

namespace dissect::analysis {

// A number with about four significant digits: "29.03", "0.5", "12346",
// "1.5e-05", "nan", "inf".
std::string FormatNumber(double value);
// A fraction as a percentage with one decimal: 0.0123 -> "1.2%",
// 0.0001 -> "<0.1%", 0 -> "0.0%".
std::string FormatPercent(double fraction);
// A byte count in binary units: 4 -> "4 B", 262144 -> "256 KiB",
// 50331648 -> "48 MiB", 1536 -> "1.5 KiB", 1073741824 -> "1 GiB".
std::string FormatBytes(double bytes);

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_FORMAT_H_
