// PTX test of the line-tracing build of kernels/layers/layers.cu (the
// `trace` variant, DISSECT_TRACE_LINES) against the timed builds.
// Arguments: the variant manifest (layers_variants.txt: name, LoadOp, nvcc
// flags, timed|traced per line), then the PTX of every variant
// (_ptx/layers_<variant>/layers.<arch>.ptx). Every timed build must carry no
// tracing at all (no atomic, no %smid read): the overhead stays off every
// timed variant. The traced build must record every global load: one
// atom.global.or and one volatile bitmap read per plain ld.global of the
// kernel, and read %smid.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

std::string& ManifestPath() {
  static std::string path;
  return path;
}

struct Variant {
  std::string name;
  bool traced = false;
};

std::vector<Variant> Manifest() {
  std::vector<Variant> out;
  for (absl::string_view line :
       absl::StrSplit(ReadTextFile(ManifestPath()), '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    EXPECT_EQ(f.size(), 4u) << "manifest line: " << line;
    if (f.size() == 4) out.push_back({f[0], f[3] == "traced"});
  }
  EXPECT_GE(out.size(), 11u) << "manifest " << ManifestPath();
  return out;
}

std::vector<std::string> FilesOf(const std::string& variant) {
  std::vector<std::string> out;
  const std::string folder = absl::StrCat("/_ptx/layers_", variant, "/");
  for (const std::string& f : PtxFiles()) {
    if (absl::StrContains(f, folder)) out.push_back(f);
  }
  EXPECT_FALSE(out.empty()) << "no PTX of variant " << variant;
  return out;
}

// The kernels and the global loads each has in its source (Ld() calls).
struct KernelLoads {
  const char* entry;
  int loads;
};
constexpr KernelLoads kKernels[] = {
    {"StreamKernel", 3},  {"GatherKernel", 2}, {"StencilKernel", 5}, {"ConvKernel", 2},
    {"MaxPoolKernel", 1}, {"GemvKernel", 2},   {"SoftmaxKernel", 3},
};

bool IsAtomic(const PtxInstruction& in) {
  return absl::StartsWith(in.opcode, "atom") || absl::StartsWith(in.opcode, "red.");
}

bool ReadsSmId(const PtxInstruction& in) { return absl::StrContains(in.text, "%smid"); }

bool IsDataLoad(const PtxInstruction& in) {
  return in.opcode == "ld.global.f32" || in.opcode == "ld.global.s32";
}

TEST(TracePtxTest, ManifestMarksExactlyTheTraceVariantTraced) {
  int traced = 0;
  for (const Variant& v : Manifest()) {
    if (v.traced) {
      ++traced;
      EXPECT_EQ(v.name, "trace");
    }
  }
  EXPECT_EQ(traced, 1);
}

TEST(TracePtxTest, TimedBuildsCarryNoTracing) {
  for (const Variant& v : Manifest()) {
    if (v.traced) continue;
    for (const std::string& f : FilesOf(v.name)) {
      for (const KernelLoads& k : kKernels) {
        SCOPED_TRACE(absl::StrCat(v.name, " ", k.entry, " ", f));
        const std::vector<PtxInstruction> code = EntryCode(f, k.entry);
        EXPECT_FALSE(code.empty());
        for (const PtxInstruction& in : code) {
          if (in.is_label()) continue;
          EXPECT_FALSE(IsAtomic(in)) << in.text;
          EXPECT_FALSE(ReadsSmId(in)) << in.text;
        }
      }
    }
  }
}

TEST(TracePtxTest, TraceRecordsEveryLoadAndTheBlocksSm) {
  for (const std::string& f : FilesOf("trace")) {
    for (const KernelLoads& k : kKernels) {
      SCOPED_TRACE(absl::StrCat(k.entry, " ", f));
      int data = 0, records = 0, bitmap_reads = 0, smid = 0;
      for (const PtxInstruction& in : EntryCode(f, k.entry)) {
        if (in.is_label()) continue;
        if (IsDataLoad(in)) ++data;
        if (in.opcode == "atom.global.or.b32") ++records;
        if (absl::StartsWith(in.opcode, "ld.volatile.global")) ++bitmap_reads;
        if (ReadsSmId(in)) ++smid;
        if (IsAtomic(in)) EXPECT_EQ(in.opcode, "atom.global.or.b32") << in.text;
      }
      // The trace build's loads are the default's (no qualifier), each with
      // its record; no unrolling at this level, so one per Ld() call.
      EXPECT_EQ(data, k.loads);
      EXPECT_EQ(records, data);
      EXPECT_EQ(bitmap_reads, data);
      // One %smid per record and one for RecordBlockSm.
      EXPECT_EQ(smid, records + 1);
    }
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 3) {
    std::cerr << "usage: trace_ptx_test MANIFEST PTX...\n";
    return 2;
  }
  dissect::ManifestPath() = argv[1];
  for (int i = 2; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
