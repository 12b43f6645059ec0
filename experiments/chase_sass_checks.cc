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

bool IsTexture(const SassInstruction& in) { return in.op == "TLD" || in.op == "TEX"; }

// One chase hop: the register the load writes and the one register that
// addresses it ("" if not exactly one).
struct Hop {
  int destination = -1;
  int address = -1;
  bool wide = false;  // a 64-bit address (a register pair)
};

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
      problems.push_back(absl::StrCat("load ", SassLine(f, loads[i]),
                                      " is not addressed by the previous load's result (",
                                      SassLine(f, prev), ")"));
      continue;
    }
    std::vector<size_t> between;
    if (i == 0) {
      between = wrap_between;
    } else {
      for (size_t k = prev + 1; k < loads[i]; ++k) between.push_back(k);
    }
    for (size_t k : between) {
      if (WritesRegister(f.code[k], hop.address) ||
          (hop.wide && WritesRegister(f.code[k], hop.address + 1))) {
        problems.push_back(absl::StrCat(SassLine(f, k), " computes the address of ",
                                        SassLine(f, loads[i]), " between two hops"));
      }
    }
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
  const std::vector<SassLoop> timed = InnermostTimedLoopsWith(f, {op});
  if (timed.size() != kChaseSegments) {
    problems.push_back(absl::StrCat(timed.size(), " timed loops hold ", op,
                                    ", want one per "
                                    "segment (",
                                    kChaseSegments, ")"));
  }
  for (const SassLoop& loop : timed) {
    const std::string where = absl::StrCat("timed loop at ", SassLine(f, loop.head));
    const std::vector<size_t> loads = IndicesOfOps(f, loop, {op});
    if (loads.size() != static_cast<size_t>(kChaseUnroll)) {
      problems.push_back(absl::StrCat(where, ": ", loads.size(), " ", op, " a trip, want ",
                                      kChaseUnroll, "\n", LoopListing(f, loop)));
    }
    const int all_loads = CountOps(f, loop, MemoryLoadOps());
    if (all_loads != static_cast<int>(loads.size())) {
      problems.push_back(absl::StrCat(where, ": ", all_loads - static_cast<int>(loads.size()),
                                      " other loads in the loop"));
    }
    if (loads.empty()) continue;
    CheckHops(f, loads, /*loop_carried=*/true, WrapAround(loop, loads.back(), loads.front()),
              problems);
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
    const int all_loads = CountOps(f, clocks[k], clocks[k + 1], MemoryLoadOps());
    if (loads.size() != 1 || all_loads != 1) {
      problems.push_back(absl::StrCat(all_loads, " loads (", loads.size(), " ", op, ") between ",
                                      SassLine(f, clocks[k]), " and ", SassLine(f, clocks[k + 1]),
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

std::vector<std::string> CacheOperatorProblems(const SassFunction& f, ChasePath path) {
  std::vector<std::string> want;
  switch (path) {
    case ChasePath::kGlobalCa:
      want = {"STRONG", "SM"};
      break;
    case ChasePath::kGlobalCg:
      want = {"STRONG", "GPU"};
      break;
    case ChasePath::kLdg:
      want = {"CONSTANT"};
      break;
    default:
      return {};
  }
  std::vector<std::string> problems;
  const std::vector<size_t> clocks = ClockReads(f);
  if (clocks.size() < 2) return problems;
  for (size_t k : IndicesOfOps(f, clocks.front(), clocks.back(), {"LDG"})) {
    for (const std::string& m : want) {
      if (!f.code[k].HasModifier(m)) {
        problems.push_back(
            absl::StrCat(SassLine(f, k), " lacks .", m, ": not the path's cache operator"));
      }
    }
  }
  return problems;
}

}  // namespace dissect
