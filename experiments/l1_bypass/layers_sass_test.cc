// Machine-code test of the cache variants of kernels/layers/layers.cu: runs
// `cuobjdump -sass` on every variant's static library and checks the global
// loads (LDG) of every layer kernel. -Xptxas -dlcm=cg leaves the PTX alone
// (layers_ptx_test) and changes the machine code, which is where it is seen:
//   default     LDG.E               (no cache modifier)
//   dlcm_cg     LDG.E.STRONG.GPU    (the same loads, now L2-only)
//   ca          LDG.E.STRONG.SM     cg  LDG.E.STRONG.GPU   cs  LDG.E.EF
//   lu          LDG.E.LU            cv  LDG.E.STRONG.SYS
//   no_allocate LDG.E.NA            evict_first LDG.E.EF   evict_last LDG.E.EL
// (nvdisasm 13.2, the same on sm_80, sm_89, sm_90a and sm_100; width
// modifiers such as .64 or .128 may follow .E.) So cg and dlcm_cg, and cs and
// evict_first, are the same machine code: variant_aliases.h declares them
// twins and variant_aliases_sass_test checks every pair of variants.
//
// The expectations are by variant name, so that a build that lost its flag
// or operator fails. A sass_test (tools/cuda/sass_test.bzl): its files are
// the variant manifest (for the names) and the variants' libraries
// (liblayers_<variant>.a). Without cuobjdump every test reports SKIPPED
// with the reason, and fails under CI=true.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// The manifest (the one file that is not an archive) and the variants'
// archives (liblayers_<variant>.a), from the sass_test command line.
std::string ManifestPath() {
  for (const std::string& f : SassArgs().files) {
    if (!absl::EndsWith(f, ".a")) return f;
  }
  return "";
}

// Modifiers that say how a load caches; any other (.E, .64, .128, ...) is
// about addressing or width.
const std::set<std::string>& CacheModifiers() {
  static const std::set<std::string> kModifiers = {"STRONG",   "GPU",    "SM",      "SYS",
                                                   "EF",       "EL",     "NA",      "LU",
                                                   "CONSTANT", "LTC64B", "LTC128B", "LTC256B"};
  return kModifiers;
}

// The cache modifiers every LDG of a variant must carry, by variant name
// (not by what the build says it did, so that a build that lost its flag
// fails here).
std::set<std::string> Expected(const std::string& variant) {
  static const std::map<std::string, std::set<std::string>> kByVariant = {
      {"default", {}},
      {"dlcm_cg", {"STRONG", "GPU"}},
      {"ca", {"STRONG", "SM"}},
      {"cg", {"STRONG", "GPU"}},
      {"cs", {"EF"}},
      {"lu", {"LU"}},
      {"cv", {"STRONG", "SYS"}},
      {"no_allocate", {"NA"}},
      {"evict_first", {"EF"}},
      {"evict_last", {"EL"}},
  };
  auto it = kByVariant.find(variant);
  EXPECT_NE(it, kByVariant.end()) << "no SASS expectation for variant " << variant;
  return it == kByVariant.end() ? std::set<std::string>{"?"} : it->second;
}

struct Variant {
  std::string name, load_op, flags;  // a manifest line
};

// The timed variants (manifest lines "name, LoadOp, flags, timed"); the
// line-tracing build ("traced") runs extra code around its loads and is
// tested by experiments/sharing/duplication.
std::vector<Variant> Manifest() {
  std::ifstream in(ManifestPath());
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<Variant> out;
  for (absl::string_view line : absl::StrSplit(ss.str(), '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    EXPECT_EQ(f.size(), 4u) << "manifest line: " << line;
    if (f.size() == 4 && f[3] == "timed") out.push_back({f[0], f[1], f[2]});
  }
  EXPECT_GE(out.size(), 10u) << "manifest " << ManifestPath();
  return out;
}

std::string ArchiveOf(const std::string& variant) {
  const std::string suffix = absl::StrCat("/liblayers_", variant, ".a");
  for (const std::string& a : SassArgs().files) {
    if (absl::EndsWith(a, suffix)) return a;
  }
  return "";
}

// Kernel (the function name's part after the variant namespace) -> the
// modifiers of each of its LDG instructions, in the code of the current
// pass's architecture (SassArch).
using Loads = std::map<std::string, std::vector<std::vector<std::string>>>;

// The functions of `archive`, every architecture, disassembled once.
const std::vector<SassFunction>& FunctionsOf(const std::string& archive) {
  static auto* parsed = new std::map<std::string, std::vector<SassFunction>>();
  auto [it, added] = parsed->try_emplace(archive);
  if (!added) return it->second;
  absl::StatusOr<std::string> text = RunCuobjdumpSass(SassArgs().cuobjdump, archive);
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return it->second;
  absl::StatusOr<std::vector<SassFunction>> functions = ParseCuobjdumpSass(*text);
  EXPECT_TRUE(functions.ok()) << archive << ": " << functions.status();
  if (functions.ok()) it->second = *std::move(functions);
  return it->second;
}

Loads Disassemble(const std::string& archive) {
  Loads loads;
  for (const SassFunction& f : FunctionsOf(archive)) {
    if (f.arch != SassArch()) continue;
    std::string kernel = f.name;
    for (const char* name : {"StreamKernel", "GatherKernel", "StencilKernel", "ConvKernel",
                             "MaxPoolKernel", "GemvKernel", "SoftmaxKernel"}) {
      if (absl::StrContains(f.name, name)) kernel = name;
    }
    for (const SassInstruction& in : f.code) {
      if (in.op != "LDG") continue;
      std::vector<std::string> modifiers = absl::StrSplit(in.opcode, '.');
      modifiers.erase(modifiers.begin());  // "LDG"
      loads[kernel].push_back(modifiers);
    }
  }
  EXPECT_EQ(loads.size(), 7u) << archive << " (" << SassArch() << "): " << loads.size()
                             << " kernels with loads";
  return loads;
}

class LayersSassTest : public SassTest {};

TEST_F(LayersSassTest, EveryLoadCarriesTheVariantsCacheModifiers) {
  for (const Variant& v : Manifest()) {
    const std::string archive = ArchiveOf(v.name);
    ASSERT_FALSE(archive.empty()) << "no library for " << v.name;
    const std::set<std::string> want = Expected(v.name);
    for (const auto& [kernel, ldgs] : Disassemble(archive)) {
      EXPECT_FALSE(ldgs.empty()) << v.name << " " << kernel;
      for (const std::vector<std::string>& modifiers : ldgs) {
        std::set<std::string> got;
        for (const std::string& m : modifiers) {
          if (CacheModifiers().count(m) > 0) got.insert(m);
        }
        EXPECT_EQ(got, want) << v.name << " " << kernel << ": LDG."
                             << absl::StrJoin(modifiers, ".");
      }
    }
  }
}

TEST_F(LayersSassTest, DlcmCgChangesTheDefaultLoadsAndNothingElse) {
  const Loads plain = Disassemble(ArchiveOf("default"));
  const Loads cg = Disassemble(ArchiveOf("dlcm_cg"));
  ASSERT_EQ(plain.size(), cg.size());
  for (const auto& [kernel, ldgs] : plain) {
    ASSERT_EQ(cg.count(kernel), 1u) << kernel;
    // The same loads, each now .STRONG.GPU: strip that and they are equal.
    std::vector<std::vector<std::string>> stripped;
    for (std::vector<std::string> m : cg.at(kernel)) {
      EXPECT_TRUE(std::count(m.begin(), m.end(), "STRONG") == 1 &&
                  std::count(m.begin(), m.end(), "GPU") == 1)
          << kernel << ": dlcm_cg load LDG." << absl::StrJoin(m, ".");
      m.erase(std::remove_if(m.begin(), m.end(),
                             [](const std::string& s) { return s == "STRONG" || s == "GPU"; }),
              m.end());
      stripped.push_back(m);
    }
    EXPECT_EQ(stripped, ldgs) << kernel;
  }
}

}  // namespace
}  // namespace dissect
