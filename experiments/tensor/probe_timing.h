// Turns the per-warp (per-warpgroup) %clock64 records of the tensor-core
// probes into cycles per instruction.
#ifndef DISSECT_EXPERIMENTS_TENSOR_PROBE_TIMING_H_
#define DISSECT_EXPERIMENTS_TENSOR_PROBE_TIMING_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kernels/tensor/tensor_timing.h"

namespace dissect {

// Whether every record says the kernel body was compiled for the GPU.
bool AllBuilt(absl::Span<const TensorTiming> records);

// Cycles per instruction on one SM: for each SM, the span from the first
// start to the last stop of its records over the instructions they issued
// (`per_record` each); the median over SMs. With one record this is the
// record's own cycles per instruction (the latency of a dependent chain).
// InternalError if a record's clock did not advance.
absl::StatusOr<double> CyclesPerInstruction(absl::Span<const TensorTiming> records,
                                            int64_t per_record);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_PROBE_TIMING_H_
