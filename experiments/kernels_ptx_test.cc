// Compiled-code tests: reads the PTX nvcc emitted for each kernel (one file
// per source and target architecture, passed as arguments) and checks that
// the instructions each experiment times are really there.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

struct PathLoad {
  int path;            // ChasePath value: the template argument in the mangled name
  const char* load;    // opcode prefix of the path's load
};

constexpr PathLoad kPathLoads[] = {
    {0, "ld.shared"}, {1, "ld.global.ca"}, {2, "ld.global.cg"},
    {3, "ld.global.nc"}, {4, "tex.1d"}, {5, "ld.const"},
};

std::string EntryName(const char* kernel, int path) {
  return std::string(kernel) + "ILNS_9ChasePathE" + std::to_string(path) + "EE";
}

// Instructions strictly between the first two that mention %clock64.
std::vector<PtxInstruction> TimedRegion(const std::vector<PtxInstruction>& code) {
  std::vector<size_t> marks;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i].text.find("%clock64") != std::string::npos) marks.push_back(i);
  }
  if (marks.size() < 2) return {};
  return {code.begin() + marks[0] + 1, code.begin() + marks[1]};
}

int OtherMemoryLoads(const std::vector<PtxInstruction>& region, const char* load) {
  int n = 0;
  for (const PtxInstruction& in : region) {
    const bool memory = absl::StartsWith(in.opcode, "ld.") || absl::StartsWith(in.opcode, "tex.");
    if (memory && !absl::StartsWith(in.opcode, load)) ++n;
  }
  return n;
}

TEST(ChasePtxTest, EachPathHasADependentChainOfItsLoadBetweenClockReads) {
  const auto files = PtxFilesNamed("pointer_chase");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const PathLoad& p : kPathLoads) {
      SCOPED_TRACE(f + " path " + std::to_string(p.path) + " " + p.load);
      const auto code = EntryCode(f, EntryName("11ChaseKernel", p.path).c_str());
      auto report = AnalyzeDependentLoads(code, "%clock64", p.load);
      ASSERT_TRUE(report.ok()) << report.status();
      // The timed loop is unrolled 16 times: at least 16 dependent loads.
      EXPECT_GE(report->loads, 16);
      EXPECT_GE(report->longest_dependent_run, 16);
      // Nothing else is loaded while the clock runs (no hoisted or extra loads).
      EXPECT_EQ(OtherMemoryLoads(TimedRegion(code), p.load), 0);
      // The chase's end point and both timer deltas are stored (kept live).
      EXPECT_GE(CountOpcodePrefix(code, "st.global"), 3);
    }
  }
}

TEST(ChasePtxTest, TraceTimesExactlyOneLoadAndWaitsForIt) {
  const auto files = PtxFilesNamed("pointer_chase");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const PathLoad& p : kPathLoads) {
      SCOPED_TRACE(f + " trace path " + std::to_string(p.path) + " " + p.load);
      const auto region =
          TimedRegion(EntryCode(f, EntryName("16ChaseTraceKernel", p.path).c_str()));
      ASSERT_FALSE(region.empty());
      std::vector<std::string> loaded;
      int loads = 0;
      bool stored_loaded_value = false;
      for (const PtxInstruction& in : region) {
        if (absl::StartsWith(in.opcode, p.load)) {
          ++loads;
          loaded = OperandRegisters(in.operands[0]);
        }
        if (absl::StartsWith(in.opcode, "st.shared") && !loaded.empty()) {
          for (const std::string& r : OperandRegisters(in.operands.back())) {
            stored_loaded_value |= r == loaded[0];
          }
        }
      }
      EXPECT_EQ(loads, 1);
      EXPECT_TRUE(stored_loaded_value) << "the loaded value must be stored before the clock";
      EXPECT_EQ(OtherMemoryLoads(region, p.load), 0);
    }
  }
}

TEST(ReluPtxTest, UsesVectorLoadsAndStores) {
  const auto files = PtxFilesNamed("elementwise");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    // The float4 body (ReluKernel<float4>); ReluKernel<float> serves
    // pointers that are not 16-byte aligned.
    const auto code = EntryCode(f, "ReluKernelI6float4EE");
    EXPECT_GE(CountOpcodePrefix(code, "ld.global.nc.v4.f32") +
                  CountOpcodePrefix(code, "ld.global.v4.f32"),
              1);
    EXPECT_GE(CountOpcodePrefix(code, "st.global.v4.f32"), 1);
    EXPECT_GE(CountOpcodePrefix(code, "max.f32"), 4);
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
