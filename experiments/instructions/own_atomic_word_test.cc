// The throughput kernel's own-word atomics (contention none): the word each
// chain of each lane owns (OwnAtomicWord) must give one warp instruction 32
// different shared-memory banks and one 128-byte global line, whatever the
// chain count, and every chain of the grid a word of its own inside the
// buffers the kernel and the host size.

#include <cstdint>
#include <set>

#include "gtest/gtest.h"
#include "kernels/instruction_ops.h"

namespace dissect {
namespace {

constexpr int kBanks = 32;            // shared memory: 32 banks of 4 bytes
constexpr uint64_t kLineWords = 32;   // a 128-byte line of 4-byte words
constexpr uint64_t kSectorWords = 8;  // a 32-byte sector

TEST(OwnAtomicWordTest, OneInstructionsLanesHitThirtyTwoBanks) {
  for (const int chains : kThroughputChains) {
    for (int warp = 0; warp < kThroughputBlockThreads / 32; ++warp) {
      for (int chain = 0; chain < chains; ++chain) {
        std::set<uint64_t> banks;
        for (uint64_t lane = 0; lane < 32; ++lane) {
          banks.insert(OwnAtomicWord(warp * 32 + lane, chain, chains) % kBanks);
        }
        EXPECT_EQ(banks.size(), 32u)
            << "chains " << chains << " warp " << warp << " chain " << chain;
      }
    }
  }
}

TEST(OwnAtomicWordTest, OneInstructionsLanesShareOneLineOfFourSectors) {
  for (const int chains : kThroughputChains) {
    for (const uint64_t warp : {0, 1, 5, 1000}) {
      for (int chain = 0; chain < chains; ++chain) {
        std::set<uint64_t> lines;
        std::set<uint64_t> sectors;
        for (uint64_t lane = 0; lane < 32; ++lane) {
          const uint64_t word = OwnAtomicWord(warp * 32 + lane, chain, chains);
          lines.insert(word / kLineWords);
          sectors.insert(word / kSectorWords);
        }
        EXPECT_EQ(lines.size(), 1u) << "chains " << chains << " chain " << chain;
        EXPECT_EQ(sectors.size(), 4u) << "chains " << chains << " chain " << chain;
      }
    }
  }
}

// A block's chains fill its shared array (kThroughputBlockThreads x chains
// words) and the grid's fill the host's buffer (warps x 32 x chains words),
// each word owned by one chain.
TEST(OwnAtomicWordTest, EveryChainOwnsADistinctWordInsideTheBuffer) {
  constexpr uint64_t kBlock = kThroughputBlockThreads;
  for (const int chains : kThroughputChains) {
    for (const uint64_t threads : {kBlock, 3 * kBlock}) {
      std::set<uint64_t> words;
      for (uint64_t thread = 0; thread < threads; ++thread) {
        for (int chain = 0; chain < chains; ++chain) {
          const uint64_t word = OwnAtomicWord(thread, chain, chains);
          EXPECT_LT(word, threads * chains);
          words.insert(word);
        }
      }
      EXPECT_EQ(words.size(), threads * chains) << "chains " << chains;
    }
  }
}

}  // namespace
}  // namespace dissect
