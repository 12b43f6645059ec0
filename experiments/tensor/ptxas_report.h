// Reads ptxas's resource report (nvcc -Xptxas -v, as collected by the
// cuda_library output group "resource_usage"), so that CPU tests can prove
// that probe kernels keep everything in registers.
#ifndef DISSECT_EXPERIMENTS_TENSOR_PTXAS_REPORT_H_
#define DISSECT_EXPERIMENTS_TENSOR_PTXAS_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect {

struct KernelResources {
  std::string entry;  // mangled name
  std::string arch;   // "sm_90a"
  int registers = -1;
  int stack_frame_bytes = -1;
  int spill_store_bytes = -1;
  int spill_load_bytes = -1;
  bool Spills() const { return spill_store_bytes != 0 || spill_load_bytes != 0; }
};

// One entry per "Compiling entry function" block. InvalidArgument when a
// block lacks its "spill stores/loads" or "Used N registers" line (so a
// changed report format cannot pass as "no spills"), or when there is no
// entry at all.
absl::StatusOr<std::vector<KernelResources>> ParsePtxasReport(absl::string_view text);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_PTXAS_REPORT_H_
