// Compiled-code tests of the tensor-core probes: reads the PTX nvcc emitted
// (one file per source and target architecture, passed as arguments) and
// checks, per form and mode, that the timed loop between the two %clock64
// reads issues exactly the intended instruction, chains × unroll times per
// trip, and that the accumulators are chained as the mode intends: latency
// kernels form one dependent chain (wgmma: each waited for), throughput
// kernels keep independent accumulators in turn (wgmma: one commit group
// per trip, at most one in flight).
// (mma.sync throughput kernels keep MmaSyncChains(form) accumulators.)
// wgmma kernels also zero their accumulators before the first wgmma.fence.
// What ptxas then makes of the loops is sass_test's to check.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "experiments/tensor/probe_kernel_names.h"
#include "gtest/gtest.h"
#include "kernels/tensor/mma_sync.h"
#include "kernels/tensor/wgmma.h"
#include "probes/ptx_inspect.h"
#include "probes/ptx_test_util.h"

namespace dissect {
namespace {

// 90 from ".../mma_sync.sm_90a.ptx".
int ArchOf(const std::string& file) {
  const size_t at = file.rfind(".sm_");
  int arch = 0;
  std::string digits;
  for (size_t i = at + 4; i < file.size() && isdigit(file[i]); ++i) digits += file[i];
  return absl::SimpleAtoi(digits, &arch) ? arch : 0;
}

// The body of the one loop that lies between the two %clock64 reads: the
// instructions after its label up to its backward branch.
std::vector<PtxInstruction> TimedLoop(const std::vector<PtxInstruction>& code) {
  std::vector<size_t> clocks;
  for (size_t i = 0; i < code.size(); ++i) {
    if (absl::StrContains(code[i].text, "%clock64")) clocks.push_back(i);
  }
  EXPECT_EQ(clocks.size(), 2u) << "one %clock64 read before and one after the loop";
  if (clocks.size() != 2) return {};
  std::map<std::string, size_t> labels;
  std::vector<std::pair<size_t, size_t>> loops;
  for (size_t i = clocks[0]; i < clocks[1]; ++i) {
    if (code[i].is_label()) labels[code[i].label] = i;
    if (absl::StartsWith(code[i].opcode, "bra") && !code[i].operands.empty()) {
      auto it = labels.find(code[i].operands[0]);
      if (it != labels.end()) loops.push_back({it->second, i});
    }
  }
  EXPECT_EQ(loops.size(), 1u) << "exactly one loop between the clock reads";
  if (loops.size() != 1) return {};
  return {code.begin() + loops[0].first + 1, code.begin() + loops[0].second};
}

TEST(MmaSyncPtxTest, EveryFormHasAnEntryPerMode) {
  EXPECT_EQ(sizeof(kMmaKernelTraits) / sizeof(kMmaKernelTraits[0]),
            sizeof(kMmaForms) / sizeof(kMmaForms[0]));
}

TEST(MmaSyncPtxTest, LatencyLoopIsOneDependentChainOfTheForm) {
  const auto files = PtxFilesNamed("mma_sync");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const MmaKernelTrait& e : kMmaKernelTraits) {
      const MmaFormInfo& form = MmaInfo(e.form);
      SCOPED_TRACE(absl::StrCat(f, " ", form.name, " latency"));
      const auto loop = TimedLoop(EntryCode(f, MmaKernelName(e, 1)));
      std::vector<PtxInstruction> mma;
      int other_mma = 0;
      for (const PtxInstruction& in : loop) {
        if (in.opcode == form.instruction) {
          mma.push_back(in);
        } else if (absl::StartsWith(in.opcode, "mma") || absl::StartsWith(in.opcode, "wgmma")) {
          ++other_mma;
        }
      }
      EXPECT_EQ(other_mma, 0);
      if (ArchOf(f) < form.min_arch) {
        EXPECT_TRUE(mma.empty()) << "no " << form.instruction << " below sm_" << form.min_arch;
        continue;
      }
      ASSERT_EQ(mma.size(), static_cast<size_t>(kMmaUnroll));
      for (size_t i = 0; i < mma.size(); ++i) {
        // d, a, b, c; sparse forms add the metadata register and selector 0.
        ASSERT_EQ(mma[i].operands.size(), form.sparse ? 6u : 4u) << mma[i].text;
        EXPECT_EQ(OperandRegisters(mma[i].operands[2]).size(), static_cast<size_t>(form.b_regs));
        if (form.sparse) {
          EXPECT_EQ(OperandRegisters(mma[i].operands[4]).size(), 1u) << mma[i].text;
          EXPECT_EQ(mma[i].operands[5], "0x0") << mma[i].text;
        }
        // D is C: accumulate in place ...
        EXPECT_EQ(mma[i].operands[0], mma[i].operands[3]) << mma[i].text;
        // ... and every step continues the previous one's accumulator.
        if (i > 0) {
          EXPECT_EQ(mma[i].operands[3], mma[i - 1].operands[0]) << mma[i].text;
        }
      }
    }
  }
}

TEST(MmaSyncPtxTest, ThroughputLoopKeepsIndependentAccumulatorsInTurn) {
  const auto files = PtxFilesNamed("mma_sync");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    for (const MmaKernelTrait& e : kMmaKernelTraits) {
      const MmaFormInfo& form = MmaInfo(e.form);
      SCOPED_TRACE(absl::StrCat(f, " ", form.name, " throughput"));
      const int chains = MmaSyncChains(e.form, TensorMode::kThroughput);
      const auto loop = TimedLoop(EntryCode(f, MmaKernelName(e, chains)));
      std::vector<PtxInstruction> mma;
      for (const PtxInstruction& in : loop) {
        if (in.opcode == form.instruction) mma.push_back(in);
      }
      if (ArchOf(f) < form.min_arch) {
        EXPECT_TRUE(mma.empty());
        continue;
      }
      ASSERT_EQ(mma.size(), static_cast<size_t>(kMmaUnroll * chains));
      // The chains of one step write disjoint registers ...
      std::set<std::string> registers;
      for (int c = 0; c < chains; ++c) {
        for (const std::string& r : OperandRegisters(mma[c].operands[0])) {
          EXPECT_TRUE(registers.insert(r).second) << "shared accumulator " << r;
        }
      }
      EXPECT_EQ(registers.size(), static_cast<size_t>(chains * form.c_regs));
      // ... and each later step continues the same chain in the same order.
      for (size_t i = chains; i < mma.size(); ++i) {
        EXPECT_EQ(mma[i].operands[3], mma[i - chains].operands[0]);
        EXPECT_EQ(mma[i].operands[0], mma[i].operands[3]);
      }
    }
  }
}

TEST(WgmmaPtxTest, EveryFormHasAnEntry) {
  EXPECT_EQ(sizeof(kWgmmaKernelTraits) / sizeof(kWgmmaKernelTraits[0]),
            sizeof(kWgmmaForms) / sizeof(kWgmmaForms[0]));
}

int CountOpcode(const std::vector<PtxInstruction>& code, const std::string& opcode) {
  int n = 0;
  for (const PtxInstruction& in : code) n += in.opcode == opcode;
  return n;
}

TEST(WgmmaPtxTest, TimedLoopIssuesTheFormAtEveryNFromTheRequestedSource) {
  const auto files = PtxFilesNamed("wgmma");
  ASSERT_FALSE(files.empty());
  int checked = 0;
  for (const std::string& f : files) {
    const bool has_wgmma = absl::StrContains(f, ".sm_90a.");
    for (const WgmmaKernelTrait& e : kWgmmaKernelTraits) {
      const WgmmaFormInfo& form = WgmmaInfo(e.form);
      for (int n : kWgmmaNs) {
        for (bool regs : {false, true}) {
          for (bool latency : {true, false}) {
            const int chains =
                WgmmaChains(latency ? TensorMode::kLatency : TensorMode::kThroughput, n);
            SCOPED_TRACE(absl::StrCat(f, " ", form.name, " n", n, regs ? " registers" : " shared",
                                      latency ? " latency" : " throughput"));
            const auto code = EntryCode(f, WgmmaKernelName(e, n, regs, chains, latency));
            const auto loop = TimedLoop(code);
            const std::string opcode = absl::StrCat(form.prefix, n, form.suffix);
            std::vector<PtxInstruction> wgmma;
            int other = 0;
            for (const PtxInstruction& in : loop) {
              if (in.opcode == opcode) {
                wgmma.push_back(in);
              } else if (absl::StartsWith(in.opcode, "wgmma.mma_async") ||
                         absl::StartsWith(in.opcode, "mma")) {
                ++other;
              }
            }
            EXPECT_EQ(other, 0);
            if (!has_wgmma) {
              EXPECT_TRUE(wgmma.empty());
              continue;
            }
            ++checked;
            ASSERT_EQ(wgmma.size(), static_cast<size_t>(chains * kWgmmaUnroll));
            // The shared-memory operands are made visible to the async proxy
            // and the registers fenced before the clock starts.
            EXPECT_EQ(CountOpcode(code, "fence.proxy.async.shared::cta"), 1);
            EXPECT_GE(CountOpcode(code, "wgmma.fence.sync.aligned"), 1);
            for (const PtxInstruction& in : wgmma) {
              ASSERT_GE(in.operands.size(), 3u) << in.text;
              EXPECT_EQ(OperandRegisters(in.operands[0]).size(), static_cast<size_t>(n / 2));
              // A: four registers, or one 64-bit descriptor register.
              EXPECT_EQ(OperandRegisters(in.operands[1]).size(), regs ? 4u : 1u) << in.text;
              EXPECT_EQ(absl::StartsWith(in.operands[1], "{"), regs) << in.text;
              // Sparse: the metadata register and selector 0 follow B.
              if (form.sparse) {
                ASSERT_GE(in.operands.size(), 5u) << in.text;
                EXPECT_EQ(OperandRegisters(in.operands[3]).size(), 1u) << in.text;
                EXPECT_EQ(in.operands[4], "0") << in.text;
              }
            }
            // Chains write disjoint accumulators, in the same order every step.
            std::set<std::string> registers;
            for (int c = 0; c < chains; ++c) {
              for (const std::string& r : OperandRegisters(wgmma[c].operands[0])) {
                EXPECT_TRUE(registers.insert(r).second) << r;
              }
            }
            for (size_t i = chains; i < wgmma.size(); ++i) {
              EXPECT_EQ(wgmma[i].operands[0], wgmma[i - chains].operands[0]);
            }
            const int commits = CountOpcode(loop, "wgmma.commit_group.sync.aligned");
            if (latency) {
              // Every wgmma is committed and waited for before the next.
              EXPECT_EQ(commits, kWgmmaUnroll);
              int waits = 0;
              for (const PtxInstruction& in : loop) {
                waits += in.opcode == "wgmma.wait_group.sync.aligned" && in.operands[0] == "0";
              }
              EXPECT_EQ(waits, kWgmmaUnroll);
            } else {
              EXPECT_EQ(commits, 1);
              int waits = 0;
              for (const PtxInstruction& in : loop) {
                if (in.opcode == "wgmma.wait_group.sync.aligned") {
                  ++waits;
                  EXPECT_EQ(in.operands[0], "1");
                }
              }
              EXPECT_EQ(waits, 1);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0) << "no sm_90a PTX among the arguments";
}

// NVVM once sank the accumulators' zeroing moves below the
// explicit wgmma.fence, and only the WARPGROUP.ARRIVE that ptxas injects
// made the first wgmma read them correctly. The source now fences every
// accumulator before the fence. Per sm_90a kernel: each accumulator register
// of the wgmma issued before the first commit (one per chain: the untimed
// step) is last written before the first wgmma.fence, and has a writer.
TEST(WgmmaPtxTest, AccumulatorZeroingPrecedesTheFirstFence) {
  const auto files = PtxFilesNamed("wgmma");
  ASSERT_FALSE(files.empty());
  int checked = 0;
  for (const std::string& f : files) {
    if (!absl::StrContains(f, ".sm_90a.")) continue;
    for (const WgmmaKernelTrait& e : kWgmmaKernelTraits) {
      for (int n : kWgmmaNs) {
        for (bool regs : {false, true}) {
          for (bool latency : {true, false}) {
            const int chains =
                WgmmaChains(latency ? TensorMode::kLatency : TensorMode::kThroughput, n);
            const std::string name = WgmmaKernelName(e, n, regs, chains, latency);
            SCOPED_TRACE(absl::StrCat(f, " ", name));
            const auto code = EntryCode(f, name);
            size_t fence = code.size(), commit = code.size();
            for (size_t i = 0; i < code.size(); ++i) {
              if (fence == code.size() && code[i].opcode == "wgmma.fence.sync.aligned") fence = i;
              if (commit == code.size() && code[i].opcode == "wgmma.commit_group.sync.aligned") {
                commit = i;
              }
            }
            ASSERT_LT(fence, commit) << "a wgmma.fence before the first commit";
            int first_group = 0;
            for (size_t i = fence; i < commit; ++i) {
              if (!absl::StartsWith(code[i].opcode, "wgmma.mma_async")) continue;
              ++first_group;
              ASSERT_FALSE(code[i].operands.empty()) << code[i].text;
              for (const std::string& r : OperandRegisters(code[i].operands[0])) {
                size_t writer = i;
                for (size_t j = i; j-- > 0;) {
                  if (!code[j].is_label() && !code[j].operands.empty() &&
                      code[j].operands[0] == r) {
                    writer = j;
                    break;
                  }
                }
                ASSERT_LT(writer, i) << r << " of " << code[i].text << " is never written";
                EXPECT_LT(writer, fence)
                    << r << " is written after the first wgmma.fence: " << code[writer].text;
              }
            }
            EXPECT_EQ(first_group, chains) << "one untimed wgmma per chain";
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 264) << "11 forms × 6 N × 2 A sources × 2 modes in the sm_90a PTX";
}

}  // namespace
}  // namespace dissect

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) dissect::PtxFiles().push_back(argv[i]);
  return RUN_ALL_TESTS();
}
