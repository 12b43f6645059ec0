// Compiled-code tests: reads the PTX nvcc emitted for each kernel (one file
// per source and target architecture, passed as arguments) and checks that
// the instructions each experiment times are really there.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"

namespace dissect {
namespace {

std::vector<std::string>& PtxFiles() {
  static std::vector<std::string> files;
  return files;
}

std::vector<std::string> FilesOf(const std::string& stem) {
  std::vector<std::string> out;
  for (const std::string& f : PtxFiles()) {
    const std::string base = f.substr(f.rfind('/') + 1);
    if (absl::StartsWith(base, stem + ".")) out.push_back(f);
  }
  return out;
}

std::vector<PtxInstruction> EntryCode(const std::string& file, const char* entry) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  auto body = ExtractEntry(ss.str(), entry);
  EXPECT_TRUE(body.ok()) << file << ": " << body.status();
  return body.ok() ? ParseInstructions(*body) : std::vector<PtxInstruction>{};
}

TEST(SharedChasePtxTest, DependentLdSharedChainBetweenClockReads) {
  const auto files = FilesOf("pointer_chase");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const auto code = EntryCode(f, "SharedChaseKernel");
    auto report = AnalyzeDependentLoads(code, "%clock64", "ld.shared");
    ASSERT_TRUE(report.ok()) << report.status();
    // The timed loop is unrolled 16 times: at least 16 dependent loads.
    EXPECT_GE(report->loads, 16);
    EXPECT_GE(report->longest_dependent_run, 16);
    // The chase's end point and both timer deltas are stored (kept live).
    EXPECT_GE(CountOpcodePrefix(code, "st.global"), 3);
  }
}

TEST(ReluPtxTest, UsesVectorLoadsAndStores) {
  const auto files = FilesOf("elementwise");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const auto code = EntryCode(f, "ReluKernel");
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
