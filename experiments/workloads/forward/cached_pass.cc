// The cached forward pass; see cached_pass.h.
#include "experiments/workloads/forward/cached_pass.h"

#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "probes/cuda_status.h"

namespace dissect::forward {
namespace {

struct PassCache {
  std::string network;
  NetworkPart part = NetworkPart::kFeatures;
  int batch = 0;
  uint64_t weight_seed = 0;
  std::unique_ptr<ForwardPass> pass;
};

}  // namespace

absl::StatusOr<ForwardPass*> CachedForwardPass(PointContext& ctx, const std::string& network,
                                               NetworkPart part, int batch, uint64_t weight_seed) {
  static auto* cache = new PassCache;
  if (cache->pass != nullptr && cache->network == network && cache->part == part &&
      cache->batch == batch && cache->weight_seed == weight_seed) {
    return cache->pass.get();
  }
  cache->pass.reset();
  DISSECT_ASSIGN_OR_RETURN(const NetworkSpec spec, BuiltinNetwork(network, part));
  absl::StatusOr<std::unique_ptr<ForwardPass>> pass =
      ForwardPass::Create(spec, batch, weight_seed, ctx.stream());
  if (!pass.ok()) {
    if (absl::StartsWith(pass.status().message(), "cuDNN not found")) {
      return Skipped(pass.status().message());
    }
    return pass.status();
  }
  *cache = {network, part, batch, weight_seed, *std::move(pass)};
  return cache->pass.get();
}

}  // namespace dissect::forward
