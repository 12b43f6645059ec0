// Machine code of the cluster-cooperative kernels (kernels/coop/coop.cu),
// through `cuobjdump -sass` of libcoop.a (a sass_test: without cuobjdump
// every test reports SKIPPED, and fails under CI=true). PTX is not enough:
// ptxas may hoist, fold or merge what the timed loops do. Per flavour:
//   coop:   cluster barriers (UCGABAR_ARV / UCGABAR_WAIT) and a copy loop
//           of 16-byte DSM loads (LD.E.128 of a peer's shared window) into
//           the block's own tile (STS.128); tiled: none of them;
//   timed:  no atomic or reduction; traced: the bitmap's REDG/ATOMG OR;
// and, in the timed flavours (the traced ones' loops hold the recorder's
// region loop):
//   conv:   the innermost loop with the most FFMA holds a multiple of
//           9 taps x 4 filters of them, reads its operands from shared
//           memory only (LDS, no LDG/LD): the input tile was staged;
//   gemv:   the innermost loop with the most FFMA holds one weight LDG per
//           FFMA (W streamed once) and reads x from shared memory (LDS).
// Below sm_90 the coop flavours are stubs (no clusters), checked as such.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/sharing/coop/coop_flavours.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

using Flavour = CoopFlavour;

std::vector<Flavour> Flavours() { return CoopFlavours(); }

int Count(const SassFunction& f, const std::vector<std::string>& ops) {
  return CountOps(f, 0, f.code.size(), ops);
}

// The innermost loop of `f` with the most instructions among `ops`; a test
// failure and nullopt if no innermost loop holds one.
std::optional<SassLoop> LoopWithMost(const SassFunction& f, const std::vector<std::string>& ops) {
  std::optional<SassLoop> best;
  int most = 0;
  for (const SassLoop& loop : InnermostLoops(f)) {
    const int n = CountOps(f, loop, ops);
    if (n > most) {
      most = n;
      best = loop;
    }
  }
  EXPECT_TRUE(best.has_value()) << f.name << ": no innermost loop holds any of " << ops[0];
  return best;
}

// 16-byte generic loads: what ld.shared::cluster.v4 becomes.
int DsmLoads(const SassFunction& f, const SassLoop& loop) {
  int n = 0;
  for (size_t i = loop.head; i <= loop.branch; ++i) {
    const SassInstruction& in = f.code[i];
    if (in.op == "LD" && in.HasModifier("128")) ++n;
  }
  return n;
}

// Below sm_90 (no clusters) the coop flavours are stubs: true, after
// checking that `f` is one, where `fl` is such a flavour there.
bool CheckedAsStub(const Flavour& fl, const SassFunction& f) {
  return fl.coop && ExpectStubBelow(f, 90, "no thread-block clusters below sm_90");
}

class CoopSassTest : public SassTest {};

TEST_F(CoopSassTest, CoopFlavoursBarrierTheClusterAndCopyPeersSlices) {
  for (const Flavour& fl : Flavours()) {
    const SassFunction* f = SassFunctionNamed({fl.Fragment()});
    ASSERT_NE(f, nullptr) << fl.Fragment();
    SCOPED_TRACE(fl.Fragment());
    if (CheckedAsStub(fl, *f)) continue;
    const int arrive = Count(*f, {"UCGABAR_ARV"}), wait = Count(*f, {"UCGABAR_WAIT"});
    if (!fl.coop) {
      EXPECT_EQ(arrive + wait, 0);
      EXPECT_EQ(Count(*f, {"LD"}), 0) << "no generic (DSM) loads without a cluster";
      continue;
    }
    EXPECT_GE(arrive, 2);
    EXPECT_EQ(arrive, wait);
    int copy_loops = 0;
    for (const SassLoop& loop : InnermostLoops(*f)) {
      if (DsmLoads(*f, loop) > 0 && CountOps(*f, loop, {"STS"}) > 0) ++copy_loops;
    }
    EXPECT_GE(copy_loops, 1) << "no loop copies a peer's slice (LD.E.128 then STS)";
  }
}

TEST_F(CoopSassTest, OnlyTracedFlavoursCarryAtomics) {
  for (const Flavour& fl : Flavours()) {
    const SassFunction* f = SassFunctionNamed({fl.Fragment()});
    ASSERT_NE(f, nullptr) << fl.Fragment();
    if (CheckedAsStub(fl, *f)) continue;
    const int atomics = Count(*f, {"ATOM", "ATOMG", "RED", "REDG", "ATOMS"});
    if (fl.traced) {
      EXPECT_GE(atomics, 1) << fl.Fragment();
    } else {
      EXPECT_EQ(atomics, 0) << fl.Fragment();
    }
  }
}

TEST_F(CoopSassTest, ConvComputeLoopReadsOnlySharedMemory) {
  for (const Flavour& fl : Flavours()) {
    if (std::string(fl.kernel) != "13Conv3x3Kernel" || fl.traced) continue;
    const SassFunction* f = SassFunctionNamed({fl.Fragment()});
    ASSERT_NE(f, nullptr) << fl.Fragment();
    if (CheckedAsStub(fl, *f)) continue;
    const std::optional<SassLoop> loop = LoopWithMost(*f, {"FFMA"});
    ASSERT_TRUE(loop.has_value());
    const int ffma = CountOps(*f, *loop, {"FFMA"});
    EXPECT_EQ(ffma % 36, 0) << fl.Fragment() << "\n" << LoopListing(*f, *loop);
    EXPECT_GE(ffma, 36);
    EXPECT_GE(CountOps(*f, *loop, {"LDS"}), 1) << LoopListing(*f, *loop);
    EXPECT_EQ(CountOps(*f, *loop, {"LDG", "LD"}), 0) << fl.Fragment() << "\n"
                                                     << LoopListing(*f, *loop);
  }
}

TEST_F(CoopSassTest, GemvComputeLoopLoadsOneWeightPerMultiplyAdd) {
  for (const Flavour& fl : Flavours()) {
    if (std::string(fl.kernel) != "10GemvKernel" || fl.traced) continue;
    const SassFunction* f = SassFunctionNamed({fl.Fragment()});
    ASSERT_NE(f, nullptr) << fl.Fragment();
    if (CheckedAsStub(fl, *f)) continue;
    const std::optional<SassLoop> loop = LoopWithMost(*f, {"FFMA"});
    ASSERT_TRUE(loop.has_value());
    const int ffma = CountOps(*f, *loop, {"FFMA"});
    EXPECT_EQ(ffma % 4, 0) << fl.Fragment() << "\n" << LoopListing(*f, *loop);
    EXPECT_EQ(CountOps(*f, *loop, {"LDG"}), ffma) << fl.Fragment() << "\n"
                                                  << LoopListing(*f, *loop);
    EXPECT_GE(CountOps(*f, *loop, {"LDS"}), 1) << LoopListing(*f, *loop);
    EXPECT_EQ(CountOps(*f, *loop, {"LD"}), 0);
  }
}

}  // namespace
}  // namespace dissect
