// Host side of the cuBLASLt sweep: shape parsing, the per-type fill formats,
// the operation descriptor (fast accumulation for fp8_fast_accum only) and
// the spot check that rejects wrong results.
#include "experiments/tensor/lt_gemm.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "experiments/tensor/tensor_elements.h"
#include "gtest/gtest.h"

namespace dissect {
namespace {

TEST(ParseGemmDimsTest, ReadsMxNxK) {
  const auto d = ParseGemmDims("4095x16x65536");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->m, 4095);
  EXPECT_EQ(d->n, 16);
  EXPECT_EQ(d->k, 65536);
  EXPECT_FALSE(ParseGemmDims("4096x4096").ok());
  EXPECT_FALSE(ParseGemmDims("0x4x4").ok());
  EXPECT_FALSE(ParseGemmDims("4x4x-4").ok());
}

// The short problems are timed several launches per event pair, so that the
// host time of a launch stays out of a microsecond kernel's time.
TEST(GemmLaunchesPerSampleTest, ShortProblemsGetSeveralLaunches) {
  EXPECT_EQ(GemmLaunchesPerSample({256, 256, 256}), 128);
  EXPECT_EQ(GemmLaunchesPerSample({512, 512, 512}), 16);
  EXPECT_EQ(GemmLaunchesPerSample({1024, 1024, 1024}), 2);
  EXPECT_EQ(GemmLaunchesPerSample({2048, 2048, 2048}), 1);
  EXPECT_EQ(GemmLaunchesPerSample({8192, 8192, 8192}), 1);
  EXPECT_EQ(GemmLaunchesPerSample({1, 4096, 4096}), 128);
  EXPECT_EQ(GemmLaunchesPerSample({16, 4096, 4096}), 8);
  EXPECT_EQ(GemmLaunchesPerSample({128, 4096, 4096}), 1);
}

// The bits the fill kernel writes for (exponent offset, mantissa).
uint32_t FillBits(const FillFormat& f, int exponent_offset, uint32_t mantissa) {
  const uint32_t exponent = static_cast<uint32_t>(f.bias - 4 + exponent_offset);
  return ((exponent << f.mantissa_bits) | mantissa) << f.shift;
}

TEST(GemmDtypesTest, FillFormatsGivePositiveValuesBelowOneOfTheInputType) {
  ASSERT_EQ(GemmDtypes().size(), 7u);
  for (const GemmDtypeInfo& d : GemmDtypes()) {
    SCOPED_TRACE(d.name);
    EXPECT_EQ(FindGemmDtype(d.name), &d);
    EXPECT_EQ(d.fill.bytes, d.input_bytes);
    if (d.fill.integer) {
      EXPECT_EQ(d.tolerance, 0);
      continue;
    }
    EXPECT_EQ(DecodeElement(d.input, FillBits(d.fill, 0, 0)), 1.0 / 16);
    const double top =
        DecodeElement(d.input, FillBits(d.fill, 3, (1u << d.fill.mantissa_bits) - 1));
    EXPECT_LT(top, 1.0);
    EXPECT_GT(top, 0.9);
    EXPECT_GT(d.tolerance, 0);
    EXPECT_LT(d.tolerance, 0.02);
  }
  EXPECT_EQ(FindGemmDtype("fp64"), nullptr);
}

// Without CUBLASLT_MATMUL_DESC_FAST_ACCUM the FP8 rows
// measure only the slow-accumulation path.
TEST(CreateMatmulDescTest, FastAccumulationOnlyForFp8FastAccum) {
  for (const GemmDtypeInfo& d : GemmDtypes()) {
    SCOPED_TRACE(d.name);
    absl::StatusOr<LtMatmulDesc> desc = CreateMatmulDesc(d);
    ASSERT_TRUE(desc.ok()) << desc.status();
    int8_t fast = -1;
    size_t written = 0;
    ASSERT_TRUE(
        LtStatus(cublasLtMatmulDescGetAttribute(desc->get(), CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                sizeof fast, &written),
                 "cublasLtMatmulDescGetAttribute")
            .ok());
    EXPECT_EQ(fast, std::string(d.name) == "fp8_fast_accum" ? 1 : 0);
    EXPECT_EQ(d.fast_accum, fast == 1);
  }
  const GemmDtypeInfo& fast = *FindGemmDtype("fp8_fast_accum");
  const GemmDtypeInfo& fp8 = *FindGemmDtype("fp8");
  EXPECT_EQ(fast.dtype, GemmDtype::kFp8);
  EXPECT_EQ(fast.input, fp8.input);
  EXPECT_EQ(fast.output, fp8.output);
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(CheckGemmElementTest, FloatWithinToleranceOnly) {
  const GemmDtypeInfo& fp32 = *FindGemmDtype("fp32");
  const std::vector<uint32_t> a(4096, Bits(0.5f)), b(4096, Bits(0.25f));
  // Σ = 4096 × 0.125 = 512.
  EXPECT_TRUE(CheckGemmElement(fp32, a, b, Bits(512.0f), "x").ok());
  EXPECT_TRUE(CheckGemmElement(fp32, a, b, Bits(512.2f), "x").ok());
  // One K tile of 64 missing: 504.
  EXPECT_FALSE(CheckGemmElement(fp32, a, b, Bits(504.0f), "x").ok());
  EXPECT_FALSE(CheckGemmElement(fp32, a, b, 0xffffffffu, "x").ok());  // NaN: never written
  EXPECT_FALSE(CheckGemmElement(fp32, a, b, 0, "x").ok());
}

TEST(CheckGemmElementTest, Fp16OutputIsDecodedAsHalf) {
  const GemmDtypeInfo& fp16 = *FindGemmDtype("fp16");
  const std::vector<uint32_t> a(64, 0x3800), b(64, 0x3800);      // 0.5 each: Σ = 16
  EXPECT_TRUE(CheckGemmElement(fp16, a, b, 0x4c00, "x").ok());   // 16
  EXPECT_FALSE(CheckGemmElement(fp16, a, b, 0x4b80, "x").ok());  // 15
}

TEST(CheckGemmElementTest, Int8IsExact) {
  const GemmDtypeInfo& int8 = *FindGemmDtype("int8");
  const std::vector<uint32_t> a(1000, 127), b(1000, 100);
  EXPECT_TRUE(CheckGemmElement(int8, a, b, 12700000u, "x").ok());
  const absl::Status off = CheckGemmElement(int8, a, b, 12700001u, "D[1][2]");
  EXPECT_FALSE(off.ok());
  EXPECT_NE(off.message().find("D[1][2]: got 12700001, the CPU dot product is 12700000"),
            absl::string_view::npos)
      << off;
}

// FP8 operands 0.5 (e4m3 0x30) and 0.25 (0x28): Σ = K / 8; bf16 results.
TEST(CheckGemmElementTest, FastAccumulationMayLoseMoreOverLongK) {
  const GemmDtypeInfo& fp8 = *FindGemmDtype("fp8");
  const GemmDtypeInfo& fast = *FindGemmDtype("fp8_fast_accum");
  const std::vector<uint32_t> a(4096, 0x30), b(4096, 0x28);
  ASSERT_EQ(DecodeElement(fp8.input, 0x30), 0.5);
  ASSERT_EQ(DecodeElement(fp8.input, 0x28), 0.25);
  // Σ = 512; bf16 0x43f8 = 496 is 3.1% low, 0x43fc = 504 is 1.6% low.
  EXPECT_TRUE(CheckGemmElement(fp8, a, b, 0x4400, "x").ok());
  EXPECT_TRUE(CheckGemmElement(fp8, a, b, 0x43fc, "x").ok());
  EXPECT_FALSE(CheckGemmElement(fp8, a, b, 0x43f8, "x").ok());
  EXPECT_TRUE(CheckGemmElement(fast, a, b, 0x43f8, "x").ok());
  // 480 (6.3% low) is wrong for both at K = 4096.
  EXPECT_FALSE(CheckGemmElement(fast, a, b, 0x43f0, "x").ok());
  // At K = 64 the fast path gets no more than the default 2^-6.
  const std::vector<uint32_t> a64(64, 0x30), b64(64, 0x28);
  EXPECT_TRUE(CheckGemmElement(fast, a64, b64, 0x4100, "x").ok());   // 8
  EXPECT_FALSE(CheckGemmElement(fast, a64, b64, 0x40f8, "x").ok());  // 7.75
}

TEST(CheckGemmElementTest, ZerosExpectExactZero) {
  const GemmDtypeInfo& bf16 = *FindGemmDtype("bf16");
  const std::vector<uint32_t> z(128, 0);
  EXPECT_TRUE(CheckGemmElement(bf16, z, z, 0, "x").ok());
  EXPECT_FALSE(CheckGemmElement(bf16, z, z, 0x3f80, "x").ok());
}

}  // namespace
}  // namespace dissect
