// Machine code of the layer-fusion kernels (kernels/fusion/fusion.cu):
//   conv+ReLU fused: one STG of a computed value (no intermediate store;
//     stores of the constant 0 on zero-trip paths aside), storing the result
//     of an FMNMX (the ReLU's max); the plain conv: one STG and no FMNMX;
//   BN+ReLU+conv fused: one STG, and in the busiest inner loop one FMNMX
//     per two FFMA (BN's fma and the ReLU per loaded input, then the
//     multiply-add into the accumulator).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class FusionSassTest : public SassTest {};

int Count(const SassFunction& f, const std::vector<std::string>& ops) {
  return CountOps(f, 0, f.code.size(), ops);
}

// Whether code[i] is an STG of a computed value. Not of RZ: sm_100a and
// sm_120 code has extra paths for a zero-trip reduction that store the
// constant 0 (the output of an empty sum, also after the ReLU), and such a
// store is the output's one store on its path, not an intermediate.
bool StoresComputedValue(const SassFunction& f, size_t i) {
  return f.code[i].op == "STG" && !f.code[i].operands.empty() && f.code[i].operands.back() != "RZ";
}

// STGs of computed values (StoresComputedValue).
int ComputedStores(const SassFunction& f) {
  int n = 0;
  for (size_t i = 0; i < f.code.size(); ++i) n += StoresComputedValue(f, i) ? 1 : 0;
  return n;
}

// The op of the instruction that last wrote the value the first STG of a
// computed value stores (its last operand), scanning back from the store;
// "" if none.
std::string StoredValueOp(const SassFunction& f) {
  for (size_t i = 0; i < f.code.size(); ++i) {
    if (!StoresComputedValue(f, i)) continue;
    const std::string& value = f.code[i].operands.back();
    for (size_t j = i; j-- > 0;) {
      if (!f.code[j].operands.empty() && f.code[j].operands[0] == value) return f.code[j].op;
    }
    return "";
  }
  return "";
}

TEST_F(FusionSassTest, FusedConvReluStoresOnceAfterMax) {
  const SassFunction* f = SassFunctionNamed({"ConvKernel", "InIdentity", "OutRelu"});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ComputedStores(*f), 1) << Listing(*f, 0, f->code.size());
  EXPECT_EQ(StoredValueOp(*f), "FMNMX") << Listing(*f, 0, f->code.size());
}

TEST_F(FusionSassTest, PlainConvHasNoMax) {
  const SassFunction* f = SassFunctionNamed({"ConvKernel", "InIdentity", "OutIdentity"});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ComputedStores(*f), 1) << Listing(*f, 0, f->code.size());
  EXPECT_EQ(Count(*f, {"FMNMX"}), 0) << Listing(*f, 0, f->code.size());
  EXPECT_NE(StoredValueOp(*f), "FMNMX") << Listing(*f, 0, f->code.size());
}

TEST_F(FusionSassTest, FusedBnReluConvMaxesEveryLoadedInput) {
  const SassFunction* f = SassFunctionNamed({"ConvKernel", "InBnRelu", "OutIdentity"});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ComputedStores(*f), 1) << Listing(*f, 0, f->code.size());
  SassLoop busiest{};
  int most = 0;
  for (const SassLoop& loop : InnermostLoops(*f)) {
    const int ffma = CountOps(*f, loop, {"FFMA"});
    if (ffma > most) {
      most = ffma;
      busiest = loop;
    }
  }
  ASSERT_GE(most, 2) << "no inner loop multiplies";
  EXPECT_EQ(CountOps(*f, busiest, {"FMNMX"}) * 2, most) << LoopListing(*f, busiest);
}

}  // namespace
}  // namespace dissect
