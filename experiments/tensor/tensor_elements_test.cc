// Element decoding, random operands (constant and cycling fragments),
// fragment layouts and the result check of the mma.sync and wgmma probes.
#include "experiments/tensor/tensor_elements.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

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
    const int stored_k = form.sparse ? form.k / 2 : form.k;
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane) {
      for (int r = 0; r < form.a_regs; ++r) {
        for (int i = 0; i < per_word; ++i) {
          const MatrixCoord x = MmaACoord(form, lane, r, i);
          ASSERT_TRUE(x.row >= 0 && x.row < form.m && x.col >= 0 && x.col < stored_k);
          a.insert({x.row, x.col});
        }
      }
      for (int r = 0; r < form.b_regs && !form.sparse; ++r) {
        for (int i = 0; i < per_word; ++i) {
          const MatrixCoord x = MmaBCoord(form, lane, r, i);
          ASSERT_TRUE(x.row >= 0 && x.row < form.k && x.col >= 0 && x.col < form.n);
          b.insert({x.row, x.col});
        }
      }
      for (int e = 0; e < kMmaAccElements; ++e)
        c.insert({MmaCCoord(lane, e).row, MmaCCoord(lane, e).col});
    }
    EXPECT_EQ(a.size(), static_cast<size_t>(form.m * stored_k));
    if (!form.sparse) {
      EXPECT_EQ(b.size(), static_cast<size_t>(form.k * form.n));
    }
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

// Sparse forms: every stored A element of a row meets the same B value of
// the column, so the product is b_n × the row's sum; one metadata word per
// lane; the compressed A fits the dense layout of half the K.
TEST(MakeMmaOperandsTest, SparseFormsUseColumnConstantBAndUniformMetadata) {
  for (const MmaFormInfo& form : kMmaForms) {
    if (!form.sparse) continue;
    SCOPED_TRACE(form.name);
    const MmaOperands ops = MakeMmaOperands(form, OperandData::kRandom, 4);
    ASSERT_EQ(ops.metadata.size(), 32u);
    for (uint32_t m : ops.metadata) EXPECT_EQ(m, kMmaSparseMetadata);
    ASSERT_EQ(ops.b.size(), 32u * 4);
    // Lanes of one group (same column) hold identical B registers.
    for (int lane = 0; lane < 32; ++lane) {
      for (int r = 0; r < 4; ++r) EXPECT_EQ(ops.b[lane * 4 + r], ops.b[(lane / 4) * 16 + r]);
    }
    // A register word count: K / 2 elements × 16 rows over 32 lanes.
    EXPECT_EQ(form.a_regs * (32 / ElementBits(form.input)) * 32, 16 * form.k / 2);
    int nonzero = 0;
    for (double p : ops.product) nonzero += p != 0;
    EXPECT_GT(nonzero, 100);
  }
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
    EXPECT_FALSE(CheckMmaOutput(form, ops, 8, std::vector<uint32_t>(32 * kMmaAccElements, 0)).ok());
    // One bad element in the last warp is enough.
    std::vector<uint32_t> out = Simulated(form, ops, 8, 2);
    out.back() =
        form.accumulator == TensorElement::kS32 ? out.back() + 1 : FloatBits(std::nanf(""));
    const absl::Status s = CheckMmaOutput(form, ops, 8, out);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("1 of 256"), absl::string_view::npos) << s;
    EXPECT_NE(s.message().find("block 1 slot 127"), absl::string_view::npos) << s;
  }
}

TEST(CheckMmaOutputTest, IntegerSumsWrapLikeS32) {
  const MmaFormInfo& s8 = MmaInfo(MmaForm::kS8S32);
  const MmaOperands ops = MakeMmaOperands(s8, OperandData::kRandom, 5);
  const int64_t steps = int64_t{1} << 20;  // large enough to wrap
  EXPECT_TRUE(CheckMmaOutput(s8, ops, steps, Simulated(s8, ops, steps, 1)).ok());
}

TEST(ProbeDataTest, AxisValuesNameDataAndOperands) {
  EXPECT_EQ(ProbeDataNames(), (std::vector<std::string>{"random", "random_cycling", "zeros"}));
  EXPECT_EQ(FindProbeData("random").operands, TensorOperands::kConstant);
  EXPECT_EQ(FindProbeData("random_cycling").operands, TensorOperands::kCycling);
  EXPECT_EQ(FindProbeData("random_cycling").data, OperandData::kRandom);
  EXPECT_EQ(FindProbeData("zeros").data, OperandData::kZeros);
  EXPECT_EQ(OperandFragments(TensorOperands::kCycling), 4);
  EXPECT_EQ(UntimedSteps(TensorOperands::kCycling), 4);
  EXPECT_EQ(UntimedSteps(TensorOperands::kConstant), 1);
}

// Element `i` of register word `word` of an input type of `bits` bits.
uint32_t ElementOf(uint32_t word, int bits, int i) {
  return bits == 32 ? word : (word >> (i * bits)) & ((1u << bits) - 1);
}

// Four fragments of different random data, one after the other; the
// reference is what a kernel computes that reads each equally often, from
// the registers as the mma layouts place them (dense forms).
TEST(MakeMmaOperandsTest, CyclingFragmentsDifferAndTheReferenceSumsThem) {
  for (const MmaFormInfo& form : kMmaForms) {
    if (form.sparse) continue;
    SCOPED_TRACE(form.name);
    const int bits = ElementBits(form.input), per_word = 32 / bits;
    const MmaOperands one = MakeMmaOperands(form, OperandData::kRandom, 6);
    const MmaOperands four = MakeMmaOperands(form, OperandData::kRandom, 6, 4);
    ASSERT_EQ(four.fragments, 4);
    ASSERT_EQ(four.a.size(), 4u * 32 * form.a_regs);
    ASSERT_EQ(four.b.size(), 4u * 32 * form.b_regs);
    // The first fragment is the constant operands' fragment.
    EXPECT_TRUE(std::equal(one.a.begin(), one.a.end(), four.a.begin()));
    std::vector<double> a(form.m * form.k), b(form.k * form.n), reference(one.product.size());
    std::set<std::vector<uint32_t>> distinct;
    for (int f = 0; f < 4; ++f) {
      const uint32_t* fa = &four.a[f * 32 * form.a_regs];
      const uint32_t* fb = &four.b[f * 32 * form.b_regs];
      distinct.insert(std::vector<uint32_t>(fa, fa + 32 * form.a_regs));
      for (int lane = 0; lane < 32; ++lane) {
        for (int r = 0; r < form.a_regs; ++r) {
          for (int i = 0; i < per_word; ++i) {
            const MatrixCoord c = MmaACoord(form, lane, r, i);
            a[c.row * form.k + c.col] =
                DecodeElement(form.input, ElementOf(fa[lane * form.a_regs + r], bits, i));
          }
        }
        for (int r = 0; r < form.b_regs; ++r) {
          for (int i = 0; i < per_word; ++i) {
            const MatrixCoord c = MmaBCoord(form, lane, r, i);
            b[c.row * form.n + c.col] =
                DecodeElement(form.input, ElementOf(fb[lane * form.b_regs + r], bits, i));
          }
        }
      }
      for (int lane = 0; lane < 32; ++lane) {
        for (int e = 0; e < kMmaAccElements; ++e) {
          const MatrixCoord c = MmaCCoord(lane, e);
          for (int k = 0; k < form.k; ++k) {
            reference[lane * kMmaAccElements + e] += a[c.row * form.k + k] * b[k * form.n + c.col];
          }
        }
      }
    }
    EXPECT_EQ(distinct.size(), 4u);
    for (size_t i = 0; i < reference.size(); ++i) {
      EXPECT_NEAR(four.product[i], reference[i], 1e-9 * four.magnitude[i]) << i;
    }
    // 12 steps per chain, 3 per fragment: the sum passes; a kernel that
    // read the first fragment at every step, or a step count that does
    // not spread over the fragments, fails.
    EXPECT_TRUE(CheckMmaOutput(form, four, 12, Simulated(form, four, 3, 2)).ok());
    EXPECT_FALSE(CheckMmaOutput(form, four, 12, Simulated(form, one, 12, 2)).ok());
    EXPECT_EQ(CheckMmaOutput(form, four, 10, Simulated(form, four, 3, 2)).code(),
              absl::StatusCode::kInvalidArgument);
  }
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

namespace dissect {
namespace {

TEST(WgmmaLayoutTest, SparseBRowsOf64BytesKeepFourCoreMatricesPerRowGroup) {
  EXPECT_EQ(WgmmaTileOffset(0, 48, 64), 3 * 128);
  EXPECT_EQ(WgmmaTileOffset(8, 0, 64), 512);
  std::set<int> bytes;
  for (int row = 0; row < 64; ++row) {
    for (int b = 0; b < 64; ++b) bytes.insert(WgmmaTileOffset(row, b, 64));
  }
  EXPECT_EQ(bytes.size(), 64u * 64);
  EXPECT_EQ(*bytes.rbegin(), 64 * 64 - 1);
}

TEST(WgmmaLayoutTest, CanonicalTileOffsets) {
  EXPECT_EQ(WgmmaTileOffset(0, 0), 0);
  EXPECT_EQ(WgmmaTileOffset(1, 0), 16);    // next row of a core matrix
  EXPECT_EQ(WgmmaTileOffset(0, 16), 128);  // next core matrix along K (LBO)
  EXPECT_EQ(WgmmaTileOffset(8, 0), 256);   // next 8-row group (SBO)
  EXPECT_EQ(WgmmaTileOffset(63, 31), 7 * 256 + 7 * 16 + 128 + 15);
  std::set<int> bytes;
  for (int row = 0; row < 256; ++row) {
    for (int b = 0; b < kWgmmaRowBytes; ++b) bytes.insert(WgmmaTileOffset(row, b));
  }
  EXPECT_EQ(bytes.size(), 256u * kWgmmaRowBytes);
  EXPECT_EQ(*bytes.rbegin(), 256 * kWgmmaRowBytes - 1);
}

TEST(WgmmaLayoutTest, FragmentsCoverAAndDOnce) {
  for (const WgmmaFormInfo& form : kWgmmaForms) {
    SCOPED_TRACE(form.name);
    const int per_word = 32 / ElementBits(form.input);
    const int stored_k = form.sparse ? form.k / 2 : form.k;
    std::set<std::pair<int, int>> a;
    for (int t = 0; t < kWarpgroupThreads; ++t) {
      for (int r = 0; r < kWgmmaARegs; ++r) {
        for (int i = 0; i < per_word; ++i) {
          const MatrixCoord c = WgmmaACoord(form, t, r, i);
          ASSERT_TRUE(c.row >= 0 && c.row < kWgmmaM && c.col >= 0 && c.col < stored_k);
          a.insert({c.row, c.col});
        }
      }
    }
    EXPECT_EQ(a.size(), static_cast<size_t>(kWgmmaM * stored_k));
    // A stores 32 bytes of the element type per row for every form; B's
    // rows hold the whole K.
    EXPECT_EQ(stored_k * ElementBits(form.input) / 8, kWgmmaRowBytes);
    EXPECT_EQ(form.k * ElementBits(form.input) / 8, WgmmaBRowBytes(form));
  }
  for (int n : kWgmmaNs) {
    std::set<std::pair<int, int>> d;
    for (int t = 0; t < kWarpgroupThreads; ++t) {
      for (int v = 0; v < n / 2; ++v) {
        const MatrixCoord c = WgmmaDCoord(t, v);
        ASSERT_TRUE(c.row >= 0 && c.row < kWgmmaM && c.col >= 0 && c.col < n);
        d.insert({c.row, c.col});
      }
    }
    EXPECT_EQ(d.size(), static_cast<size_t>(kWgmmaM * n)) << n;
  }
  // d5 of thread 37 (warp 1, lane 5): row 16 + 1 + 8, column 8 + 2 + 1.
  EXPECT_EQ(WgmmaDCoord(37, 7).row, 25);
  EXPECT_EQ(WgmmaDCoord(37, 7).col, 11);
}

// The register fragments and the shared-memory image hold the same A.
TEST(MakeWgmmaOperandsTest, TileAndFragmentsAgree) {
  for (const WgmmaFormInfo& form : kWgmmaForms) {
    SCOPED_TRACE(form.name);
    const WgmmaOperands ops = MakeWgmmaOperands(form, 32, OperandData::kRandom, 9);
    ASSERT_EQ(ops.b_tile.size(), 32u * WgmmaBRowBytes(form));
    EXPECT_EQ(ops.metadata.size(), form.sparse ? 128u : 0u);
    ASSERT_EQ(ops.product.size(), static_cast<size_t>(kWarpgroupThreads * 16));
    const int bits = ElementBits(form.input), bytes = bits / 8;
    for (int t = 0; t < kWarpgroupThreads; t += 7) {
      for (int r = 0; r < kWgmmaARegs; ++r) {
        for (int i = 0; i < 32 / bits; ++i) {
          const MatrixCoord c = WgmmaACoord(form, t, r, i);
          uint32_t from_tile = 0;
          for (int b = 0; b < bytes; ++b) {
            from_tile |= uint32_t{ops.a_tile[WgmmaTileOffset(c.row, c.col * bytes + b)]} << (8 * b);
          }
          const uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
          EXPECT_EQ((ops.a_fragments[t * kWgmmaARegs + r] >> (i * bits)) & mask, from_tile);
        }
      }
    }
  }
}

// The element at (row, k) of a canonical image whose rows hold `row_bytes`,
// from byte `base` on.
double ImageElement(const std::vector<uint8_t>& image, int base, int row, int k, int row_bytes,
                    TensorElement e) {
  const int bytes = ElementBits(e) / 8;
  uint32_t bits = 0;
  for (int b = 0; b < bytes; ++b) {
    bits |= uint32_t{image[base + WgmmaTileOffset(row, k * bytes + b, row_bytes)]} << (8 * b);
  }
  return DecodeElement(e, bits);
}

// Cycling: fragment f is the window 8 f rows into A's image and 8 f columns
// into B's, as the kernel's descriptors read them; its A registers hold
// the same window, and the reference sums the fragments' products.
TEST(MakeWgmmaOperandsTest, CyclingWindowsHoldTheDataTheReferenceReads) {
  constexpr int kN = 16;
  for (const WgmmaFormInfo& form : kWgmmaForms) {
    SCOPED_TRACE(form.name);
    const WgmmaOperands ops = MakeWgmmaOperands(form, kN, OperandData::kRandom, 5, 4);
    const int b_row_bytes = WgmmaBRowBytes(form);
    const int stored_k = form.sparse ? form.k / 2 : form.k;
    const int bits = ElementBits(form.input);
    ASSERT_EQ(ops.a_tile.size(), static_cast<size_t>(WgmmaImageRows(kWgmmaM, 4) * kWgmmaRowBytes));
    ASSERT_EQ(ops.b_tile.size(), static_cast<size_t>(WgmmaImageRows(kN, 4) * b_row_bytes));
    ASSERT_EQ(ops.a_fragments.size(), 4u * kWarpgroupThreads * kWgmmaARegs);
    std::vector<double> reference(ops.product.size(), 0.0);
    std::set<std::vector<uint32_t>> distinct;
    for (int f = 0; f < 4; ++f) {
      const int a_base = f * 8 * kWgmmaRowBytes, b_base = f * 8 * b_row_bytes;
      const uint32_t* regs = &ops.a_fragments[f * kWarpgroupThreads * kWgmmaARegs];
      distinct.insert(std::vector<uint32_t>(regs, regs + kWarpgroupThreads * kWgmmaARegs));
      for (int t = 0; t < kWarpgroupThreads; ++t) {
        for (int r = 0; r < kWgmmaARegs; ++r) {
          for (int i = 0; i < 32 / bits; ++i) {
            const MatrixCoord c = WgmmaACoord(form, t, r, i);
            EXPECT_EQ(DecodeElement(form.input, ElementOf(regs[t * kWgmmaARegs + r], bits, i)),
                      ImageElement(ops.a_tile, a_base, c.row, c.col, kWgmmaRowBytes, form.input));
          }
        }
        for (int v = 0; v < kN / 2; ++v) {
          const MatrixCoord c = WgmmaDCoord(t, v);
          // Sparse forms: B is the same along K, so its first stored_k
          // elements stand for the ones the metadata selects.
          for (int k = 0; k < stored_k; ++k) {
            reference[t * (kN / 2) + v] +=
                ImageElement(ops.a_tile, a_base, c.row, k, kWgmmaRowBytes, form.input) *
                ImageElement(ops.b_tile, b_base, c.col, k, b_row_bytes, form.input);
          }
        }
      }
    }
    EXPECT_EQ(distinct.size(), 4u);
    for (size_t i = 0; i < reference.size(); ++i) {
      ASSERT_NEAR(ops.product[i], reference[i], 1e-9 * ops.magnitude[i]) << i;
    }
  }
}

TEST(CheckWgmmaOutputTest, AcceptsTheReferenceRejectsAMissingStep) {
  for (const WgmmaFormInfo& form : kWgmmaForms) {
    SCOPED_TRACE(form.name);
    const WgmmaOperands ops = MakeWgmmaOperands(form, 16, OperandData::kRandom, 2);
    auto simulated = [&](int64_t steps) {
      std::vector<uint32_t> out;
      for (double p : ops.product) {
        out.push_back(form.accumulator == TensorElement::kS32
                          ? static_cast<uint32_t>(static_cast<int64_t>(p) * steps)
                          : FloatBits(static_cast<float>(p * steps)));
      }
      return out;
    };
    // The checked launch's chain: 8 steps + 1 untimed (fp8's bound grows
    // with the square of a chain's steps).
    EXPECT_TRUE(CheckWgmmaOutput(form, 16, ops, 9, simulated(9)).ok());
    EXPECT_FALSE(CheckWgmmaOutput(form, 16, ops, 9, simulated(8)).ok());
  }
}

// One instruction of Hopper's fp8 accumulation as Fp8AccumulationBound
// models it: the accumulator and the products aligned to the largest of
// them, each truncated toward zero to kFp8AccumulationBits significant bits
// of that one, summed exactly.
// `x` truncated toward zero to a multiple of 2^(e - kFp8AccumulationBits),
// 2^(e-1) <= |largest| < 2^e.
double Truncated(double x, double largest) {
  if (largest == 0) return x;
  int e;
  std::frexp(largest, &e);
  const double unit = std::ldexp(1.0, e - kFp8AccumulationBits);
  return std::trunc(x / unit) * unit;
}

float Fp8Accumulate(float acc, const std::vector<double>& products) {
  double largest = std::fabs(acc);
  for (double p : products) largest = std::max(largest, std::fabs(p));
  double sum = Truncated(acc, largest);
  for (double p : products) sum += Truncated(p, largest);
  return static_cast<float>(sum);
}

// The experiment's e4m3 n=256 data=random operands (wgmma.cc's seed), and
// what the model writes after `steps` wgmma into one accumulator.
constexpr int kFp8N = 256;
const WgmmaFormInfo& E4m3() { return WgmmaInfo(WgmmaForm::kE4m3F32); }
WgmmaOperands Fp8Operands() {
  return MakeWgmmaOperands(E4m3(), kFp8N, OperandData::kRandom,
                           0x5eed1000u + static_cast<uint64_t>(E4m3().form));
}
std::vector<uint32_t> Fp8Emulated(const WgmmaOperands& ops, int steps) {
  std::vector<uint32_t> out;
  for (int t = 0; t < kWarpgroupThreads; ++t) {
    for (int v = 0; v < kFp8N / 2; ++v) {
      const MatrixCoord c = WgmmaDCoord(t, v);
      std::vector<double> products;
      for (int k = 0; k < E4m3().k; ++k) {
        products.push_back(ImageElement(ops.a_tile, 0, c.row, k, kWgmmaRowBytes, E4m3().input) *
                           ImageElement(ops.b_tile, 0, c.col, k, kWgmmaRowBytes, E4m3().input));
      }
      float acc = 0;
      for (int s = 0; s < steps; ++s) acc = Fp8Accumulate(acc, products);
      out.push_back(FloatBits(acc));
    }
  }
  return out;
}

// The checked launch of e4m3 n=256 throughput: 8 steps + 1 untimed, one chain.
constexpr int kFp8Steps = 9;
constexpr int kH100Slot = 872;

TEST(Fp8AccumulationTest, ModelReproducesTheH100ResultAndTheBoundAcceptsIt) {
  const WgmmaOperands ops = Fp8Operands();
  const std::vector<uint32_t> out = Fp8Emulated(ops, kFp8Steps);
  // analysis/reference/h100_80gb_hbm3/2026-11-27-second-contact/headline/
  // wgmma.log: "block 0 slot 872: got -82.140625, want -82.364502".
  const double got = DecodeElement(TensorElement::kF32, out[kH100Slot]);
  EXPECT_EQ(got, -82.140625);
  EXPECT_NEAR(ops.product[kH100Slot] * kFp8Steps, -82.364502, 1e-6);
  // The former bound, 2^-9 × steps × Σ|a·b|, did not hold it.
  EXPECT_GT(std::fabs(got - ops.product[kH100Slot] * kFp8Steps),
            std::ldexp(1.0, -9) * kFp8Steps * ops.magnitude[kH100Slot]);
  // 33 terms × 2^-13 × (1 + 1 + 2 + ... + 8) × Σ|a·b|.
  EXPECT_DOUBLE_EQ(Fp8AccumulationBound(ops.magnitude[kH100Slot], {kFp8Steps, 1, 1, 32}),
                   33 * std::ldexp(1.0, -13) * 37 * ops.magnitude[kH100Slot]);
  EXPECT_TRUE(CheckWgmmaOutput(E4m3(), kFp8N, ops, kFp8Steps, out).ok());
  // A running sum truncated to 14 bits after each exact step errs less.
  std::vector<uint32_t> rounded_sum;
  for (double p : ops.product) {
    double acc = 0;
    for (int s = 0; s < kFp8Steps; ++s) acc = Truncated(acc + p, acc + p);
    rounded_sum.push_back(FloatBits(static_cast<float>(acc)));
  }
  EXPECT_TRUE(CheckWgmmaOutput(E4m3(), kFp8N, ops, kFp8Steps, rounded_sum).ok());
}

TEST(Fp8AccumulationTest, RejectsALostStepASignErrorAndUnevenChains) {
  const WgmmaOperands ops = Fp8Operands();
  EXPECT_FALSE(CheckWgmmaOutput(E4m3(), kFp8N, ops, kFp8Steps, Fp8Emulated(ops, 8)).ok());
  std::vector<uint32_t> out = Fp8Emulated(ops, kFp8Steps);
  out[kH100Slot] ^= 0x80000000u;
  const absl::Status s = CheckWgmmaOutput(E4m3(), kFp8N, ops, kFp8Steps, out);
  EXPECT_NE(s.message().find("1 of 16384"), absl::string_view::npos) << s;
  EXPECT_EQ(CheckWgmmaOutput(E4m3(), kFp8N, ops, kFp8Steps, out, 2).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Fp8AccumulationTest, ChainsAreBoundedOneByOne) {
  // Four chains of 9 steps err less than one chain of 36.
  EXPECT_LT(Fp8AccumulationBound(1.0, {36, 4, 1, 32}), Fp8AccumulationBound(1.0, {36, 1, 1, 32}));
  EXPECT_NEAR(Fp8AccumulationBound(1.0, {36, 4, 1, 32}),
              4 * Fp8AccumulationBound(1.0, {9, 1, 1, 32}), 1e-5);
  // Cycling: 12 instructions over 4 fragments, magnitude summing all 4.
  EXPECT_DOUBLE_EQ(Fp8AccumulationBound(1.0, {3, 1, 4, 32}),
                   33 * std::ldexp(1.0, -13) * (1 + 4 * 1 + 4 * 2 + 3 * 3));
}

}  // namespace
}  // namespace dissect
