// SASS reading; see sass_inspect.h.
#include "probes/sass_inspect.h"

#include <stdio.h>

#include <algorithm>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "probes/ptx_inspect.h"

namespace dissect {
namespace {

// Parses "        /*0120*/   @!P1 BRA 0xe0 ;   /* 0xfffffffc00ec9947 */".
std::optional<SassInstruction> ParseLine(absl::string_view line) {
  line = absl::StripLeadingAsciiWhitespace(line);
  if (!absl::ConsumePrefix(&line, "/*")) return std::nullopt;
  const size_t close = line.find("*/");
  if (close == absl::string_view::npos) return std::nullopt;
  int64_t address = 0;
  const std::string hex(line.substr(0, close));
  if (hex.empty() || !absl::ascii_isxdigit(hex[0])) return std::nullopt;
  char* end = nullptr;
  address = std::strtoll(hex.c_str(), &end, 16);
  if (end == nullptr || *end != '\0') return std::nullopt;
  line.remove_prefix(close + 2);
  const size_t semicolon = line.find(';');
  if (semicolon == absl::string_view::npos) return std::nullopt;
  absl::string_view body = absl::StripAsciiWhitespace(line.substr(0, semicolon));
  if (body.empty()) return std::nullopt;

  SassInstruction ins;
  ins.address = address;
  ins.text = std::string(body);
  if (body[0] == '@') {
    const size_t space = body.find(' ');
    ins.predicate = std::string(body.substr(0, space));
    body = absl::StripLeadingAsciiWhitespace(body.substr(space));
  }
  const size_t space = body.find(' ');
  ins.opcode = std::string(body.substr(0, space));
  ins.op = ins.opcode.substr(0, ins.opcode.find('.'));
  if (space != absl::string_view::npos) ins.operands = SplitOperands(body.substr(space + 1));
  return ins;
}

bool IsClockRegister(absl::string_view operand) {
  return absl::StartsWith(operand, "SR_CLOCKLO") || absl::StartsWith(operand, "SR_CLOCKHI") ||
         absl::StartsWith(operand, "SR_GLOBALTIMERLO") ||
         absl::StartsWith(operand, "SR_GLOBALTIMERHI");
}

}  // namespace

bool SassInstruction::HasModifier(absl::string_view modifier) const {
  std::vector<absl::string_view> parts = absl::StrSplit(opcode, '.');
  return std::find(parts.begin() + 1, parts.end(), modifier) != parts.end();
}

std::optional<int64_t> SassInstruction::BranchTarget() const {
  if (op != "BRA" && op != "JMP" && op != "BRX") return std::nullopt;
  for (const std::string& operand : operands) {
    absl::string_view o = operand;
    if (!absl::ConsumePrefix(&o, "0x")) continue;
    char* end = nullptr;
    const std::string hex(o);
    const int64_t target = std::strtoll(hex.c_str(), &end, 16);
    if (end != nullptr && *end == '\0') return target;
  }
  return std::nullopt;
}

bool SassInstruction::ReadsClock() const {
  if (op != "CS2R" && op != "CS2UR" && op != "S2R" && op != "S2UR") return false;
  return std::any_of(operands.begin(), operands.end(),
                     [](const std::string& o) { return IsClockRegister(o); });
}

absl::StatusOr<std::vector<SassFunction>> ParseCuobjdumpSass(absl::string_view text) {
  std::vector<SassFunction> functions;
  std::string arch;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    if (absl::StartsWith(trimmed, "arch = ")) {
      arch = std::string(absl::StripAsciiWhitespace(trimmed.substr(7)));
      continue;
    }
    if (absl::StartsWith(trimmed, "Function : ")) {
      functions.push_back(
          SassFunction{std::string(absl::StripAsciiWhitespace(trimmed.substr(11))), arch, {}});
      continue;
    }
    if (functions.empty()) continue;
    if (std::optional<SassInstruction> ins = ParseLine(line)) {
      functions.back().code.push_back(std::move(*ins));
    }
  }
  if (functions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no 'Function :' in the SASS text (",
                                                   text.size(), " bytes): ", text.substr(0, 200)));
  }
  return functions;
}

absl::StatusOr<std::string> RunCuobjdumpSass(const std::string& cuobjdump,
                                             const std::string& path) {
  const std::string command = absl::StrCat("'", cuobjdump, "' -sass '", path, "' 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError(absl::StrCat("cannot run ", command));
  std::string out;
  char buffer[1 << 16];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0) {
    return absl::InternalError(
        absl::StrCat(command, " exited with ", status, ": ", out.substr(0, 1000)));
  }
  return out;
}

absl::StatusOr<const SassFunction*> FindSassFunction(const std::vector<SassFunction>& functions,
                                                     const std::vector<std::string>& fragments,
                                                     absl::string_view arch) {
  const SassFunction* found = nullptr;
  std::vector<std::string> matches;
  for (const SassFunction& f : functions) {
    if (!arch.empty() && f.arch != arch) continue;
    const bool all = std::all_of(fragments.begin(), fragments.end(), [&](const std::string& s) {
      return absl::StrContains(f.name, s);
    });
    if (!all) continue;
    found = &f;
    matches.push_back(f.name);
  }
  const std::string what = absl::StrCat("[", absl::StrJoin(fragments, ", "), "]",
                                        arch.empty() ? "" : absl::StrCat(" on ", arch));
  if (matches.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no SASS function matches ", what, " among ", functions.size()));
  }
  if (matches.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(matches.size(), " SASS functions match ", what,
                                                   ": ", absl::StrJoin(matches, ", ")));
  }
  return found;
}

std::vector<SassLoop> FindLoops(const SassFunction& f) {
  std::vector<SassLoop> loops;
  for (size_t i = 0; i < f.code.size(); ++i) {
    const std::optional<int64_t> target = f.code[i].BranchTarget();
    if (!target.has_value() || *target >= f.code[i].address) continue;
    for (size_t h = 0; h < i; ++h) {
      if (f.code[h].address == *target) {
        loops.push_back(SassLoop{h, i});
        break;
      }
    }
  }
  std::sort(loops.begin(), loops.end(), [](const SassLoop& a, const SassLoop& b) {
    return a.head != b.head ? a.head < b.head : a.branch > b.branch;
  });
  return loops;
}

std::vector<SassLoop> InnermostLoops(const SassFunction& f) {
  const std::vector<SassLoop> all = FindLoops(f);
  std::vector<SassLoop> out;
  for (size_t i = 0; i < all.size(); ++i) {
    bool holds_another = false;
    for (size_t j = 0; j < all.size(); ++j) {
      if (i != j && all[i].Contains(all[j]) &&
          (all[i].head != all[j].head || all[i].branch != all[j].branch)) {
        holds_another = true;
      }
    }
    if (!holds_another) out.push_back(all[i]);
  }
  return out;
}

std::vector<size_t> ClockReads(const SassFunction& f) {
  std::vector<size_t> out;
  for (size_t i = 0; i < f.code.size(); ++i) {
    if (f.code[i].ReadsClock()) out.push_back(i);
  }
  return out;
}

std::vector<SassLoop> TimedLoops(const SassFunction& f) {
  const std::vector<size_t> clocks = ClockReads(f);
  if (clocks.size() < 2) return {};
  std::vector<SassLoop> out;
  for (const SassLoop& loop : FindLoops(f)) {
    if (loop.head > clocks.front() && loop.branch < clocks.back()) out.push_back(loop);
  }
  return out;
}

std::vector<SassLoop> InnermostTimedLoops(const SassFunction& f) {
  const std::vector<SassLoop> timed = TimedLoops(f);
  std::vector<SassLoop> out;
  for (const SassLoop& loop : timed) {
    const bool innermost = std::none_of(timed.begin(), timed.end(), [&](const SassLoop& other) {
      return loop.Contains(other) && (other.head != loop.head || other.branch != loop.branch);
    });
    if (innermost) out.push_back(loop);
  }
  return out;
}

std::vector<SassLoop> InnermostTimedLoopsWith(const SassFunction& f,
                                              const std::vector<std::string>& ops) {
  std::vector<SassLoop> out;
  for (const SassLoop& loop : InnermostTimedLoops(f)) {
    if (CountOps(f, loop, ops) > 0) out.push_back(loop);
  }
  return out;
}

std::vector<size_t> WrapAround(const SassLoop& loop, size_t last, size_t first) {
  std::vector<size_t> out;
  for (size_t k = last + 1; k <= loop.branch; ++k) out.push_back(k);
  for (size_t k = loop.head; k < first; ++k) out.push_back(k);
  return out;
}

absl::StatusOr<SassLoop> FindTimedLoop(const SassFunction& f, const std::vector<std::string>& ops) {
  std::optional<SassLoop> best;
  int best_count = -1;
  for (const SassLoop& loop : InnermostTimedLoops(f)) {
    const int n = CountOps(f, loop, ops);
    if (n > best_count) {
      best = loop;
      best_count = n;
    }
  }
  if (!best.has_value()) {
    return absl::NotFoundError(absl::StrCat(f.name, " (", f.arch, "): no loop between its ",
                                            ClockReads(f).size(), " clock reads"));
  }
  return *best;
}

int CountOps(const SassFunction& f, size_t begin, size_t end, const std::vector<std::string>& ops) {
  int n = 0;
  end = std::min(end, f.code.size());
  for (size_t i = begin; i < end; ++i) {
    if (std::find(ops.begin(), ops.end(), f.code[i].op) != ops.end()) ++n;
  }
  return n;
}

std::vector<size_t> IndicesOfOps(const SassFunction& f, size_t begin, size_t end,
                                 const std::vector<std::string>& ops) {
  std::vector<size_t> out;
  end = std::min(end, f.code.size());
  for (size_t i = begin; i < end; ++i) {
    if (std::find(ops.begin(), ops.end(), f.code[i].op) != ops.end()) out.push_back(i);
  }
  return out;
}

std::vector<int> RegisterNumbers(absl::string_view operand) {
  std::vector<int> out;
  for (size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != 'R' ||
        (i > 0 && (absl::ascii_isalnum(operand[i - 1]) || operand[i - 1] == '_'))) {
      continue;
    }
    size_t j = i + 1;
    while (j < operand.size() && absl::ascii_isdigit(operand[j])) ++j;
    int r = 0;
    if (j > i + 1 && absl::SimpleAtoi(operand.substr(i + 1, j - i - 1), &r)) out.push_back(r);
  }
  return out;
}

namespace {

bool IsStore(const SassInstruction& in) { return absl::StartsWith(in.op, "ST"); }
bool IsTexture(const SassInstruction& in) { return in.op == "TLD" || in.op == "TEX"; }
bool IsBranch(const SassInstruction& in) {
  return in.op == "BRA" || in.op == "BRX" || in.op == "JMP";
}

}  // namespace

int ValueWidth(const SassInstruction& instruction) {
  if (instruction.HasModifier("128")) return 4;
  // CS2R.32 (sm_120 code) reads the low word of a clock into one register.
  if (instruction.HasModifier("32")) return 1;
  if (instruction.HasModifier("64") || instruction.HasModifier("WIDE") ||
      instruction.op == "CS2R") {
    return 2;
  }
  return 1;
}

std::vector<int> WrittenRegisters(const SassInstruction& instruction) {
  std::vector<int> out;
  if (IsStore(instruction) || IsBranch(instruction)) return out;
  const size_t destinations =
      std::min<size_t>(IsTexture(instruction) ? 2 : 1, instruction.operands.size());
  for (size_t k = 0; k < destinations; ++k) {
    for (int r : RegisterNumbers(instruction.operands[k])) {
      for (int w = 0; w < ValueWidth(instruction); ++w) out.push_back(r + w);
    }
  }
  return out;
}

bool ReadsRegister(const SassInstruction& instruction, int reg) {
  const bool store = IsStore(instruction);
  const size_t first = store ? 0 : IsTexture(instruction) ? 2 : 1;
  for (size_t k = first; k < instruction.operands.size(); ++k) {
    for (int r : RegisterNumbers(instruction.operands[k])) {
      if (r == reg) return true;
    }
  }
  if (store && instruction.operands.size() == 2) {
    const std::vector<int> value = RegisterNumbers(instruction.operands[1]);
    if (!value.empty() && reg > value[0] && reg < value[0] + ValueWidth(instruction)) return true;
  }
  return false;
}

std::string DestinationRegister(const SassInstruction& instruction) {
  if (instruction.operands.empty()) return "";
  return instruction.operands.front();
}

std::vector<std::string> AddressRegisters(const SassInstruction& instruction) {
  std::vector<std::string> out;
  for (const std::string& operand : instruction.operands) {
    // The address is the last [...] group ("desc[UR4][R2.64+0x4]",
    // "c[0x3][R4]"); c[0x0][0x210] holds no register.
    const size_t open = operand.rfind('[');
    const size_t close = operand.rfind(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    for (absl::string_view part :
         absl::StrSplit(operand.substr(open + 1, close - open - 1), absl::ByAnyChar("+-"))) {
      part = absl::StripAsciiWhitespace(part);
      const absl::string_view reg = part.substr(0, part.find('.'));
      if (reg.size() >= 2 && reg[0] == 'R' && reg != "RZ" &&
          std::all_of(reg.begin() + 1, reg.end(), absl::ascii_isdigit)) {
        out.emplace_back(reg);
      }
    }
    if (!out.empty()) break;
  }
  return out;
}

bool WritesRegister(const SassInstruction& instruction, int reg) {
  const std::vector<int> written = WrittenRegisters(instruction);
  return std::find(written.begin(), written.end(), reg) != written.end();
}

int OneRegister(absl::string_view operand) {
  const std::vector<int> regs = RegisterNumbers(operand);
  return regs.size() == 1 ? regs[0] : -1;
}

int OneAddressRegister(const SassInstruction& instruction) {
  const std::vector<std::string> regs = AddressRegisters(instruction);
  return regs.size() == 1 ? OneRegister(regs[0]) : -1;
}

const std::vector<std::string>& MemoryLoadOps() {
  static const auto* const kOps =
      new std::vector<std::string>{"LD", "LDG", "LDS", "LDL", "LDC", "LDSM", "TLD", "TEX", "TLD4"};
  return *kOps;
}

bool IsMemoryLoad(const SassInstruction& instruction, const std::vector<std::string>& ops) {
  return std::find(ops.begin(), ops.end(), instruction.op) != ops.end();
}

}  // namespace dissect
