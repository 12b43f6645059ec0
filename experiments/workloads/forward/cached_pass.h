// One built forward pass kept across an experiment's points: building one
// loads cuDNN, uploads the weights and sizes the workspaces, so consecutive
// points of the same network and batch share it.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CACHED_PASS_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CACHED_PASS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "experiments/workloads/forward/forward_pass.h"
#include "experiments/workloads/forward/network.h"
#include "experiments/framework/experiment.h"

namespace dissect::forward {

// The forward pass of BuiltinNetwork(network, part) at `batch` with weights
// from `weight_seed`, on ctx's stream. The last one built is kept (one per
// process) and returned while the arguments stay the same; other arguments
// replace it. Where cuDNN is not found, Skipped with the loader's message.
absl::StatusOr<ForwardPass*> CachedForwardPass(PointContext& ctx, const std::string& network,
                                               NetworkPart part, int batch, uint64_t weight_seed);

}  // namespace dissect::forward

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_FORWARD_CACHED_PASS_H_
