// Pointer-chase chain construction; see pointer_chain.h.
#include "probes/pointer_chain.h"

#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"

namespace dissect {

absl::StatusOr<ChainOrder> ParseChainOrder(absl::string_view name) {
  if (name == "strided") return ChainOrder::kStrided;
  if (name == "random") return ChainOrder::kRandom;
  return absl::InvalidArgumentError(
      absl::StrCat("chain order must be 'strided' or 'random', not '", name, "'"));
}

absl::Status ValidateChainGeometry(int64_t footprint_bytes, int64_t stride_bytes) {
  if (stride_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("stride_bytes must be > 0 (got ", stride_bytes, ")"));
  }
  if (stride_bytes % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stride_bytes must be a multiple of 4 (got ", stride_bytes, ")"));
  }
  if (footprint_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("footprint_bytes must be > 0 (got ", footprint_bytes, ")"));
  }
  if (footprint_bytes % stride_bytes != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "footprint_bytes (", footprint_bytes, ") must be a multiple of stride_bytes (",
        stride_bytes, ")"));
  }
  if (footprint_bytes / 4 > int64_t{0xffffffff}) {
    return absl::InvalidArgumentError(absl::StrCat(
        "footprint_bytes (", footprint_bytes, ") exceeds 2^32 words"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint32_t>> BuildChain(int64_t footprint_bytes,
                                                 int64_t stride_bytes,
                                                 ChainOrder order,
                                                 uint64_t seed) {
  if (absl::Status s = ValidateChainGeometry(footprint_bytes, stride_bytes); !s.ok()) {
    return s;
  }
  const uint64_t words = static_cast<uint64_t>(footprint_bytes / 4);
  const uint64_t step = static_cast<uint64_t>(stride_bytes / 4);
  const uint64_t slots = words / step;
  // visit[k] is the k-th slot visited; the cycle closes back to visit[0] = 0.
  std::vector<uint64_t> visit(slots);
  std::iota(visit.begin(), visit.end(), 0);
  if (order == ChainOrder::kRandom && slots > 1) {
    // A uniformly shuffled visiting order of slots 1..n-1 (Fisher-Yates),
    // closed back to slot 0, is a uniformly random single cycle.
    std::mt19937_64 rng(seed);
    for (uint64_t i = slots - 1; i > 1; --i) {
      std::uniform_int_distribution<uint64_t> pick(1, i);
      std::swap(visit[i], visit[pick(rng)]);
    }
  }
  std::vector<uint32_t> chain(words, 0);
  for (uint64_t k = 0; k < slots; ++k) {
    const uint64_t from = visit[k] * step;
    const uint64_t to = visit[(k + 1) % slots] * step;
    chain[from] = static_cast<uint32_t>(to);
  }
  return chain;
}

uint32_t WalkChain(const std::vector<uint32_t>& chain, uint64_t steps) {
  uint32_t j = 0;
  for (uint64_t k = 0; k < steps; ++k) j = chain[j];
  return j;
}

}  // namespace dissect
