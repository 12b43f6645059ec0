// Host inputs and the CPU reference of every layer kernel.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_REFERENCE_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "experiments/workloads/layers/workload.h"

namespace dissect::l1_bypass {

struct HostTensors {
  std::vector<float> x;
  std::vector<float> weights;
  std::vector<int32_t> index;
};

// Random inputs for `wl`, reproducible from `seed`: x uniform in [-1, 1);
// stream's scale in [0.5, 1.5) and shift in [-0.5, 0.5); conv and gemv
// weights uniform in [-1, 1) / sqrt(terms per output); gather's index a
// random permutation of the input's elements.
HostTensors MakeInputs(const Workload& wl, uint64_t seed);

// Output element `i` as the device computes it: the same operations in the
// same order, so that it must match bit for bit. Not for softmax.
float ExactOutputAt(const Workload& wl, const HostTensors& in, size_t i);

// Output row `row` of softmax, in double precision.
std::vector<double> SoftmaxRow(const Workload& wl, const HostTensors& in, size_t row);

// Relative tolerance of softmax outputs (device expf and float sums against
// the double reference).
inline constexpr double kSoftmaxTolerance = 1e-4;

// Checks the device output `y` against the reference at a reproducible
// random sample of outputs whose host cost stays within `work_budget`
// multiply-adds (all outputs when they fit; softmax: whole rows). The
// sample holds the first and the last output (row) of every image of the
// batch, so that a large batch, checked by sampling, is checked in every
// image. Exact
// kernels must match bit for bit, softmax within kSoftmaxTolerance. The
// error names the first wrong element.
absl::Status CheckAgainstReference(const Workload& wl, const HostTensors& in,
                                   const std::vector<float>& y, double work_budget);

// Checks that `y` equals `want` bit for bit (another variant's output).
absl::Status CheckIdentical(const std::vector<float>& y, const std::vector<float>& want,
                            absl::string_view want_name);

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_LAYERS_REFERENCE_H_
