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

// The general registers named in an operand: {"R2"} of "R2.64", "-R2",
// "[R2.64+0x10]" or "R2.reuse".
std::vector<std::string> RegistersIn(const std::string& operand) {
  std::vector<std::string> out;
  for (size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != 'R' || (i > 0 && (std::isalnum(operand[i - 1]) || operand[i - 1] == '_'))) {
      continue;
    }
    size_t j = i + 1;
    while (j < operand.size() && std::isdigit(operand[j])) ++j;
    if (j > i + 1) out.push_back(operand.substr(i, j - i));
  }
  return out;
}

// "R(n+1)" of "Rn": the upper half of a 64-bit register pair.
std::string NextRegister(const std::string& reg) {
  return absl::StrCat("R", std::atoi(reg.c_str() + 1) + 1);
}

bool IsStore(const SassInstruction& in) { return absl::StartsWith(in.op, "ST"); }
bool IsTexture(const SassInstruction& in) { return in.op == "TLD" || in.op == "TEX"; }

// Registers `in` writes: its destination (both destinations of a texture
// fetch), with the upper half of a 64-bit result (.64, .WIDE).
std::vector<std::string> Written(const SassInstruction& in) {
  std::vector<std::string> out;
  if (IsStore(in) || in.operands.empty()) return out;
  const bool pair = in.HasModifier("64") || in.HasModifier("WIDE") || in.op == "CS2R";
  const size_t n = IsTexture(in) ? 2 : 1;
  for (size_t k = 0; k < n && k < in.operands.size(); ++k) {
    for (const std::string& r : RegistersIn(in.operands[k])) {
      out.push_back(r);
      if (pair) out.push_back(NextRegister(r));
    }
  }
  return out;
}

bool IsLoad(const SassInstruction& in) {
  return std::find(LoadOps().begin(), LoadOps().end(), in.op) != LoadOps().end();
}

// True if `in` reads `reg` (as a source operand or, for stores, anywhere).
bool Reads(const SassInstruction& in, const std::string& reg) {
  const size_t first = IsStore(in) ? 0 : (IsTexture(in) ? 2 : 1);
  for (size_t k = first; k < in.operands.size(); ++k) {
    for (const std::string& r : RegistersIn(in.operands[k])) {
      if (r == reg) return true;
    }
  }
  return false;
}

// One chase hop: the register the load writes and the one register that
// addresses it ("" if not exactly one).
struct Hop {
  std::string destination;
  std::string address;
  bool wide = false;  // a 64-bit address (a register pair)
};

Hop HopOf(const SassInstruction& in) {
  Hop hop;
  if (IsTexture(in)) {
    // TLD.LZ RZ, R6, R0, UR4, 0x0, 1D, 0x1: results R6 (and RZ), coordinate R0.
    if (in.operands.size() >= 3) {
      hop.destination = in.operands[0] == "RZ" ? in.operands[1] : in.operands[0];
      const std::vector<std::string> regs = RegistersIn(in.operands[2]);
      if (regs.size() == 1) hop.address = regs[0];
    }
    return hop;
  }
  hop.destination = DestinationRegister(in);
  const std::vector<std::string> regs = AddressRegisters(in);
  if (regs.size() == 1) hop.address = regs[0];
  hop.wide = absl::StrContains(in.text, hop.address + ".64");
  return hop;
}

std::string Line(const SassFunction& f, size_t i) {
  return absl::StrCat("/*", absl::Hex(f.code[i].address, absl::kZeroPad4), "*/ ", f.code[i].text);
}

// Indices of the instructions of `op` in code[begin, end].
std::vector<size_t> OpsIn(const SassFunction& f, size_t begin, size_t end, const std::string& op) {
  std::vector<size_t> out;
  for (size_t i = begin; i <= end && i < f.code.size(); ++i) {
    if (f.code[i].op == op) out.push_back(i);
  }
  return out;
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
    if (hop.address.empty() || hop.address != from.destination) {
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
      for (const std::string& w : Written(f.code[k])) {
        if (w == hop.address || (hop.wide && w == NextRegister(hop.address))) {
          problems.push_back(absl::StrCat(Line(f, k), " computes the address of ",
                                          Line(f, loads[i]), " between two hops"));
        }
      }
    }
  }
}

// Problems unless an instruction in (producer, clock) reads `reg`, where
// producer is the last instruction before `clock` that writes `reg`, when
// that is a load (an ALU result arrives in fixed time).
// A load reads its address before it writes its result, so an instruction
// that writes `reg` is its producer even if it also reads it.
void CheckWaitsBefore(const SassFunction& f, size_t clock, const std::string& reg,
                      const std::string& what, std::vector<std::string>& problems) {
  for (size_t k = clock; k-- > 0;) {
    const SassInstruction& in = f.code[k];
    bool writes = false;
    for (const std::string& w : Written(in)) writes |= w == reg;
    if (writes) {
      if (IsLoad(in)) {
        problems.push_back(absl::StrCat(what, ": the clock read ", Line(f, clock),
                                        " does not wait for the load ", Line(f, k),
                                        " (nothing reads ", reg, " in between)"));
      }
      return;
    }
    if (Reads(in, reg)) return;
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
  for (const SassLoop& loop : TimedLoops(f)) {
    bool innermost = true;
    for (const SassLoop& other : TimedLoops(f)) {
      innermost &= !(loop.Contains(other) && other.head != loop.head);
    }
    if (innermost && CountOps(f, loop, {op}) > 0) timed.push_back(loop);
  }
  if (timed.size() != kChaseSegments) {
    problems.push_back(absl::StrCat(timed.size(), " timed loops hold ", op,
                                    ", want one per "
                                    "segment (",
                                    kChaseSegments, ")"));
  }
  for (const SassLoop& loop : timed) {
    const std::string where = absl::StrCat("timed loop at ", Line(f, loop.head));
    const std::vector<size_t> loads = OpsIn(f, loop.head, loop.branch, op);
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
    const std::vector<size_t> loads = OpsIn(f, clocks[k], clocks[k + 1], op);
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
