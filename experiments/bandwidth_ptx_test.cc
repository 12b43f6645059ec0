// Compiled-code tests of kernels/bandwidth.cu: reads the PTX nvcc emitted
// (one file per target architecture, passed as arguments) and checks, for
// every (op, width, bytes in flight) variant, that the timed accesses have
// the intended width and sit inside the loop over passes (or, for shared
// memory, inside the loop over iterations between the two %clock64 reads),
// and that what is loaded reaches a store, so that the compiler could not
// drop it. PTX cannot show what ptxas hoists out of a loop afterwards:
// bandwidth_sass_test checks the machine code.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "kernels/bandwidth.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

// The index of `space` in an ld/st opcode split at '.': 1, or 2 after a
// .volatile qualifier ("ld.volatile.shared.u32"); 0 if it is not there.
size_t SpaceIndex(const std::vector<std::string>& parts, absl::string_view op,
                  absl::string_view space) {
  if (parts.size() < 3 || parts[0] != op) return 0;
  const size_t at = parts[1] == "volatile" ? 2 : 1;
  return at + 1 < parts.size() && parts[at] == space ? at : 0;
}

// Bits moved by one ld/st with this opcode in `space` ("global", "shared"):
// vector length × element bits, for 32-bit elements (u32/b32/s32) only;
// 0 for any other instruction. Cache qualifiers (.nc, .ca, ...) and
// .volatile are ignored.
int AccessBits(const std::string& opcode, absl::string_view op, absl::string_view space) {
  std::vector<std::string> parts = absl::StrSplit(opcode, '.');
  const size_t at = SpaceIndex(parts, op, space);
  if (at == 0) return 0;
  int lanes = 1;
  for (size_t i = at + 1; i + 1 < parts.size(); ++i) {
    if (parts[i].size() == 2 && parts[i][0] == 'v' &&
        !absl::SimpleAtoi(parts[i].substr(1), &lanes)) {
      return 0;
    }
  }
  const std::string& type = parts.back();
  if (type != "u32" && type != "b32" && type != "s32") return 0;
  return 32 * lanes;
}

bool IsAccess(const PtxInstruction& in, absl::string_view op, absl::string_view space) {
  return !in.is_label() && SpaceIndex(absl::StrSplit(in.opcode, '.'), op, space) != 0;
}

// A loop: a label and the later branch back to it.
struct Loop {
  size_t head = 0;   // index of the label
  size_t latch = 0;  // index of the backward branch
  bool Contains(size_t i) const { return head < i && i < latch; }
};

std::vector<Loop> FindLoops(const std::vector<PtxInstruction>& code) {
  std::map<std::string, size_t> labels;
  std::vector<Loop> loops;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i].is_label()) {
      labels[code[i].label] = i;
    } else if (absl::StartsWith(code[i].opcode, "bra") && !code[i].operands.empty()) {
      auto it = labels.find(code[i].operands[0]);
      if (it != labels.end()) loops.push_back({it->second, i});
    }
  }
  return loops;
}

bool WritesFirstOperand(const PtxInstruction& in) {
  return !in.is_label() && !in.operands.empty() && !absl::StartsWith(in.opcode, "st.") &&
         !absl::StartsWith(in.opcode, "bra") && !absl::StartsWith(in.opcode, "bar");
}

// Registers computed, directly or not, from `seeds` (flow-insensitive, so
// values carried around loops are followed too).
std::set<std::string> DerivedFrom(const std::vector<PtxInstruction>& code,
                                  std::set<std::string> seeds) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (const PtxInstruction& in : code) {
      if (!WritesFirstOperand(in)) continue;
      bool reads_seed = false;
      for (size_t k = 1; k < in.operands.size(); ++k) {
        for (const std::string& r : OperandRegisters(in.operands[k])) {
          reads_seed |= seeds.count(r) > 0;
        }
      }
      if (!reads_seed) continue;
      for (const std::string& r : OperandRegisters(in.operands[0])) {
        changed |= seeds.insert(r).second;
      }
    }
  }
  return seeds;
}

// The registers a kernel parameter is loaded into (ld.param of "_param_<k>").
std::set<std::string> ParamRegisters(const std::vector<PtxInstruction>& code, int k) {
  std::set<std::string> regs;
  const std::string suffix = absl::StrCat("_param_", k, "]");
  for (const PtxInstruction& in : code) {
    if (absl::StartsWith(in.opcode, "ld.param") && in.operands.size() == 2 &&
        absl::EndsWith(in.operands[1], suffix)) {
      regs.insert(in.operands[0]);
    }
  }
  return regs;
}

// Whether the loop's backward branch is taken on a comparison that reads a
// register in `bound` (e.g. one derived from the pass-count parameter).
bool ExitTestReads(const std::vector<PtxInstruction>& code, const Loop& loop,
                   const std::set<std::string>& bound) {
  std::string predicate = code[loop.latch].predicate;
  if (predicate.empty()) return false;
  predicate = predicate.substr(predicate[1] == '!' ? 2 : 1);
  for (size_t i = loop.latch; i-- > loop.head;) {
    const PtxInstruction& in = code[i];
    if (!absl::StartsWith(in.opcode, "setp") || in.operands.empty()) continue;
    const std::vector<std::string> outs = OperandRegisters(in.operands[0]);
    if (std::find(outs.begin(), outs.end(), predicate) == outs.end()) continue;
    for (size_t k = 1; k < in.operands.size(); ++k) {
      for (const std::string& r : OperandRegisters(in.operands[k])) {
        if (bound.count(r) > 0) return true;
      }
    }
    return false;
  }
  return false;
}

// Indices of the instructions that access `space` with `op` ("ld"/"st").
std::vector<size_t> Accesses(const std::vector<PtxInstruction>& code, absl::string_view op,
                             absl::string_view space) {
  std::vector<size_t> out;
  for (size_t i = 0; i < code.size(); ++i) {
    if (IsAccess(code[i], op, space)) out.push_back(i);
  }
  return out;
}

struct Width {
  int bits;
  const char* mangled;  // how the element type appears in the entry's name
};

constexpr Width kWidths[] = {{32, "j"}, {64, "5uint2"}, {128, "5uint4"}};

// Checks one StreamKernel variant: every global access of kind (op, space)
// has `bits` and lies in a pass loop (a loop whose exit test reads the
// `passes` parameter), with at least `batch` of them (the accesses of one
// tile) in a loop nested in one. (How many stay in the loop body after ptxas
// is for bandwidth_sass_test.)
void ExpectAccessesInPassLoop(const std::vector<PtxInstruction>& code, absl::string_view op,
                              int bits, int batch) {
  const std::vector<size_t> accesses = Accesses(code, op, "global");
  ASSERT_GE(accesses.size(), static_cast<size_t>(batch)) << op << ".global";
  for (size_t i : accesses) {
    EXPECT_EQ(AccessBits(code[i].opcode, op, "global"), bits) << code[i].text;
  }
  // StreamKernel(src, dst, n, passes, sink): passes is parameter 3.
  const std::set<std::string> passes = DerivedFrom(code, ParamRegisters(code, 3));
  ASSERT_FALSE(passes.empty()) << "no ld.param of the passes parameter";
  const std::vector<Loop> loops = FindLoops(code);
  std::vector<Loop> pass_loops;
  for (const Loop& l : loops) {
    if (ExitTestReads(code, l, passes)) pass_loops.push_back(l);
  }
  // NVVM may make one copy of the pass loop per path through it (with and
  // without the partial last tile).
  ASSERT_FALSE(pass_loops.empty()) << "no loop over passes";
  int nested = 0;
  for (size_t i : accesses) {
    const Loop* pass_loop = nullptr;
    for (const Loop& p : pass_loops) {
      if (p.Contains(i)) pass_loop = &p;
    }
    EXPECT_NE(pass_loop, nullptr) << "outside the pass loop: " << code[i].text;
    if (pass_loop == nullptr) continue;
    for (const Loop& l : loops) {
      if (l.head != pass_loop->head && pass_loop->Contains(l.head) && l.Contains(i)) {
        ++nested;
        break;
      }
    }
  }
  EXPECT_GE(nested, batch) << "accesses in the tile loop";
}

// Whether some `store_prefix` instruction stores a value derived from what
// the `load` accesses loaded.
bool LoadsReachStore(const std::vector<PtxInstruction>& code, const std::vector<size_t>& loads,
                     absl::string_view store_prefix) {
  std::set<std::string> loaded;
  for (size_t i : loads) {
    for (const std::string& r : OperandRegisters(code[i].operands[0])) loaded.insert(r);
  }
  const std::set<std::string> derived = DerivedFrom(code, loaded);
  for (const PtxInstruction& in : code) {
    if (in.is_label() || !absl::StartsWith(in.opcode, store_prefix) || in.operands.empty()) {
      continue;
    }
    for (const std::string& r : OperandRegisters(in.operands.back())) {
      if (derived.count(r) > 0) return true;
    }
  }
  return false;
}

// StreamKernel<Op, T, kBatch, kRoaming> (kBatch elements in flight per
// thread; kRoaming: every block reads the whole buffer, reads only).
std::string StreamEntry(const char* op, const Width& w, int batch, bool roaming = false) {
  return absl::StrCat(op, "E", w.mangled, "Li", batch, "ELb", roaming ? 1 : 0, "E");
}

// Elements per tile and thread for `bytes` in flight at width w.
int Batch(const Width& w, int bytes) { return bytes / (w.bits / 8); }

TEST(AccessBitsTest, ReadsVectorWidthAndIgnoresCacheQualifiers) {
  EXPECT_EQ(AccessBits("ld.global.u32", "ld", "global"), 32);
  EXPECT_EQ(AccessBits("ld.global.nc.v2.u32", "ld", "global"), 64);
  EXPECT_EQ(AccessBits("st.global.v4.b32", "st", "global"), 128);
  EXPECT_EQ(AccessBits("ld.shared.v4.u32", "ld", "shared"), 128);
  EXPECT_EQ(AccessBits("ld.global.u64", "ld", "global"), 0);
  EXPECT_EQ(AccessBits("ld.shared.u32", "ld", "global"), 0);
  EXPECT_EQ(AccessBits("ld.volatile.shared.v2.u32", "ld", "shared"), 64);
  EXPECT_EQ(AccessBits("ld.volatile.global.u32", "ld", "shared"), 0);
}

TEST(StreamPtxTest, ReadLoadsEveryPassAtItsWidthAndKeepsTheSum) {
  const auto files = PtxFilesNamed("bandwidth");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const Width& w : kWidths) {
      for (int bytes : kStreamBytesInFlight) {
        for (const bool roaming : {false, true}) {
          SCOPED_TRACE(absl::StrCat(f, " read ", w.bits, ", ", bytes, " B in flight",
                                    roaming ? ", roaming" : ""));
          const auto code = EntryCode(f, StreamEntry("6ReadOp", w, Batch(w, bytes), roaming));
          ExpectAccessesInPassLoop(code, "ld", w.bits, Batch(w, bytes));
          EXPECT_TRUE(Accesses(code, "st", "global").size() == 1 &&
                      LoadsReachStore(code, Accesses(code, "ld", "global"), "st.global"))
              << "the loaded words must reach the one sink store";
        }
      }
    }
  }
}

TEST(StreamPtxTest, WriteStoresEveryPassAtItsWidth) {
  const auto files = PtxFilesNamed("bandwidth");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const Width& w : kWidths) {
      for (int bytes : kStreamBytesInFlight) {
        SCOPED_TRACE(absl::StrCat(f, " write ", w.bits, ", ", bytes, " B in flight"));
        const auto code = EntryCode(f, StreamEntry("7WriteOp", w, Batch(w, bytes)));
        ExpectAccessesInPassLoop(code, "st", w.bits, Batch(w, bytes));
        EXPECT_TRUE(Accesses(code, "ld", "global").empty());
      }
    }
  }
}

TEST(StreamPtxTest, CopyLoadsAndStoresEveryPassAtItsWidth) {
  const auto files = PtxFilesNamed("bandwidth");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const Width& w : kWidths) {
      for (int bytes : kStreamBytesInFlight) {
        SCOPED_TRACE(absl::StrCat(f, " copy ", w.bits, ", ", bytes, " B in flight"));
        const auto code = EntryCode(f, StreamEntry("6CopyOp", w, Batch(w, bytes)));
        ExpectAccessesInPassLoop(code, "ld", w.bits, Batch(w, bytes));
        ExpectAccessesInPassLoop(code, "st", w.bits, Batch(w, bytes));
        EXPECT_TRUE(LoadsReachStore(code, Accesses(code, "ld", "global"), "st.global"));
      }
    }
  }
}

TEST(SharedStreamPtxTest, TimedLoadsAtItsWidthInsideTheIterationLoop) {
  const auto files = PtxFilesNamed("bandwidth");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const Width& w : kWidths) {
      SCOPED_TRACE(absl::StrCat(f, " shared ", w.bits));
      const auto code = EntryCode(f, absl::StrCat("SharedStreamKernelI", w.mangled, "E"));
      std::vector<size_t> clocks;
      for (size_t i = 0; i < code.size(); ++i) {
        if (absl::StrContains(code[i].text, "%clock64")) clocks.push_back(i);
      }
      ASSERT_EQ(clocks.size(), 2u) << "one %clock64 read before and one after";
      std::vector<size_t> timed;
      for (size_t i : Accesses(code, "ld", "shared")) {
        if (clocks[0] < i && i < clocks[1]) timed.push_back(i);
      }
      // One load per row of the block's buffer and thread.
      const int rows = kSharedStreamBytes / (kSharedStreamThreads * w.bits / 8);
      ASSERT_GE(timed.size(), static_cast<size_t>(rows));
      // SharedStreamKernel(iterations, out): iterations is parameter 0.
      const std::set<std::string> iterations = DerivedFrom(code, ParamRegisters(code, 0));
      std::vector<Loop> timed_loops;
      for (const Loop& l : FindLoops(code)) {
        if (clocks[0] < l.head && l.latch < clocks[1] && ExitTestReads(code, l, iterations)) {
          timed_loops.push_back(l);
        }
      }
      ASSERT_FALSE(timed_loops.empty()) << "no loop over iterations between the clocks";
      int in_loop = 0;
      for (size_t i : timed) {
        EXPECT_EQ(AccessBits(code[i].opcode, "ld", "shared"), w.bits) << code[i].text;
        for (const Loop& l : timed_loops) {
          if (l.Contains(i)) {
            ++in_loop;
            break;
          }
        }
      }
      EXPECT_EQ(in_loop, static_cast<int>(timed.size())) << "timed loads outside the loop";
      EXPECT_GE(in_loop, rows);
      // The sum of the loaded words goes into the block's shared atomic add.
      EXPECT_TRUE(LoadsReachStore(code, timed, "atom.shared.add"));
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
