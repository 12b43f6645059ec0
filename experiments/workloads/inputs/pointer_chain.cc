// Pointer-chase chain construction; see pointer_chain.h.
#include "experiments/workloads/inputs/pointer_chain.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"

namespace dissect {
namespace {

// Shuffles [first + 1, last) uniformly (Fisher-Yates); *first stays.
template <typename It>
void ShuffleAfterFirst(It first, It last, std::mt19937_64& rng) {
  if (last - first > 2) std::shuffle(first + 1, last, rng);
}

}  // namespace

std::vector<std::string> ChainOrderNames() { return {"strided", "random", "page_local"}; }

absl::StatusOr<ChainOrder> ParseChainOrder(absl::string_view name) {
  if (name == "strided") return ChainOrder::kStrided;
  if (name == "random") return ChainOrder::kRandom;
  if (name == "page_local") return ChainOrder::kPageLocal;
  return absl::InvalidArgumentError(
      absl::StrCat("chain order must be 'strided', 'random' or 'page_local', not '", name, "'"));
}

absl::Status ValidateChainGeometry(int64_t footprint_bytes, int64_t stride_bytes) {
  if (stride_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("stride_bytes must be > 0 (got ", stride_bytes, ")"));
  }
  if (stride_bytes % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("stride_bytes must be a multiple of 4 (got ", stride_bytes, ")"));
  }
  if (footprint_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("footprint_bytes must be > 0 (got ", footprint_bytes, ")"));
  }
  if (footprint_bytes % stride_bytes != 0) {
    return absl::InvalidArgumentError(absl::StrCat("footprint_bytes (", footprint_bytes,
                                                   ") must be a multiple of stride_bytes (",
                                                   stride_bytes, ")"));
  }
  if (footprint_bytes / 4 > int64_t{0xffffffff}) {
    return absl::InvalidArgumentError(
        absl::StrCat("footprint_bytes (", footprint_bytes, ") exceeds 2^32 words"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint32_t>> BuildChain(int64_t footprint_bytes, int64_t stride_bytes,
                                                 ChainOrder order, uint64_t seed,
                                                 int64_t group_pages) {
  if (absl::Status s = ValidateChainGeometry(footprint_bytes, stride_bytes); !s.ok()) {
    return s;
  }
  if (group_pages < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("group_pages must be >= 1 (got ", group_pages, ")"));
  }
  const uint64_t words = static_cast<uint64_t>(footprint_bytes / 4);
  const uint64_t step = static_cast<uint64_t>(stride_bytes / 4);
  const uint64_t slots = words / step;
  // visit[k] is the k-th slot visited; the cycle closes back to visit[0] = 0.
  // Any visiting order that starts at slot 0, closed back to it, is one
  // cycle through every slot.
  std::vector<uint64_t> visit(slots);
  std::iota(visit.begin(), visit.end(), 0);
  std::mt19937_64 rng(seed);
  if (order == ChainOrder::kRandom) {
    // Slots 1..n-1 uniformly shuffled: a uniformly random single cycle.
    ShuffleAfterFirst(visit.begin(), visit.end(), rng);
  } else if (order == ChainOrder::kPageLocal) {
    // A group is group_pages consecutive pages (one page when it is 1, the
    // same chain as before groups existed).
    const uint64_t per_page = std::max<uint64_t>(1, kChainPageBytes / stride_bytes);
    const uint64_t per_group =
        std::min(slots, per_page * static_cast<uint64_t>(std::min<int64_t>(
                                       group_pages, static_cast<int64_t>(slots))));
    const uint64_t groups = (slots + per_group - 1) / per_group;
    std::vector<uint64_t> group_order(groups);
    std::iota(group_order.begin(), group_order.end(), 0);
    ShuffleAfterFirst(group_order.begin(), group_order.end(), rng);
    auto next = visit.begin();
    for (const uint64_t group : group_order) {
      const auto first = next;
      for (uint64_t s = group * per_group; s < std::min(slots, (group + 1) * per_group); ++s) {
        *next++ = s;
      }
      // Group 0 comes first and keeps slot 0 first; other groups shuffle whole.
      if (group == 0) {
        ShuffleAfterFirst(first, next, rng);
      } else {
        std::shuffle(first, next, rng);
      }
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

absl::StatusOr<std::vector<uint64_t>> ChainAsPointers(const std::vector<uint32_t>& chain,
                                                      int64_t stride_bytes, uint64_t base) {
  if (stride_bytes <= 0 || stride_bytes % 8 != 0 || chain.size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a chain of 64-bit pointers needs a stride that is a multiple of 8 bytes (got ",
        stride_bytes, ")"));
  }
  std::vector<uint64_t> pointers(chain.size() / 2);
  for (size_t k = 0; k < pointers.size(); ++k) {
    pointers[k] = base + uint64_t{4} * chain[2 * k];
  }
  return pointers;
}

uint32_t WalkChain(const std::vector<uint32_t>& chain, uint64_t steps) {
  uint32_t j = 0;
  for (uint64_t k = 0; k < steps; ++k) j = chain[j];
  return j;
}

}  // namespace dissect
