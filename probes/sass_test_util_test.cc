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

}  // namespace
}  // namespace dissect
