// Tests for the pointer-chase chain builder.
#include "experiments/workloads/inputs/pointer_chain.h"

#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace dissect {
namespace {

// Follows the chain from word 0 and checks it is one cycle over every slot.
void ExpectSingleCycleOverAllSlots(const std::vector<uint32_t>& chain, int64_t stride_bytes) {
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

TEST(PointerChainTest, PageLocalVisitsEachPageWholeInRandomOrder) {
  constexpr int64_t kStride = 128;
  constexpr int64_t kPages = 8;
  auto chain = BuildChain(kPages * kChainPageBytes, kStride, ChainOrder::kPageLocal, 1);
  ASSERT_TRUE(chain.ok());
  ExpectSingleCycleOverAllSlots(*chain, kStride);
  const uint64_t page_words = kChainPageBytes / 4;
  const uint64_t slots = chain->size() * 4 / kStride;
  // Walk the cycle: the page changes once per page (the TLB misses once per
  // page), every page is entered once, and the slots of a page are not
  // visited in address order.
  std::set<uint64_t> entered = {0};
  int page_changes = 0, sequential = 0;
  uint32_t j = 0;
  for (uint64_t k = 0; k < slots; ++k) {
    const uint32_t next = (*chain)[j];
    if (next / page_words != j / page_words) {
      ++page_changes;
      EXPECT_TRUE(entered.insert(next / page_words).second || next == 0)
          << "page " << next / page_words << " entered twice";
    }
    sequential += next == j + kStride / 4;
    j = next;
  }
  EXPECT_EQ(page_changes, kPages);
  EXPECT_EQ(entered.size(), static_cast<size_t>(kPages));
  EXPECT_LT(sequential, static_cast<int>(slots / 100)) << "page-local order looks strided";
  // Pages are visited in random order, not in address order.
  std::vector<uint64_t> page_sequence;
  for (uint64_t k = 0, w = 0; k < slots; ++k, w = (*chain)[w]) {
    if (page_sequence.empty() || page_sequence.back() != w / page_words) {
      page_sequence.push_back(w / page_words);
    }
  }
  std::vector<uint64_t> in_address_order(kPages);
  for (int64_t p = 0; p < kPages; ++p) in_address_order[p] = p;
  EXPECT_NE(page_sequence, in_address_order);
}

TEST(PointerChainTest, PageLocalWithPartialLastPageAndHugeStride) {
  // 2.5 pages: the last one is half full.
  auto partial = BuildChain(5 * kChainPageBytes / 2, 4096, ChainOrder::kPageLocal, 3);
  ASSERT_TRUE(partial.ok());
  ExpectSingleCycleOverAllSlots(*partial, 4096);
  // A stride of two pages leaves one slot per page: still one cycle.
  auto huge = BuildChain(16 * kChainPageBytes, 2 * kChainPageBytes, ChainOrder::kPageLocal, 3);
  ASSERT_TRUE(huge.ok());
  ExpectSingleCycleOverAllSlots(*huge, 2 * kChainPageBytes);
}

// The TLB sweep's chain: the same slots (so the same distinct lines and
// pages) at every group size; only how many pages the chase moves among at
// once changes.
TEST(PointerChainTest, PageGroupsSetTheTlbWorkingSetAndNothingElse) {
  constexpr int64_t kStride = 2048;  // one slot per 128 B line and more
  constexpr int64_t kPages = 16;
  constexpr int64_t kGroup = 4;
  auto chain =
      BuildChain(kPages * kChainPageBytes, kStride, ChainOrder::kPageLocal, 1, kGroup);
  ASSERT_TRUE(chain.ok());
  ExpectSingleCycleOverAllSlots(*chain, kStride);
  const uint64_t page_words = kChainPageBytes / 4;
  const uint64_t group_words = kGroup * page_words;
  const uint64_t slots = chain->size() * 4 / kStride;
  std::set<uint64_t> lines, pages, groups_entered = {0};
  int group_changes = 0, page_changes = 0;
  uint32_t j = 0;
  for (uint64_t k = 0; k < slots; ++k) {
    const uint32_t next = (*chain)[j];
    lines.insert(uint64_t{j} * 4 / 128);
    pages.insert(j / page_words);
    if (next / group_words != j / group_words) {
      ++group_changes;
      EXPECT_TRUE(groups_entered.insert(next / group_words).second || next == 0)
          << "group " << next / group_words << " entered twice";
    }
    page_changes += next / page_words != j / page_words;
    j = next;
  }
  EXPECT_EQ(lines.size(), slots);
  EXPECT_EQ(pages.size(), static_cast<size_t>(kPages));
  // Each group is entered once and left once ...
  EXPECT_EQ(group_changes, kPages / kGroup);
  // ... and inside it the chase moves among its pages at random (about
  // 3 in 4 loads change page), not page by page.
  EXPECT_GT(page_changes, static_cast<int>(slots / 2));
  // One page per group is page-local order's chain, unchanged.
  auto one = BuildChain(kPages * kChainPageBytes, kStride, ChainOrder::kPageLocal, 1, 1);
  auto page_local = BuildChain(kPages * kChainPageBytes, kStride, ChainOrder::kPageLocal, 1);
  ASSERT_TRUE(one.ok() && page_local.ok());
  EXPECT_EQ(*one, *page_local);
  // A group of all the pages (or more) is one random cycle over them.
  auto all = BuildChain(kPages * kChainPageBytes, kStride, ChainOrder::kPageLocal, 1, 4 * kPages);
  ASSERT_TRUE(all.ok());
  ExpectSingleCycleOverAllSlots(*all, kStride);
  EXPECT_FALSE(
      BuildChain(kPages * kChainPageBytes, kStride, ChainOrder::kPageLocal, 1, 0).ok());
}

TEST(PointerChainTest, PointersAddressTheNextSlot) {
  auto chain = BuildChain(256, 16, ChainOrder::kRandom, 7);
  ASSERT_TRUE(chain.ok());
  constexpr uint64_t kBase = 0x7f0000001000;
  auto pointers = ChainAsPointers(*chain, 16, kBase);
  ASSERT_TRUE(pointers.ok()) << pointers.status();
  ASSERT_EQ(pointers->size(), chain->size() / 2);
  // Following the pointers visits the same slots as following the indices.
  uint64_t address = kBase;
  uint32_t word = 0;
  for (int k = 0; k < 16; ++k) {
    ASSERT_EQ((address - kBase) % 8, 0u);
    address = (*pointers)[(address - kBase) / 8];
    word = (*chain)[word];
    EXPECT_EQ(address, kBase + 4 * uint64_t{word}) << "step " << k;
  }
  EXPECT_FALSE(ChainAsPointers(*chain, 4, kBase).ok());
  EXPECT_FALSE(ChainAsPointers(*chain, 12, kBase).ok());
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
  EXPECT_EQ(*ParseChainOrder("page_local"), ChainOrder::kPageLocal);
  EXPECT_FALSE(ParseChainOrder("zigzag").ok());
}

}  // namespace
}  // namespace dissect
