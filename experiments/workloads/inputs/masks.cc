#include "experiments/workloads/inputs/masks.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dissect::sparsity {
namespace {

constexpr int64_t kRun = 32;

// Exactly `zeros` elements dropped, uniformly at random (Floyd's sampling).
void UniformZeros(int64_t zeros, std::mt19937_64& rng, std::vector<uint8_t>& keep) {
  const int64_t total = static_cast<int64_t>(keep.size());
  for (int64_t j = total - zeros; j < total; ++j) {
    const int64_t t = std::uniform_int_distribution<int64_t>(0, j)(rng);
    keep[keep[t] == 0 ? j : t] = 0;
  }
}

// Calls visit(offset) for every element of unit `u`.
template <typename Visit>
void ForEachInUnit(const Dims& d, MaskStructure structure, int64_t u, const Visit& visit) {
  if (structure == MaskStructure::kChannel) {
    for (int64_t i = 0; i < d.plane(); ++i) visit(u * d.plane() + i);
    return;
  }
  // kRun32: u = (n * groups + g) * H * W + hw.
  const int64_t groups = (d.c + kRun - 1) / kRun;
  const int64_t hw = u % d.plane();
  const int64_t g = (u / d.plane()) % groups;
  const int64_t n = u / (d.plane() * groups);
  for (int64_t c = g * kRun; c < std::min(d.c, (g + 1) * kRun); ++c) {
    visit((n * d.c + c) * d.plane() + hw);
  }
}

int64_t UnitCount(const Dims& d, MaskStructure structure) {
  return structure == MaskStructure::kChannel ? d.n * d.c
                                              : d.n * ((d.c + kRun - 1) / kRun) * d.plane();
}

int64_t UnitSize(const Dims& d, MaskStructure structure, int64_t u) {
  if (structure == MaskStructure::kChannel) return d.plane();
  const int64_t g = (u / d.plane()) % ((d.c + kRun - 1) / kRun);
  return std::min(d.c, (g + 1) * kRun) - g * kRun;
}

}  // namespace

const char* MaskStructureName(MaskStructure structure) {
  switch (structure) {
    case MaskStructure::kUniform:
      return "uniform";
    case MaskStructure::kChannel:
      return "channel";
    case MaskStructure::kRun32:
      return "run32";
  }
  return "?";
}

std::vector<std::string> MaskStructureNames() {
  std::vector<std::string> names;
  for (MaskStructure s :
       {MaskStructure::kUniform, MaskStructure::kChannel, MaskStructure::kRun32}) {
    names.emplace_back(MaskStructureName(s));
  }
  return names;
}

absl::StatusOr<MaskStructure> ParseMaskStructure(absl::string_view name) {
  for (MaskStructure s :
       {MaskStructure::kUniform, MaskStructure::kChannel, MaskStructure::kRun32}) {
    if (name == MaskStructureName(s)) return s;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown mask structure '", name, "' (choices: ",
                                                 absl::StrJoin(MaskStructureNames(), ", "), ")"));
}

int64_t MaskGranularity(const Dims& dims, MaskStructure structure) {
  switch (structure) {
    case MaskStructure::kUniform:
      return 1;
    case MaskStructure::kChannel:
      return dims.plane();
    case MaskStructure::kRun32:
      return std::min(dims.c, kRun);
  }
  return 1;
}

absl::StatusOr<Mask> GenerateMask(const Dims& dims, double target_fraction, MaskStructure structure,
                                  uint64_t seed) {
  if (!(target_fraction >= 0 && target_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("mask target fraction must be in [0, 1] (got ", target_fraction, ")"));
  }
  if (dims.n < 1 || dims.c < 1 || dims.h < 1 || dims.w < 1) {
    return absl::InvalidArgumentError(absl::StrCat("mask dimensions must be >= 1 (got ", dims.n,
                                                   "x", dims.c, "x", dims.h, "x", dims.w, ")"));
  }
  Mask mask;
  mask.dims = dims;
  mask.keep.assign(dims.elements(), 1);
  const int64_t target = std::llround(target_fraction * static_cast<double>(dims.elements()));
  std::mt19937_64 rng(seed);
  if (structure == MaskStructure::kUniform) {
    UniformZeros(target, rng, mask.keep);
    mask.zeros = target;
  } else {
    std::vector<int64_t> units(UnitCount(dims, structure));
    std::iota(units.begin(), units.end(), 0);
    std::shuffle(units.begin(), units.end(), rng);
    for (int64_t u : units) {
      const int64_t size = UnitSize(dims, structure, u);
      if (std::llabs(mask.zeros + size - target) >= std::llabs(mask.zeros - target)) continue;
      ForEachInUnit(dims, structure, u, [&](int64_t i) { mask.keep[i] = 0; });
      mask.zeros += size;
    }
  }
  mask.achieved_fraction = static_cast<double>(mask.zeros) / static_cast<double>(dims.elements());
  return mask;
}

absl::Status ApplyMask(const Mask& mask, absl::Span<float> nchw) {
  if (nchw.size() != mask.keep.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("mask has ", mask.keep.size(), " elements, tensor ", nchw.size()));
  }
  for (size_t i = 0; i < nchw.size(); ++i) {
    if (mask.keep[i] == 0) nchw[i] = 0.0f;
  }
  return absl::OkStatus();
}

}  // namespace dissect::sparsity
