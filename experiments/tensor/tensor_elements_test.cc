// Element decoding, random operands, fragment layouts and the result check
// of the mma.sync probes.
#include "experiments/tensor/tensor_elements.h"

#include <cmath>
#include <cstring>
#include <set>
#include <utility>

#include "gtest/gtest.h"

namespace dissect {
namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(DecodeElementTest, KnownEncodings) {
  EXPECT_EQ(DecodeElement(TensorElement::kF16, 0x3c00), 1.0);
  EXPECT_EQ(DecodeElement(TensorElement::kF16, 0xc000), -2.0);
  EXPECT_EQ(DecodeElement(TensorElement::kF16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(DecodeElement(TensorElement::kF16, 0x7c00)));
  EXPECT_EQ(DecodeElement(TensorElement::kBf16, 0x3f80), 1.0);
  EXPECT_EQ(DecodeElement(TensorElement::kBf16, 0xc040), -3.0);
  EXPECT_EQ(DecodeElement(TensorElement::kTf32, 0x3fc00000), 1.5);
  // tf32 ignores the 13 low mantissa bits.
  EXPECT_EQ(DecodeElement(TensorElement::kTf32, 0x3f801fff), 1.0);
  EXPECT_EQ(DecodeElement(TensorElement::kE4m3, 0x38), 1.0);
  EXPECT_EQ(DecodeElement(TensorElement::kE4m3, 0x7e), 448.0);
  EXPECT_EQ(DecodeElement(TensorElement::kE4m3, 0xb4), -0.75);
  EXPECT_TRUE(std::isnan(DecodeElement(TensorElement::kE4m3, 0x7f)));
  EXPECT_EQ(DecodeElement(TensorElement::kE5m2, 0x3c), 1.0);
  EXPECT_EQ(DecodeElement(TensorElement::kE5m2, 0x7b), 57344.0);
  EXPECT_EQ(DecodeElement(TensorElement::kS8, 0xff), -1.0);
  EXPECT_EQ(DecodeElement(TensorElement::kS8, 0x80), -128.0);
  EXPECT_EQ(DecodeElement(TensorElement::kF32, FloatBits(-0.3125f)), -0.3125);
}

TEST(RandomElementBitsTest, FloatMagnitudesLieInRangeAndUseMantissaBits) {
  std::mt19937_64 rng(7);
  for (TensorElement e : {TensorElement::kF16, TensorElement::kBf16, TensorElement::kTf32,
                          TensorElement::kE4m3, TensorElement::kE5m2}) {
    std::set<uint32_t> seen;
    bool negative = false;
    for (int i = 0; i < 2000; ++i) {
      const uint32_t bits = RandomElementBits(e, rng);
      const double v = DecodeElement(e, bits);
      ASSERT_GE(std::fabs(v), 1.0 / 16) << bits;
      ASSERT_LT(std::fabs(v), 2.0) << bits;
      negative |= v < 0;
      seen.insert(bits);
    }
    EXPECT_TRUE(negative);
    EXPECT_GT(seen.size(), 30u) << "too few distinct values";
  }
}

// Every element of A (m × k), B (k × n) and C (m × n) is held by exactly
// one (lane, register, position).
TEST(MmaLayoutTest, FragmentsCoverEachMatrixElementOnce) {
  for (const MmaFormInfo& form : kMmaForms) {
    SCOPED_TRACE(form.name);
    const int per_word = 32 / ElementBits(form.input);
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane) {
      for (int r = 0; r < form.a_regs; ++r) {
        for (int i = 0; i < per_word; ++i) {
          const MatrixCoord x = MmaACoord(form, lane, r, i);
          ASSERT_TRUE(x.row >= 0 && x.row < form.m && x.col >= 0 && x.col < form.k);
          a.insert({x.row, x.col});
        }
      }
      for (int r = 0; r < form.b_regs; ++r) {
        for (int i = 0; i < per_word; ++i) {
          const MatrixCoord x = MmaBCoord(form, lane, r, i);
          ASSERT_TRUE(x.row >= 0 && x.row < form.k && x.col >= 0 && x.col < form.n);
          b.insert({x.row, x.col});
        }
      }
      for (int e = 0; e < kMmaAccElements; ++e) c.insert({MmaCCoord(lane, e).row, MmaCCoord(lane, e).col});
    }
    EXPECT_EQ(a.size(), static_cast<size_t>(form.m * form.k));
    EXPECT_EQ(b.size(), static_cast<size_t>(form.k * form.n));
    EXPECT_EQ(c.size(), static_cast<size_t>(form.m * form.n));
  }
}

// Spot checks against the PTX ISA's fragment formulas (groupID = lane / 4,
// threadID_in_group = lane % 4).
TEST(MmaLayoutTest, MatchesPtxIsaFormulas) {
  const MmaFormInfo& f16 = MmaInfo(MmaForm::kF16F32);
  const MatrixCoord a = MmaACoord(f16, 5, 3, 1);  // a7 of lane 5
  EXPECT_EQ(a.row, 1 + 8);
  EXPECT_EQ(a.col, 2 * 1 + 1 + 8);
  const MatrixCoord b = MmaBCoord(f16, 5, 1, 0);  // b2 of lane 5
  EXPECT_EQ(b.row, 2 * 1 + 8);
  EXPECT_EQ(b.col, 1);
  const MmaFormInfo& tf32 = MmaInfo(MmaForm::kTf32F32);
  EXPECT_EQ(MmaACoord(tf32, 5, 2, 0).row, 1);  // a2: (groupID, tid + 4)
  EXPECT_EQ(MmaACoord(tf32, 5, 2, 0).col, 5);
  EXPECT_EQ(MmaBCoord(tf32, 5, 1, 0).row, 5);  // b1: (tid + 4, groupID)
  const MmaFormInfo& s8 = MmaInfo(MmaForm::kS8S32);
  EXPECT_EQ(MmaACoord(s8, 5, 2, 3).row, 1);  // a11: (groupID, 4·tid + 3 + 16)
  EXPECT_EQ(MmaACoord(s8, 5, 2, 3).col, 23);
  EXPECT_EQ(MmaBCoord(s8, 5, 1, 2).row, 22);  // b6: (4·tid + 2 + 16, groupID)
  EXPECT_EQ(MmaCCoord(5, 3).row, 9);          // c3: (groupID + 8, 2·tid + 1)
  EXPECT_EQ(MmaCCoord(5, 3).col, 3);
}

TEST(MakeMmaOperandsTest, PacksElementsIntoRegisters) {
  const MmaFormInfo& f16 = MmaInfo(MmaForm::kF16F32);
  const MmaOperands zeros = MakeMmaOperands(f16, OperandData::kZeros, 1);
  for (uint32_t w : zeros.a) EXPECT_EQ(w, 0u);
  for (double p : zeros.product) EXPECT_EQ(p, 0.0);
  const MmaOperands random = MakeMmaOperands(f16, OperandData::kRandom, 1);
  ASSERT_EQ(random.a.size(), 32u * 4);
  ASSERT_EQ(random.b.size(), 32u * 2);
  ASSERT_EQ(random.product.size(), 32u * kMmaAccElements);
  // Both halves of a register hold normal f16 numbers.
  for (uint32_t w : random.a) {
    EXPECT_GE(std::fabs(DecodeElement(TensorElement::kF16, w & 0xffff)), 1.0 / 16);
    EXPECT_GE(std::fabs(DecodeElement(TensorElement::kF16, w >> 16)), 1.0 / 16);
  }
  // Σ|a·b| bounds |Σ a·b|, and random data gives nonzero products.
  int nonzero = 0;
  for (size_t i = 0; i < random.product.size(); ++i) {
    EXPECT_LE(std::fabs(random.product[i]), random.magnitude[i]);
    nonzero += random.product[i] != 0;
  }
  EXPECT_GT(nonzero, 100);
}

// What a correct kernel writes for `warps` warps: steps × the product.
std::vector<uint32_t> Simulated(const MmaFormInfo& form, const MmaOperands& ops, int64_t steps,
                                int warps) {
  std::vector<uint32_t> out;
  for (int w = 0; w < warps; ++w) {
    for (double p : ops.product) {
      if (form.accumulator == TensorElement::kS32) {
        out.push_back(static_cast<uint32_t>(static_cast<int64_t>(p) * steps));
      } else {
        out.push_back(FloatBits(static_cast<float>(p * steps)));
      }
    }
  }
  return out;
}

TEST(CheckMmaOutputTest, AcceptsCorrectResultsForEveryForm) {
  for (const MmaFormInfo& form : kMmaForms) {
    SCOPED_TRACE(form.name);
    const MmaOperands ops = MakeMmaOperands(form, OperandData::kRandom, 3);
    EXPECT_TRUE(CheckMmaOutput(form, ops, 64, Simulated(form, ops, 64, 3)).ok());
  }
}

TEST(CheckMmaOutputTest, RejectsAMissingStepOtherDataZerosAndNaN) {
  for (const MmaFormInfo& form : kMmaForms) {
    SCOPED_TRACE(form.name);
    const MmaOperands ops = MakeMmaOperands(form, OperandData::kRandom, 3);
    const MmaOperands other = MakeMmaOperands(form, OperandData::kRandom, 4);
    EXPECT_FALSE(CheckMmaOutput(form, ops, 8, Simulated(form, ops, 7, 1)).ok());
    EXPECT_FALSE(CheckMmaOutput(form, ops, 8, Simulated(form, other, 8, 1)).ok());
    EXPECT_FALSE(
        CheckMmaOutput(form, ops, 8, std::vector<uint32_t>(32 * kMmaAccElements, 0)).ok());
    // One bad element in the last warp is enough.
    std::vector<uint32_t> out = Simulated(form, ops, 8, 2);
    out.back() = form.accumulator == TensorElement::kS32 ? out.back() + 1
                                                         : FloatBits(std::nanf(""));
    const absl::Status s = CheckMmaOutput(form, ops, 8, out);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("1 of 256"), absl::string_view::npos) << s;
  }
}

TEST(CheckMmaOutputTest, IntegerSumsWrapLikeS32) {
  const MmaFormInfo& s8 = MmaInfo(MmaForm::kS8S32);
  const MmaOperands ops = MakeMmaOperands(s8, OperandData::kRandom, 5);
  const int64_t steps = int64_t{1} << 20;  // large enough to wrap
  EXPECT_TRUE(CheckMmaOutput(s8, ops, steps, Simulated(s8, ops, steps, 1)).ok());
}

TEST(CheckMmaOutputTest, ZeroOperandsExpectExactZeros) {
  const MmaFormInfo& bf16 = MmaInfo(MmaForm::kBf16F32);
  const MmaOperands ops = MakeMmaOperands(bf16, OperandData::kZeros, 5);
  std::vector<uint32_t> out(32 * kMmaAccElements, 0);
  EXPECT_TRUE(CheckMmaOutput(bf16, ops, 8, out).ok());
  out[17] = FloatBits(1e-20f);
  EXPECT_FALSE(CheckMmaOutput(bf16, ops, 8, out).ok());
}

}  // namespace
}  // namespace dissect
