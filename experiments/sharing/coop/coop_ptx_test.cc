// PTX of the cluster-cooperative kernels (kernels/coop/coop.cu), one file
// per architecture on the command line. For each kernel (conv3x3, gemv):
// the coop instantiations map peers' shared memory (mapa), read it
// (ld.shared::cluster) and synchronize the cluster (barrier.cluster), the
// tiled ones do none of it; the traced instantiations record lines
// (atom.global.or), the timed ones carry no atomic at all; every
// instantiation keeps its _rn multiply-adds (conv: 9 taps x 4 filters
// unrolled; gemv: 4 rows) and gemv its butterfly.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "experiments/sharing/coop/coop_flavours.h"
#include "gtest/gtest.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

using Flavour = CoopFlavour;

std::vector<Flavour> Flavours() { return CoopFlavours(); }

int Count(const std::vector<PtxInstruction>& code, absl::string_view prefix) {
  return CountOpcodePrefix(code, prefix);
}

std::vector<std::string> Files() {
  const std::vector<std::string> files = PtxFilesNamed("coop");
  EXPECT_FALSE(files.empty()) << "no coop.<arch>.ptx on the command line";
  return files;
}

TEST(CoopPtxTest, CoopFlavoursShareThroughDsmAndTiledOnesDoNot) {
  for (const std::string& file : Files()) {
    for (const Flavour& f : Flavours()) {
      const auto code = EntryCode(file, f.Fragment());
      SCOPED_TRACE(absl::StrCat(file, " ", f.Fragment()));
      ASSERT_FALSE(code.empty());
      const int mapa = Count(code, "mapa");
      const int dsm_loads = Count(code, "ld.shared::cluster");
      const int arrive = Count(code, "barrier.cluster.arrive");
      const int wait = Count(code, "barrier.cluster.wait");
      if (f.coop) {
        EXPECT_GE(mapa, 1);
        EXPECT_GE(dsm_loads, 1);
        // Two cluster barriers per staged chunk: after the own slice, after
        // the copies.
        EXPECT_GE(arrive, 2);
        EXPECT_EQ(arrive, wait);
      } else {
        EXPECT_EQ(mapa, 0);
        EXPECT_EQ(dsm_loads, 0);
        EXPECT_EQ(arrive, 0);
        EXPECT_EQ(wait, 0);
      }
    }
  }
}

TEST(CoopPtxTest, OnlyTracedFlavoursCarryAtomics) {
  for (const std::string& file : Files()) {
    for (const Flavour& f : Flavours()) {
      const auto code = EntryCode(file, f.Fragment());
      SCOPED_TRACE(absl::StrCat(file, " ", f.Fragment()));
      ASSERT_FALSE(code.empty());
      const int atomics = Count(code, "atom") + Count(code, "red");
      if (f.traced) {
        EXPECT_GE(Count(code, "atom.global.or"), 1);
      } else {
        EXPECT_EQ(atomics, 0);
      }
    }
  }
}

TEST(CoopPtxTest, EveryFlavourKeepsItsRoundedMultiplyAdds) {
  for (const std::string& file : Files()) {
    for (const Flavour& f : Flavours()) {
      const auto code = EntryCode(file, f.Fragment());
      SCOPED_TRACE(absl::StrCat(file, " ", f.Fragment()));
      ASSERT_FALSE(code.empty());
      const bool conv = absl::StrContains(f.kernel, "Conv");
      EXPECT_GE(Count(code, "fma.rn.f32"), conv ? 36 : 4);
      // Nothing but the _rn multiply-adds: no separate multiply, no other
      // addition (gemv: the butterfly's __fadd_rn only).
      EXPECT_EQ(Count(code, "mul.rn.f32") + Count(code, "mul.f32"), 0);
      EXPECT_EQ(Count(code, "fma.f32"), 0);
      if (conv) {
        EXPECT_EQ(Count(code, "add.rn.f32") + Count(code, "add.f32"), 0);
      } else {
        EXPECT_GE(Count(code, "shfl.sync.bfly"), 5);
        EXPECT_EQ(Count(code, "add.rn.f32"), Count(code, "shfl.sync.bfly"));
      }
    }
  }
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
