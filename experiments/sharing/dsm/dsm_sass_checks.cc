// SASS checks of the DSM kernels; see dsm_sass_checks.h.
#include "experiments/sharing/dsm/dsm_sass_checks.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/pointer_chase.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// How many registers the address of `load` spans: a generic LD and any
// "[Rn.64]" address take a register pair, LDS one register.
int AddressWidth(const SassInstruction& load) {
  if (load.op == "LD") return 2;
  for (const std::string& operand : load.operands) {
    if (operand.find('[') != std::string::npos && operand.find(".64") != std::string::npos) {
      return 2;
    }
  }
  return 1;
}

// `between`: the instructions from after `prev` to before `load`, in order.
// The hop is the load alone: its whole address is the previous load's
// result, as loaded. Any instruction in between that writes an address
// register (a copy, arithmetic, or pairing the loaded word with the shared
// window's upper word) adds its latency to every hop.
void CheckHop(const SassFunction& f, size_t prev, size_t load, const std::vector<size_t>& between,
              std::vector<std::string>& problems) {
  const int result = OneRegister(DestinationRegister(f.code[prev]));
  const int address = OneAddressRegister(f.code[load]);
  if (address < 0 || result < 0) {
    problems.push_back(absl::StrCat("cannot read the hop ", SassLine(f, load)));
    return;
  }
  const int width = AddressWidth(f.code[load]);
  for (size_t k : between) {
    for (int w = 0; w < width; ++w) {
      if (!WritesRegister(f.code[k], address + w)) continue;
      problems.push_back(absl::StrCat(SassLine(f, k),
                                      " sits in the chain: it writes the address of ",
                                      SassLine(f, load), " between two hops"));
      return;
    }
  }
  if (address != result || ValueWidth(f.code[prev]) < width) {
    problems.push_back(absl::StrCat("load ", SassLine(f, load),
                                    " is not addressed by the previous load's whole result (",
                                    SassLine(f, prev), ")"));
  }
}

}  // namespace

std::vector<std::string> DsmChaseProblems(const SassFunction& f, const std::string& op,
                                          bool expect_mapa) {
  std::vector<std::string> problems;
  const std::vector<size_t> clocks = ClockReads(f);
  const std::vector<SassLoop> timed = InnermostTimedLoopsWith(f, {op});
  if (timed.size() != kChaseSegments) {
    problems.push_back(absl::StrCat(timed.size(), " timed loops hold ", op,
                                    ", want one per segment (", kChaseSegments, ")"));
  }
  for (const SassLoop& loop : timed) {
    const std::string where = absl::StrCat("timed loop at ", SassLine(f, loop.head));
    const std::vector<size_t> loads = IndicesOfOps(f, loop, {op});
    if (loads.size() != static_cast<size_t>(kChaseUnroll)) {
      problems.push_back(absl::StrCat(where, ": ", loads.size(), " ", op, " a trip, want ",
                                      kChaseUnroll, "\n", LoopListing(f, loop)));
    }
    int other = 0;
    for (size_t k = loop.head; k <= loop.branch; ++k) {
      if (IsMemoryLoad(f.code[k]) && f.code[k].op != op) ++other;
    }
    if (other > 0) problems.push_back(absl::StrCat(where, ": ", other, " other loads in the loop"));
    if (CountOps(f, loop, {"PRMT"}) > 0) {
      problems.push_back(absl::StrCat(where, ": a PRMT (mapa) inside the timed loop"));
    }
    if (loads.empty()) continue;
    for (size_t i = 0; i < loads.size(); ++i) {
      std::vector<size_t> between;
      size_t prev = 0;
      if (i == 0) {
        // Loop-carried: from the last load to the branch, then from the head.
        prev = loads.back();
        between = WrapAround(loop, loads.back(), loads.front());
      } else {
        prev = loads[i - 1];
        for (size_t k = prev + 1; k < loads[i]; ++k) between.push_back(k);
      }
      CheckHop(f, prev, loads[i], between, problems);
    }
    // The end clock read waits for the last load.
    const auto end = std::upper_bound(clocks.begin(), clocks.end(), loop.branch);
    if (end == clocks.end()) {
      problems.push_back(absl::StrCat(where, ": no clock read after it"));
      continue;
    }
    const int last = OneRegister(DestinationRegister(f.code[loads.back()]));
    bool waited = false;
    for (size_t k = loop.branch + 1; k < *end && !waited; ++k) {
      waited = ReadsRegister(f.code[k], last);
    }
    if (!waited) {
      problems.push_back(absl::StrCat(where, ": the clock read ", SassLine(f, *end),
                                      " does not wait for the last load"));
    }
  }
  if (expect_mapa && !timed.empty()) {
    if (CountOps(f, 0, timed.front().head, {"PRMT"}) == 0) {
      problems.push_back("no PRMT (mapa) before the first timed loop");
    }
  }
  return problems;
}

std::vector<std::string> DsmStreamProblems(const SassFunction& f, const std::string& op,
                                           int unroll) {
  std::vector<std::string> problems;
  auto wide = [&](size_t begin, size_t end) {
    int n = 0;
    for (size_t k = begin; k < end; ++k) {
      n += f.code[k].op == op && f.code[k].HasModifier("128");
    }
    return n;
  };
  const std::vector<SassLoop> inner = InnermostLoops(f);
  const SassLoop* best = nullptr;
  int best_count = 0;
  for (const SassLoop& loop : inner) {
    const int n = wide(loop.head, loop.branch + 1);
    if (n > best_count) {
      best = &loop;
      best_count = n;
    }
  }
  if (best == nullptr) {
    problems.push_back(absl::StrCat("no loop holds ", op, ".128"));
    return problems;
  }
  if (best_count != unroll) {
    problems.push_back(absl::StrCat(best_count, " ", op, ".128 a trip, want ", unroll, "\n",
                                    LoopListing(f, *best)));
  }
  int other = 0;
  for (size_t k = best->head; k <= best->branch; ++k) {
    if (IsMemoryLoad(f.code[k]) && !(f.code[k].op == op && f.code[k].HasModifier("128"))) ++other;
  }
  if (other > 0) problems.push_back(absl::StrCat(other, " other loads in the stream loop"));
  bool nested = false;
  for (const SassLoop& outer : FindLoops(f)) {
    nested |= outer.size() > best->size() && outer.Contains(*best);
  }
  if (!nested) {
    problems.push_back("the stream loop lies in no pass loop: the loads were hoisted out of it");
  }
  return problems;
}

}  // namespace dissect
