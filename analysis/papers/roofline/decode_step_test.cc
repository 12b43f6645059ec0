// Golden tests of GenerateDecodeStepModel on synthetic result files
// (testdata/make_synthetic_decode_step.py and the roofline test's
// synthetic_memory_bandwidth.json; made-up numbers, not measurements) with
// the real catalog entry configs/papers/llm_inference_series_5_decode_model.json:
// the markdown against decode_step.golden.md, the figure's files against
// decode_step_figures.golden.txt, gnuplot drawing it, the measured step of
// one cell worked out from the fixture's rows, missing rows named, the
// findings where a kernel (slowed in the test), not the memory, limits, and
// the errors when a roof is missing.
//
// After an intended change, regenerate the goldens with
//   DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/papers/roofline:decode_step_test
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "analysis/format/format.h"
#include "analysis/papers/catalog.h"
#include "analysis/papers/paper_test_util.h"
#include "analysis/papers/registry.h"
#include "analysis/papers/roofline/decode_model.h"
#include "analysis/results/results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis::papers {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr testing::PaperTestdata kTestdata = {"analysis/papers/roofline/testdata/",
                                              "//analysis/papers/roofline:decode_step_test"};

CatalogEntry Entry() { return testing::CatalogEntryOrFail("llm_inference_series_5_decode_model"); }

std::vector<ResultFile> AllFixtures() {
  return kTestdata.Results({"synthetic_memory_bandwidth.json",
                            "synthetic_decode_cublaslt_gemm.json",
                            "synthetic_decode_attention.json"});
}

// The cells, without padding, of a markdown table line.
std::vector<std::string> Cells(absl::string_view line) {
  std::vector<std::string> cells;
  for (absl::string_view cell : absl::StrSplit(line, '|', absl::SkipWhitespace())) {
    cells.emplace_back(absl::StripAsciiWhitespace(cell));
  }
  return cells;
}

// The step table's line of (batch, context).
std::string StepLine(const std::string& markdown, int batch, int context) {
  for (absl::string_view line : absl::StrSplit(markdown, '\n')) {
    const std::vector<std::string> cells = Cells(line);
    if (cells.size() > 2 && cells[0] == absl::StrCat(batch) && cells[1] == absl::StrCat(context)) {
      return std::string(line);
    }
  }
  return "";
}

TEST(DecodeStepTest, PageAndFigureMatchGoldens) {
  testing::ExpectPageMatchesGoldens(GenerateDecodeStepModel(Entry(), AllFixtures()), kTestdata,
                                    "decode_step");
}

// Batch 1, context 2048, worked from the fixture: each cold GEMM runs at 80%
// of the DRAM-bound rate (3000 GB/s), so its time is its compulsory bytes /
// (0.8 × 3000 GB/s); the attention at 70% of its DRAM-bound rate. The
// measured step is 32 × their sum; the model's bytes are the weights and 1
// GiB of KV cache over 3000 GB/s.
TEST(DecodeStepTest, MeasuredStepIsLayersTimesOneLayersRows) {
  const roofline::DecoderShape shape;
  double linear_bytes = 0;
  for (const roofline::Linear& l : roofline::LayerLinears(shape)) {
    linear_bytes += 2.0 * (1 * l.k + l.k * l.n + 1 * l.n);
  }
  const double attention_bytes = 2.0 * 32 * 128 * (2 + 2 * 2048);
  const double measured_s = 32 * (linear_bytes / (0.8 * 3000e9) + attention_bytes / (0.7 * 3000e9));
  const double model_s = (12952010752.0 + 1073741824.0) / 3000e9;
  absl::StatusOr<PaperFigure> figure = GenerateDecodeStepModel(Entry(), AllFixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  const std::string line = StepLine(figure->markdown, 1, 2048);
  ASSERT_FALSE(line.empty()) << figure->markdown;
  const std::vector<std::string> cells = Cells(line);
  ASSERT_EQ(cells.size(), 12u) << line;
  EXPECT_EQ(cells[4], FormatNumber(model_s * 1e3));
  EXPECT_EQ(cells[5], "memory");
  EXPECT_EQ(cells[8], FormatNumber(measured_s * 1e3));
  EXPECT_EQ(cells[9], FormatNumber(measured_s / model_s));
  EXPECT_EQ(cells[10], FormatPercent((12952010752.0 + 1073741824.0) / measured_s / 3000e9));
}

TEST(DecodeStepTest, MissingRowsAreNamed) {
  absl::StatusOr<PaperFigure> figure = GenerateDecodeStepModel(Entry(), AllFixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  EXPECT_THAT(StepLine(figure->markdown, 16, 512),
              HasSubstr("missing: cublaslt_gemm fp16 cold 16x4096x11008"));
  EXPECT_THAT(StepLine(figure->markdown, 4, 8192),
              HasSubstr("missing: attention decode cold batch 4 context 8192 heads 32"));
  EXPECT_THAT(figure->markdown, HasSubstr("needs 8320 MiB, 4096 MiB free"));
  // The row of another head width is listed, not used.
  EXPECT_THAT(figure->markdown, HasSubstr("context:1024"));
  EXPECT_THAT(figure->markdown, HasSubstr("(another head width)"));
  // The hot decode GEMM (L2-served) is not the cache the model reads: no trace.
  EXPECT_THAT(figure->markdown, Not(HasSubstr("shape:1x4096x4096/cache:hot")));
}

// The fixture's kernels run at 60-90 % of the bytes' rate: no finding about
// them. Slowed (the batch-4 GEMMs to a third of their rate, the batch-1
// attention to a tenth), the findings name batch 4's linear layers as slower
// than a larger batch's and batch 1's attention as below 25 % of the DRAM
// bandwidth, its time growing by under half the work from batch 1 to 4.
TEST(DecodeStepTest, FindingsNameWhereAKernelNotTheMemoryLimits) {
  absl::StatusOr<PaperFigure> as_made = GenerateDecodeStepModel(Entry(), AllFixtures());
  ASSERT_TRUE(as_made.ok()) << as_made.status();
  EXPECT_THAT(as_made->markdown, Not(HasSubstr("not monotonic in batch")));
  EXPECT_THAT(as_made->markdown, Not(HasSubstr("the kernel, not the memory, limits it")));
  EXPECT_THAT(as_made->markdown, Not(HasSubstr("grows by under half its work")));
  std::vector<ResultFile> files = AllFixtures();
  for (ResultFile& file : files) {
    for (Row& row : file.rows) {
      if (file.experiment == "cublaslt_gemm" &&
          absl::StartsWith(row.Axis("shape").value_or(""), "4x")) {
        row.counters["tflops"] /= 3;
      }
      if (file.experiment == "attention" && AxisNumber(row, "batch") == 1.0) {
        row.counters["tflops"] /= 10;
      }
    }
  }
  absl::StatusOr<PaperFigure> slowed = GenerateDecodeStepModel(Entry(), files);
  ASSERT_TRUE(slowed.ok()) << slowed.status();
  EXPECT_THAT(slowed->markdown,
              HasSubstr("- Linear layers' time not monotonic in batch: batch 4 ("));
  EXPECT_THAT(slowed->markdown, Not(HasSubstr("batch 1 (")));
  EXPECT_THAT(slowed->markdown, HasSubstr("; below 25.0% at batch 1 context 512: "));
  EXPECT_THAT(slowed->markdown, Not(HasSubstr("at batch 4 context")));
  EXPECT_THAT(slowed->markdown, HasSubstr("the kernel, not the memory, limits it"));
  EXPECT_THAT(slowed->markdown, HasSubstr("grows by under half its work from one batch to the next "
                                          "at context 512 batch 1 to 4 (4x the work in "));
  EXPECT_THAT(slowed->markdown, Not(HasSubstr("batch 4 to 16 (")));
}

TEST(DecodeStepTest, ComputeBoundBatchIsGivenPerContext) {
  absl::StatusOr<PaperFigure> figure = GenerateDecodeStepModel(Entry(), AllFixtures());
  ASSERT_TRUE(figure.ok()) << figure.status();
  // Ridge 720e12 / 3000e9 = 240 FLOP/B: with no KV cache from batch 240.
  EXPECT_THAT(figure->markdown,
              HasSubstr("Compute-bound from batch: 240 with no KV cache (weights only)"));
  EXPECT_THAT(figure->markdown, HasSubstr("Compute-bound from batch: never (each added"));
}

TEST(DecodeStepTest, NoMemoryBandwidthRowsIsAnErrorNamingIt) {
  absl::StatusOr<PaperFigure> figure =
      GenerateDecodeStepModel(Entry(), kTestdata.Results({"synthetic_decode_cublaslt_gemm.json",
                                                          "synthetic_decode_attention.json"}));
  ASSERT_FALSE(figure.ok());
  EXPECT_THAT(figure.status().message(),
              HasSubstr("decode_step_model: no memory_bandwidth results"));
}

TEST(DecodeStepTest, NoTensorRoofIsAnError) {
  absl::StatusOr<PaperFigure> figure = GenerateDecodeStepModel(
      Entry(),
      kTestdata.Results({"synthetic_memory_bandwidth.json", "synthetic_decode_attention.json"}));
  ASSERT_FALSE(figure.ok());
  EXPECT_THAT(figure.status().message(), HasSubstr("no measured cublaslt_gemm rows of dtype fp16"));
}

TEST(DecodeStepTest, BadParamsAreAnError) {
  CatalogEntry entry = Entry();
  entry.params["batches"] = nlohmann::ordered_json::array({1, 0});
  absl::StatusOr<PaperFigure> figure = GenerateDecodeStepModel(entry, AllFixtures());
  ASSERT_FALSE(figure.ok());
  EXPECT_THAT(figure.status().message(), HasSubstr("batches must be"));
}

}  // namespace
}  // namespace dissect::analysis::papers
