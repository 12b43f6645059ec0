// The decode-step page on REAL data: the committed ground truth of an H100
// (analysis/reference/h100_80gb_hbm3/2026-11-27-recheck, raw files as they
// came back): the catalog entry's whole sweep (dram_ceiling, fp16_ceiling,
// gemm_decode, attention_decode), with the catalog's entry. Not a golden:
// properties that must hold on that data. Skips, saying why, where the
// files are absent.
#include <cmath>
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
using testing::TableRows;
using ::testing::HasSubstr;

constexpr char kRun[] =
    "analysis/reference/h100_80gb_hbm3/2026-11-27-recheck/papers/"
    "llm_inference_series_5_decode_model/";
const std::vector<std::string>& RunFiles() {
  static const auto* files = new std::vector<std::string>{
      "dram_ceiling.json", "fp16_ceiling.json", "gemm_decode.json", "attention_decode.json"};
  return *files;
}

// The number after `label` in `text` (e.g. "ridge 255.8"); NaN if absent.
double NumberAfter(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  if (at == std::string::npos) return std::nan("");
  return std::stod(text.substr(at + label.size()));
}

class DecodeStepGroundTruthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& name : RunFiles()) {
      if (!std::filesystem::exists(test_util::Runfile(kRun + name))) {
        GTEST_SKIP() << "the committed H100 ground truth is absent (" << kRun << name
                     << "): nothing to check";
      }
    }
    const absl::StatusOr<PaperFigure> figure =
        GenerateDecodeStepModel(CatalogEntryOrFail("llm_inference_series_5_decode_model"),
                                testing::ReadResultFixtures(kRun, RunFiles()));
    ASSERT_TRUE(figure.ok()) << figure.status();
    page_ = figure->markdown;
    // The step table's rows: batch, context, model bytes, model GFLOP, model
    // ms, bound, linear ms, attention ms, measured ms, measured / model, of
    // DRAM bandwidth, note (cells after the leading |).
    for (const char* batch : {"1", "4", "16", "64"}) {
      for (std::vector<std::string>& row : TableRows(page_, batch)) {
        if (row.size() >= 12) rows_.push_back(std::move(row));
      }
    }
  }

  std::string page_;
  std::vector<std::vector<std::string>> rows_;
};

// Every one of the 4 batches × 3 contexts has every row measured, and no
// measured step beats the roofline model (a sum of kernels cannot move the
// model's bytes faster than the measured DRAM roof), nor moves them above it.
TEST_F(DecodeStepGroundTruthTest, EveryCellIsMeasuredAndNoneBeatsTheModel) {
  ASSERT_EQ(rows_.size(), 12u) << page_;
  for (const std::vector<std::string>& row : rows_) {
    SCOPED_TRACE(absl::StrCat("batch ", row[0], " context ", row[1]));
    EXPECT_NE(row[8], "—");
    EXPECT_THAT(row[11], ::testing::Not(HasSubstr("missing")));
    EXPECT_GE(std::stod(row[9]), 1.0);
    EXPECT_LE(std::stod(row[10]), 100.0);
    EXPECT_GT(std::stod(row[10]), 0.0);
  }
  EXPECT_THAT(page_, HasSubstr("- 12 of 12 (batch, context) have every row measured"));
  EXPECT_THAT(page_, ::testing::Not(HasSubstr("### Not measured")));
}

// With no KV cache a step does 1 FLOP per weight byte per sequence (fp16:
// 2 FLOPs per 2-byte weight), so it turns compute-bound at the batch of
// the ridge point, peak / bandwidth; an H100's measured roofs put that at a
// few hundred.
TEST_F(DecodeStepGroundTruthTest, WeightsOnlyComputeBoundBatchIsTheRidge) {
  const double bandwidth = NumberAfter(page_, "DRAM read bandwidth ");
  const double peak = NumberAfter(page_, "fp16 tensor (cuBLASLt) ");
  const double ridge = NumberAfter(page_, "ridge ");
  EXPECT_GE(bandwidth, 2500);  // GB/s; H100 SXM5 HBM3: 3.35 TB/s (NVIDIA H100 datasheet)
  EXPECT_LE(bandwidth, 3350);
  EXPECT_GE(peak, 500);  // TFLOP/s; 989 dense fp16 tensor (the same datasheet)
  EXPECT_LE(peak, 989);
  EXPECT_NEAR(ridge, peak * 1e12 / (bandwidth * 1e9), 0.1);
  const double batch = NumberAfter(page_, "Compute-bound from batch: ");
  EXPECT_GE(batch, ridge);
  EXPECT_LE(batch, ridge + 1);
  EXPECT_THAT(page_, HasSubstr(absl::StrCat("Compute-bound from batch: ", batch,
                                            " with no KV cache (weights only)")));
  for (const char* context : {"512", "2048", "8192"}) {
    EXPECT_THAT(page_, HasSubstr(absl::StrCat("Compute-bound from batch: never (each added "
                                              "sequence's KV cache brings fewer FLOPs per byte "
                                              "than the ridge) at context ",
                                              context)));
  }
}

// What the data shows beyond the model: cuBLASLt's kernel for 4 rows is
// slower than for 1 and 16, and the simple FFMA attention at batch 1 reads
// its KV cache far below the DRAM roof, taking about as long at batch 4
// (one block per sequence and head: 32 blocks at batch 1 on 132 SMs).
TEST_F(DecodeStepGroundTruthTest, FindingsSayWhereTheKernelsNotTheMemoryLimit) {
  EXPECT_THAT(page_, HasSubstr("- Linear layers' time not monotonic in batch: batch 4 ("));
  EXPECT_THAT(page_, ::testing::ContainsRegex(
                         "batch 4 \\([0-9.]+ ms\\) above batch 16 \\([0-9.]+ ms\\) and batch 64"));
  EXPECT_THAT(page_, HasSubstr("Decode attention reads its KV cache at "));
  EXPECT_THAT(page_, HasSubstr("batch 1 context 8192: "));
  EXPECT_THAT(page_, HasSubstr("there the kernel, not the memory, limits it"));
  EXPECT_THAT(page_, HasSubstr("context 8192 batch 1 to 4 (4x the work in "));
}

}  // namespace
}  // namespace dissect::analysis::papers
