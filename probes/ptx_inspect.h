// Reads PTX text, so that CPU tests can prove that a probe's timed
// instructions were really emitted (and not optimized away or hoisted).
#ifndef DISSECT_PROBES_PTX_INSPECT_H_
#define DISSECT_PROBES_PTX_INSPECT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect {

struct PtxInstruction {
  std::string label;                  // set for a label line ("$L__BB0_2")
  std::string predicate;              // "@%p1" or "" (labels: "")
  std::string opcode;                 // "ld.shared.u32"
  std::vector<std::string> operands;  // "%r31", "[%r30]", "{%f1, %f2}"
  std::string text;                   // the source line, trimmed
  bool is_label() const { return !label.empty(); }
};

// The body (between the outer braces) of the .entry whose mangled name
// contains `name_fragment`; NotFound if none, InvalidArgument if several.
absl::StatusOr<std::string> ExtractEntry(absl::string_view ptx,
                                         absl::string_view name_fragment);

// Instructions and labels of a function body, directives dropped.
std::vector<PtxInstruction> ParseInstructions(absl::string_view body);

// Splits an instruction's operand text at the commas outside [] and {}
// ("%r1, [%r2+4], {%f1, %f2}" gives three). Shared by the SASS reader.
std::vector<std::string> SplitOperands(absl::string_view text);

// The %registers mentioned in one operand ("[%r30+4]" → {"%r30"}).
std::vector<std::string> OperandRegisters(absl::string_view operand);

// Instructions whose opcode starts with `prefix`.
int CountOpcodePrefix(const std::vector<PtxInstruction>& code,
                      absl::string_view prefix);

struct DependentLoadReport {
  int loads = 0;                 // loads of the kind between the markers
  int longest_dependent_run = 0; // loads in a row, each addressed by the last
};

// Looks between the first and second instruction whose text contains
// `marker` (e.g. "%clock64"). A load (opcode starting with `load_prefix`)
// continues a dependent run when its address is computed from the previous
// such load's result; fails if there are fewer than two markers.
absl::StatusOr<DependentLoadReport> AnalyzeDependentLoads(
    const std::vector<PtxInstruction>& code, absl::string_view marker,
    absl::string_view load_prefix);

}  // namespace dissect

#endif  // DISSECT_PROBES_PTX_INSPECT_H_
