// SASS checks of the instruction kernels; see instruction_sass_checks.h.
#include "experiments/instructions/instruction_sass_checks.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "kernels/instruction_ops.h"
#include "kernels/pointer_chase.h"
#include "probes/sass_test_util.h"

namespace dissect {
namespace {

// "P0".."P6": an operand that names a predicate register (PT, the
// constant true, is none: sm_100 code writes IADD3's carries to PT).
bool IsPredicateRegister(absl::string_view operand) {
  return operand.size() == 2 && operand[0] == 'P' && operand[1] >= '0' && operand[1] <= '6';
}

// The position of `in` in `step` (the first whose opcodes hold its
// opcode), or nullopt if it is no step instruction. An instruction that
// writes a predicate besides a register result (the loop counter's IADD3
// with its carry) is none: no chain step writes one. (VOTE.ALL P0, P0
// writes a predicate as its only result.)
std::optional<size_t> StepPosition(const SassInstruction& in, const SassStep& step) {
  if (in.operands.size() > 1 && IsPredicateRegister(in.operands[1]) &&
      !IsPredicateRegister(in.operands[0])) {
    return std::nullopt;
  }
  for (size_t p = 0; p < step.size(); ++p) {
    if (std::find(step[p].begin(), step[p].end(), in.opcode) != step[p].end()) return p;
  }
  return std::nullopt;
}

// The registers an operand names, as "R4", "UR6", "P0" or "UP1": general,
// uniform and predicate registers, so that a chain through a uniform
// register (REDUX.SUM UR6 then MOV R7, UR6) or a predicate (ISETP then
// VOTE) is followed too. The constant ones (RZ, URZ, PT, UPT) name none;
// "R2.64" names R2 (a 64-bit value by its first register on both ends).
std::vector<std::string> RegisterNames(absl::string_view operand) {
  std::vector<std::string> names;
  for (size_t i = 0; i < operand.size();) {
    const bool boundary = i == 0 || !std::isalnum(static_cast<unsigned char>(operand[i - 1]));
    size_t prefix = 0;
    for (absl::string_view p : {"UR", "UP", "R", "P"}) {
      if (boundary && absl::StartsWith(operand.substr(i), p)) {
        prefix = p.size();
        break;
      }
    }
    size_t end = i + prefix;
    while (prefix > 0 && end < operand.size() &&
           std::isdigit(static_cast<unsigned char>(operand[end]))) {
      ++end;
    }
    if (prefix > 0 && end > i + prefix &&
        (end == operand.size() || !std::isalnum(static_cast<unsigned char>(operand[end])))) {
      names.emplace_back(operand.substr(i, end - i));
      i = end;
    } else {
      ++i;
    }
  }
  return names;
}

bool IsPredicateOperand(absl::string_view operand) {
  absl::ConsumePrefix(&operand, "!");
  return absl::StartsWith(operand, "P") || absl::StartsWith(operand, "UP");
}

// How many leading operands `in` writes: two when the first is a predicate
// (ISETP P0, PT, ...; SHFL PT, R5, ...) or the second is a carry predicate
// (IADD3 R2, P0, ...), one otherwise; VOTE writes only its first. Memory
// operands ([UR4]) are addresses, not results; stores and branches write
// none of theirs.
size_t Destinations(const SassInstruction& in) {
  if (in.operands.empty() || in.operands[0].front() == '[' || in.op == "BRA" ||
      absl::StartsWith(in.op, "ST")) {
    return 0;
  }
  if (in.op == "VOTE" || in.operands.size() < 2) return 1;
  if (IsPredicateOperand(in.operands[0]) || IsPredicateRegister(in.operands[1])) return 2;
  return 1;
}

bool Writes(const SassInstruction& in, const std::string& name) {
  for (size_t o = 0; o < Destinations(in); ++o) {
    for (const std::string& n : RegisterNames(in.operands[o])) {
      if (n == name) return true;
    }
  }
  return false;
}

// The last instruction of `loop` before code[j] (going round through the
// branch, code[j] itself last) that writes register `name`; nullopt if none
// in the loop does (a value from before the loop).
std::optional<size_t> LastWriter(const SassFunction& f, const SassLoop& loop, size_t j,
                                 const std::string& name) {
  for (size_t n = 1; n <= loop.size(); ++n) {
    const size_t k = loop.head + (j - loop.head + loop.size() - n) % loop.size();
    if (Writes(f.code[k], name)) return k;
  }
  return std::nullopt;
}

// The registers some instruction of `loop` writes: a register outside it
// holds a loop-invariant value, and looking for its writer (round the whole
// loop) is skipped, which keeps the check fast on loops of a thousand steps.
std::set<std::string> WrittenInLoop(const SassFunction& f, const SassLoop& loop) {
  std::set<std::string> written;
  for (size_t k = loop.head; k <= loop.branch; ++k) {
    const SassInstruction& in = f.code[k];
    for (size_t o = 0; o < Destinations(in); ++o) {
      for (std::string& n : RegisterNames(in.operands[o])) written.insert(std::move(n));
    }
  }
  return written;
}

// Whether code[k] reads no register that an instruction of `loop` writes:
// a reload of a loop-invariant value (LDC R9, c[0x0][0x21c]: a CAS's
// operand pair refilled every step), which no chain value flows through.
bool ReadsNothingFromTheLoop(const SassFunction& f, const std::set<std::string>& written,
                             size_t k) {
  const SassInstruction& in = f.code[k];
  for (size_t o = Destinations(in); o < in.operands.size(); ++o) {
    for (const std::string& name : RegisterNames(in.operands[o])) {
      if (written.count(name) != 0) return false;
    }
  }
  return true;
}

// The step instruction whose result code[j] reads, or a problem.
std::optional<size_t> Producer(const SassFunction& f, const SassLoop& loop,
                               const std::set<std::string>& written, size_t j,
                               std::vector<std::string>& problems) {
  std::vector<size_t> producers;
  const SassInstruction& in = f.code[j];
  for (size_t o = Destinations(in); o < in.operands.size(); ++o) {
    for (const std::string& name : RegisterNames(in.operands[o])) {
      if (written.count(name) == 0) continue;  // loop-invariant
      const std::optional<size_t> w = LastWriter(f, loop, j, name);
      if (w && !ReadsNothingFromTheLoop(f, written, *w) &&
          std::find(producers.begin(), producers.end(), *w) == producers.end()) {
        producers.push_back(*w);
      }
    }
  }
  if (producers.size() != 1) {
    problems.push_back(absl::StrCat(SassLine(f, j), " reads ", producers.size(),
                                    " values computed in the loop, want 1 (the previous step's)"));
    return std::nullopt;
  }
  return producers[0];
}

}  // namespace

SassStep ParseSassStep(const std::string& sequence) {
  SassStep step;
  for (absl::string_view part : absl::StrSplit(sequence, '+')) {
    std::vector<std::string> forms;
    for (absl::string_view form : absl::StrSplit(part, '|')) {
      forms.emplace_back(absl::StripAsciiWhitespace(form));
    }
    step.push_back(forms);
  }
  return step;
}

std::vector<std::string> StepOps(const SassStep& step) {
  std::vector<std::string> ops;
  for (const std::vector<std::string>& forms : step) {
    for (const std::string& form : forms) {
      std::string op(form.substr(0, form.find('.')));
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    }
  }
  return ops;
}

std::vector<std::string> ChainLoopProblems(const SassFunction& f, const SassLoop& loop,
                                           const SassStep& step, int chains, int steps,
                                           bool value_chain) {
  std::vector<std::string> problems;
  std::map<size_t, size_t> position;  // member index -> its position in the step
  for (size_t j = loop.head; j <= loop.branch; ++j) {
    if (const std::optional<size_t> p = StepPosition(f.code[j], step)) position[j] = *p;
  }
  const size_t want = static_cast<size_t>(chains) * steps * step.size();
  if (position.size() != want) {
    problems.push_back(absl::StrCat("the loop holds ", position.size(), " step instructions, want ",
                                    want, " (", chains, " x ", steps, " x ", step.size(), "):\n",
                                    LoopListing(f, loop)));
    return problems;
  }
  if (!value_chain) return problems;
  const std::set<std::string> written = WrittenInLoop(f, loop);
  std::map<size_t, size_t> producer_of;
  std::map<size_t, size_t> consumer_of;
  for (const auto& [j, p] : position) {
    const std::optional<size_t> from = Producer(f, loop, written, j, problems);
    if (!from) continue;
    const auto it = position.find(*from);
    if (it == position.end()) {
      problems.push_back(absl::StrCat(SassLine(f, j), " reads ", SassLine(f, *from),
                                      ", which is not a step of the chain"));
    } else if (it->second != (p + step.size() - 1) % step.size()) {
      problems.push_back(absl::StrCat(SassLine(f, j), " follows ", SassLine(f, *from),
                                      " out of the step's order"));
    } else if (!consumer_of.emplace(*from, j).second) {
      problems.push_back(absl::StrCat(SassLine(f, *from), " feeds two steps"));
    } else {
      producer_of[j] = *from;
    }
  }
  if (!problems.empty()) return problems;
  // Every member has one producer and one consumer: the links are cycles.
  std::map<size_t, bool> seen;
  int cycles = 0;
  for (const auto& [j, p] : position) {
    if (seen[j]) continue;
    size_t length = 0;
    for (size_t k = j; !seen[k]; k = producer_of[k]) {
      seen[k] = true;
      ++length;
    }
    ++cycles;
    if (length != static_cast<size_t>(steps) * step.size()) {
      problems.push_back(absl::StrCat("a chain through ", SassLine(f, j), " has ", length,
                                      " instructions, want ", steps * step.size()));
    }
  }
  if (cycles != chains) {
    problems.push_back(absl::StrCat("the loop holds ", cycles, " chains, want ", chains));
  }
  return problems;
}

std::vector<std::string> LatencyKernelProblems(const SassFunction& f, const SassStep& step,
                                               bool value_chain, int steps) {
  const std::vector<SassLoop> loops = InnermostTimedLoopsWith(f, StepOps(step));
  if (loops.size() != kChaseSegments) {
    return {absl::StrCat(loops.size(), " innermost timed loops hold ",
                         absl::StrJoin(StepOps(step), "/"), ", want ", kChaseSegments,
                         " (one per segment)")};
  }
  std::vector<std::string> problems;
  for (const SassLoop& loop : loops) {
    for (std::string& p : ChainLoopProblems(f, loop, step, 1, steps, value_chain)) {
      problems.push_back(std::move(p));
    }
  }
  return problems;
}

std::vector<std::string> ThroughputKernelProblems(const SassFunction& f, const SassStep& step,
                                                  int chains, bool value_chain) {
  const absl::StatusOr<SassLoop> loop = FindTimedLoop(f, StepOps(step));
  if (!loop.ok()) return {std::string(loop.status().message())};
  return ChainLoopProblems(f, *loop, step, chains, kInstructionUnroll, value_chain);
}

}  // namespace dissect
