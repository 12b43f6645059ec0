// The l1_bypass variants that run the same machine code as another variant,
// declared once for the experiment (the `variant` axis help), the analysis
// (which labels them instead of ranking twins against each other) and the
// SASS test that keeps this table true:
//   - compiled twins: two builds of kernels/layers/layers.cu whose loads are
//     the same instructions. variant_aliases_sass_test compares the load
//     sequence of every kernel of every pair of builds and fails when a pair
//     listed here differs, or when a pair not listed here is identical.
//     Found with nvcc 13.0 / nvdisasm 13.2 for sm_90a: .cs and
//     L1::evict_first both become LDG.E.EF, .cg and -Xptxas -dlcm=cg both
//     LDG.E.STRONG.GPU.
//   - runtime variants: the default build launched with a setting on the
//     stream (an L2 access-policy window); same code, different run.
// Each row of such a variant says so in its label (SameCodeNote), which is
// all the analysis reads of this table. No CUDA here.
#ifndef DISSECT_EXPERIMENTS_L1_BYPASS_VARIANT_ALIASES_H_
#define DISSECT_EXPERIMENTS_L1_BYPASS_VARIANT_ALIASES_H_

#include <string>
#include <string_view>

namespace dissect::l1_bypass {

struct SameCode {
  const char* variant;
  // The variant whose machine code it runs: declared earlier in
  // LOAD_VARIANTS (tools/cuda/load_variants.bzl) and itself no alias.
  const char* same_code_as;
  // "" for a compiled twin (the same run as same_code_as); for a runtime
  // variant, what it adds at run time.
  const char* runtime_setting;
  // What the loads are, for the report ("" for runtime variants).
  const char* loads;
};

inline constexpr SameCode kSameCode[] = {
    {"cg", "dlcm_cg", "", "LDG.E.STRONG.GPU"},
    {"evict_first", "cs", "", "LDG.E.EF"},
    {"l2_persist", "default", "L2 persisting access-policy window over the input", ""},
    {"l2_stream", "default", "L2 streaming access-policy window over the input", ""},
};

// The entry of `variant`, or null when it runs code of its own.
constexpr const SameCode* FindSameCode(std::string_view variant) {
  for (const SameCode& s : kSameCode) {
    if (variant == s.variant) return &s;
  }
  return nullptr;
}

// The variant whose code and run `variant` repeats exactly (a compiled
// twin's same_code_as), or "" when it has no twin of that kind. Runtime
// variants have none: the window makes a different run.
constexpr std::string_view TwinOf(std::string_view variant) {
  const SameCode* s = FindSameCode(variant);
  return s != nullptr && std::string_view(s->runtime_setting).empty() ? s->same_code_as : "";
}

// The row note of a variant with `s`'s entry, in the format that
// analysis/SCHEMA.md documents (l1_bypass) and the analysis parses:
//   same_code_as: <variant>[ (<loads>)][ + <runtime setting>]
// e.g. "same_code_as: dlcm_cg (LDG.E.STRONG.GPU)",
// "same_code_as: default + L2 streaming access-policy window over the input".
inline std::string SameCodeNote(const SameCode& s) {
  std::string note = std::string("same_code_as: ") + s.same_code_as;
  if (*s.loads != '\0') note += std::string(" (") + s.loads + ")";
  if (*s.runtime_setting != '\0') note += std::string(" + ") + s.runtime_setting;
  return note;
}

}  // namespace dissect::l1_bypass

#endif  // DISSECT_EXPERIMENTS_L1_BYPASS_VARIANT_ALIASES_H_
