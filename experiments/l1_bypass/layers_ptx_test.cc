// Compiled-code tests of the cache variants of kernels/layers/layers.cu.
// Arguments: the variant manifest (layers_variants.txt: name, LoadOp, nvcc
// flags, timed|traced per line), then the PTX of every variant and architecture
// (_ptx/layers_<variant>/layers.<arch>.ptx). For every kernel of every
// variant: each global load carries the variant's qualifier (the default
// variant: none), and the instruction stream is the default's but for that
// qualifier (lu and cv: the same arithmetic and loads, see
// SameInstructionStream). -Xptxas -dlcm=cg acts after PTX, so dlcm_cg's PTX must be the
// default's exactly, and its build must carry the flag (its effect on the
// machine code is checked by layers_sass_test).
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "kernels/layers/cache_load.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

struct Variant {
  std::string name;
  std::string load_op;  // "kCs"
  std::string nvcc_flags;
};

std::string& ManifestPath() {
  static std::string path;
  return path;
}

// Every timed variant, in build order; fails the test if the manifest is
// missing or empty (so that no test passes by looking at nothing). Traced
// builds (the line-tracing `trace` variant, whose loads run extra code) are
// left out: experiments/sharing/duplication tests them.
std::vector<Variant> Manifest() {
  std::vector<Variant> out;
  for (absl::string_view line : absl::StrSplit(ReadTextFile(ManifestPath()), '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    EXPECT_EQ(f.size(), 4u) << "manifest line: " << line;
    if (f.size() != 4) continue;
    EXPECT_TRUE(f[3] == "timed" || f[3] == "traced") << "manifest line: " << line;
    if (f[3] == "timed") out.push_back({f[0], f[1], f[2]});
  }
  EXPECT_GE(out.size(), 10u) << "manifest " << ManifestPath();
  return out;
}

// The LoadOp of a manifest entry, by its enumerator name.
LoadOp OpOf(const std::string& enumerator) {
  static const std::map<std::string, LoadOp> kOps = {
      {"kDefault", LoadOp::kDefault},
      {"kCa", LoadOp::kCa},
      {"kCg", LoadOp::kCg},
      {"kCs", LoadOp::kCs},
      {"kLu", LoadOp::kLu},
      {"kCv", LoadOp::kCv},
      {"kL1NoAllocate", LoadOp::kL1NoAllocate},
      {"kL1EvictFirst", LoadOp::kL1EvictFirst},
      {"kL1EvictLast", LoadOp::kL1EvictLast},
  };
  auto it = kOps.find(enumerator);
  EXPECT_NE(it, kOps.end()) << "unknown LoadOp " << enumerator;
  return it == kOps.end() ? LoadOp::kDefault : it->second;
}

// PTX files of one variant, one per architecture.
std::vector<std::string> FilesOf(const std::string& variant) {
  std::vector<std::string> out;
  const std::string folder = absl::StrCat("/_ptx/layers_", variant, "/");
  for (const std::string& f : PtxFiles()) {
    if (absl::StrContains(f, folder)) out.push_back(f);
  }
  return out;
}

// The kernels and the fewest global loads each must have.
struct KernelLoads {
  const char* entry;
  int min_loads;
};
constexpr KernelLoads kKernels[] = {
    {"StreamKernel", 3},  {"GatherKernel", 2}, {"StencilKernel", 5}, {"ConvKernel", 2},
    {"MaxPoolKernel", 1}, {"GemvKernel", 2},   {"SoftmaxKernel", 3},
};

// Loads from memory other than kernel parameters, shared and local memory.
bool IsMemoryLoad(const PtxInstruction& in) {
  if (in.is_label()) return false;
  const std::string& op = in.opcode;
  if (absl::StartsWith(op, "ldu") || absl::StartsWith(op, "tex") ||
      absl::StartsWith(op, "prefetch")) {
    return true;
  }
  return absl::StartsWith(op, "ld.") && !absl::StartsWith(op, "ld.param") &&
         !absl::StartsWith(op, "ld.shared") && !absl::StartsWith(op, "ld.local");
}

// The entry's instructions with the load qualifier of `op` taken out, and
// the variant's namespace in symbol names (parameters, shared arrays)
// replaced.
std::vector<std::string> Normalized(const std::vector<PtxInstruction>& code, LoadOp op) {
  static const std::regex kVariantNamespace(
      R"(\d+variant_[a-z_]+?\d+_GLOBAL__N__[0-9a-f]+_\d+_layers_cu_[0-9a-f]+)");
  const std::string with = absl::StrCat("ld.global", LoadOpPtxQualifier(op), ".");
  std::vector<std::string> out;
  for (const PtxInstruction& in : code) {
    out.push_back(std::regex_replace(absl::StrReplaceAll(in.text, {{with, "ld.global."}}),
                                     kVariantNamespace, "VARIANT"));
  }
  return out;
}

TEST(LayersPtxTest, ManifestHasEveryCacheVariant) {
  std::map<std::string, Variant> by_name;
  for (const Variant& v : Manifest()) by_name[v.name] = v;
  // The cache variants the l1_bypass experiment compares (PTX cache
  // operators, L1 eviction hints, -dlcm=cg) and the load each must use.
  const std::map<std::string, std::string> kWant = {
      {"default", "kDefault"},
      {"dlcm_cg", "kDefault"},
      {"ca", "kCa"},
      {"cg", "kCg"},
      {"cs", "kCs"},
      {"lu", "kLu"},
      {"cv", "kCv"},
      {"no_allocate", "kL1NoAllocate"},
      {"evict_first", "kL1EvictFirst"},
      {"evict_last", "kL1EvictLast"},
  };
  for (const auto& [name, load_op] : kWant) {
    ASSERT_EQ(by_name.count(name), 1u) << name;
    EXPECT_EQ(by_name[name].load_op, load_op) << name;
    EXPECT_FALSE(FilesOf(name).empty()) << "no PTX for " << name;
  }
  EXPECT_EQ(by_name["default"].nvcc_flags, "");
  EXPECT_EQ(by_name["dlcm_cg"].nvcc_flags, "-Xptxas -dlcm=cg");
  for (const auto& [name, v] : by_name) {
    if (name != "dlcm_cg") {
      EXPECT_FALSE(absl::StrContains(v.nvcc_flags, "dlcm")) << name;
    }
  }
}

TEST(LayersPtxTest, EveryGlobalLoadCarriesTheVariantsQualifier) {
  for (const Variant& v : Manifest()) {
    const LoadOp op = OpOf(v.load_op);
    const std::string prefix = absl::StrCat("ld.global", LoadOpPtxQualifier(op), ".");
    for (const std::string& f : FilesOf(v.name)) {
      for (const KernelLoads& k : kKernels) {
        SCOPED_TRACE(absl::StrCat(v.name, " ", k.entry, " ", f));
        int loads = 0;
        for (const PtxInstruction& in : EntryCode(f, k.entry)) {
          if (!IsMemoryLoad(in)) continue;
          ++loads;
          const std::string type = in.opcode.substr(std::min(in.opcode.size(), prefix.size()));
          EXPECT_TRUE(absl::StartsWith(in.opcode, prefix) && (type == "f32" || type == "s32"))
              << "load '" << in.text << "' is not " << prefix << "{f32,s32}";
        }
        EXPECT_GE(loads, k.min_loads);
      }
    }
  }
}

TEST(LayersPtxTest, DefaultLoadsCarryNoCacheOperatorOrHint) {
  for (const char* variant : {"default", "dlcm_cg"}) {
    for (const std::string& f : FilesOf(variant)) {
      for (const KernelLoads& k : kKernels) {
        for (const PtxInstruction& in : EntryCode(f, k.entry)) {
          if (!IsMemoryLoad(in)) continue;
          EXPECT_TRUE(in.opcode == "ld.global.f32" || in.opcode == "ld.global.s32")
              << variant << " " << k.entry << ": " << in.text;
        }
      }
    }
  }
}

// CUDA's headers write __ldlu and __ldcv as asm with a "memory" clobber
// (the others, and our own asm, as volatile asm without one), which lets
// the compiler arrange loops and the stores after them differently; their
// arithmetic and loads are still the default's.
bool SameInstructionStream(LoadOp op) { return op != LoadOp::kLu && op != LoadOp::kCv; }

// How often each floating-point operation and global load occurs.
std::map<std::string, int> ArithmeticAndLoads(const std::vector<std::string>& code) {
  std::map<std::string, int> out;
  for (const std::string& text : code) {
    std::string op = text.substr(0, text.find_first_of(" \t"));
    if (absl::StartsWith(op, "@")) {
      const std::string rest = text.substr(text.find_first_of(" \t") + 1);
      op = rest.substr(rest.find_first_not_of(" \t"));
      op = op.substr(0, op.find_first_of(" \t"));
    }
    if (absl::StrContains(op, ".f32") || absl::StartsWith(op, "ld.global")) ++out[op];
  }
  return out;
}

TEST(LayersPtxTest, VariantsDifferFromDefaultOnlyInTheLoadQualifier) {
  const std::vector<std::string> defaults = FilesOf("default");
  ASSERT_FALSE(defaults.empty());
  for (const Variant& v : Manifest()) {
    const LoadOp op = OpOf(v.load_op);
    const std::vector<std::string> files = FilesOf(v.name);
    ASSERT_EQ(files.size(), defaults.size()) << v.name;
    for (size_t a = 0; a < files.size(); ++a) {
      for (const KernelLoads& k : kKernels) {
        SCOPED_TRACE(absl::StrCat(v.name, " ", k.entry, " ", files[a]));
        const auto want = Normalized(EntryCode(defaults[a], k.entry), LoadOp::kDefault);
        const auto got = Normalized(EntryCode(files[a], k.entry), op);
        if (!SameInstructionStream(op)) {
          EXPECT_EQ(ArithmeticAndLoads(got), ArithmeticAndLoads(want));
          continue;
        }
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "instruction " << i;
      }
    }
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::cerr << "usage: layers_ptx_test MANIFEST PTX...\n";
    return 2;
  }
  dissect::ManifestPath() = argv[1];
  for (int i = 2; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
