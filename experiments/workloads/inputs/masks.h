// Controlled sparsity masks: which elements of an NCHW activation tensor to
// zero so that it has a chosen zero fraction with a chosen structure, for
// experiments that time kernels against known sparsity.
//
// Structures and their granularity (the unit the mask zeroes as a whole):
//   kUniform: single elements placed at random; exactly
//             round(target × elements) zeros.
//   kChannel: whole (n, c) planes of H × W elements.
//   kRun32:   runs of 32 consecutive channels at one (n, h, w), aligned to
//             channel 0, 32, 64, ...; when C is not a multiple of 32 the last
//             run of each (n, h, w) is shorter (C mod 32 channels).
// Units are taken in a random order and each is zeroed when that brings the
// zero count closer to round(target × elements), so the achieved fraction
// is within half of the largest unit (as a fraction of the tensor) of the
// target; Mask::achieved_fraction reports it.
#ifndef DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_MASKS_H_
#define DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_MASKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "probes/sparsity/tensor_dims.h"

namespace dissect::sparsity {

enum class MaskStructure { kUniform, kChannel, kRun32 };

// "uniform", "channel", "run32".
const char* MaskStructureName(MaskStructure structure);
std::vector<std::string> MaskStructureNames();
absl::StatusOr<MaskStructure> ParseMaskStructure(absl::string_view name);

struct Mask {
  Dims dims;
  // NCHW, one byte per element: 1 keeps the element, 0 zeroes it.
  std::vector<uint8_t> keep;
  int64_t zeros = 0;
  double achieved_fraction = 0;
};

// The elements one unit of `structure` covers at `dims` (the largest unit
// for kRun32: min(32, C)).
int64_t MaskGranularity(const Dims& dims, MaskStructure structure);

// A mask of `structure` over `dims` zeroing about `target_fraction` of the
// elements (see above), reproducible for a seed. InvalidArgument for a
// target outside [0, 1] or a dimension below 1.
absl::StatusOr<Mask> GenerateMask(const Dims& dims, double target_fraction, MaskStructure structure,
                                  uint64_t seed);

// Zeroes the elements `mask` drops. InvalidArgument when the sizes differ.
absl::Status ApplyMask(const Mask& mask, absl::Span<float> nchw);

}  // namespace dissect::sparsity

#endif  // DISSECT_EXPERIMENTS_WORKLOADS_INPUTS_MASKS_H_
