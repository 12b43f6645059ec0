// Turns the per-warp (per-warpgroup) %clock64 records of the tensor-core
// probes into cycles per instruction.
#ifndef DISSECT_EXPERIMENTS_TENSOR_PROBE_TIMING_H_
#define DISSECT_EXPERIMENTS_TENSOR_PROBE_TIMING_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "experiments/framework/experiment.h"
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

// The SM clock during one launch, in MHz: the longest per-SM %clock64 span
// of its records (first start to last stop on one SM) over the launch's
// CUDA-event time `ms`. The event time also holds the launch overhead and
// each block's work outside its clock reads (operand loads, the untimed
// step, the output stores), so this is a lower bound on the mean SM clock
// while the timed loops ran; the shorter the kernel, the lower it reads.
// InternalError for a record whose clock did not advance; InvalidArgument
// for no records or a time that is not positive.
absl::StatusOr<double> MeasuredSmClockMhz(absl::Span<const TensorTiming> records, double ms);

// Records a probe point's metrics from the records of its timed launches:
// `timing` holds one row of `per_launch` records per launch (the checked
// launch first, then the warm-up launches, then one per sample in `ms`).
// Per sample: `cycles_metric` (CyclesPerInstruction of its row),
// "flops_per_clk_per_sm" (flops_per_instruction over that), "tflops"
// (flops_per_launch over the event time) and "measured_sm_clock_mhz"
// (MeasuredSmClockMhz of its row and event time; for a sample the harness
// timed again, its records come from the first timing and its time from
// the second: two launches of the same kernel).
absl::Status AddProbeSamples(PointContext& ctx, absl::Span<const TensorTiming> timing,
                             int per_launch, int64_t per_record, double flops_per_instruction,
                             double flops_per_launch, const std::vector<double>& ms,
                             absl::string_view cycles_metric);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_TENSOR_PROBE_TIMING_H_
