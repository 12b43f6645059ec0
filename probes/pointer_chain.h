// Host-side construction of pointer-chase chains.
//
// A chain spans `footprint_bytes` of 32-bit words. Every `stride_bytes` there
// is a slot; the word at each slot holds the word index of the next slot, and
// the slots form one cycle through all of them. Strided order visits the
// slots in address order (hardware prefetchers can follow it); random order
// is a uniformly random single cycle, which defeats them.
#ifndef DISSECT_PROBES_POINTER_CHAIN_H_
#define DISSECT_PROBES_POINTER_CHAIN_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect {

enum class ChainOrder { kStrided, kRandom };

absl::StatusOr<ChainOrder> ParseChainOrder(absl::string_view name);

// stride > 0, a multiple of 4 bytes; footprint a positive multiple of the
// stride, and at most 2^32 words.
absl::Status ValidateChainGeometry(int64_t footprint_bytes, int64_t stride_bytes);

// Returns footprint_bytes / 4 words; words that are not slots hold 0. The
// chain starts at word 0.
absl::StatusOr<std::vector<uint32_t>> BuildChain(int64_t footprint_bytes,
                                                 int64_t stride_bytes,
                                                 ChainOrder order,
                                                 uint64_t seed);

// The word index reached after `steps` loads starting from word 0.
uint32_t WalkChain(const std::vector<uint32_t>& chain, uint64_t steps);

}  // namespace dissect

#endif  // DISSECT_PROBES_POINTER_CHAIN_H_
