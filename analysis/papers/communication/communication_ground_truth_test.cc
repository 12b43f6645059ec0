// The compute-vs-communication page on REAL data: the committed ground truth
// of an H100 (analysis/reference/h100_80gb_hbm3, raw files as they came
// back): host_link of the second first-contact run and the only
// layer_breakdown results committed, the first run's GPU smoke tests
// (alexnet at batch 2, densenet121 at batch 1), and the catalog entry's
// whole sweep of the recheck run (four networks at batch 64), each with the
// catalog's entry. Not a golden: properties that must hold on that data. Skips, saying why,
// where the files are absent.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "analysis/results/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/testing/test_util.h"

namespace dissect::analysis::papers {
namespace {

using testing::CatalogEntryOrFail;
using testing::CellWith;
using testing::TableRow;
using testing::TableRows;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kReference[] = "analysis/reference/h100_80gb_hbm3/";
const std::vector<std::string>& ReferenceFiles() {
  static const auto* files = new std::vector<std::string>{
      "2026-11-27-second-contact/rotation/ref_host_link/host_link.json",
      "2026-11-27/correctness/layer_breakdown_gpu_test/gpu_smoke.json",
      "2026-11-27/correctness/layer_breakdown_densenet_gpu_test/gpu_smoke.json"};
  return *files;
}

// The page rendered from result files of a committed run with the catalog's
// entry.
class CommunicationPageTest : public ::testing::Test {
 protected:
  // Reads `folder` + each of `names`; skips where one is absent.
  void Render(const std::string& folder, const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      if (!std::filesystem::exists(test_util::Runfile(folder + name))) {
        GTEST_SKIP() << "the committed H100 ground truth is absent (" << folder << name
                     << "): nothing to check";
      }
    }
    const absl::StatusOr<PaperFigure> figure =
        GenerateCommunicationBreakdown(CatalogEntryOrFail("alibaba_pai_2019_host_link"),
                                       testing::ReadResultFixtures(folder, names));
    ASSERT_TRUE(figure.ok()) << figure.status();
    page_ = figure->markdown;
  }

  std::string page_;
};

class CommunicationGroundTruthTest : public CommunicationPageTest {
 protected:
  void SetUp() override { Render(kReference, ReferenceFiles()); }
};

// host_link's largest pinned bidirectional copy (1 GiB, 88.27 GB/s both
// ways) halved: measured, and where PCIe Gen5 x16 puts one direction.
TEST_F(CommunicationGroundTruthTest, PcieIsMeasuredAndSane) {
  const std::vector<std::string> pcie = TableRow(page_, "PCIe (host link)");
  ASSERT_GE(pcie.size(), 3u);
  EXPECT_THAT(pcie[2], HasSubstr("measured: host_link, pinned, bidirectional, 1 GiB"));
  const double per_direction = std::stod(pcie[1]);
  EXPECT_GE(per_direction, 40);
  EXPECT_LE(per_direction, 50);
}

// Communication dominates AlexNet (61 M parameters, little compute) on
// every link, and DenseNet-121 (8 M parameters) has the smaller share.
TEST_F(CommunicationGroundTruthTest, SharesPerNetworkAndLink) {
  for (const char* link : {"PCIe (host link)", "25 Gbps Ethernet", "100 Gbps Ethernet"}) {
    SCOPED_TRACE(link);
    std::vector<double> shares;
    for (const char* network : {"alexnet", "densenet121"}) {
      for (const std::vector<std::string>& row : TableRows(page_, network)) {
        // network, link, comm ms, share, step ms (the model table's row).
        if (row.size() >= 4 && row[1] == link) shares.push_back(std::stod(row[3]));
      }
    }
    ASSERT_EQ(shares.size(), 2u);  // alexnet, densenet121
    EXPECT_GT(shares[0], 50);
    EXPECT_LT(shares[1], shares[0]);
  }
}

// The results are not the sweep's setting (two networks, batches 2 and 1,
// not batch 64): the page says so, and names what its means are over.
TEST_F(CommunicationGroundTruthTest, SaysWhereTheResultsAreNotTheSweeps) {
  EXPECT_THAT(page_, HasSubstr("### Not the sweep's setting"));
  EXPECT_THAT(page_, HasSubstr("- no measured pass of vgg16, resnet50"));
  EXPECT_THAT(page_, HasSubstr("alexnet at batch 2, densenet121 at batch 1, not the sweep's "
                               "batch 64"));
  EXPECT_THAT(page_, HasSubstr("over PCIe (host link), mean over alexnet, densenet121"));
  EXPECT_THAT(TableRow(page_, "alexnet"), CellWith("2"));
}

// The catalog entry's whole sweep on the same H100, made by reproduce
// (2026-11-27-recheck): host_link and layer_breakdown of the four networks
// at the sweep's batch 64.
constexpr char kSweep[] =
    "analysis/reference/h100_80gb_hbm3/2026-11-27-recheck/papers/alibaba_pai_2019_host_link/";
constexpr const char* kNetworks[] = {"alexnet", "vgg16", "resnet50", "densenet121"};
constexpr const char* kLinks[] = {"PCIe (host link)", "25 Gbps Ethernet", "100 Gbps Ethernet"};

class CommunicationWholeSweepTest : public CommunicationPageTest {
 protected:
  void SetUp() override { Render(kSweep, {"host_link.json", "compute.json"}); }
};

TEST_F(CommunicationWholeSweepTest, PcieIsMeasured) {
  const std::vector<std::string> pcie = TableRow(page_, "PCIe (host link)");
  ASSERT_GE(pcie.size(), 3u);
  EXPECT_THAT(pcie[2], HasSubstr("measured: host_link, pinned, bidirectional"));
  // One direction of PCIe Gen5 x16: 64 GB/s raw (PCI-SIG, PCIe 5.0 base
  // specification: 32 GT/s × 16 lanes).
  const double per_direction = std::stod(pcie[1]);
  EXPECT_GT(per_direction, 20);
  EXPECT_LE(per_direction, 64);
}

// At the sweep's setting every network has a modelled share on every link,
// strictly between nothing and everything, and the page has no gaps to say.
TEST_F(CommunicationWholeSweepTest, EveryNetworkHasAShareOnEveryLink) {
  EXPECT_THAT(page_, Not(HasSubstr("### Not the sweep's setting")));
  for (const char* network : kNetworks) {
    for (const char* link : kLinks) {
      SCOPED_TRACE(absl::StrCat(network, " over ", link));
      std::vector<double> shares;
      for (const std::vector<std::string>& row : TableRows(page_, network)) {
        // network, link, comm ms, share, step ms (the model table's row).
        if (row.size() >= 4 && row[1] == link) shares.push_back(std::stod(row[3]));
      }
      ASSERT_EQ(shares.size(), 1u);
      EXPECT_GT(shares[0], 0);
      EXPECT_LT(shares[0], 100);
    }
    const std::vector<std::string> compute = TableRow(page_, network);  // network, batch, ...
    ASSERT_GE(compute.size(), 2u);
    EXPECT_EQ(compute[1], "64");
  }
}

// 4x the bandwidth cuts only the communication: a step speeds up by more
// than 1 and less than 4.
TEST_F(CommunicationWholeSweepTest, SpeedupFrom25To100GbpsIsBetweenOneAndFour) {
  std::vector<std::string> quantities;
  for (const char* network : kNetworks) {
    quantities.push_back(absl::StrCat(network, ": step speedup, 25 -> 100 Gbps (modelled)"));
  }
  quantities.push_back(
      "step speedup, 25 -> 100 Gbps, mean over alexnet, vgg16, resnet50, densenet121 (modelled)");
  for (const std::string& quantity : quantities) {
    SCOPED_TRACE(quantity);
    const std::vector<std::string> row = TableRow(page_, quantity);
    ASSERT_GE(row.size(), 3u);
    const double speedup = std::stod(row[2]);  // quantity, paper, this GPU
    EXPECT_GT(speedup, 1);
    EXPECT_LT(speedup, 4);
  }
}

}  // namespace
}  // namespace dissect::analysis::papers
