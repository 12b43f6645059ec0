// The arithmetic of the compute-vs-communication model of data-parallel
// training (Alibaba-PAI, IISWC 2019): how many bytes a worker exchanges per
// step, how long a link takes for them, and what share of a step that is.
// Pure functions of their arguments; the generator (communication.cc) feeds
// them measured compute and link bandwidth and labels what is modelled.
#ifndef DISSECT_ANALYSIS_PAPERS_COMMUNICATION_COMM_MODEL_H_
#define DISSECT_ANALYSIS_PAPERS_COMMUNICATION_COMM_MODEL_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace dissect::analysis::papers::communication {

// A training step's compute is modelled as forward + backward, with the
// backward pass taken as twice the forward pass (a gradient with respect to
// the activations and one with respect to the weights, each about a forward
// pass's work). Nothing here measures a backward pass.
inline constexpr double kBackwardOverForward = 2.0;

// Gradients are float32: 4 bytes per trainable parameter.
inline constexpr double kGradientBytesPerParameter = 4.0;

// The step's compute (ms) modelled from a measured forward pass (ms).
double ModelledStepComputeMs(double forward_ms);

// The bytes one worker sends per step (and receives: a ring is symmetric) in
// a ring AllReduce of `gradient_bytes` over `workers` workers: a
// reduce-scatter and an all-gather, each moving (N-1)/N of the buffer
// through every worker's link, 2 (N-1)/N x gradient_bytes in all. 0 for one
// worker.
double RingAllReduceBytesPerWorker(double gradient_bytes, int workers);

// A network link's line rate in Gbit/s (10^9 bit/s) as GB/s (10^9 B/s): / 8.
double LineRateGBps(double gbit_per_s);

// Milliseconds to move `bytes` at `gb_per_s` (10^9 B/s); NaN for a rate <= 0.
double TransferMs(double bytes, double gb_per_s);

// Communication's share of a step in % when compute and communication do
// not overlap: 100 x comm / (compute + comm).
double CommunicationSharePercent(double compute_ms, double comm_ms);

// The step's speedup when communication shrinks from `slow_comm_ms` to
// `fast_comm_ms` (no overlap): (compute + slow) / (compute + fast).
double UpgradeSpeedup(double compute_ms, double slow_comm_ms, double fast_comm_ms);

// Trainable parameters of a dissect.network.v1 document (configs/networks,
// features and classifier): conv k x c x r x s, fc k x c x h x w of its
// input, bn 2 x c (scale and shift; the running mean and variance are not
// trained); relu, pooling, add, concat and softmax have none, and the
// networks have no biases. Shapes follow configs/networks/README.md. A
// malformed document is an InvalidArgumentError naming `origin`.
absl::StatusOr<int64_t> TrainableParameters(std::string_view network_json, std::string_view origin);

// TrainableParameters of configs/networks/<name>.json (compiled in);
// NotFound for a name without a file.
absl::StatusOr<int64_t> BuiltinNetworkParameters(std::string_view name);

}  // namespace dissect::analysis::papers::communication

#endif  // DISSECT_ANALYSIS_PAPERS_COMMUNICATION_COMM_MODEL_H_
