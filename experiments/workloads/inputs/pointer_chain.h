// Host-side construction of pointer-chase chains.
//
// A chain spans `footprint_bytes` of 32-bit words. Every `stride_bytes` there
// is a slot; the word at each slot holds the word index of the next slot, and
// the slots form one cycle through all of them. Strided order visits the
// slots in address order (hardware prefetchers can follow it); random order
// is a uniformly random single cycle, which defeats them. Page-local order is
// random but TLB-friendly: it visits every slot of one kChainPageBytes page
// (in random order) before it moves to the next page (pages in random
// order), so a chase far larger than the TLB reach still misses the TLB only
// once per page, not on nearly every load. With group_pages = G > 1 it does
// the same for groups of G consecutive pages (random within a group, groups
// in random order): the chase's TLB working set is G pages while its
// distinct lines, footprint and stride stay the same, so a sweep over G
// moves the TLB reach and nothing else (G >= the pages is random order).
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_POINTER_CHAIN_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_POINTER_CHAIN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect {

enum class ChainOrder { kStrided, kRandom, kPageLocal };

// "strided", "random" or "page_local".
absl::StatusOr<ChainOrder> ParseChainOrder(absl::string_view name);
std::vector<std::string> ChainOrderNames();

// The page of page-local order: the large page that cudaMalloc maps device
// memory with on recent NVIDIA GPUs.
inline constexpr int64_t kChainPageBytes = int64_t{2} << 20;

// stride > 0, a multiple of 4 bytes; footprint a positive multiple of the
// stride, and at most 2^32 words.
absl::Status ValidateChainGeometry(int64_t footprint_bytes, int64_t stride_bytes);

// Returns footprint_bytes / 4 words; words that are not slots hold 0. The
// chain starts at word 0. group_pages (>= 1) applies to page-local order:
// the pages visited together; 1 is page by page.
absl::StatusOr<std::vector<uint32_t>> BuildChain(int64_t footprint_bytes, int64_t stride_bytes,
                                                 ChainOrder order, uint64_t seed,
                                                 int64_t group_pages = 1);

// The chain as the global paths chase it: 64-bit device addresses. Word
// pair k of the result holds base + 4 * chain[2k], the address of the next
// slot when the chain lies at `base`. stride_bytes must be a multiple of 8
// (every slot on a pair boundary).
absl::StatusOr<std::vector<uint64_t>> ChainAsPointers(const std::vector<uint32_t>& chain,
                                                      int64_t stride_bytes, uint64_t base);

// The word index reached after `steps` loads starting from word 0.
uint32_t WalkChain(const std::vector<uint32_t>& chain, uint64_t steps);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_POINTER_CHAIN_H_
