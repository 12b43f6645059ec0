// Tensor-core section: the ceilings file, type mapping, shape parsing and
// the rendered section over synthetic mma_sync and cublaslt_gemm results
// (compared with analysis/testdata/tensor/tensor.golden.md; regenerate with
// DISSECT_UPDATE_GOLDEN=1 bazel run //analysis:tensor_test).

#include "analysis/tensor.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analysis/report.h"
#include "analysis/results.h"
#include "analysis/tensor_peaks_embedded.h"
#include "analysis/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using ::dissect::analysis::testing::ReadText;
using ::dissect::analysis::testing::Runfile;
using ::testing::HasSubstr;

constexpr char kTestdata[] = "analysis/testdata/tensor/";

TensorPeaks RepoPeaks() {
  absl::StatusOr<TensorPeaks> peaks = ParseTensorPeaksJson(
      ReadText(Runfile("configs/tensor/peaks.json")), "peaks.json");
  EXPECT_TRUE(peaks.ok()) << peaks.status();
  return peaks.ok() ? *peaks : TensorPeaks{};
}

TEST(TensorPeaksTest, RepositoryFileParsesAndMatchesTheEmbeddedCopy) {
  const TensorPeaks peaks = RepoPeaks();
  EXPECT_EQ(ReadText(Runfile("configs/tensor/peaks.json")),
            std::string(kEmbeddedTensorPeaksJson));
  const TensorArchitecture* hopper = peaks.ForComputeCapability("9.0");
  ASSERT_NE(hopper, nullptr);
  // 132 SMs × 1830 MHz × rate gives the whitepaper's dense peaks.
  EXPECT_NEAR(132 * 1.83e9 * hopper->Find("fp16")->dense / 1e12, 989.4, 0.1);
  EXPECT_NEAR(132 * 1.83e9 * hopper->Find("tf32")->dense / 1e12, 494.7, 0.1);
  EXPECT_NEAR(132 * 1.83e9 * hopper->Find("fp8")->dense / 1e12, 1978.9, 0.1);
  const TensorArchitecture* ampere = peaks.ForComputeCapability("8.0");
  ASSERT_NE(ampere, nullptr);
  EXPECT_NEAR(108 * 1.41e9 * ampere->Find("fp16")->dense / 1e12, 311.9, 0.1);
  EXPECT_EQ(ampere->Find("fp8"), nullptr);
  for (const TensorArchitecture& a : peaks.architectures) {
    for (const TensorRate& r : a.rates) {
      ASSERT_NE(peaks.Source(r.source), nullptr) << r.source;
      EXPECT_FALSE(peaks.Source(r.source)->url.empty());
      if (r.dtype != "fp32") {
        EXPECT_EQ(r.sparse, 2 * r.dense) << a.name << " " << r.dtype;
      }
    }
  }
}

TEST(TensorPeaksTest, BadFilesAreOneLineErrors) {
  const std::string source =
      R"("sources": [{"key": "s", "title": "t", "publisher": "p", "year": 2020, "where": "w", "url": "u"}])";
  auto parse = [&](const std::string& arch) {
    return ParseTensorPeaksJson(
        absl::StrCat(R"({"format": "dissect.tensor_peaks.v1", )", source,
                     R"(, "architectures": [)", arch, "]}"),
        "p.json");
  };
  EXPECT_TRUE(
      parse(
          R"({"name": "a", "compute_capability": "9.0", "rates": [{"dtype": "fp16", "dense": 1, "sparse": 2, "source": "s", "note": "n"}]})")
          .ok());
  EXPECT_THAT(
      std::string(
          parse(
              R"({"name": "a", "compute_capability": "9.0", "rates": [{"dtype": "fp4", "dense": 1, "sparse": 2, "source": "s", "note": "n"}]})")
              .status()
              .message()),
      HasSubstr("p.json: architecture 1 rate 1: unknown dtype \"fp4\""));
  EXPECT_THAT(
      std::string(
          parse(
              R"({"name": "a", "compute_capability": "9.0", "rates": [{"dtype": "fp16", "dense": 1, "sparse": 2, "source": "x", "note": "n"}]})")
              .status()
              .message()),
      HasSubstr("unknown source \"x\""));
  EXPECT_THAT(
      std::string(
          parse(
              R"({"name": "a", "compute_capability": "9.0", "rates": [{"dtype": "fp16", "dense": 0, "sparse": 2, "source": "s", "note": "n"}]})")
              .status()
              .message()),
      HasSubstr("\"dense\" must be > 0"));
  EXPECT_FALSE(ParseTensorPeaksJson("{}", "p.json").ok());
  EXPECT_FALSE(ParseTensorPeaksJson("not json", "p.json").ok());
}

TEST(KindOfTest, FormsAndGemmTypes) {
  EXPECT_EQ(KindOf("f16_f32")->dtype, "fp16");
  EXPECT_EQ(KindOf("f16_f16")->dtype, "fp16");
  EXPECT_EQ(KindOf("e5m2_f32")->dtype, "fp8");
  EXPECT_EQ(KindOf("s8_s32")->dtype, "int8");
  EXPECT_TRUE(KindOf("sp_bf16_f32")->sparse);
  EXPECT_EQ(KindOf("sp_bf16_f32")->dtype, "bf16");
  EXPECT_FALSE(KindOf("tf32_f32")->sparse);
  EXPECT_EQ(KindOf("fp32")->dtype, "fp32");
  EXPECT_FALSE(KindOf("f64_f64").has_value());
}

TEST(ParseGemmShapeTest, ThreePositiveDimensions) {
  const auto s = ParseGemmShape("4095x1x16384");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->m, 4095);
  EXPECT_EQ(s->n, 1);
  EXPECT_EQ(s->k, 16384);
  EXPECT_FALSE(ParseGemmShape("4096x4096").has_value());
  EXPECT_FALSE(ParseGemmShape("0x1x1").has_value());
  EXPECT_FALSE(ParseGemmShape("ax1x1").has_value());
}

std::vector<ResultFile> Fixtures() {
  std::vector<ResultFile> files;
  for (const char* name : {"synthetic_mma_sync.json", "synthetic_wgmma.json",
                           "synthetic_cublaslt_gemm.json"}) {
    const std::string path = kTestdata + std::string(name);
    absl::StatusOr<ResultFile> f =
        ParseResultJson(ReadText(Runfile(path)), path);
    EXPECT_TRUE(f.ok()) << f.status();
    if (f.ok()) files.push_back(*f);
  }
  return files;
}

TEST(RenderTensorSectionsTest, PercentOfPeakAndOfBest) {
  const std::string out = RenderTensorSections(Fixtures(), RepoPeaks());
  EXPECT_THAT(out,
              HasSubstr("## tensor cores: Synthetic H100-like GPU (fixture)"));
  // f16_f32 throughput: 4096 / 1.6 = 2560 FLOP/clk/SM of 4096: 62.5% of peak;
  // with zeros 5% faster: 105.3% of the best random-data rate.
  // The best fp16 rate is wgmma n=256's 809.7 TFLOP/s.
  EXPECT_THAT(
      out,
      HasSubstr(
          "| mma_sync | f16_f32 | fp16 | throughput | random | 1.6 | 2560 | "
          "593 | 62.5% | 73.2% |"));
  // bf16 has no GEMM row: its best is the random-data probe row; zeros run
  // 5% faster: 105.3% of it.
  EXPECT_THAT(
      out,
      HasSubstr(
          "| mma_sync | bf16_f32 | bf16 | throughput | zeros | 1.52 | 2695 | "
          "624.3 | 65.8% | 105.3% |"));
  // wgmma m64n256k16: 524288 FLOP / 150 cycles = 3495 FLOP/clk/SM of 4096:
  // 85.3%; the sparse form is held against the 2:4 rate (8192):
  // 1048576 / 160 = 6554 FLOP/clk/SM, 80.0%.
  EXPECT_THAT(
      out,
      HasSubstr("| wgmma | f16_f32 n=256 a_source=shared | fp16 | throughput | "
                "random | 150 | 3495 | 809.7 | 85.3% | 100.0% |"));
  EXPECT_THAT(
      out, HasSubstr(
               "| wgmma | sp_f16_f32 n=256 a_source=shared | fp16 2:4 sparse | "
               "throughput | random | 160 | 6554 | 1518 | 80.0% | 100.0% |"));
  // Latency rows have no % of peak.
  EXPECT_THAT(
      out,
      HasSubstr("| mma_sync | s8_s32 | int8 | latency | random | 30 | 273.1 | "
                "0.4792 | — | — |"));
  // GEMM: 700 TFLOP/s of 132 × 1980 MHz × 4096 = 1070.5 → 65.4%: good;
  // 86.5% of the wgmma's 809.7.
  EXPECT_THAT(
      out,
      HasSubstr("| good | fp16 | 4096x4096x4096 | 700 | 65.4% | 86.5% | 88 |"));
  EXPECT_THAT(out, HasSubstr("| 4096x4096x4096 | █ 65.4% |"));
  // The M = 1 row is ugly and memory-bound; the odd row is flagged misaligned.
  EXPECT_THAT(out, HasSubstr("| ugly | fp16 | 1x4096x4096 |"));
  EXPECT_THAT(
      out,
      HasSubstr("memory-bound: 0.9995 FLOP/B, below the ridge point of 319.3"));
  EXPECT_THAT(out, HasSubstr("a dimension is not a multiple of 16"));
  EXPECT_THAT(out, HasSubstr("under one wave"));
  // The skipped int8 shape is a dot in the heatmap.
  EXPECT_THAT(out, HasSubstr("| 4095x4096x4096 | ▒ 39.2% | · | · |"));
}

TEST(RenderTensorSectionsTest, NoTensorExperimentsNoSection) {
  EXPECT_EQ(RenderTensorSections({}, RepoPeaks()), "");
}

TEST(RenderTensorSectionsTest, UnknownArchitectureSaysSo) {
  std::vector<ResultFile> files = Fixtures();
  for (ResultFile& f : files) f.context["device_compute_capability"] = "7.5";
  const std::string out = RenderTensorSections(files, RepoPeaks());
  EXPECT_THAT(out, HasSubstr("compute capability 7.5: no % of peak"));
}

TEST(RenderTensorSectionsTest, MatchesGoldenAndIsAppendedToTheReport) {
  ReportOptions options;
  options.tensor_peaks = RepoPeaks();
  absl::StatusOr<std::string> report = RenderReport(Fixtures(), options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(*report, HasSubstr("## cublaslt_gemm"));
  const size_t at = report->find("## tensor cores:");
  ASSERT_NE(at, std::string::npos);
  const std::string actual = report->substr(at);
  const std::string golden = kTestdata + std::string("tensor.golden.md");
  const char* update = std::getenv("DISSECT_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    ASSERT_NE(workspace, nullptr) << "use bazel run";
    std::ofstream(std::string(workspace) + "/" + golden, std::ios::binary)
        << actual;
    return;
  }
  EXPECT_EQ(actual, ReadText(Runfile(golden)))
      << golden
      << " is stale; regenerate with DISSECT_UPDATE_GOLDEN=1 bazel run "
         "//analysis:tensor_test";
}

}  // namespace
}  // namespace dissect::analysis
