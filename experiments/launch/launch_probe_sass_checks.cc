#include "experiments/launch/launch_probe_sass_checks.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "probes/sass_inspect.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

const std::vector<std::string>& GlobalStoreOps() {
  static const std::vector<std::string> ops = {"STG", "ST"};
  return ops;
}

const std::vector<std::string>& GlobalLoadOps() {
  static const std::vector<std::string> ops = {"LDG", "LD"};
  return ops;
}

bool ReadsGlobalTimer(const SassInstruction& in) {
  return in.ReadsClock() && absl::StrContains(in.text, "SR_GLOBALTIMER");
}

// An unpredicated copy of kernel constants into registers ("LDC R1,
// c[0x0][0x28]", "IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]"): it touches no
// memory and needs nothing from the SM beyond the constant cache.
bool OnlyReadsConstants(const SassInstruction& in) {
  if (!in.predicate.empty() || in.operands.size() < 2) return false;
  for (size_t k = 1; k < in.operands.size(); ++k) {
    const std::string& operand = in.operands[k];
    if (operand != "RZ" && operand != "URZ" && !absl::StartsWith(operand, "c[")) return false;
  }
  return true;
}

// The instruction that last wrote, before the store code[store], every
// register of the value it stores; nullopt if none did, or different
// instructions wrote different parts of it.
std::optional<size_t> StoredValueSource(const SassFunction& f, size_t store) {
  const SassInstruction& in = f.code[store];
  if (in.operands.size() != 2) return std::nullopt;
  const int first = OneRegister(in.operands[1]);
  if (first < 0) return std::nullopt;
  std::optional<size_t> source;
  for (int w = 0; w < ValueWidth(in); ++w) {
    std::optional<size_t> writer;
    for (size_t k = store; k-- > 0;) {
      if (WritesRegister(f.code[k], first + w)) {
        writer = k;
        break;
      }
    }
    if (!writer || (source && *source != *writer)) return std::nullopt;
    source = writer;
  }
  return source;
}

// Appends a problem unless the store code[store] stores a %globaltimer
// read; returns that read's index.
std::optional<size_t> StoredTimerRead(const SassFunction& f, size_t store, const std::string& what,
                                      std::vector<std::string>& problems) {
  const std::optional<size_t> source = StoredValueSource(f, store);
  if (source && ReadsGlobalTimer(f.code[*source])) return source;
  problems.push_back(absl::StrCat(what, ": ", SassLine(f, store),
                                  " does not store a %globaltimer read (its value comes from ",
                                  source ? SassLine(f, *source) : "no one instruction", ")"));
  return std::nullopt;
}

// The first instruction at or after `begin` among `ops` (with modifier
// `modifier` if not empty), or nullopt.
std::optional<size_t> FirstOp(const SassFunction& f, size_t begin,
                              const std::vector<std::string>& ops,
                              const std::string& modifier = "") {
  for (size_t i : IndicesOfOps(f, begin, f.code.size(), ops)) {
    if (modifier.empty() || f.code[i].HasModifier(modifier)) return i;
  }
  return std::nullopt;
}

// The problems of the round after the poll loop `poll` of the handshake.
void CheckHandshakeRound(const SassFunction& f, const SassLoop& poll,
                         std::vector<std::string>& problems) {
  const std::optional<size_t> stamp = FirstOp(f, poll.branch + 1, GlobalStoreOps(), "64");
  if (!stamp) {
    problems.push_back("handshake: no 64-bit store (the stamp) after the poll loop");
    return;
  }
  const std::optional<size_t> answer = StoredTimerRead(f, *stamp, "handshake", problems);
  if (answer && *answer <= poll.branch) {
    problems.push_back(absl::StrCat("handshake: the stamped timer read ", SassLine(f, *answer),
                                    " is not after the poll loop's exit ",
                                    SassLine(f, poll.branch)));
  } else if (answer) {
    const size_t request = IndicesOfOps(f, poll, GlobalLoadOps()).back();
    const int reg = OneRegister(DestinationRegister(f.code[request]));
    CheckWaitsBefore(f, *answer, reg, "handshake", problems, GlobalLoadOps());
  }
  const std::optional<size_t> reply = FirstOp(f, *stamp + 1, GlobalStoreOps());
  const std::optional<size_t> fence = FirstOp(f, *stamp + 1, {"MEMBAR"}, "SYS");
  if (!reply || !fence || *fence > *reply) {
    problems.push_back(absl::StrCat("handshake: no MEMBAR.SYS between the stamp's store ",
                                    SassLine(f, *stamp), " and the reply's"));
  }
}

}  // namespace

std::vector<std::string> StartStampProblems(const SassFunction& f) {
  std::vector<std::string> problems;
  const std::vector<size_t> clocks = ClockReads(f);
  if (clocks.empty() || !ReadsGlobalTimer(f.code[clocks.front()])) {
    problems.push_back("start stamp: the first clock read is not a %globaltimer read");
    return problems;
  }
  const size_t timer = clocks.front();
  for (size_t i = 0; i < timer; ++i) {
    if (!OnlyReadsConstants(f.code[i])) {
      problems.push_back(absl::StrCat("start stamp: ", SassLine(f, i), " precedes the timer read ",
                                      SassLine(f, timer)));
    }
  }
  const std::vector<size_t> stores = IndicesOfOps(f, 0, f.code.size(), GlobalStoreOps());
  if (stores.size() != 1) {
    problems.push_back(absl::StrCat("start stamp: ", stores.size(), " stores where one is written"));
    return problems;
  }
  const std::optional<size_t> stored = StoredTimerRead(f, stores[0], "start stamp", problems);
  if (stored && *stored != timer) {
    problems.push_back(absl::StrCat("start stamp: the store ", SassLine(f, stores[0]),
                                    " stores ", SassLine(f, *stored), ", not the first read"));
  }
  return problems;
}

std::vector<std::string> ClockHandshakeProblems(const SassFunction& f) {
  std::vector<std::string> problems;
  std::vector<SassLoop> polls;
  for (const SassLoop& loop : InnermostLoops(f)) {
    if (CountOps(f, loop, GlobalLoadOps()) > 0) polls.push_back(loop);
  }
  if (polls.size() != 1) {
    problems.push_back(absl::StrCat("handshake: ", polls.size(),
                                    " innermost loops load from memory where one polls"));
    return problems;
  }
  CheckHandshakeRound(f, polls[0], problems);
  return problems;
}

}  // namespace dissect
