// Keeps the alias table (variant_aliases.h) true to the machine code: the
// global-load sequence (LDG/LD opcodes in order) of every layer kernel, per
// architecture, of every pair of compiled cache variants. Two variants with
// the same loads in every kernel must be declared twins, and declared twins
// must have the same loads; so a build that silently turns into another
// (ptxas mapping two qualifiers to one instruction) is labelled in the report
// instead of ranked against its twin, and a label that stops being true
// fails here. Arguments: see tools/cuda/sass_test.bzl (every variant's
// static library).
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "experiments/l1_bypass/variant_aliases.h"
#include "gtest/gtest.h"
#include "kernels/layers/layers.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect::l1_bypass {
namespace {

// (kernel, arch) -> the opcodes of its global loads, in order.
using LoadSequences = std::map<std::pair<std::string, std::string>, std::vector<std::string>>;

// The timed builds (the line-tracing build is never an l1_bypass variant).
std::vector<std::string> CompiledNames() {
  std::vector<std::string> names;
  for (const layers::CompiledVariant& v : layers::CompiledLayerVariants()) {
    if (!v.traced) names.push_back(v.name);
  }
  return names;
}

// The identifier ending in "Kernel" in a mangled name ("12StreamKernel" ->
// "StreamKernel"), or "".
std::string KernelOf(const std::string& mangled) {
  const size_t end = mangled.find("Kernel");
  if (end == std::string::npos) return "";
  size_t begin = end;
  while (begin > 0 && absl::ascii_isalpha(mangled[begin - 1])) --begin;
  return mangled.substr(begin, end + 6 - begin);
}

// Every compiled variant's load sequences. A function belongs to variant V
// when its mangled name holds V's namespace, length-prefixed as the Itanium
// ABI writes it ("10variant_cs"), so that no name matches a longer one.
const std::map<std::string, LoadSequences>& Loads() {
  static const auto* loads = [] {
    auto* out = new std::map<std::string, LoadSequences>;
    for (const std::string& v : CompiledNames()) {
      const std::string ns = absl::StrCat("variant_", v);
      const std::string tag = absl::StrCat(ns.size(), ns);
      for (const SassFunction& f : AllSassFunctions()) {
        if (f.name.find(tag) == std::string::npos) continue;
        std::vector<std::string>& seq = (*out)[v][{KernelOf(f.name), f.arch}];
        for (const SassInstruction& i : f.code) {
          if (i.op == "LDG" || i.op == "LD") seq.push_back(i.opcode);
        }
      }
    }
    return out;
  }();
  return *loads;
}

// The opcode without width modifiers (LDG.E.64.EF -> LDG.E.EF).
std::string WithoutWidth(const std::string& opcode) {
  std::vector<std::string> parts;
  for (absl::string_view p : absl::StrSplit(opcode, '.')) {
    if (!p.empty() && !absl::ascii_isdigit(p[0])) parts.emplace_back(p);
  }
  return absl::StrJoin(parts, ".");
}

// "kernel arch: LDG.E, LDG.E, ..." per kernel, for failure messages.
std::string Describe(const LoadSequences& seqs) {
  std::string out;
  for (const auto& [key, seq] : seqs) {
    std::set<std::string> kinds(seq.begin(), seq.end());
    absl::StrAppend(&out, "\n  ", key.first, " ", key.second, ": ", seq.size(), " loads (",
                    absl::StrJoin(kinds, ", "), ")");
  }
  return out;
}

// True when the table says that `a` and `b` run the same code and run.
bool DeclaredTwins(const std::string& a, const std::string& b) {
  const std::string_view ta = TwinOf(a), tb = TwinOf(b);
  return ta == b || tb == a || (!ta.empty() && ta == tb);
}

class VariantAliasesSassTest : public SassTest {};

TEST_F(VariantAliasesSassTest, EveryVariantHasEveryKernelWithLoads) {
  for (const std::string& v : CompiledNames()) {
    ASSERT_EQ(Loads().count(v), 1u) << "no SASS of variant " << v;
    const LoadSequences& seqs = Loads().at(v);
    std::set<std::string> kernels;
    for (const auto& [key, seq] : seqs) {
      kernels.insert(key.first);
      EXPECT_FALSE(seq.empty()) << v << " " << key.first << " " << key.second << " loads nothing";
    }
    EXPECT_EQ(kernels.size(), std::size(layers::kAllLayerKernels))
        << v << ": " << absl::StrJoin(kernels, ", ");
  }
}

// The heart of it: identical loads exactly for the declared pairs.
TEST_F(VariantAliasesSassTest, IdenticalLoadsExactlyForDeclaredTwins) {
  const std::vector<std::string> names = CompiledNames();
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = i + 1; j < names.size(); ++j) {
      const std::string &a = names[i], &b = names[j];
      if (Loads().count(a) == 0 || Loads().count(b) == 0) continue;  // the test above fails
      const bool same = Loads().at(a) == Loads().at(b);
      if (DeclaredTwins(a, b)) {
        EXPECT_TRUE(same) << a << " and " << b
                          << " are declared twins (variant_aliases.h) but their loads differ:\n"
                          << a << ":" << Describe(Loads().at(a)) << "\n"
                          << b << ":" << Describe(Loads().at(b));
      } else {
        EXPECT_FALSE(same) << a << " and " << b
                           << " emit the same loads in every kernel but are not declared "
                              "twins in variant_aliases.h (declare one same_code_as the "
                              "other, or make them differ):"
                           << Describe(Loads().at(a));
      }
    }
  }
}

TEST_F(VariantAliasesSassTest, TwinLoadsAreTheDeclaredInstruction) {
  for (const SameCode& s : kSameCode) {
    if (std::string_view(s.runtime_setting) != "" || Loads().count(s.variant) == 0) continue;
    for (const auto& [key, seq] : Loads().at(s.variant)) {
      std::set<std::string> kinds;
      for (const std::string& opcode : seq) kinds.insert(WithoutWidth(opcode));
      EXPECT_EQ(kinds, std::set<std::string>{s.loads})
          << s.variant << " " << key.first << " " << key.second << ": "
          << absl::StrJoin(kinds, ", ");
    }
  }
}

// The table's own rules (no SASS needed, but it belongs with the above).
TEST(VariantAliasesTableTest, EntriesNameEarlierCanonicalBuilds) {
  const std::vector<std::string> names = CompiledNames();
  auto position = [&](std::string_view name) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return static_cast<int>(i);
    }
    return -1;
  };
  for (const SameCode& s : kSameCode) {
    const int target = position(s.same_code_as);
    EXPECT_GE(target, 0) << s.variant << ": same_code_as " << s.same_code_as << " is not a build";
    EXPECT_EQ(FindSameCode(s.same_code_as), nullptr)
        << s.variant << ": same_code_as " << s.same_code_as << " is itself an alias";
    if (std::string_view(s.runtime_setting).empty()) {
      EXPECT_GT(position(s.variant), target)
          << s.variant << " must be a build declared after " << s.same_code_as;
      EXPECT_NE(std::string_view(s.loads), "") << s.variant;
    } else {
      EXPECT_EQ(position(s.variant), -1) << s.variant << " is a runtime variant, not a build";
    }
  }
}

}  // namespace
}  // namespace dissect::l1_bypass
