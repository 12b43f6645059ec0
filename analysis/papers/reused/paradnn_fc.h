// ParaDnn's measured V100 fully connected data (the authors' gpu_fc.json,
// Emma926/paradnn scripts/data/gpu_fc.json): parallel lists, one entry per
// finished model, labelled "layer_L-node_N-input_2000-output_1000-bs_B".
// Each cell is a whole TensorFlow training step, not one GEMM. The file is
// read in place from the shared data folder, never copied into the project.
#ifndef DISSECT_ANALYSIS_PAPERS_REUSED_PARADNN_FC_H_
#define DISSECT_ANALYSIS_PAPERS_REUSED_PARADNN_FC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dissect::analysis::papers::reused {

struct ParaDnnFcCell {
  int64_t layers = 0, width = 0, batch = 0;
  double gflops = 0;  // GFLOP/s of a whole training step
  double examples_per_s = 0;
  bool framework_bound = false;  // see MarkFrameworkBound
};

// Parses the file's text; `origin` names it in errors. Errors
// (InvalidArgument, one line): not JSON, a list missing or of another
// length than `labels`, a label not of the form above, a non-number value.
absl::StatusOr<std::vector<ParaDnnFcCell>> ParseParaDnnFc(const std::string &text,
                                                          const std::string &origin);
// Reads and parses `path`; NotFound when the file is absent.
absl::StatusOr<std::vector<ParaDnnFcCell>> ReadParaDnnFc(const std::string &path);

// One cell as the tables show it: "GFLOP/s (examples/s)", in bold when
// framework-bound.
std::string ParaDnnFcCellText(const ParaDnnFcCell &cell);

// The markdown of the paper's cells on the paper's grid: one table per layer
// count, rows batch, columns width, "GFLOP/s (examples/s)", framework-bound
// cells marked; "—" where the file has no finished model.
std::string ParaDnnFcMarkdown(const std::vector<ParaDnnFcCell> &cells);

}  // namespace dissect::analysis::papers::reused

#endif  // DISSECT_ANALYSIS_PAPERS_REUSED_PARADNN_FC_H_
