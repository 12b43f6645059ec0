// Machine code of the layer-fusion kernels (kernels/fusion/fusion.cu):
//   conv+ReLU fused: one STG (no intermediate store), storing the result
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

// The op of the instruction that last wrote the value the first STG stores
// (its last operand), scanning back from the store; "" if none.
std::string StoredValueOp(const SassFunction& f) {
  for (size_t i = 0; i < f.code.size(); ++i) {
    if (f.code[i].op != "STG" || f.code[i].operands.empty()) continue;
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
  EXPECT_EQ(Count(*f, {"STG"}), 1) << Listing(*f, 0, f->code.size());
  EXPECT_EQ(StoredValueOp(*f), "FMNMX") << Listing(*f, 0, f->code.size());
}

TEST_F(FusionSassTest, PlainConvHasNoMax) {
  const SassFunction* f = SassFunctionNamed({"ConvKernel", "InIdentity", "OutIdentity"});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Count(*f, {"STG"}), 1) << Listing(*f, 0, f->code.size());
  EXPECT_EQ(Count(*f, {"FMNMX"}), 0) << Listing(*f, 0, f->code.size());
  EXPECT_NE(StoredValueOp(*f), "FMNMX") << Listing(*f, 0, f->code.size());
}

TEST_F(FusionSassTest, FusedBnReluConvMaxesEveryLoadedInput) {
  const SassFunction* f = SassFunctionNamed({"ConvKernel", "InBnRelu", "OutIdentity"});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Count(*f, {"STG"}), 1) << Listing(*f, 0, f->code.size());
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
