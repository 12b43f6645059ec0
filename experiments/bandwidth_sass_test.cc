// Machine-code tests of the bandwidth kernels (kernels/bandwidth.cu,
// kernels/elementwise.cu): every timed or streaming loop holds the memory
// instructions it is meant to time, inside the loop body, as ptxas left it.
//   SharedStreamKernel<T>: the timed loop (between the clock reads) holds
//     exactly one LDS per row of the buffer, at T's width, all at immediate
//     offsets from one address, each loaded word summed once per trip, with
//     nothing else but adds and loop control. (ptxas once hoisted
//     `asm volatile` ld.shared out of the loop: all of them at 32 bits, 15
//     of 16 at 64 and 128 bits, where the loop it unrolled 16 times kept
//     one trip's loads and summed them 16 times.)
//   StreamKernel<Op, T, B, roaming>: every tile loop holds exactly B loads
//     (read, copy) and B stores (write, copy) at T's width, the B loads
//     issued, at immediate offsets from one address, before the first use
//     of any (not in Blackwell code: KeepsLoadsBeforeUse); the roaming
//     reads' loop (its wrap-around included) too.
//   ReluKernel<float4>: 4 LDG.128 then 4 STG.128 per tile (float: 4 and 4).
#include <algorithm>
#include <cctype>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "kernels/bandwidth.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

class BandwidthSassTest : public SassTest {};

// Every function (one per architecture) whose name holds all `fragments`;
// a test failure if there is none.
std::vector<const SassFunction*> FunctionsNamed(const std::vector<std::string>& fragments) {
  std::vector<const SassFunction*> out;
  for (const SassFunction& f : AllSassFunctions()) {
    if (std::all_of(fragments.begin(), fragments.end(),
                    [&](const std::string& s) { return absl::StrContains(f.name, s); })) {
      out.push_back(&f);
    }
  }
  EXPECT_FALSE(out.empty()) << "no function named with all of " << fragments.front() << "...";
  return out;
}

// The width modifier ptxas gives a load or store of `bits` ("" for 32).
std::string WidthModifier(int bits) { return bits == 32 ? "" : absl::StrCat(bits); }

// Whether `in` moves `bits` per thread: a "64"/"128" modifier or, for 32,
// neither.
bool HasWidth(const SassInstruction& in, int bits) {
  const bool wide = in.HasModifier("64") || in.HasModifier("128");
  return bits == 32 ? !wide : in.HasModifier(WidthModifier(bits));
}

// Whether `in` reads one of `regs`.
bool Reads(const SassInstruction& in, const std::set<int>& regs) {
  return std::any_of(regs.begin(), regs.end(), [&](int r) { return ReadsRegister(in, r); });
}

// Expects that every value the loads at `at` bring into the loop is read
// exactly once before it is overwritten (going around the loop): each trip
// uses each loaded word once, so a trip is one pass over what it loads.
// (When ptxas hoists loads and unrolls the loop, the loads left in the body
// are read once per unrolled copy.)
void ExpectEachLoadedValueReadOnce(const SassFunction& f, const SassLoop& loop,
                                   const std::vector<size_t>& at) {
  for (size_t i : at) {
    for (int r : WrittenRegisters(f.code[i])) {
      int reads = 0;
      for (size_t k = 1; k < loop.size(); ++k) {
        const SassInstruction& in = f.code[loop.head + (i - loop.head + k) % loop.size()];
        if (ReadsRegister(in, r)) ++reads;
        const std::vector<int> written = WrittenRegisters(in);
        if (std::count(written.begin(), written.end(), r) > 0) break;
      }
      EXPECT_EQ(reads, 1) << "R" << r << " of " << f.code[i].text
                          << " is read that many times per trip; body:\n"
                          << LoopListing(f, loop);
    }
  }
}

// Expects that the accesses at `at` all have `bits` and share one address
// register (no address arithmetic per access: immediate offsets only).
void ExpectWidthAndOneAddress(const SassFunction& f, const SassLoop& loop,
                              const std::vector<size_t>& at, int bits) {
  std::set<std::string> bases;
  for (size_t i : at) {
    EXPECT_TRUE(HasWidth(f.code[i], bits)) << f.code[i].text << ", want " << bits << " bits";
    for (const std::string& r : AddressRegisters(f.code[i])) bases.insert(r);
  }
  EXPECT_EQ(bases.size(), 1u) << "accesses of one address register plus immediates; body:\n"
                              << LoopListing(f, loop);
}

// Checks the timed loop of a SharedStreamKernel: exactly `rows` LDS of
// `bits` from one address register, each loaded word summed once per trip,
// and besides them only integer adds (the sum) and at most 4 instructions
// of loop control.
void ExpectSharedTimedLoop(const SassFunction& f, int rows, int bits) {
  ExpectTimedLoopCount(f, {"LDS"}, rows);
  const std::optional<SassLoop> loop = TimedLoopWith(f, {"LDS"});
  if (!loop.has_value()) return;
  const std::vector<size_t> loads = IndicesOfOps(f, *loop, {"LDS"});
  if (loads.empty()) return;  // ExpectTimedLoopCount reported it
  ExpectWidthAndOneAddress(f, *loop, loads, bits);
  ExpectEachLoadedValueReadOnce(f, *loop, loads);
  int other = 0;
  for (size_t i = loop->head; i <= loop->branch; ++i) {
    const std::string& op = f.code[i].op;
    if (op != "LDS" && op != "IADD3" && f.code[i].opcode != "IMAD.IADD") ++other;
  }
  EXPECT_LE(other, 4) << f.name << ": more than loads, adds and loop control; body:\n"
                      << LoopListing(f, *loop);
}

// The innermost loops of `f` that hold an LDG or an STG: a streaming
// kernel's tile loops (ptxas may make one copy per path into the loop).
std::vector<SassLoop> TileLoops(const SassFunction& f) {
  std::vector<SassLoop> out;
  for (const SassLoop& loop : InnermostLoops(f)) {
    if (CountOps(f, loop, {"LDG", "STG"}) > 0) out.push_back(loop);
  }
  EXPECT_FALSE(out.empty()) << f.name << ": no loop holds a global access";
  return out;
}

// Whether ptxas keeps every load of a tile before the first use of what it
// loaded in `arch`'s code. Not in Blackwell code (sm_100a, sm_120): ptxas
// 13.0 starts summing or storing a tile's first values before it issues
// the tile's last load (in some loops after 2 of 16), so fewer bytes are
// in flight there than the tile holds and memory_bandwidth's figures on
// those GPUs may fall short of what the kernel was built to reach. The
// other checks still hold there.
bool KeepsLoadsBeforeUse(const std::string& arch) {
  return arch != "sm_100a" && arch != "sm_120";
}

// Checks every tile loop of `f`: `loads` LDG and `stores` STG of `bits`,
// each kind at immediate offsets from one address register, every LDG
// before the first instruction that uses what any of them loaded, and each
// loaded value used once.
void ExpectTileLoops(const SassFunction& f, int loads, int stores, int bits) {
  SCOPED_TRACE(absl::StrCat(f.name, " (", f.arch, ")"));
  for (const SassLoop& loop : TileLoops(f)) {
    const std::vector<size_t> ldg = IndicesOfOps(f, loop, {"LDG"});
    const std::vector<size_t> stg = IndicesOfOps(f, loop, {"STG"});
    EXPECT_EQ(ldg.size(), static_cast<size_t>(loads)) << "LDG per tile; body:\n"
                                                      << LoopListing(f, loop);
    EXPECT_EQ(stg.size(), static_cast<size_t>(stores)) << "STG per tile; body:\n"
                                                       << LoopListing(f, loop);
    if (!ldg.empty()) ExpectWidthAndOneAddress(f, loop, ldg, bits);
    if (!stg.empty()) ExpectWidthAndOneAddress(f, loop, stg, bits);
    if (ldg.empty()) continue;
    ExpectEachLoadedValueReadOnce(f, loop, ldg);
    if (!KeepsLoadsBeforeUse(f.arch)) continue;
    // Between the first and the last LDG nothing reads a value loaded so
    // far (a register an earlier LDG wrote and nothing overwrote since).
    std::set<int> live;
    for (size_t i = ldg.front(); i < ldg.back(); ++i) {
      const SassInstruction& in = f.code[i];
      if (in.op != "LDG" && Reads(in, live)) {
        ADD_FAILURE() << "a loaded value is used (" << in.text
                      << ") before the last load of the tile; body:\n"
                      << LoopListing(f, loop);
        break;
      }
      const std::vector<int> written = WrittenRegisters(in);
      if (in.op == "LDG") {
        live.insert(written.begin(), written.end());
      } else {
        for (int r : written) live.erase(r);
      }
    }
  }
}

struct Width {
  int bits;
  const char* mangled;  // the element type in a mangled name
};

constexpr Width kWidths[] = {{32, "j"}, {64, "5uint2"}, {128, "5uint4"}};

TEST_F(BandwidthSassTest, SharedStreamTimedLoopLoadsEveryRowOnce) {
  for (const Width& w : kWidths) {
    SCOPED_TRACE(absl::StrCat("shared ", w.bits, "-bit"));
    const int rows = kSharedStreamBytes / (kSharedStreamThreads * w.bits / 8);
    for (const SassFunction* f :
         FunctionsNamed({absl::StrCat("SharedStreamKernelI", w.mangled, "EE")})) {
      ExpectSharedTimedLoop(*f, rows, w.bits);
    }
  }
}

TEST_F(BandwidthSassTest, StreamTileLoopsHoldTheBytesInFlight) {
  if (!KeepsLoadsBeforeUse(SassArch())) {
    std::cout << "NOTE: " << SassArch()
              << ": loads may be used before the tile's last load (KeepsLoadsBeforeUse); "
                 "that order is not checked\n";
  }
  struct Op {
    const char* mangled;
    bool loads, stores;
  };
  constexpr Op kOps[] = {
      {"6ReadOp", true, false}, {"7WriteOp", false, true}, {"6CopyOp", true, true}};
  for (const Op& op : kOps) {
    for (const Width& w : kWidths) {
      for (int bytes : kStreamBytesInFlight) {
        const int batch = bytes / (w.bits / 8);
        // Roaming is built for reads only.
        for (const bool roaming : {false, true}) {
          if (roaming && op.stores) continue;
          SCOPED_TRACE(absl::StrCat(op.mangled, " ", w.bits, "-bit, ", bytes, " B in flight",
                                    roaming ? ", roaming" : ""));
          for (const SassFunction* f :
               FunctionsNamed({"StreamKernel", absl::StrCat(op.mangled, "E", w.mangled, "Li",
                                                            batch, "ELb", roaming ? 1 : 0, "E")})) {
            ExpectTileLoops(*f, op.loads ? batch : 0, op.stores ? batch : 0, w.bits);
          }
        }
      }
    }
  }
}

TEST_F(BandwidthSassTest, ReluIssuesFourLoadsBeforeItsStores) {
  for (const SassFunction* f : FunctionsNamed({"ReluKernelI6float4EE"})) {
    ExpectTileLoops(*f, 4, 4, 128);
  }
  for (const SassFunction* f : FunctionsNamed({"ReluKernelIfEE"})) ExpectTileLoops(*f, 4, 4, 32);
}

// The timed region of SharedStreamKernel<uint32_t> before the fix, from
// probes/testdata/shared_stream_hoisted.sass (its main loop verbatim; the
// remainder loop after it left out): ptxas hoisted the 16 `asm volatile`
// ld.shared out of the loop, which kept only the adds.
constexpr char kHoisted[] = R"(arch = sm_90a
		Function : _ZN7dissect18SharedStreamKernelIjEEviPNS_18SharedStreamTimingE
        /*0170*/              @!P0 CS2R R2, SR_CLOCKLO ;
        /*0180*/                   LDC R24, c[0x0][0x210] ;
        /*0190*/                   IMAD.MOV.U32 R22, RZ, RZ, RZ ;
        /*01a0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*01b0*/                   ISETP.GE.AND P1, PT, R24, 0x1, PT ;
        /*01c0*/              @!P1 BRA 0x780 ;
        /*01d0*/                   S2UR UR5, SR_CgaCtaId ;
        /*01e0*/                   VIADD R0, R24, 0xffffffff ;
        /*01f0*/                   UMOV UR4, 0x400 ;
        /*0200*/                   IMAD.MOV.U32 R22, RZ, RZ, RZ ;
        /*0210*/                   ISETP.GE.U32.AND P2, PT, R0, 0x3, PT ;
        /*0220*/                   LOP3.LUT P1, R0, R24, 0x3, RZ, 0xc0, !PT ;
        /*0230*/                   ULEA UR4, UR5, UR4, 0x18 ;
        /*0240*/                   LEA R4, R4, UR4, 0x2 ;
        /*0250*/              @!P2 BRA 0x5c0 ;
        /*0260*/                   LDS R5, [R4] ;
        /*0270*/                   LOP3.LUT R21, R24.reuse, 0x3, RZ, 0xc0, !PT ;
        /*0280*/                   IMAD.MOV.U32 R22, RZ, RZ, RZ ;
        /*0290*/                   LDS R6, [R4+0x400] ;
        /*02a0*/                   IMAD.IADD R21, R24, 0x1, -R21 ;
        /*02b0*/                   LDS R7, [R4+0x800] ;
        /*02c0*/                   LDS R8, [R4+0xc00] ;
        /*02d0*/                   LDS R9, [R4+0x1000] ;
        /*02e0*/                   LDS R10, [R4+0x1400] ;
        /*02f0*/                   LDS R11, [R4+0x1800] ;
        /*0300*/                   LDS R12, [R4+0x1c00] ;
        /*0310*/                   LDS R13, [R4+0x2000] ;
        /*0320*/                   LDS R14, [R4+0x2400] ;
        /*0330*/                   LDS R15, [R4+0x2800] ;
        /*0340*/                   LDS R16, [R4+0x2c00] ;
        /*0350*/                   LDS R17, [R4+0x3000] ;
        /*0360*/                   LDS R18, [R4+0x3400] ;
        /*0370*/                   LDS R19, [R4+0x3800] ;
        /*0380*/                   LDS R20, [R4+0x3c00] ;
        /*0390*/                   IADD3 R22, R6, R5, R22 ;
        /*03a0*/                   VIADD R21, R21, 0xfffffffc ;
        /*03b0*/                   IADD3 R22, R8, R7, R22 ;
        /*03c0*/                   ISETP.NE.AND P2, PT, R21, RZ, PT ;
        /*03d0*/                   IADD3 R22, R10, R9, R22 ;
        /*03e0*/                   IADD3 R22, R12, R11, R22 ;
        /*03f0*/                   IADD3 R22, R14, R13, R22 ;
        /*0400*/                   IADD3 R22, R16, R15, R22 ;
        /*0410*/                   IADD3 R22, R18, R17, R22 ;
        /*0420*/                   IADD3 R22, R20, R19, R22 ;
        /*0430*/                   IADD3 R22, R6, R5, R22 ;
        /*0440*/                   IADD3 R22, R8, R7, R22 ;
        /*0450*/                   IADD3 R22, R10, R9, R22 ;
        /*0460*/                   IADD3 R22, R12, R11, R22 ;
        /*0470*/                   IADD3 R22, R14, R13, R22 ;
        /*0480*/                   IADD3 R22, R16, R15, R22 ;
        /*0490*/                   IADD3 R22, R18, R17, R22 ;
        /*04a0*/                   IADD3 R22, R20, R19, R22 ;
        /*04b0*/                   IADD3 R22, R6, R5, R22 ;
        /*04c0*/                   IADD3 R22, R8, R7, R22 ;
        /*04d0*/                   IADD3 R22, R10, R9, R22 ;
        /*04e0*/                   IADD3 R22, R12, R11, R22 ;
        /*04f0*/                   IADD3 R22, R14, R13, R22 ;
        /*0500*/                   IADD3 R22, R16, R15, R22 ;
        /*0510*/                   IADD3 R22, R18, R17, R22 ;
        /*0520*/                   IADD3 R22, R20, R19, R22 ;
        /*0530*/                   IADD3 R22, R6, R5, R22 ;
        /*0540*/                   IADD3 R22, R8, R7, R22 ;
        /*0550*/                   IADD3 R22, R10, R9, R22 ;
        /*0560*/                   IADD3 R22, R12, R11, R22 ;
        /*0570*/                   IADD3 R22, R14, R13, R22 ;
        /*0580*/                   IADD3 R22, R16, R15, R22 ;
        /*0590*/                   IADD3 R22, R18, R17, R22 ;
        /*05a0*/                   IADD3 R22, R20, R19, R22 ;
        /*05b0*/               @P2 BRA 0x390 ;
        /*0780*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0790*/                   CS2R R6, SR_CLOCKLO ;
)";

// Runs without cuobjdump: the shared check must fail on the hoisted loads.
TEST(SharedStreamSassCheckTest, FailsOnTheHoistedSharedLoads) {
  absl::StatusOr<std::vector<SassFunction>> fs = ParseCuobjdumpSass(kHoisted);
  ASSERT_TRUE(fs.ok()) << fs.status();
  ASSERT_EQ(fs->size(), 1u);
  EXPECT_NONFATAL_FAILURE(ExpectSharedTimedLoop((*fs)[0], 16, 32),
                          "the timed loop holds 0 of {LDS}, want 16");
}

}  // namespace
}  // namespace dissect
