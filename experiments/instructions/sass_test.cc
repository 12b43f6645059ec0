// Machine-code tests of the instruction kernels (kernels/instruction_ops.cu)
// on the SASS ptxas emitted, for every architecture built (sm_80 to sm_120
// by default: the sass_sequence notes hold for each), per op of
// InstructionOps():
// - InstructionLatencyKernel<Op>: each of the two timed loops (one per
//   segment) holds exactly kInstructionUnroll steps of the op's
//   sass_sequence as one dependent chain, each step's instruction reading
//   the previous one's result with nothing in between;
// - InstructionThroughputKernel<Op, chains>: the timed loop holds chains
//   independent chains of kInstructionUnroll steps each.
// The checks live in instruction_sass_checks.{h,cc};
// instruction_sass_checks_test shows them failing on broken listings.
#include <cctype>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "experiments/instructions/instruction_models.h"
#include "experiments/instructions/instruction_sass_checks.h"
#include "gtest/gtest.h"
#include "kernels/instruction_ops.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// The mangled name of an op's functor: "ffma" -> "6FfmaOp", "mufu_rcp" ->
// "9MufuRcpOp".
std::string FunctorFragment(const std::string& op) {
  std::string name;
  for (absl::string_view word : absl::StrSplit(op, '_')) {
    std::string w(word);
    w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    name += w;
  }
  name += "Op";
  return absl::StrCat(name.size(), name);
}

class InstructionSassTest : public SassTest {};

TEST_F(InstructionSassTest, LatencyLoopsAreOneChainOfTheSequence) {
  for (const InstructionOpInfo& info : InstructionOps()) {
    // barrier_cluster has a kernel of its own (a cluster of 2 at compile
    // time), a stub below sm_90.
    const bool cluster = info.min_compute_capability >= 90;
    const SassFunction* f = SassFunctionNamed(
        {cluster ? "31InstructionClusterLatencyKernel" : "24InstructionLatencyKernel",
         absl::StrCat("INS_", FunctorFragment(info.name), "EEEv")});
    if (f == nullptr) continue;
    SCOPED_TRACE(absl::StrCat(info.name, ": ", f->name));
    if (cluster && ExpectStubBelow(*f, info.min_compute_capability, info.needs)) continue;
    const std::vector<std::string> problems =
        LatencyKernelProblems(*f, ParseSassStep(info.sass_sequence), info.value_chain);
    EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  }
}

TEST_F(InstructionSassTest, ThroughputLoopsAreIndependentChains) {
  for (const InstructionOpInfo& info : InstructionOps()) {
    if (info.no_throughput_reason != nullptr) continue;  // its points are skipped
    for (const int chains : kThroughputChains) {
      const SassFunction* f = SassFunctionNamed(
          {"27InstructionThroughputKernel",
           absl::StrCat("INS_", FunctorFragment(info.name), "ELi", chains, "EE")});
      if (f == nullptr) continue;
      SCOPED_TRACE(absl::StrCat(info.name, " x ", chains, ": ", f->name));
      const std::vector<std::string> problems =
          ThroughputKernelProblems(*f, ParseSassStep(info.sass_sequence), chains, info.value_chain);
      if (chains > 1 && info.one_chain_reason != nullptr) {
        // The experiment skips these points: their chains share instructions.
        EXPECT_FALSE(problems.empty())
            << "the reason to skip no longer holds: " << info.one_chain_reason;
        continue;
      }
      EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
    }
  }
}

}  // namespace
}  // namespace dissect
