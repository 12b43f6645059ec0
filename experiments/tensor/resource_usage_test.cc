// No register spills in the tensor-core probe kernels: reads ptxas's -v
// report of every probe source and architecture (arguments) and fails if
// any kernel spills. The reports of a fixture compiled with too few
// registers (one per architecture, after --fixtures) must show spills,
// which proves the check reads real ptxas output and can fail.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "experiments/tensor/ptxas_report.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

std::vector<std::string>& Reports() {
  static std::vector<std::string> files;
  return files;
}

std::vector<std::string>& FixtureReports() {
  static std::vector<std::string> files;
  return files;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr char kSample[] = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z1av' for 'sm_90a'
ptxas info    : Function properties for _Z1av
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 56 registers, used 0 barriers
ptxas info    : Compiling entry function '_Z1bv' for 'sm_90a'
ptxas info    : Function properties for _Z1bv
    24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 24 bytes cumulative stack size
)";

TEST(ParsePtxasReportTest, ReadsRegistersAndSpillsPerEntry) {
  auto kernels = ParsePtxasReport(kSample);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ((*kernels)[0].entry, "_Z1av");
  EXPECT_EQ((*kernels)[0].arch, "sm_90a");
  EXPECT_EQ((*kernels)[0].registers, 56);
  EXPECT_FALSE((*kernels)[0].Spills());
  EXPECT_EQ((*kernels)[1].registers, 255);
  EXPECT_EQ((*kernels)[1].spill_store_bytes, 8);
  EXPECT_EQ((*kernels)[1].spill_load_bytes, 12);
  EXPECT_TRUE((*kernels)[1].Spills());
}

TEST(ParsePtxasReportTest, AnEntryWithoutItsSpillLineIsAnError) {
  EXPECT_FALSE(ParsePtxasReport("ptxas info    : Compiling entry function '_Z1av' for "
                                "'sm_90a'\nptxas info    : Used 8 registers\n")
                   .ok());
  EXPECT_FALSE(ParsePtxasReport("").ok());
}

TEST(ResourceUsageTest, TheSpillingFixtureSpills) {
  ASSERT_FALSE(FixtureReports().empty()) << "pass --fixtures <report>...";
  for (const std::string& path : FixtureReports()) {
    SCOPED_TRACE(path);
    auto kernels = ParsePtxasReport(ReadFile(path));
    ASSERT_TRUE(kernels.ok()) << kernels.status();
    ASSERT_EQ(kernels->size(), 1u);
    EXPECT_TRUE((*kernels)[0].Spills()) << "the fixture no longer spills; the check is untested";
  }
}

TEST(ResourceUsageTest, NoProbeKernelSpills) {
  ASSERT_FALSE(Reports().empty());
  for (const std::string& path : Reports()) {
    SCOPED_TRACE(path);
    auto kernels = ParsePtxasReport(ReadFile(path));
    ASSERT_TRUE(kernels.ok()) << kernels.status();
    int probes = 0;
    for (const KernelResources& k : *kernels) {
      EXPECT_FALSE(k.Spills()) << k.entry << " (" << k.arch << "): " << k.spill_store_bytes
                               << " bytes spill stores, " << k.spill_load_bytes
                               << " bytes spill loads, " << k.registers << " registers";
      probes += absl::StrContains(k.entry, "Kernel");
    }
    // mma_sync: 12 forms × 2 modes × 2 operand kinds (constant, cycling);
    // wgmma: 11 forms × 6 N × 2 A sources × 2 modes × 2 operand kinds.
    if (absl::StrContains(path, "/mma_sync.")) {
      EXPECT_EQ(probes, 48);
    }
    if (absl::StrContains(path, "/wgmma.")) {
      EXPECT_EQ(probes, 528);
    }
    EXPECT_GT(probes, 0);
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // REPORT... --fixtures FIXTURE_REPORT...
  bool fixtures = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--fixtures") {
      fixtures = true;
    } else {
      (fixtures ? dissect::FixtureReports() : dissect::Reports()).push_back(arg);
    }
  }
  return RUN_ALL_TESTS();
}
