// SASS checks of the SM-to-L2 map kernel; see l2_map_sass_checks.h.
#include "experiments/sharing/l2_map/l2_map_sass_checks.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/l2_map/l2_map.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// Clock reads a trip: empty, first touch and re-touch intervals.
constexpr size_t kLapClockReads = 6;

// MemoryLoadOps and the loads through the uniform datapath and atomics.
const std::vector<std::string>& LoadOps() {
  static const auto* const kOps = [] {
    auto* ops = new std::vector<std::string>(MemoryLoadOps());
    ops->insert(ops->end(), {"ULDC", "ATOMG", "ATOM"});
    return ops;
  }();
  return *kOps;
}

// The innermost loop of `f` that reads the clock.
std::optional<SassLoop> LapLoop(const SassFunction& f) {
  const std::vector<size_t> clocks = ClockReads(f);
  for (const SassLoop& loop : InnermostLoops(f)) {
    for (size_t c : clocks) {
      if (c >= loop.head && c <= loop.branch) return loop;
    }
  }
  return std::nullopt;
}

// Problems with the timed interval code(open, close): `want_load` says
// whether it must hold exactly one load (else none); returns that load's
// index, or 0 if there is none.
size_t CheckInterval(const SassFunction& f, size_t open, size_t close, bool want_load,
                     const std::string& what, std::vector<std::string>& problems) {
  const std::vector<size_t> loads = IndicesOfOps(f, open + 1, close, LoadOps());
  const std::string where =
      absl::StrCat(what, " (", SassLine(f, open), " .. ", SassLine(f, close), ")");
  if (loads.size() != (want_load ? 1u : 0u)) {
    problems.push_back(absl::StrCat(where, ": ", loads.size(), " loads, want ", want_load ? 1 : 0,
                                    "\n", Listing(f, open, close + 1)));
    return 0;
  }
  if (!want_load) return 0;
  const size_t load = loads[0];
  const int result = OneRegister(DestinationRegister(f.code[load]));
  for (size_t k = open + 1; k < close; ++k) {
    if (k == load || ReadsRegister(f.code[k], result)) continue;
    problems.push_back(absl::StrCat(where, ": ", SassLine(f, k), " is timed with the load"));
  }
  CheckWaitsBefore(f, close, result, absl::StrCat(what, " end"), problems, LoadOps());
  return load;
}

// Problems with `load` as a timed hop: L2-only, 64-bit, addressed by
// register `chain` (+`offset` bytes).
void CheckHop(const SassFunction& f, size_t load, int chain, const std::string& offset,
              std::vector<std::string>& problems) {
  const SassInstruction& in = f.code[load];
  if (in.op != "LDG" || !in.HasModifier("STRONG") || !in.HasModifier("GPU")) {
    problems.push_back(absl::StrCat(SassLine(f, load),
                                    " is not an L2-only load (want LDG...STRONG.GPU, "
                                    "ld.global.cg)"));
  }
  if (!in.HasModifier("64")) {
    problems.push_back(absl::StrCat(SassLine(f, load), " does not load a 64-bit pointer"));
  }
  const std::string want = absl::StrCat("R", chain, ".64", offset, "]");
  if (OneAddressRegister(in) != chain || !absl::StrContains(in.text, want)) {
    problems.push_back(
        absl::StrCat(SassLine(f, load), " is not addressed by [", want, ", the re-touch's result"));
  }
}

}  // namespace

std::vector<std::string> L2MapKernelProblems(const SassFunction& f) {
  std::vector<std::string> problems;
  const std::optional<SassLoop> found = LapLoop(f);
  if (!found.has_value()) {
    problems.push_back("no loop reads the clock: no timed lap");
    return problems;
  }
  const SassLoop loop = *found;
  std::vector<size_t> clocks;
  for (size_t c : ClockReads(f)) {
    if (c >= loop.head && c <= loop.branch) clocks.push_back(c);
  }
  // ptxas may unroll the lap: then each step is a group of kLapClockReads.
  if (clocks.empty() || clocks.size() % kLapClockReads != 0) {
    problems.push_back(absl::StrCat("lap loop: ", clocks.size(), " clock reads, want ",
                                    kLapClockReads, " a line\n", LoopListing(f, loop)));
    return problems;
  }
  const size_t steps = clocks.size() / kLapClockReads;
  // Constant-bank reads (the kernel's arguments) are not memory loads.
  int loads = 0;
  for (size_t k = loop.head; k <= loop.branch; ++k) {
    const std::string& op = f.code[k].op;
    loads += IsMemoryLoad(f.code[k], LoadOps()) && op != "LDC" && op != "ULDC";
  }
  if (loads != static_cast<int>(2 * steps)) {
    problems.push_back(
        absl::StrCat("lap loop: ", loads, " loads, want ", 2 * steps, "\n", LoopListing(f, loop)));
  }
  std::vector<size_t> firsts;
  std::vector<size_t> agains;
  for (size_t g = 0; g < steps; ++g) {
    const size_t* c = &clocks[g * kLapClockReads];
    CheckInterval(f, c[0], c[1], false, "empty interval", problems);
    firsts.push_back(CheckInterval(f, c[2], c[3], true, "first touch", problems));
    agains.push_back(CheckInterval(f, c[4], c[5], true, "re-touch", problems));
  }
  for (size_t g = 0; g < steps; ++g) {
    if (firsts[g] == 0 || agains[g] == 0 || agains[(g + steps - 1) % steps] == 0) continue;
    // Each step is addressed by the previous step's re-touch (loop-carried).
    const int chain = OneRegister(DestinationRegister(f.code[agains[(g + steps - 1) % steps]]));
    CheckHop(f, firsts[g], chain, "", problems);
    CheckHop(f, agains[g], chain, absl::StrCat("+0x", absl::Hex(kL2MapRetouchOffset)), problems);
  }
  for (size_t again : agains) {
    if (again == 0) continue;
    const int chain = OneRegister(DestinationRegister(f.code[again]));
    for (size_t k = loop.head; k <= loop.branch; ++k) {
      if (std::find(agains.begin(), agains.end(), k) != agains.end()) continue;
      if (WritesRegister(f.code[k], chain) || WritesRegister(f.code[k], chain + 1)) {
        problems.push_back(absl::StrCat(SassLine(f, k), " writes the chain's address (R", chain,
                                        ") between two hops"));
      }
    }
  }
  return problems;
}

}  // namespace dissect
