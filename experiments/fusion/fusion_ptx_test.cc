// PTX of the layer-fusion kernels (kernels/fusion/fusion.cu), one file per
// architecture on the command line:
//   conv+ReLU fused (InIdentity, OutRelu): exactly one st.global (no
//     intermediate store), whose value is a max.f32 with 0;
//   the unfused conv (InIdentity, OutIdentity): one st.global and no max;
//   BN+ReLU+conv fused (InBnRelu, OutIdentity): one st.global, no max on
//     the stored value, and every multiply-add into the accumulator takes a
//     max.f32(fma.rn.f32(loaded input, scale, shift), 0) operand.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

constexpr char kConvPlain[] = "ConvKernelINS1_10InIdentityENS1_11OutIdentity";
constexpr char kConvRelu[] = "ConvKernelINS1_10InIdentityENS1_7OutRelu";
constexpr char kBnReluConv[] = "ConvKernelINS1_8InBnReluENS1_11OutIdentity";

std::vector<std::string> Files() {
  std::vector<std::string> files = PtxFilesNamed("fusion");
  EXPECT_FALSE(files.empty()) << "no fusion.*.ptx on the command line";
  return files;
}

// The instruction that last wrote `reg` before `at`, or nullptr.
const PtxInstruction* Writer(const std::vector<PtxInstruction>& code, size_t at,
                             const std::string& reg) {
  for (size_t i = at; i-- > 0;) {
    if (!code[i].is_label() && !code[i].operands.empty() && code[i].operands[0] == reg) {
      return &code[i];
    }
  }
  return nullptr;
}

size_t IndexOf(const std::vector<PtxInstruction>& code, const PtxInstruction* in) {
  return static_cast<size_t>(in - code.data());
}

// True if `operand` at `at` is the float 0 (an immediate, or a register
// last moved from one).
bool IsZero(const std::vector<PtxInstruction>& code, size_t at, const std::string& operand) {
  if (operand == "0f00000000") return true;
  const PtxInstruction* w = Writer(code, at, operand);
  return w != nullptr && absl::StartsWith(w->opcode, "mov.") && w->operands.size() == 2 &&
         w->operands[1] == "0f00000000";
}

// True if the instruction at `at` is max.f32 of something and 0.
bool IsReluMax(const std::vector<PtxInstruction>& code, size_t at) {
  const PtxInstruction& in = code[at];
  if (in.opcode != "max.f32" || in.operands.size() != 3) return false;
  return IsZero(code, at, in.operands[1]) || IsZero(code, at, in.operands[2]);
}

// The global stores of an entry.
std::vector<size_t> Stores(const std::vector<PtxInstruction>& code) {
  std::vector<size_t> out;
  for (size_t i = 0; i < code.size(); ++i) {
    if (absl::StartsWith(code[i].opcode, "st.global")) out.push_back(i);
  }
  return out;
}

// The instruction writing the value operand of the store at `at`.
const PtxInstruction* StoredValue(const std::vector<PtxInstruction>& code, size_t at) {
  const PtxInstruction& st = code[at];
  if (st.operands.size() != 2) return nullptr;
  return Writer(code, at, st.operands[1]);
}

TEST(FusionPtx, FusedConvReluStoresOnceAfterMaxWithZero) {
  for (const std::string& file : Files()) {
    const std::vector<PtxInstruction> code = EntryCode(file, kConvRelu);
    const std::vector<size_t> stores = Stores(code);
    ASSERT_EQ(stores.size(), 1u) << file << ": the fused kernel must store only its output";
    const PtxInstruction* value = StoredValue(code, stores[0]);
    ASSERT_NE(value, nullptr) << file;
    EXPECT_TRUE(IsReluMax(code, IndexOf(code, value)))
        << file << ": the stored value comes from " << value->text;
  }
}

TEST(FusionPtx, UnfusedConvHasNoMax) {
  for (const std::string& file : Files()) {
    const std::vector<PtxInstruction> code = EntryCode(file, kConvPlain);
    EXPECT_EQ(Stores(code).size(), 1u) << file;
    EXPECT_EQ(CountOpcodePrefix(code, "max."), 0) << file;
    EXPECT_GT(CountOpcodePrefix(code, "fma.rn.f32"), 0) << file;
  }
}

TEST(FusionPtx, FusedBnReluConvTransformsEveryLoadedInput) {
  for (const std::string& file : Files()) {
    const std::vector<PtxInstruction> code = EntryCode(file, kBnReluConv);
    const std::vector<size_t> stores = Stores(code);
    ASSERT_EQ(stores.size(), 1u) << file;
    const PtxInstruction* value = StoredValue(code, stores[0]);
    ASSERT_NE(value, nullptr) << file;
    EXPECT_NE(value->opcode, "max.f32") << file << ": no ReLU after this conv";
    int accumulating = 0;
    for (size_t i = 0; i < code.size(); ++i) {
      const PtxInstruction& in = code[i];
      // The accumulator's multiply-adds: fma d, a, b, d.
      if (in.opcode != "fma.rn.f32" || in.operands.size() != 4 ||
          in.operands[0] != in.operands[3]) {
        continue;
      }
      ++accumulating;
      bool transformed = false;
      for (int o : {1, 2}) {
        const PtxInstruction* max = Writer(code, i, in.operands[o]);
        if (max == nullptr || !IsReluMax(code, IndexOf(code, max))) continue;
        const size_t max_at = IndexOf(code, max);
        for (int m : {1, 2}) {
          const PtxInstruction* bn = Writer(code, max_at, max->operands[m]);
          if (bn == nullptr || bn->opcode != "fma.rn.f32") continue;
          const size_t bn_at = IndexOf(code, bn);
          for (int b : {1, 2, 3}) {
            const PtxInstruction* ld = Writer(code, bn_at, bn->operands[b]);
            if (ld != nullptr && absl::StartsWith(ld->opcode, "ld.global")) transformed = true;
          }
        }
      }
      EXPECT_TRUE(transformed) << file << ": " << in.text
                               << " multiplies an input that did not pass BN+ReLU";
    }
    EXPECT_GT(accumulating, 0) << file;
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
