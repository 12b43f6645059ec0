// SASS checks of the SM-to-L2 map kernel; see l2_map_sass_checks.h.
#include "experiments/sharing/l2_map/l2_map_sass_checks.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/l2_map/l2_map.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// MemoryLoadOps and the loads through the uniform datapath and atomics.
const std::vector<std::string>& LoadOps() {
  static const auto* const kOps = [] {
    auto* ops = new std::vector<std::string>(MemoryLoadOps());
    ops->insert(ops->end(), {"ULDC", "ATOMG", "ATOM"});
    return ops;
  }();
  return *kOps;
}

// A problem unless some instruction between the last load before `clock`
// that writes `reg` and `clock` reads `reg` (a read waits for the load), or
// if nothing before `clock` writes `reg`.
void CheckWaits(const SassFunction& f, size_t clock, int reg, const std::string& what,
                std::vector<std::string>& problems) {
  if (!CheckWaitsBefore(f, clock, reg, what, problems, LoadOps())) {
    problems.push_back(
        absl::StrCat(what, ": nothing before ", SassLine(f, clock), " writes R", reg));
  }
}

}  // namespace

std::vector<std::string> L2MapKernelProblems(const SassFunction& f) {
  std::vector<std::string> problems;
  const absl::StatusOr<SassLoop> found = FindTimedLoop(f, {"LDG"});
  if (!found.ok()) {
    problems.push_back(absl::StrCat("no timed loop with LDG: ", found.status().message()));
    return problems;
  }
  const SassLoop loop = *found;
  const std::string listing = LoopListing(f, loop);
  const std::vector<size_t> loads = IndicesOfOps(f, loop, {"LDG"});
  if (loads.size() != static_cast<size_t>(kL2MapUnroll)) {
    problems.push_back(absl::StrCat("timed loop: ", loads.size(), " LDG a trip, want ",
                                    kL2MapUnroll, "\n", listing));
  }
  const int all_loads = CountOps(f, loop, LoadOps());
  if (all_loads != static_cast<int>(loads.size())) {
    problems.push_back(absl::StrCat("timed loop: ", all_loads - static_cast<int>(loads.size()),
                                    " other loads\n", listing));
  }
  if (loads.empty()) return problems;

  std::set<int> address_registers;
  for (size_t i = 0; i < loads.size(); ++i) {
    const SassInstruction& in = f.code[loads[i]];
    if (!in.HasModifier("STRONG") || !in.HasModifier("GPU")) {
      problems.push_back(absl::StrCat(SassLine(f, loads[i]),
                                      " is not an L2-only load (want LDG...STRONG.GPU, "
                                      "ld.global.cg)"));
    }
    if (!in.HasModifier("64")) {
      problems.push_back(absl::StrCat(SassLine(f, loads[i]), " does not load a 64-bit pointer"));
    }
    const size_t prev = i == 0 ? loads.back() : loads[i - 1];
    const int address = OneAddressRegister(in);
    if (address < 0 || address != OneRegister(DestinationRegister(f.code[prev]))) {
      problems.push_back(absl::StrCat(SassLine(f, loads[i]),
                                      " is not addressed by the previous load's result (",
                                      SassLine(f, prev), ")"));
    }
    if (address >= 0) {
      address_registers.insert(address);
      address_registers.insert(address + 1);
    }
  }
  int overhead = 0;
  for (size_t k = loop.head; k <= loop.branch; ++k) {
    const SassInstruction& in = f.code[k];
    if (in.op == "LDG") continue;
    ++overhead;
    for (int reg : address_registers) {
      if (WritesRegister(in, reg)) {
        problems.push_back(
            absl::StrCat(SassLine(f, k), " computes an address (R", reg, ") between two hops"));
      }
    }
  }
  if (overhead > kMaxLoopOverhead) {
    problems.push_back(absl::StrCat("timed loop: ", overhead,
                                    " instructions besides the loads, want at most ",
                                    kMaxLoopOverhead, "\n", listing));
  }

  const std::vector<size_t> clocks = ClockReads(f);
  const auto end = std::upper_bound(clocks.begin(), clocks.end(), loop.branch);
  const auto start = std::lower_bound(clocks.begin(), clocks.end(), loop.head);
  if (end == clocks.end() || start == clocks.begin()) {
    problems.push_back("no clock read before and after the timed loop");
    return problems;
  }
  CheckWaits(f, *end, OneRegister(DestinationRegister(f.code[loads.back()])), "end", problems);
  CheckWaits(f, *(start - 1), OneAddressRegister(f.code[loads.front()]), "start", problems);
  return problems;
}

}  // namespace dissect
