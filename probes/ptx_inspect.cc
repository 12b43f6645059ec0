// PTX text inspection; see ptx_inspect.h.
#include "probes/ptx_inspect.h"

#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dissect {

std::vector<std::string> SplitOperands(absl::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.emplace_back(absl::StripAsciiWhitespace(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!absl::StripAsciiWhitespace(current).empty()) {
    out.emplace_back(absl::StripAsciiWhitespace(current));
  }
  return out;
}

namespace {

bool WritesFirstOperand(const PtxInstruction& in) {
  return !absl::StartsWith(in.opcode, "st.") && !absl::StartsWith(in.opcode, "bra") &&
         !absl::StartsWith(in.opcode, "ret") && !absl::StartsWith(in.opcode, "bar") &&
         !in.operands.empty();
}

}  // namespace

absl::StatusOr<std::string> ExtractEntry(absl::string_view ptx,
                                         absl::string_view name_fragment) {
  size_t found = absl::string_view::npos;
  for (size_t pos = ptx.find(".entry "); pos != absl::string_view::npos;
       pos = ptx.find(".entry ", pos + 1)) {
    const size_t name_end = ptx.find('(', pos);
    if (name_end == absl::string_view::npos) break;
    if (absl::StrContains(ptx.substr(pos, name_end - pos), name_fragment)) {
      if (found != absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("several .entry names contain '", name_fragment, "'"));
      }
      found = pos;
    }
  }
  if (found == absl::string_view::npos) {
    return absl::NotFoundError(
        absl::StrCat("no .entry name contains '", name_fragment, "'"));
  }
  const size_t params_end = ptx.find(')', found);
  const size_t open = ptx.find('{', params_end);
  if (params_end == absl::string_view::npos || open == absl::string_view::npos) {
    return absl::InvalidArgumentError("truncated .entry");
  }
  int depth = 0;
  for (size_t i = open; i < ptx.size(); ++i) {
    if (ptx[i] == '{') ++depth;
    if (ptx[i] == '}' && --depth == 0) {
      return std::string(ptx.substr(open + 1, i - open - 1));
    }
  }
  return absl::InvalidArgumentError("unbalanced braces in .entry");
}

std::vector<PtxInstruction> ParseInstructions(absl::string_view body) {
  std::vector<PtxInstruction> code;
  for (absl::string_view line : absl::StrSplit(body, '\n')) {
    if (const size_t c = line.find("//"); c != absl::string_view::npos) {
      line = line.substr(0, c);
    }
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '.' || line == "{" || line == "}") continue;
    PtxInstruction in;
    in.text = std::string(line);
    if (absl::EndsWith(line, ":")) {
      in.label = std::string(line.substr(0, line.size() - 1));
      code.push_back(std::move(in));
      continue;
    }
    absl::ConsumeSuffix(&line, ";");
    if (!line.empty() && line[0] == '@') {
      const size_t sp = line.find_first_of(" \t");
      in.predicate = std::string(line.substr(0, sp));
      line = absl::StripLeadingAsciiWhitespace(line.substr(sp));
    }
    const size_t sp = line.find_first_of(" \t");
    in.opcode = std::string(line.substr(0, sp));
    if (sp != absl::string_view::npos) in.operands = SplitOperands(line.substr(sp));
    code.push_back(std::move(in));
  }
  return code;
}

std::vector<std::string> OperandRegisters(absl::string_view operand) {
  std::vector<std::string> regs;
  for (size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != '%') continue;
    size_t j = i + 1;
    while (j < operand.size() &&
           (absl::ascii_isalnum(static_cast<unsigned char>(operand[j])) ||
            operand[j] == '_')) {
      ++j;
    }
    regs.emplace_back(operand.substr(i, j - i));
    i = j - 1;
  }
  return regs;
}

int CountOpcodePrefix(const std::vector<PtxInstruction>& code,
                      absl::string_view prefix) {
  int n = 0;
  for (const PtxInstruction& in : code) {
    if (!in.is_label() && absl::StartsWith(in.opcode, prefix)) ++n;
  }
  return n;
}

absl::StatusOr<DependentLoadReport> AnalyzeDependentLoads(
    const std::vector<PtxInstruction>& code, absl::string_view marker,
    absl::string_view load_prefix) {
  std::vector<size_t> markers;
  for (size_t i = 0; i < code.size(); ++i) {
    if (absl::StrContains(code[i].text, marker)) markers.push_back(i);
  }
  if (markers.size() < 2) {
    return absl::NotFoundError(absl::StrCat("fewer than two instructions mention ",
                                            marker));
  }
  DependentLoadReport report;
  std::set<std::string> tainted;  // registers derived from the last load
  int run = 0;
  for (size_t i = markers[0] + 1; i < markers[1]; ++i) {
    const PtxInstruction& in = code[i];
    if (in.is_label() || in.operands.empty()) continue;
    std::vector<std::string> sources;
    for (size_t k = WritesFirstOperand(in) ? 1 : 0; k < in.operands.size(); ++k) {
      for (std::string& r : OperandRegisters(in.operands[k])) sources.push_back(r);
    }
    bool depends = false;
    for (const std::string& r : sources) depends |= tainted.count(r) > 0;
    if (absl::StartsWith(in.opcode, load_prefix)) {
      ++report.loads;
      run = depends ? run + 1 : 1;
      report.longest_dependent_run = std::max(report.longest_dependent_run, run);
      tainted.clear();
      for (std::string& r : OperandRegisters(in.operands[0])) tainted.insert(r);
    } else if (depends && WritesFirstOperand(in)) {
      for (std::string& r : OperandRegisters(in.operands[0])) tainted.insert(r);
    }
  }
  return report;
}

}  // namespace dissect
