// Golden test of the compute-vs-communication page on SYNTHETIC result files
// (testdata/make_synthetic_communication.py, made-up numbers) with the
// catalog's entry configs/papers/alibaba_pai_2019_host_link.json, and its
// errors. After an intended change:
//   DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/communication:communication_test
#include <string>
#include <vector>

#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "analysis/results/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using testing::CatalogEntryOrFail;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr testing::PaperTestdata kTestdata = {"analysis/papers/communication/testdata/",
                                              "//analysis/papers/communication:communication_test"};
constexpr char kEntry[] = "alibaba_pai_2019_host_link";

std::vector<ResultFile> Fixtures() {
  return kTestdata.Results(
      {"synthetic_communication_layer_breakdown.json", "synthetic_communication_host_link.json"});
}

TEST(CommunicationBreakdownTest, MatchesGolden) {
  const std::string page = testing::ExpectPageMatchesGoldens(
      GenerateCommunicationBreakdown(CatalogEntryOrFail(kEntry), Fixtures()), kTestdata,
      "communication_breakdown");
  // PCIe: the pinned bidirectional 256 MiB row's 90 GB/s, halved.
  EXPECT_THAT(page, HasSubstr("| PCIe (host link)  |                 45 |"));
  EXPECT_THAT(page, HasSubstr("3.125"));
  // alexnet at its largest batch (64): 12 ms forward, 36 ms step.
  EXPECT_THAT(page, HasSubstr("| alexnet     |    64 |"));
  EXPECT_THAT(page, Not(HasSubstr("| alexnet     |    16 |")));
  // The skipped and the failed point, with why.
  EXPECT_THAT(page, HasSubstr("resnet50 at batch 16: skipped: cuDNN not found"));
  EXPECT_THAT(page, HasSubstr("vgg16 at batch 64: error: the softmax output"));
  // Every published value is on the page, with the arXiv address.
  EXPECT_THAT(page, HasSubstr("https://arxiv.org/abs/1910.05930"));
  EXPECT_THAT(page, HasSubstr("AllReduce over NVLink"));
}

// alexnet's 25 Gbps row, worked by hand: 61,090,496 parameters x 4 B x 1.75
// (8 workers) = 427,633,472 B at 3.125 GB/s = 136.84 ms; the step's compute
// 3 x 12 ms = 36 ms; share 136.84 / 172.84 = 79.17 %.
TEST(CommunicationBreakdownTest, AlexNetOverTwentyFiveGbpsByHand) {
  absl::StatusOr<PaperFigure> figure =
      GenerateCommunicationBreakdown(CatalogEntryOrFail(kEntry), Fixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  EXPECT_THAT(figure->markdown, HasSubstr("| alexnet     | 25 Gbps Ethernet  |"));
  EXPECT_THAT(figure->markdown, HasSubstr("136.8"));
  EXPECT_THAT(figure->markdown, HasSubstr("79.17 %"));
}

TEST(CommunicationBreakdownTest, WithoutHostLinkPcieIsNotMeasured) {
  std::vector<ResultFile> results = Fixtures();
  results.pop_back();
  absl::StatusOr<PaperFigure> figure =
      GenerateCommunicationBreakdown(CatalogEntryOrFail(kEntry), results);
  ASSERT_TRUE(figure.ok()) << figure.status();
  EXPECT_THAT(figure->markdown,
              HasSubstr("not measured: no host_link row of pinned bidirectional copies"));
}

TEST(CommunicationBreakdownTest, Errors) {
  ResultFile other;
  other.experiment = "memory_latency";
  CatalogEntry entry = CatalogEntryOrFail(kEntry);
  EXPECT_THAT(GenerateCommunicationBreakdown(entry, {other}).status().message(),
              HasSubstr("no layer_breakdown results"));
  entry.params["workers"] = 1;
  EXPECT_THAT(GenerateCommunicationBreakdown(entry, Fixtures()).status().message(),
              HasSubstr("params.workers must be an integer >= 2"));
  entry.params["workers"] = 8;
  entry.params["batch"] = 32;
  EXPECT_EQ(GenerateCommunicationBreakdown(entry, Fixtures()).status().message(),
            "layer_breakdown results hold no measured pass at batch 32");
  entry.params.erase("batch");
  entry.params["networks"] = {"vgg16"};
  EXPECT_EQ(GenerateCommunicationBreakdown(entry, Fixtures()).status().message(),
            "layer_breakdown results hold no measured pass of the params' networks");
}

}  // namespace
}  // namespace dissect::analysis::papers
