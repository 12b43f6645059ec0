// Tests for the pointer-chase chain builder.
#include "probes/pointer_chain.h"

#include <set>

#include "gtest/gtest.h"

namespace dissect {
namespace {

// Follows the chain from word 0 and checks it is one cycle over every slot.
void ExpectSingleCycleOverAllSlots(const std::vector<uint32_t>& chain,
                                   int64_t stride_bytes) {
  const uint64_t step = stride_bytes / 4;
  const uint64_t slots = chain.size() / step;
  std::set<uint32_t> seen;
  uint32_t j = 0;
  for (uint64_t k = 0; k < slots; ++k) {
    ASSERT_EQ(j % step, 0u) << "landed off a slot at step " << k;
    ASSERT_TRUE(seen.insert(j).second) << "slot " << j << " visited twice";
    j = chain[j];
  }
  EXPECT_EQ(j, 0u) << "chain does not close after " << slots << " loads";
  EXPECT_EQ(seen.size(), slots);
}

TEST(PointerChainTest, StridedVisitsSlotsInOrder) {
  auto chain = BuildChain(1024, 64, ChainOrder::kStrided, 1);
  ASSERT_TRUE(chain.ok());
  ASSERT_EQ(chain->size(), 256u);
  EXPECT_EQ((*chain)[0], 16u);
  EXPECT_EQ((*chain)[16], 32u);
  EXPECT_EQ((*chain)[240], 0u);
  ExpectSingleCycleOverAllSlots(*chain, 64);
}

TEST(PointerChainTest, RandomIsOneCycleAndNotStrided) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    auto chain = BuildChain(64 * 1024, 4, ChainOrder::kRandom, seed);
    ASSERT_TRUE(chain.ok());
    ExpectSingleCycleOverAllSlots(*chain, 4);
    int sequential = 0;
    for (uint32_t i = 0; i < chain->size(); ++i) sequential += (*chain)[i] == i + 1;
    EXPECT_LT(sequential, 100) << "random order looks strided";
  }
}

TEST(PointerChainTest, SeedsGiveDifferentOrders) {
  auto a = BuildChain(4096, 4, ChainOrder::kRandom, 1);
  auto b = BuildChain(4096, 4, ChainOrder::kRandom, 2);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

TEST(PointerChainTest, SingleSlotPointsToItself) {
  auto chain = BuildChain(64, 64, ChainOrder::kRandom, 1);
  ASSERT_TRUE(chain.ok());
  EXPECT_EQ((*chain)[0], 0u);
}

TEST(PointerChainTest, WalkFollowsChain) {
  auto chain = BuildChain(256, 16, ChainOrder::kStrided, 1);
  ASSERT_TRUE(chain.ok());
  EXPECT_EQ(WalkChain(*chain, 0), 0u);
  EXPECT_EQ(WalkChain(*chain, 3), 12u);
  EXPECT_EQ(WalkChain(*chain, 16), 0u);
}

TEST(PointerChainTest, RejectsBadGeometry) {
  EXPECT_FALSE(ValidateChainGeometry(1024, 0).ok());
  EXPECT_FALSE(ValidateChainGeometry(1024, -4).ok());
  EXPECT_FALSE(ValidateChainGeometry(1024, 6).ok());
  EXPECT_FALSE(ValidateChainGeometry(1000, 64).ok());
  EXPECT_FALSE(ValidateChainGeometry(0, 4).ok());
  EXPECT_TRUE(ValidateChainGeometry(1024, 1024).ok());
  EXPECT_FALSE(BuildChain(1000, 64, ChainOrder::kStrided, 1).ok());
}

TEST(PointerChainTest, ParsesOrder) {
  EXPECT_EQ(*ParseChainOrder("random"), ChainOrder::kRandom);
  EXPECT_EQ(*ParseChainOrder("strided"), ChainOrder::kStrided);
  EXPECT_FALSE(ParseChainOrder("zigzag").ok());
}

}  // namespace
}  // namespace dissect
