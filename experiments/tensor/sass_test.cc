// SASS tests of the tensor-core probes: ptxas hoists, folds and
// emulates after the PTX is written, so the PTX test cannot see what the
// timed loops run. Per native kernel of kernels/tensor on every architecture
// in the archives:
//  - the timed loop (tensor_sass_checks.h) holds exactly chains × unroll
//    HMMA / IMMA (mma.sync, mma.sp) or HGMMA / IGMMA / QGMMA (wgmma);
//  - the timed region starts with neither a memory load nor an accumulator
//    write before the loop head (CheckTimedRegionStart);
//  - with changing operands, the timed loop reads kCyclingFragments
//    distinct A/B fragments and holds nothing the constant-operand loop
//    does not (CheckTimedFragments, CheckNoAddedLoopWork).
// The fp8 mma.sync forms, which the probe skips on cc 9.x and 10.x (MmaSyncNative),
// must still be emulated there (no QMMA), or the skip is stale.
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "experiments/tensor/probe_kernel_names.h"
#include "experiments/tensor/tensor_sass_checks.h"
#include "gtest/gtest.h"
#include "kernels/tensor/mma_sync.h"
#include "kernels/tensor/wgmma.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// The architectures whose code holds functions named `fragment`: the current
// pass's (SassTestMain runs the tests once per architecture) or none.
std::set<std::string> ArchsWith(const std::string& fragment) {
  std::set<std::string> archs;
  for (const SassFunction& f : AllSassFunctions()) {
    if (f.name.find(fragment) != std::string::npos) archs.insert(f.arch);
  }
  return archs;
}

int CountTensorOps(const SassFunction& f) { return CountOps(f, 0, f.code.size(), TensorOps()); }

// Whether ptxas may unroll an mma.sync timed loop beyond the steps per trip
// the source writes: it does for sm_8x (16 HMMA where 4 are written). Every
// step is still timed, in fewer trips, so a multiple is right there.
bool MmaLoopUnrolledFurther(const std::string& arch) { return SassArchNumber(arch) < 90; }

TEST_F(SassTest, MmaSyncTimedLoopsRunEveryStepWithNothingUntimedInTheRegion) {
  const std::set<std::string> archs = ArchsWith("MmaSyncKernel");
  ASSERT_FALSE(archs.empty()) << "no MmaSyncKernel in the archives";
  int checked_sm90a = 0;
  for (const std::string& arch : archs) {
    const int arch_number = SassArchNumber(arch);
    for (const MmaKernelTrait& t : kMmaKernelTraits) {
      const MmaFormInfo& form = MmaInfo(t.form);
      for (TensorMode mode : {TensorMode::kLatency, TensorMode::kThroughput}) {
        const int chains = MmaSyncChains(t.form, mode);
        SCOPED_TRACE(absl::StrCat(arch, " ", form.name, " chains ", chains));
        const SassFunction* f = SassFunctionNamed({MmaKernelName(t, chains)}, arch);
        if (f == nullptr) continue;
        if (arch_number < form.min_arch) {
          EXPECT_EQ(CountTensorOps(*f), 0) << "the stub below sm_" << form.min_arch;
          continue;
        }
        if (!MmaSyncNative(form, arch_number)) {
          EXPECT_EQ(CountOp(*f, "QMMA"), 0)
              << f->name << ": ptxas now emits native fp8 mma.sync for " << arch
              << "; MmaSyncNative (which makes the probe skip this form) is stale";
          EXPECT_GT(CountOp(*f, "HMMA"), 0) << "the f16 emulation";
          continue;
        }
        const absl::Status count =
            CheckTimedTensorCount(*f, chains * kMmaUnroll, MmaLoopUnrolledFurther(arch));
        EXPECT_TRUE(count.ok()) << count.message();
        const absl::Status start = CheckTimedRegionStart(*f, form.c_regs);
        EXPECT_TRUE(start.ok()) << start.message();
        checked_sm90a += arch == "sm_90a";
      }
    }
  }
  // 9 native forms (not e4m3, e5m2, sp_e4m3) × 2 modes.
  if (archs.count("sm_90a") > 0) {
    EXPECT_EQ(checked_sm90a, 18);
  }
}

TEST_F(SassTest, WgmmaTimedLoopsRunEveryStepWithNothingUntimedInTheRegion) {
  const std::set<std::string> archs = ArchsWith("WgmmaKernel");
  ASSERT_FALSE(archs.empty()) << "no WgmmaKernel in the archives";
  int checked = 0;
  for (const std::string& arch : archs) {
    for (const WgmmaKernelTrait& t : kWgmmaKernelTraits) {
      for (int n : kWgmmaNs) {
        for (bool regs : {false, true}) {
          for (TensorMode mode : {TensorMode::kLatency, TensorMode::kThroughput}) {
            const int chains = WgmmaChains(mode, n);
            const bool latency = mode == TensorMode::kLatency;
            SCOPED_TRACE(absl::StrCat(arch, " ", WgmmaInfo(t.form).name, " n", n,
                                      regs ? " registers" : " shared",
                                      latency ? " latency" : " throughput"));
            const SassFunction* f =
                SassFunctionNamed({WgmmaKernelName(t, n, regs, chains, latency)}, arch);
            if (f == nullptr) continue;
            if (arch != "sm_90a") {
              EXPECT_EQ(CountTensorOps(*f), 0) << "wgmma exists only in sm_90a code";
              continue;
            }
            const absl::Status count = CheckTimedTensorCount(*f, chains * kWgmmaUnroll);
            EXPECT_TRUE(count.ok()) << count.message();
            const absl::Status start = CheckTimedRegionStart(*f, n / 2);
            EXPECT_TRUE(start.ok()) << start.message();
            ++checked;
          }
        }
      }
    }
  }
  // 11 forms × 6 N × 2 A sources × 2 modes.
  if (archs.count("sm_90a") > 0) {
    EXPECT_EQ(checked, 264);
  }
}

// The changing-operand kernels (TensorOperands::kCycling): besides the
// checks above, the timed loop reads kCyclingFragments distinct A/B
// fragments (registers; descriptors for wgmma) and holds no instruction
// beyond those of the same kernel with constant operands.
void ExpectCycling(const SassFunction* constant, const SassFunction* cycling, int tensor_ops,
                   int acc_regs, bool allow_multiple = false) {
  ASSERT_NE(cycling, nullptr) << "no changing-operand kernel";
  ASSERT_NE(constant, nullptr);
  const absl::Status count = CheckTimedTensorCount(*cycling, tensor_ops, allow_multiple);
  EXPECT_TRUE(count.ok()) << count.message();
  const absl::Status start = CheckTimedRegionStart(*cycling, acc_regs);
  EXPECT_TRUE(start.ok()) << start.message();
  const absl::Status fragments = CheckTimedFragments(*cycling, kCyclingFragments);
  EXPECT_TRUE(fragments.ok()) << fragments.message();
  const absl::Status work = CheckNoAddedLoopWork(*constant, *cycling);
  EXPECT_TRUE(work.ok()) << work.message();
}

TEST_F(SassTest, MmaSyncCyclingLoopsReadFourFragmentsAndAddNoWork) {
  const std::set<std::string> archs = ArchsWith("MmaSyncKernel");
  ASSERT_FALSE(archs.empty()) << "no MmaSyncKernel in the archives";
  int checked = 0;
  for (const std::string& arch : archs) {
    for (const MmaKernelTrait& t : kMmaKernelTraits) {
      const MmaFormInfo& form = MmaInfo(t.form);
      if (SassArchNumber(arch) < form.min_arch || !MmaSyncNative(form, SassArchNumber(arch))) continue;
      for (TensorMode mode : {TensorMode::kLatency, TensorMode::kThroughput}) {
        const int chains = MmaSyncChains(t.form, mode);
        SCOPED_TRACE(absl::StrCat(arch, " ", form.name, " chains ", chains));
        ExpectCycling(SassFunctionNamed({MmaKernelName(t, chains)}, arch),
                      SassFunctionNamed({MmaKernelName(t, chains, kCyclingFragments)}, arch),
                      chains * kMmaUnroll, form.c_regs, MmaLoopUnrolledFurther(arch));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST_F(SassTest, WgmmaCyclingLoopsReadFourFragmentsAndAddNoWork) {
  // Elsewhere the kernels are stubs, which the test above checks.
  if (SassArch() != "sm_90a") return;
  int checked = 0;
  for (const WgmmaKernelTrait& t : kWgmmaKernelTraits) {
    for (int n : kWgmmaNs) {
      for (bool regs : {false, true}) {
        for (TensorMode mode : {TensorMode::kLatency, TensorMode::kThroughput}) {
          const int chains = WgmmaChains(mode, n);
          const bool latency = mode == TensorMode::kLatency;
          SCOPED_TRACE(absl::StrCat(WgmmaInfo(t.form).name, " n", n,
                                    regs ? " registers" : " shared",
                                    latency ? " latency" : " throughput"));
          ExpectCycling(
              SassFunctionNamed({WgmmaKernelName(t, n, regs, chains, latency)}, "sm_90a"),
              SassFunctionNamed(
                  {WgmmaKernelName(t, n, regs, chains, latency, kCyclingFragments)}, "sm_90a"),
              chains * kWgmmaUnroll, n / 2);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 264);
}

}  // namespace
}  // namespace dissect
