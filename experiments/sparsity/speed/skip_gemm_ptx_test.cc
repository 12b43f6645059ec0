// PTX of the zero-skipping GEMM (kernels/sparsity_gemm/skip_gemm.cu), one
// file per architecture on the command line: the kernels really branch on
// the zero test around their multiply-adds.
//   skip_warp: at least one branch per column of the warp (16) whose
//     predicate is a test of a vote.sync.ballot result and which jumps
//     forward over that column's 32 fma.rn.f32;
//   skip_tile: a branch whose predicate tests a byte loaded from the tile
//     bitmap and which jumps forward over the tile's 16 x 16 fma.rn.f32.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/sparsity_gemm/skip_gemm_layout.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

using sparsity_gemm::kColsPerWarp;
using sparsity_gemm::kTileK;
using sparsity_gemm::kTileN;
using sparsity_gemm::kWarpSegment;

// True if register `reg`, as last written before `at`, comes from an
// instruction whose opcode starts with `source`, directly or through or./
// mov./cvt. of such values.
bool FedBy(const std::vector<PtxInstruction>& code, size_t at, const std::string& reg,
           const std::string& source, int depth = 0) {
  if (depth > 64) return false;
  for (size_t i = at; i-- > 0;) {
    const PtxInstruction& in = code[i];
    if (in.is_label() || in.operands.empty() || in.operands[0] != reg) continue;
    if (absl::StartsWith(in.opcode, source)) return true;
    if (absl::StartsWith(in.opcode, "or.") || absl::StartsWith(in.opcode, "mov.") ||
        absl::StartsWith(in.opcode, "cvt.")) {
      for (size_t o = 1; o < in.operands.size(); ++o) {
        for (const std::string& r : OperandRegisters(in.operands[o])) {
          if (FedBy(code, i, r, source, depth + 1)) return true;
        }
      }
    }
    return false;
  }
  return false;
}

// Forward predicated branches whose predicate's setp reads a value fed by
// `source`, with the number of fma.rn.f32 they jump over.
std::vector<int> ZeroTestSkips(const std::vector<PtxInstruction>& code, const std::string& source) {
  std::map<std::string, size_t> labels;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i].is_label()) labels[code[i].label] = i;
  }
  std::vector<int> skipped_fmas;
  for (size_t i = 0; i < code.size(); ++i) {
    const PtxInstruction& bra = code[i];
    if (bra.opcode != "bra" || bra.predicate.empty() || bra.operands.empty()) continue;
    auto target = labels.find(bra.operands[0]);
    if (target == labels.end() || target->second < i) continue;
    const std::string pred = bra.predicate.substr(bra.predicate.find('%'));
    bool fed = false;
    for (size_t j = i; j-- > 0 && !fed;) {
      const PtxInstruction& in = code[j];
      if (in.operands.empty() || in.operands[0] != pred) continue;
      if (absl::StartsWith(in.opcode, "setp.")) {
        for (size_t o = 1; o < in.operands.size(); ++o) {
          for (const std::string& r : OperandRegisters(in.operands[o])) {
            fed = fed || FedBy(code, j, r, source);
          }
        }
      }
      break;
    }
    if (!fed) continue;
    int fmas = 0;
    for (size_t j = i + 1; j < target->second; ++j) {
      fmas += absl::StartsWith(code[j].opcode, "fma.rn.f32") ? 1 : 0;
    }
    skipped_fmas.push_back(fmas);
  }
  return skipped_fmas;
}

std::vector<std::string> Files() {
  const std::vector<std::string> files = PtxFilesNamed("skip_gemm");
  EXPECT_FALSE(files.empty()) << "no skip_gemm.<arch>.ptx on the command line";
  return files;
}

TEST(SkipGemmPtxTest, WarpKernelBranchesOnTheBallotAroundEachColumnsFmas) {
  for (const std::string& file : Files()) {
    SCOPED_TRACE(file);
    const std::vector<PtxInstruction> code = EntryCode(file, "SkipWarpGemmKernel");
    ASSERT_FALSE(code.empty());
    EXPECT_GE(CountOpcodePrefix(code, "vote.sync.ballot"), kColsPerWarp);
    int column_skips = 0;
    for (int fmas : ZeroTestSkips(code, "vote.sync.ballot")) {
      column_skips += fmas >= kWarpSegment ? 1 : 0;
    }
    EXPECT_GE(column_skips, kColsPerWarp);
  }
}

TEST(SkipGemmPtxTest, TileKernelBranchesOnTheBitmapAroundTheTilesFmas) {
  for (const std::string& file : Files()) {
    SCOPED_TRACE(file);
    const std::vector<PtxInstruction> code = EntryCode(file, "SkipTileGemmKernel");
    ASSERT_FALSE(code.empty());
    int tile_skips = 0;
    for (int fmas : ZeroTestSkips(code, "ld.global.u8")) {
      tile_skips += fmas >= kTileK * kTileN ? 1 : 0;
    }
    EXPECT_GE(tile_skips, 1);
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
