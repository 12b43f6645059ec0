// The DSM SASS checks on hand-written listings shaped like what ptxas emits
// for kernels/dsm/dsm.cu on sm_90a: a correct one passes, and each way a
// chase or stream can go wrong (arithmetic in a hop, mapa inside the timed
// loop, a missing hop, an end clock that does not wait, loads hoisted out
// of the pass loop, any instruction between two hops) is reported.
#include "experiments/sharing/dsm/dsm_sass_checks.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "probes/sass_inspect.h"

namespace dissect {
namespace {

// Renders instructions as cuobjdump prints them; "@L<n>" in an instruction
// becomes the address of instruction n.
std::string Listing(const std::string& name, const std::vector<std::string>& code) {
  std::string out = absl::StrCat("\tcode for sm_90a\n\t\tFunction : ", name, "\n");
  for (size_t i = 0; i < code.size(); ++i) {
    std::string text = code[i];
    for (size_t j = code.size(); j-- > 0;) {
      text = absl::StrReplaceAll(text,
                                 {{absl::StrCat("@L", j, ";"), absl::StrFormat("0x%x", j * 16)}});
    }
    absl::StrAppendFormat(&out, "        /*%04x*/                   %s ;\n", i * 16, text);
  }
  return out;
}

struct ChaseShape {
  int hops = 16;
  // Each loaded word copied (MOV) into an address pair whose upper word is
  // the shared window's (R12), as ptxas lowers ld.shared::cluster.u32.
  bool window_copy = false;
  bool add_in_hop = false;    // an IADD3 onto the address of hop 5
  bool mapa_in_loop = false;  // the PRMT inside the timed loop
  bool wait_for_end = true;   // an STS of the last result before the end clock
};

// The register pair hop h loads into: R14, R16, ..., R28, R14, ...
int Pair(int h) { return 2 * (7 + h % 8); }

// One hop from the result in `prev`; returns the hop's result register.
int AppendHop(const ChaseShape& s, int h, int prev, std::vector<std::string>& c) {
  const int pair = Pair(h);
  if (s.window_copy) {
    c.push_back(absl::StrCat("MOV R", pair, ", R", prev));
    if (s.add_in_hop && h == 5)
      c.push_back(absl::StrCat("IADD3 R", pair, ", R", pair, ", 0x4, RZ"));
    c.push_back(absl::StrCat("MOV R", pair + 1, ", R12"));
    c.push_back(absl::StrCat("LD.E R", pair + 1, ", [R", pair, "]"));
    return pair + 1;
  }
  if (s.add_in_hop && h == 5) {
    c.push_back(absl::StrCat("IADD3 R", prev, ", P0, R", prev, ", 0x8, RZ"));
  }
  c.push_back(absl::StrCat("LD.E.64 R", pair, ", desc[UR4][R", prev, ".64]"));
  return pair;
}

// Two timed segments, each a loop of `hops` LD.E hops: by default each a
// LD.E.64 addressed by the previous one's 64-bit result, as ptxas emits
// for a chain of generic shared-window addresses.
std::vector<std::string> ChaseCode(const ChaseShape& s) {
  const int last = Pair(s.hops - 1) + (s.window_copy ? 1 : 0);
  std::vector<std::string> c = {"LDC R1, c[0x0][0x28]", "PRMT R8, R8, 0x654, R9",
                                absl::StrCat("MOV R", last, ", R8")};
  for (int seg = 0; seg < 2; ++seg) {
    c.push_back("CS2R R4, SR_CLOCKLO");
    const size_t head = c.size();
    c.push_back("S2R R12, SR_SWINHI");
    if (s.mapa_in_loop) c.push_back("PRMT R9, R8, 0x654, R9");
    int prev = last;
    for (int h = 0; h < s.hops; ++h) prev = AppendHop(s, h, prev, c);
    c.push_back(absl::StrCat("@!P0 BRA @L", head, ";"));
    if (s.wait_for_end) c.push_back(absl::StrCat("STS [R10], R", last));
    c.push_back("CS2R R6, SR_CLOCKLO");
  }
  c.push_back("EXIT");
  return c;
}

SassFunction Parse(const std::string& text) {
  auto functions = ParseCuobjdumpSass(text);
  EXPECT_TRUE(functions.ok()) << functions.status();
  if (!functions.ok() || functions->size() != 1) return {};
  return (*functions)[0];
}

std::string ProblemsOf(const ChaseShape& s) {
  const SassFunction f = Parse(Listing("DsmChase", ChaseCode(s)));
  return absl::StrJoin(DsmChaseProblems(f, "LD", /*expect_mapa=*/true), "\n");
}

TEST(DsmSassChecksTest, AcceptsACleanPeerChase) { EXPECT_EQ(ProblemsOf({}), ""); }

TEST(DsmSassChecksTest, ReportsArithmeticInAHop) {
  ChaseShape s;
  s.add_in_hop = true;
  EXPECT_NE(ProblemsOf(s).find("IADD3 R22, P0, R22, 0x8, RZ sits in the chain"), std::string::npos)
      << ProblemsOf(s);
  s.window_copy = true;
  EXPECT_NE(ProblemsOf(s).find("sits in the chain"), std::string::npos) << ProblemsOf(s);
}

// ptxas's lowering of ld.shared::cluster.u32: a dependent MOV of the loaded
// word into the address pair before every LD.E, a few cycles on each hop.
TEST(DsmSassChecksTest, ReportsARegisterCopyInEveryHop) {
  ChaseShape s;
  s.window_copy = true;
  const std::string problems = ProblemsOf(s);
  EXPECT_NE(problems.find("MOV R14, R29 sits in the chain: it writes the address of"),
            std::string::npos)
      << problems;
  // Every hop of both segments.
  EXPECT_EQ(DsmChaseProblems(Parse(Listing("DsmChase", ChaseCode(s))), "LD", true).size(), 32u)
      << problems;
}

// A 32-bit load cannot produce the whole of the next hop's 64-bit address.
TEST(DsmSassChecksTest, ReportsAHalfWidthResult) {
  std::vector<std::string> code = ChaseCode({});
  for (std::string& line : code) {
    if (line == "LD.E.64 R16, desc[UR4][R14.64]") line = "LD.E R16, desc[UR4][R14.64]";
  }
  const SassFunction f = Parse(Listing("DsmChase", code));
  const std::string problems = absl::StrJoin(DsmChaseProblems(f, "LD", true), "\n");
  EXPECT_NE(problems.find("not addressed by the previous load's whole result"), std::string::npos)
      << problems;
}

TEST(DsmSassChecksTest, ReportsMapaInsideTheTimedLoop) {
  ChaseShape s;
  s.mapa_in_loop = true;
  EXPECT_NE(ProblemsOf(s).find("PRMT (mapa) inside"), std::string::npos) << ProblemsOf(s);
}

TEST(DsmSassChecksTest, ReportsAMissingHop) {
  ChaseShape s;
  s.hops = 15;
  EXPECT_NE(ProblemsOf(s).find("15 LD a trip, want 16"), std::string::npos) << ProblemsOf(s);
}

TEST(DsmSassChecksTest, ReportsAnEndClockThatDoesNotWait) {
  ChaseShape s;
  s.wait_for_end = false;
  EXPECT_NE(ProblemsOf(s).find("does not wait"), std::string::npos) << ProblemsOf(s);
}

TEST(DsmSassChecksTest, ReportsAMissingMapa) {
  std::vector<std::string> code = ChaseCode({});
  code[1] = "NOP";
  const SassFunction f = Parse(Listing("DsmChase", code));
  const std::string problems = absl::StrJoin(DsmChaseProblems(f, "LD", true), "\n");
  EXPECT_NE(problems.find("no PRMT (mapa) before"), std::string::npos) << problems;
  EXPECT_TRUE(DsmChaseProblems(f, "LD", /*expect_mapa=*/false).empty());
}

enum class StreamShape {
  kNested,        // an outer pass loop around an inner loop of four 16-byte loads
  kLoadsHoisted,  // the loads before a pass loop that only adds
  kNoPassLoop,    // the inner loop alone: the pass loop is gone
};

std::vector<std::string> StreamCode(StreamShape shape) {
  std::vector<std::string> c = {"LDC R1, c[0x0][0x28]"};
  const std::vector<std::string> loads = {"LD.E.128 R4, [R24+-0x6000]",
                                          "LD.E.128 R8, [R24+-0x4000]",
                                          "LD.E.128 R12, [R24+-0x2000]", "LD.E.128 R16, [R24]"};
  if (shape == StreamShape::kLoadsHoisted) {
    c.insert(c.end(), loads.begin(), loads.end());
    const size_t head = c.size();
    c.push_back("IADD3 R21, R4, R8, R21");
    c.push_back(absl::StrCat("@P2 BRA @L", head, ";"));
  } else {
    const size_t outer = c.size();
    c.push_back("UMOV UR4, URZ");
    const size_t inner = c.size();
    c.insert(c.end(), loads.begin(), loads.end());
    c.push_back("IADD3 R21, R4, R8, R21");
    c.push_back(absl::StrCat("@P2 BRA @L", inner, ";"));
    if (shape == StreamShape::kNested) c.push_back(absl::StrCat("@!P0 BRA @L", outer, ";"));
  }
  c.push_back("EXIT");
  return c;
}

std::string StreamProblems(StreamShape shape, int unroll) {
  const SassFunction f = Parse(Listing("DsmStream", StreamCode(shape)));
  return absl::StrJoin(DsmStreamProblems(f, "LD", unroll), "\n");
}

TEST(DsmSassChecksTest, StreamLoadsMustStayInThePassLoop) {
  EXPECT_EQ(StreamProblems(StreamShape::kNested, 4), "");
  const std::string wrong_unroll = StreamProblems(StreamShape::kNested, 8);
  EXPECT_NE(wrong_unroll.find("4 LD.128 a trip, want 8"), std::string::npos) << wrong_unroll;
  const std::string hoisted = StreamProblems(StreamShape::kLoadsHoisted, 4);
  EXPECT_NE(hoisted.find("no loop holds"), std::string::npos) << hoisted;
  const std::string alone = StreamProblems(StreamShape::kNoPassLoop, 4);
  EXPECT_NE(alone.find("lies in no pass loop"), std::string::npos) << alone;
}

}  // namespace
}  // namespace dissect
