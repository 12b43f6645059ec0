// The sass_test rule end to end on a real archive (//kernels:spin): its
// kernel is found in the machine code and its spin loop reads the clock.
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class SassTestUtilTest : public SassTest {};

TEST_F(SassTestUtilTest, FindsTheSpinKernelAndItsLoop) {
  ASSERT_FALSE(AllSassFunctions().empty());
  const SassFunction* f = SassFunctionNamed({"Spin"}, "sm_90a");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(FindLoops(*f).empty()) << f->name;
  EXPECT_GE(ClockReads(*f).size(), 2u) << f->name;
}

// The spin loop reads the clock in every architecture's code: no stub.
TEST_F(SassTestUtilTest, SpinIsNoStubInThisPassArchitecture) {
  const SassFunction* f = SassFunctionNamed({"Spin"});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->arch, SassArch());
  EXPECT_FALSE(IsStubKernel(*f)) << f->name;
}

TEST_F(SassTestUtilTest, ArchitectureNumbers) {
  EXPECT_EQ(SassArchNumber("sm_90a"), 90);
  EXPECT_EQ(SassArchNumber("sm_120"), 120);
  EXPECT_EQ(SassArchNumber("sm_100f"), 100);
  EXPECT_EQ(SassArchNumber("compute_90"), 0);
  EXPECT_FALSE(SassArchs().empty());
}

}  // namespace
}  // namespace dissect
