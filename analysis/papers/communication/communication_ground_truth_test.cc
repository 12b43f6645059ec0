// The compute-vs-communication page on REAL data: the committed ground truth
// of an H100 (analysis/reference/h100_80gb_hbm3, raw files as they came
// back): host_link of the second first-contact run and the only
// layer_breakdown results committed, the first run's GPU smoke tests
// (alexnet at batch 2, densenet121 at batch 1), with the catalog's entry.
// Not a golden: properties that must hold on that data. Skips, saying why,
// where the files are absent.
#include <filesystem>
#include <string>
#include <vector>

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

constexpr char kReference[] = "analysis/reference/h100_80gb_hbm3/";
const std::vector<std::string>& ReferenceFiles() {
  static const auto* files = new std::vector<std::string>{
      "2026-11-27-second-contact/rotation/ref_host_link/host_link.json",
      "2026-11-27/correctness/layer_breakdown_gpu_test/gpu_smoke.json",
      "2026-11-27/correctness/layer_breakdown_densenet_gpu_test/gpu_smoke.json"};
  return *files;
}

class CommunicationGroundTruthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& name : ReferenceFiles()) {
      if (!std::filesystem::exists(test_util::Runfile(kReference + name))) {
        GTEST_SKIP() << "the committed H100 ground truth is absent (" << kReference << name
                     << "): nothing to check";
      }
    }
    const absl::StatusOr<PaperFigure> figure = GenerateCommunicationBreakdown(
        CatalogEntryOrFail("alibaba_pai_2019_host_link"),
        testing::ReadResultFixtures(kReference, ReferenceFiles()));
    ASSERT_TRUE(figure.ok()) << figure.status();
    page_ = figure->markdown;
  }

  std::string page_;
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

}  // namespace
}  // namespace dissect::analysis::papers
