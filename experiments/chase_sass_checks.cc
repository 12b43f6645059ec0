// SASS checks of the pointer-chase kernels; see chase_sass_checks.h.
#include "experiments/chase_sass_checks.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/pointer_chase.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// Every op that reads memory or a texture.
const std::vector<std::string>& LoadOps() {
  static const auto* const kOps =
      new std::vector<std::string>{"LD", "LDG", "LDS", "LDL", "LDC", "LDSM", "TLD", "TEX", "TLD4"};
  return *kOps;
}

bool IsTexture(const SassInstruction& in) { return in.op == "TLD" || in.op == "TEX"; }

bool Writes(const SassInstruction& in, int reg) {
  const std::vector<int> written = WrittenRegisters(in);
  return std::find(written.begin(), written.end(), reg) != written.end();
}

bool IsLoad(const SassInstruction& in) {
  return std::find(LoadOps().begin(), LoadOps().end(), in.op) != LoadOps().end();
}

// One chase hop: the register the load writes and the one register that
// addresses it ("" if not exactly one).
struct Hop {
  int destination = -1;
  int address = -1;
  bool wide = false;  // a 64-bit address (a register pair)
};

// The one register of `operand`, or -1 if it names none or several.
int OneRegister(const std::string& operand) {
  const std::vector<int> regs = RegisterNumbers(operand);
  return regs.size() == 1 ? regs[0] : -1;
}

Hop HopOf(const SassInstruction& in) {
  Hop hop;
  if (IsTexture(in)) {
    // TLD.LZ RZ, R6, R0, UR4, 0x0, 1D, 0x1: results R6 (and RZ), coordinate R0.
    if (in.operands.size() >= 3) {
      hop.destination = OneRegister(in.operands[0] == "RZ" ? in.operands[1] : in.operands[0]);
      hop.address = OneRegister(in.operands[2]);
    }
    return hop;
  }
  hop.destination = OneRegister(DestinationRegister(in));
  const std::vector<std::string> regs = AddressRegisters(in);
  if (regs.size() == 1) {
    hop.address = OneRegister(regs[0]);
    hop.wide = absl::StrContains(in.text, regs[0] + ".64");
  }
  return hop;
}

std::string Line(const SassFunction& f, size_t i) {
  return absl::StrCat("/*", absl::Hex(f.code[i].address, absl::kZeroPad4), "*/ ", f.code[i].text);
}

// Problems with `loads` (in order) as a chase: each addressed by the
// previous one's destination, nothing in between writing the address.
// `between(i)` lists the instructions between load i-1 and load i.
void CheckHops(const SassFunction& f, const std::vector<size_t>& loads, bool loop_carried,
               const std::vector<size_t>& wrap_between, std::vector<std::string>& problems) {
  for (size_t i = loop_carried ? 0 : 1; i < loads.size(); ++i) {
    const size_t prev = i == 0 ? loads.back() : loads[i - 1];
    const Hop hop = HopOf(f.code[loads[i]]);
    const Hop from = HopOf(f.code[prev]);
    if (hop.address < 0 || hop.address != from.destination) {
      problems.push_back(absl::StrCat("load ", Line(f, loads[i]),
                                      " is not addressed by the previous load's result (",
                                      Line(f, prev), ")"));
      continue;
    }
    std::vector<size_t> between;
    if (i == 0) {
      between = wrap_between;
    } else {
      for (size_t k = prev + 1; k < loads[i]; ++k) between.push_back(k);
    }
    for (size_t k : between) {
      if (Writes(f.code[k], hop.address) || (hop.wide && Writes(f.code[k], hop.address + 1))) {
        problems.push_back(absl::StrCat(Line(f, k), " computes the address of ", Line(f, loads[i]),
                                        " between two hops"));
      }
    }
  }
}

// Problems unless an instruction in (producer, clock) reads `reg`, where
// producer is the last instruction before `clock` that writes `reg`, when
// that is a load (an ALU result arrives in fixed time).
// A load reads its address before it writes its result, so an instruction
// that writes `reg` is its producer even if it also reads it.
void CheckWaitsBefore(const SassFunction& f, size_t clock, int reg, const std::string& what,
                      std::vector<std::string>& problems) {
  for (size_t k = clock; k-- > 0;) {
    const SassInstruction& in = f.code[k];
    if (Writes(in, reg)) {
      if (IsLoad(in)) {
        problems.push_back(absl::StrCat(what, ": the clock read ", Line(f, clock),
                                        " does not wait for the load ", Line(f, k),
                                        " (nothing reads R", reg, " in between)"));
      }
      return;
    }
    if (ReadsRegister(in, reg)) return;
  }
}

}  // namespace

std::string Fragment(const char* kernel, ChasePath path) {
  return absl::StrCat(kernel, "ILNS_9ChasePathE", static_cast<int>(path), "EE");
}

// Everything wrong with ChaseKernel `f` of the path whose load is `op`.
std::vector<std::string> ChaseKernelProblems(const SassFunction& f, const std::string& op) {
  std::vector<std::string> problems;
  const std::vector<size_t> clocks = ClockReads(f);
  std::vector<SassLoop> timed;
  for (const SassLoop& loop : InnermostTimedLoops(f)) {
    if (CountOps(f, loop, {op}) > 0) timed.push_back(loop);
  }
  if (timed.size() != kChaseSegments) {
    problems.push_back(absl::StrCat(timed.size(), " timed loops hold ", op,
                                    ", want one per "
                                    "segment (",
                                    kChaseSegments, ")"));
  }
  for (const SassLoop& loop : timed) {
    const std::string where = absl::StrCat("timed loop at ", Line(f, loop.head));
    const std::vector<size_t> loads = IndicesOfOps(f, loop, {op});
    if (loads.size() != static_cast<size_t>(kChaseUnroll)) {
      problems.push_back(absl::StrCat(where, ": ", loads.size(), " ", op, " a trip, want ",
                                      kChaseUnroll, "\n", LoopListing(f, loop)));
    }
    const int all_loads = CountOps(f, loop, LoadOps());
    if (all_loads != static_cast<int>(loads.size())) {
      problems.push_back(absl::StrCat(where, ": ", all_loads - static_cast<int>(loads.size()),
                                      " other loads in the loop"));
    }
    if (loads.empty()) continue;
    std::vector<size_t> wrap;  // after the last load to the branch, then head to the first
    for (size_t k = loads.back() + 1; k <= loop.branch; ++k) wrap.push_back(k);
    for (size_t k = loop.head; k < loads.front(); ++k) wrap.push_back(k);
    CheckHops(f, loads, /*loop_carried=*/true, wrap, problems);
    // The clock reads around the loop wait for the chase.
    const auto end = std::upper_bound(clocks.begin(), clocks.end(), loop.branch);
    const auto start = std::lower_bound(clocks.begin(), clocks.end(), loop.head);
    if (end == clocks.end() || start == clocks.begin()) {
      problems.push_back(absl::StrCat(where, ": no clock read before and after it"));
      continue;
    }
    CheckWaitsBefore(f, *end, HopOf(f.code[loads.back()]).destination, absl::StrCat(where, ", end"),
                     problems);
    CheckWaitsBefore(f, *(start - 1), HopOf(f.code[loads.front()]).address,
                     absl::StrCat(where, ", start"), problems);
  }
  return problems;
}

// Everything wrong with ChaseTraceKernel `f`: clock reads come in pairs,
// each around exactly one load of `op` whose result is read in between.
std::vector<std::string> TraceKernelProblems(const SassFunction& f, const std::string& op) {
  std::vector<std::string> problems;
  const std::vector<size_t> clocks = ClockReads(f);
  if (clocks.empty() || clocks.size() % 2 != 0) {
    problems.push_back(absl::StrCat(clocks.size(), " clock reads, want pairs"));
    return problems;
  }
  std::vector<size_t> timed_loads;
  for (size_t k = 0; k < clocks.size(); k += 2) {
    const std::vector<size_t> loads = IndicesOfOps(f, clocks[k], clocks[k + 1] + 1, {op});
    const int all_loads = CountOps(f, clocks[k], clocks[k + 1], LoadOps());
    if (loads.size() != 1 || all_loads != 1) {
      problems.push_back(absl::StrCat(all_loads, " loads (", loads.size(), " ", op, ") between ",
                                      Line(f, clocks[k]), " and ", Line(f, clocks[k + 1]),
                                      ", want exactly one ", op));
      continue;
    }
    timed_loads.push_back(loads[0]);
    CheckWaitsBefore(f, clocks[k + 1], HopOf(f.code[loads[0]]).destination, "trace end", problems);
    CheckWaitsBefore(f, clocks[k], HopOf(f.code[loads[0]]).address, "trace start", problems);
  }
  CheckHops(f, timed_loads, /*loop_carried=*/false, {}, problems);
  return problems;
}

}  // namespace dissect
