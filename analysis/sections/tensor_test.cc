// Tensor-core section: the ceilings file, type mapping, shape parsing and
// the rendered section over synthetic mma_sync, wgmma and cublaslt_gemm
// results
// (compared with analysis/testdata/tensor/tensor.golden.md; regenerate with
// DISSECT_UPDATE_GOLDEN=1 bazel run //analysis/sections:tensor_test).

#include "analysis/sections/tensor.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "analysis/sections/report.h"
#include "analysis/results/results.h"
#include "analysis/sections/tensor_peaks_embedded.h"
#include "tools/testing/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dissect::analysis {
namespace {

using test_util::ReadText;
using test_util::Runfile;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kTestdata[] = "analysis/testdata/tensor/";

TensorPeaks RepoPeaks() {
  absl::StatusOr<TensorPeaks> peaks = ParseTensorPeaksJson(
      test_util::ReadText(test_util::Runfile("configs/tensor/peaks.json")), "peaks.json");
  EXPECT_TRUE(peaks.ok()) << peaks.status();
  return peaks.ok() ? *peaks : TensorPeaks{};
}

TEST(TensorPeaksTest, RepositoryFileParsesAndMatchesTheEmbeddedCopy) {
  const TensorPeaks peaks = RepoPeaks();
  EXPECT_EQ(test_util::ReadText(test_util::Runfile("configs/tensor/peaks.json")),
            std::string(kEmbeddedTensorPeaksJson));
  const TensorArchitecture* hopper = peaks.ForComputeCapability("9.0");
  ASSERT_NE(hopper, nullptr);
  // 132 SMs × 1830 MHz × rate gives the whitepaper's dense peaks.
  EXPECT_NEAR(132 * 1.83e9 * hopper->Find("fp16")->dense / 1e12, 989.4, 0.1);
  EXPECT_NEAR(132 * 1.83e9 * hopper->Find("tf32")->dense / 1e12, 494.7, 0.1);
  EXPECT_NEAR(132 * 1.83e9 * hopper->Find("fp8")->dense / 1e12, 1978.9, 0.1);
  // The published dense peaks and the clocks they imply: 1830 MHz on the
  // SXM5, 1620 MHz on the PCIe card (both below the maximum boost clock).
  const TensorProduct* sxm = hopper->ProductFor("NVIDIA H100 80GB HBM3", 132);
  ASSERT_NE(sxm, nullptr);
  EXPECT_EQ(sxm->name, "H100 SXM5 80 GB");
  EXPECT_NEAR(*sxm->DenseTflops("fp16") * 1e6 / (132 * 4096), 1830, 1);
  EXPECT_NEAR(*sxm->DenseTflops("fp8") * 1e6 / (132 * 8192), 1830, 1);
  EXPECT_NEAR(*sxm->DenseTflops("tf32") * 1e6 / (132 * 2048), 1830, 1);
  const TensorProduct* pcie = hopper->ProductFor("NVIDIA H100 PCIe", 114);
  ASSERT_NE(pcie, nullptr);
  EXPECT_NEAR(*pcie->DenseTflops("fp16") * 1e6 / (114 * 4096), 1620, 1);
  EXPECT_NEAR(*pcie->DenseTflops("int8") * 1e6 / (114 * 8192), 1620, 1);
  EXPECT_FALSE(pcie->DenseTflops("fp32").has_value());
  EXPECT_EQ(hopper->ProductFor("NVIDIA H100 PCIe", 132), nullptr);
  EXPECT_EQ(hopper->ProductFor("NVIDIA H100 NVL", 132), nullptr);
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
  const std::string rate =
      R"({"name": "a", "compute_capability": "9.0", "rates": [{"dtype": "fp16", "dense": 1, "sparse": 2, "source": "s", "note": "n"}], "products": [)";
  auto product = [&](const std::string& p) {
    const absl::StatusOr<TensorPeaks> peaks = parse(rate + p + "]}");
    return peaks.ok() ? std::string("ok")
                      : std::string(peaks.status().message());
  };
  // Every input type and device fact is published (a number from the
  // product's source, or a value with its own source) or unknown with why.
  const std::string good =
      R"({"name": "x", "device_name_contains": ["X"], "source": "s", "note": "n", )"
      R"("dense_tflops": {"fp16": 1.5, "fp32": {"value": 2, "source": "s"}, "tf32": {"unknown": "u"}, )"
      R"("bf16": {"unknown": "u"}, "fp8": {"unknown": "u"}, "int8": {"unknown": "u"}, "fp64": {"unknown": "u"}}, )"
      R"("specs": {"sm_count": {"value": 2, "source": "s"}, "boost_mhz": {"unknown": "not stated"}, )"
      R"("l2_bytes": {"unknown": "u"}, "dram_gbps": {"value": 100, "source": "s", "note": "HBM"}}})";
  EXPECT_EQ(product(good), "ok");
  EXPECT_THAT(product(absl::StrReplaceAll(good, {{"\"fp16\": 1.5, ", ""}})),
              HasSubstr("p.json: architecture 1 product 1: \"dense_tflops\" "
                        "lacks fp16 (give {\"unknown\": reason} where no "
                        "source states it)"));
  EXPECT_THAT(product(absl::StrReplaceAll(good, {{"1.5", "null"}})),
              HasSubstr("\"dense_tflops\" of fp16 must be {\"value\": n, "
                        "\"source\": key} or {\"unknown\": reason}"));
  EXPECT_THAT(product(absl::StrReplaceAll(good, {{"1.5", "-1"}})),
              HasSubstr("\"dense_tflops\" of fp16 must be > 0"));
  EXPECT_THAT(
      product(absl::StrReplaceAll(good, {{"\"fp16\": 1.5", "\"fp4\": 1"}})),
      HasSubstr("\"dense_tflops\" names \"fp4\" (one of fp32, tf32"));
  EXPECT_THAT(product(absl::StrReplaceAll(good, {{"[\"X\"]", "[]"}})),
              HasSubstr("needs a non-empty array \"device_name_contains\""));
  EXPECT_THAT(product(absl::StrReplaceAll(
                  good, {{"\"l2_bytes\": {\"unknown\": \"u\"}, ", ""}})),
              HasSubstr("\"specs\" lacks l2_bytes"));
  EXPECT_THAT(product(absl::StrReplaceAll(
                  good, {{"\"boost_mhz\": {\"unknown\": \"not stated\"}",
                          "\"boost_mhz\": 1980"}})),
              HasSubstr("\"specs\" of boost_mhz must be {\"value\": n"));
  EXPECT_THAT(product(absl::StrReplaceAll(
                  good, {{"\"sm_count\": {\"value\": 2, \"source\": \"s\"}",
                          "\"sm_count\": {\"value\": 2, \"source\": \"q\"}"}})),
              HasSubstr("\"specs\" of sm_count: unknown source \"q\""));
  EXPECT_THAT(product(absl::StrReplaceAll(
                  good, {{"\"source\": \"s\", \"note\": \"n\"",
                          "\"source\": \"q\", \"note\": \"n\""}})),
              HasSubstr("unknown source \"q\""));
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
        ParseResultJson(test_util::ReadText(test_util::Runfile(path)), path);
    EXPECT_TRUE(f.ok()) << f.status();
    if (f.ok()) files.push_back(*f);
  }
  return files;
}

TEST(RenderTensorSectionsTest, PercentOfPeakAndOfBest) {
  const std::string out = RenderTensorSections(Fixtures(), RepoPeaks());
  EXPECT_THAT(out, HasSubstr("## tensor cores: NVIDIA H100 80GB HBM3 "
                             "(synthetic fixture)"));
  // f16_f32 throughput: 4096 / 1.6 = 2560 FLOP/clk/SM of 4096: 62.5% at the
  // measured clock; 593 TFLOP/s of 1071 @ max boost (55.4%) and of the
  // published 989.4 (59.9%); 73.2% of the best fp16 rate, wgmma n=256's 809.7
  // TFLOP/s. With zeros 5% faster: 77.1% of it.
  EXPECT_THAT(out, HasSubstr("| mma_sync | f16_f32 | fp16 | throughput | "
                             "random | 1.6 | 2560 | 593 | 1755 clock64 (droop "
                             "−11.4%) | 62.5% | 55.4% | 59.9% | 73.2% |  |"));
  // bf16 has no GEMM row: its best is the random-data probe row; zeros run
  // 5% faster: 105.3% of it.
  EXPECT_THAT(out, HasSubstr("| mma_sync | bf16_f32 | bf16 | throughput | "
                             "zeros | 1.52 | 2695 | 624.3 | 1755 clock64 "
                             "(droop −11.4%) | 65.8% | 58.3% | 63.1% | 105.3% "
                             "|  |"));
  // wgmma m64n256k16: 524288 FLOP / 150 cycles = 3495 FLOP/clk/SM of 4096:
  // 85.3%; the sparse form is held against the 2:4 rate (8192):
  // 1048576 / 160 = 6554 FLOP/clk/SM, 80.0%, and against twice the
  // published dense peak.
  EXPECT_THAT(out, HasSubstr("| wgmma | f16_f32 n=256 a_source=shared | fp16 "
                             "| throughput | random | 150 | 3495 | 809.7 | "
                             "1755 clock64 (droop −11.4%) | 85.3% | 75.6% | "
                             "81.8% | 100.0% |  |"));
  EXPECT_THAT(out, HasSubstr("| wgmma | sp_f16_f32 n=256 a_source=shared | "
                             "fp16 2:4 sparse | throughput | random | 160 | "
                             "6554 | 1518 | 1755 clock64 (droop −11.4%) | "
                             "80.0% | 70.9% | 76.7% | 100.0% |  |"));
  // At the maximum boost clock no droop is claimed, and the two clock-based
  // percentages agree.
  EXPECT_THAT(out, HasSubstr("| 535.3 | 1980 clock64 | 50.0% | 50.0% | "
                             "54.1% |"));
  // Latency rows have no %.
  EXPECT_THAT(out, HasSubstr("| mma_sync | s8_s32 | int8 | latency | random | "
                             "30 | 273.1 | 0.4792 | 1755 NVML | — | — | — | — "
                             "|  |"));
  // The skipped int8 shape is a dot in the heatmap.
  EXPECT_THAT(out, HasSubstr("| 4095x4096x4096 | ▒ 42.4% | · | · | · | · |"));
  EXPECT_THAT(out, HasSubstr("a dimension is not a multiple of 16"));
  EXPECT_THAT(out, HasSubstr("under one wave"));
}

// The published peak assumes a lower clock than the
// maximum boost clock; each GEMM row shows all three ceilings.
TEST(RenderTensorSectionsTest, ThreeCeilingsAndTheClockBehindEach) {
  const std::string out = RenderTensorSections(Fixtures(), RepoPeaks());
  EXPECT_THAT(out, HasSubstr("maximum SM clock the device reports (1980 MHz"));
  EXPECT_THAT(out, HasSubstr("| fp16 | 4096 | 8192 | 1071 | 989.4 (1830 MHz) "
                             "[1] |"));
  EXPECT_THAT(out, HasSubstr("| fp32 | 256 | — | 66.91 | 66.9 (1980 MHz) [1] "
                             "|"));
  EXPECT_THAT(out, HasSubstr("SM clock measured during the runs: 1700–1980 MHz "
                             "(NVML, 23 rows); 1755–1980 MHz (clock64, 12 "
                             "rows)"));
  // 700 TFLOP/s: of 132 × 1755 MHz × 4096 = 948.9 (73.8%), of 132 × 1980 MHz
  // × 4096 = 1070.5 (65.4%), of the published 989.4 (70.7%); graded on the
  // published peak. The cold run of the same point beside it.
  EXPECT_THAT(out, HasSubstr("| good | fp16 | 4096x4096x4096 | 700 | 690 | "
                             "512.7 | 1755 NVML (droop −11.4%) | 73.8% | 65.4% "
                             "| 70.7% | 86.5% | 88 |  |"));
  EXPECT_THAT(out, HasSubstr("| 4096x4096x4096 | █ 70.7% | █ 74.7% | █ 65.7% "
                             "| █ 78.3% | █ 75.8% |"));
  // The NVML clock polled while the samples ran wins over the reads before
  // and after them (1755 MHz); 560 of 132 × 1700 MHz × 4096 = 919.2: 60.9%.
  EXPECT_THAT(out, HasSubstr("| 546.9 | 1700 NVML (droop −14.1%; moved) | "
                             "60.9% | 52.3% | 56.6% |"));
  // Without a published peak the grade falls back to the max boost clock and
  // says so.
  std::vector<ResultFile> files = Fixtures();
  for (ResultFile& f : files) f.context["device_name"] = "NVIDIA H100 NVL";
  const std::string nvl = RenderTensorSections(files, RepoPeaks());
  EXPECT_THAT(nvl, HasSubstr("unknown: no product of configs/tensor/peaks.json "
                             "matches"));
  EXPECT_THAT(nvl, HasSubstr("| 4096x4096x4096 | █ 65.4% |"));
  EXPECT_THAT(nvl, HasSubstr("| good | fp16 | 4096x4096x4096 | 700 | 690 | "
                             "512.7 | 1755 NVML (droop −11.4%) | 73.8% | 65.4% "
                             "| — | 86.5% |"));
}

// The synthetic fixtures relabelled as another device (still synthetic).
std::vector<ResultFile> FixturesOn(const std::string& name, const char* cc,
                                   const char* sms, const char* max_khz) {
  std::vector<ResultFile> files = Fixtures();
  for (ResultFile& f : files) {
    f.context["device_name"] = name + " (synthetic fixture)";
    f.context["device_compute_capability"] = cc;
    f.context["device_sm_count"] = sms;
    f.context["device_sm_clock_max_khz"] = max_khz;
  }
  return files;
}

TEST(TensorPeaksTest, FleetProductsHaveSourcedFiguresOrReasons) {
  const TensorPeaks peaks = RepoPeaks();
  struct Device {
    const char* name;
    const char* cc;
    int sms;
    const char* product;
  };
  for (const Device& d : {Device{"NVIDIA A100-SXM4-80GB", "8.0", 108,
                                 "A100 SXM4 80 GB"},
                          Device{"NVIDIA L40S", "8.9", 142, "L40S 48 GB"},
                          Device{"NVIDIA H100 80GB HBM3", "9.0", 132,
                                 "H100 SXM5 80 GB"},
                          Device{"NVIDIA H100 PCIe", "9.0", 114,
                                 "H100 PCIe 80 GB"},
                          Device{"NVIDIA H200", "9.0", 132, "H200 SXM 141 GB"},
                          Device{"NVIDIA B200", "10.0", 148,
                                 "B200 (HGX B200)"}}) {
    const TensorArchitecture* arch = peaks.ForComputeCapability(d.cc);
    ASSERT_NE(arch, nullptr) << d.cc;
    const TensorProduct* p = arch->ProductFor(d.name, d.sms);
    ASSERT_NE(p, nullptr) << d.name;
    EXPECT_EQ(p->name, d.product);
    ASSERT_TRUE(p->DenseTflops("fp16").has_value()) << d.name;
    EXPECT_TRUE(p->Spec("dram_gbps")->value.has_value()) << d.name;
    std::vector<const PublishedFigure*> figures;
    for (const auto& [unused, f] : p->dense_tflops) figures.push_back(&f);
    for (const auto& [unused, f] : p->specs) figures.push_back(&f);
    EXPECT_EQ(figures.size(), TensorDtypes().size() + 4) << d.name;
    for (const PublishedFigure* f : figures) {
      if (f->value) {
        ASSERT_NE(peaks.Source(f->source), nullptr) << d.name;
        EXPECT_FALSE(peaks.Source(f->source)->url.empty()) << d.name;
        EXPECT_FALSE(peaks.Source(f->source)->where.empty()) << d.name;
      } else {
        EXPECT_FALSE(f->unknown.empty()) << d.name;
      }
    }
  }
  const TensorArchitecture* hopper = peaks.ForComputeCapability("9.0");
  EXPECT_EQ(hopper->ProductFor("NVIDIA H200 NVL", 132), nullptr);
  EXPECT_EQ(hopper->ProductFor("NVIDIA GH200 480GB", 132), nullptr);
  EXPECT_EQ(peaks.ForComputeCapability("8.0")->ProductFor(
                "NVIDIA A100-SXM4-80GB", 132),
            nullptr);
}

TEST(RenderTensorSectionsTest, SyntheticA100PicksTheA100EntryAndSaysSo) {
  const std::string out = RenderTensorSections(
      FixturesOn("NVIDIA A100-SXM4-80GB", "8.0", "108", "1410000"),
      RepoPeaks());
  EXPECT_THAT(out, HasSubstr("Published entry: A100 SXM4 80 GB (compute "
                             "capability 8.0, name contains "
                             "\"A100-SXM4-80GB\", 108 SMs)"));
  EXPECT_THAT(out, HasSubstr("| fp16 | 2048 | 4096 | 311.9 | 312 (1411 MHz) "
                             "[1] |"));
  EXPECT_THAT(out, HasSubstr("| fp64 | — | — | — | 19.5 [1] | no per-SM rate "
                             "published |"));
  EXPECT_THAT(out, HasSubstr("- sm_count: 108 SMs ["));
  EXPECT_THAT(out, HasSubstr("- boost_mhz: 1410 MHz maximum boost clock ["));
  EXPECT_THAT(out, HasSubstr("- l2_bytes: 40 MiB L2 [3] (40960 KB)"));
  EXPECT_THAT(out, HasSubstr("- dram_gbps: 2039 GB/s DRAM bandwidth [1] "
                             "(A100 80GB SXM)"));
  EXPECT_THAT(out, HasSubstr("- dense fp8: unknown: the A100 has no FP8 "
                             "tensor cores"));
  EXPECT_THAT(out, HasSubstr("[1] NVIDIA: \"NVIDIA A100 Tensor Core GPU "
                             "(datasheet)\", 2021, Technical Specifications "
                             "table, A100 80GB SXM column"));
  EXPECT_THAT(out, Not(HasSubstr("H100 SXM5")));
}

TEST(RenderTensorSectionsTest, SyntheticH200PicksTheH200EntryNotTheH100s) {
  const std::string out = RenderTensorSections(
      FixturesOn("NVIDIA H200", "9.0", "132", "1980000"), RepoPeaks());
  EXPECT_THAT(out, HasSubstr("Published entry: H200 SXM 141 GB (compute "
                             "capability 9.0, name contains \"NVIDIA H200\", "
                             "SM count not published)"));
  EXPECT_THAT(out, HasSubstr("| fp16 | 4096 | 8192 | 1071 | 989.5 (1830 MHz) "
                             "["));
  EXPECT_THAT(out, HasSubstr("- dram_gbps: 4800 GB/s DRAM bandwidth ["));
  EXPECT_THAT(out, HasSubstr("- sm_count: unknown: NVIDIA's H200 page does "
                             "not state it"));
  EXPECT_THAT(out, HasSubstr("https://www.nvidia.com/en-us/data-center/h200/"));
  EXPECT_THAT(out, Not(HasSubstr("H100 SXM5 80 GB")));
  const std::string nvl = RenderTensorSections(
      FixturesOn("NVIDIA H200 NVL", "9.0", "132", "1785000"), RepoPeaks());
  EXPECT_THAT(nvl, HasSubstr("unknown: no product of configs/tensor/peaks.json "
                             "matches"));
}

TEST(RenderTensorSectionsTest, ProductsMatchByNameAndSmCount) {
  std::vector<ResultFile> files = Fixtures();
  for (ResultFile& f : files) {
    f.context["device_name"] = "NVIDIA H100 PCIe";
    f.context["device_sm_count"] = "114";
    f.context["device_sm_clock_max_khz"] = "1755000";
  }
  const std::string pcie = RenderTensorSections(files, RepoPeaks());
  EXPECT_THAT(pcie, HasSubstr("| fp16 | 4096 | 8192 | 819.5 | 756 (1619 MHz) "
                              "[1] |"));
  EXPECT_THAT(pcie, HasSubstr("| fp32 | 256 | — | 51.22 | unknown |"));
  // The FP32 GEMM row falls back to the max boost clock, marked.
  EXPECT_THAT(pcie, HasSubstr("█ 97.6%*"));
  // The PCIe name with the SXM's SM count is neither product.
  for (ResultFile& f : files) f.context["device_sm_count"] = "132";
  EXPECT_THAT(RenderTensorSections(files, RepoPeaks()),
              HasSubstr("unknown: no product"));
}

// fp8 mma.sync forms that ptxas emulates with f16 HMMA (sm_90 has no native
// fp8 mma.sync) are labelled and never a % or a type's best: their rate is
// not the tensor pipe's.
TEST(RenderTensorSectionsTest, EmulatedRowsAreLabelledAndNeverTheBest) {
  const std::string out = RenderTensorSections(Fixtures(), RepoPeaks());
  EXPECT_THAT(out, HasSubstr("| mma_sync | e5m2_f32 | fp8 | throughput | "
                             "random | 1.136 | 7211 | 1671 | 1755 clock64 "
                             "(droop −11.4%) | — | — | — | — | emulated: "));
  // The fp8 best is cuBLASLt's 1550 TFLOP/s, not the emulated 1671.
  EXPECT_THAT(out, HasSubstr("| wgmma | e4m3_f32 n=256 a_source=shared | fp8 "
                             "| throughput | random | 170 | 6168 | 1429 | 1755 "
                             "NVML (droop −11.4%) | 75.3% | 66.7% | 72.2% | "
                             "92.2% |  |"));
  EXPECT_THAT(out, HasSubstr("| good | fp8_fast_accum | 4096x4096x4096 | 1550 "
                             "| — | 756.8 | 1755 NVML (droop −11.4%) | 81.7% | "
                             "72.4% | 78.3% | 100.0% |"));
}

// Both fp8 accumulation modes (with and without cuBLASLt's fast
// accumulation), labelled, since they differ in speed and accuracy.
TEST(RenderTensorSectionsTest, Fp8FastAccumulationBesideTheDefault) {
  const std::string out = RenderTensorSections(Fixtures(), RepoPeaks());
  EXPECT_THAT(out, HasSubstr("| M×N×K | fp16 | fp32 | fp8 | fp8_fast_accum | "
                             "int8 |"));
  EXPECT_THAT(out, HasSubstr("fp8_fast_accum is fp8 with "
                             "CUBLASLT_MATMUL_DESC_FAST_ACCUM set"));
  EXPECT_THAT(out, HasSubstr("| good | fp8 | 4096x4096x4096 | 1300 |"));
}

// A hot GEMM whose operands fit in L2 is not called
// DRAM-bound; one that does not fit counts only the bytes beyond L2.
TEST(RenderTensorSectionsTest, HotOperandsThatFitInL2AreNotDramBound) {
  const std::string out = RenderTensorSections(Fixtures(), RepoPeaks());
  // 64x4096x4096 fp16: 0.5 + 32 + 0.5 MiB.
  EXPECT_THAT(out, HasSubstr("| ugly | fp16 | 64x4096x4096 | 90 | 60 | 1450 "
                             "|"));
  EXPECT_THAT(out, HasSubstr("hot: A, B and D (33 MiB) fit in the 50 MiB L2, "
                             "so a hot run reads them from L2, not DRAM, and "
                             "DRAM's ridge point (295.1 FLOP/B; this shape: "
                             "62.06 FLOP/B) applies to its cold run only; 32 "
                             "output tiles"));
  // M = 1 reads 4002 GB/s, more than the DRAM can give.
  EXPECT_THAT(out, HasSubstr("4002 GB/s of A, B and D: above the DRAM peak of "
                             "3352 GB/s"));
  // fp32 M = 1: 64 MiB of B does not fit; at least 14 MiB come from DRAM.
  EXPECT_THAT(out, HasSubstr("memory-bound: 2.281 FLOP per DRAM byte (hot: "
                             "the 14.03 MiB of 64.03 MiB beyond the 50 MiB "
                             "L2), below the ridge point of 19.96 FLOP/B"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("memory-bound: 62.06")));
  // 2048x4096x4096 fp16 (64 MiB): 14 MiB from DRAM is far above the ridge.
  EXPECT_THAT(out, HasSubstr("| bad | fp16 | 2048x4096x4096 | 560 | — | 546.9 "
                             "|"));
  EXPECT_THAT(out, HasSubstr("| 56.6% | 69.2% | 70 |  |"));
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
  EXPECT_EQ(actual, test_util::ReadText(test_util::Runfile(golden)))
      << golden
      << " is stale; regenerate with DISSECT_UPDATE_GOLDEN=1 bazel run "
         "//analysis/sections:tensor_test";
}

}  // namespace
}  // namespace dissect::analysis
