// What a cold sample needs under each variant's L2 window, decided on the
// host (no GPU): ordinary traffic, the flush's included, cannot evict
// persisting lines, so a cold l2_persist sample that only flushes would read
// its input from L2.
#include "experiments/workloads/layers/l2_window.h"

#include <optional>

#include "gtest/gtest.h"
#include "probes/event_timer.h"

namespace dissect::l1_bypass {
namespace {

TEST(ColdWindowActionTest, ColdPersistingWindowsResetTheirLinesBeforeEachSample) {
  EXPECT_EQ(ColdWindowActionFor(L2Policy::kPersisting, CacheState::kCold),
            ColdWindowAction::kResetPersistingLines);
}

TEST(ColdWindowActionTest, NothingMoreForHotStreamingOrNoWindow) {
  EXPECT_EQ(ColdWindowActionFor(L2Policy::kPersisting, CacheState::kHot),
            ColdWindowAction::kNone);
  // Streaming lines are first to go: the flush evicts them.
  EXPECT_EQ(ColdWindowActionFor(L2Policy::kStreaming, CacheState::kCold),
            ColdWindowAction::kNone);
  EXPECT_EQ(ColdWindowActionFor(std::nullopt, CacheState::kCold), ColdWindowAction::kNone);
}

TEST(ColdWindowActionTest, TheFlushResetsWhatAPersistingWindowSetsAside) {
  // The reset itself is the flush's (probes/event_timer.h), which resets
  // persisting lines whenever the device has a set-aside: a persisting
  // window always sets one aside (at least one byte of its window).
  EXPECT_TRUE(FlushResetsPersistingLines(PersistingSetAsideBytes(1, size_t{30} << 20)));
  EXPECT_TRUE(FlushResetsPersistingLines(PersistingSetAsideBytes(size_t{64} << 20, 4096)));
  EXPECT_EQ(PersistingSetAsideBytes(size_t{64} << 20, size_t{30} << 20), size_t{30} << 20);
  EXPECT_EQ(PersistingSetAsideBytes(size_t{1} << 20, size_t{30} << 20), size_t{1} << 20);
}

}  // namespace
}  // namespace dissect::l1_bypass
