// The result format's reader (experiments/result_format/reader.h) under the
// names the analysis layer uses: analysis reads result files and nothing else
// of the experiments.
#ifndef DISSECT_ANALYSIS_RESULTS_RESULTS_H_
#define DISSECT_ANALYSIS_RESULTS_RESULTS_H_

#include "experiments/result_format/reader.h"

namespace dissect::analysis {

using result_format::Row;
using result_format::ResultFile;
using result_format::ParseResultJson;
using result_format::ReadResultFile;
using result_format::CollectResultPaths;
using result_format::ReadResults;
using result_format::ReadResultFiles;
using result_format::RowNotes;
using result_format::RowVector;
using result_format::AxisNumber;
using result_format::RowSmClockMhz;
using result_format::Median;
using result_format::BestOfMedians;
using result_format::kSupportedSchemaVersion;
using result_format::kHeadlineMetricKey;

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_RESULTS_RESULTS_H_
