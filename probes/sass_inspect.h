// Reads machine code (SASS, as `cuobjdump -sass` prints it), so that CPU
// tests can prove that a probe's timed instructions are inside its timed
// loop. PTX is not enough: ptxas hoists loop-invariant loads out of loops
// (even `asm volatile` ones), folds repeated tensor-core operations and
// emulates instructions the target lacks, all after the PTX is written.
#ifndef DISSECT_PROBES_SASS_INSPECT_H_
#define DISSECT_PROBES_SASS_INSPECT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dissect {

struct SassInstruction {
  int64_t address = 0;                // byte offset in the function (/*0x0120*/)
  std::string predicate;              // "@!P1" or ""
  std::string opcode;                 // "LDG.E.128.CONSTANT"
  std::string op;                     // the opcode before its first '.': "LDG"
  std::vector<std::string> operands;  // "R4", "[R2.64+0x10]", "c[0x0][0x210]"
  std::string text;                   // the instruction as printed, trimmed

  // True if `modifier` is one of the opcode's dot-separated modifiers
  // ("E", "128", "STRONG", ...).
  bool HasModifier(absl::string_view modifier) const;
  // The target of a BRA/BRX/JMP with an immediate address, else nullopt.
  std::optional<int64_t> BranchTarget() const;
  // True for instructions that read %clock / %clock64 / %globaltimer
  // (CS2R, CS2UR, S2R or S2UR of SR_CLOCKLO/HI or SR_GLOBALTIMERLO/HI;
  // sm_120 code reads the clock into uniform registers with CS2UR).
  bool ReadsClock() const;
};

struct SassFunction {
  std::string name;  // mangled
  std::string arch;  // "sm_90a", from cuobjdump's "arch = " line
  std::vector<SassInstruction> code;
};

// Every function in `cuobjdump -sass` output, in the order printed.
// InvalidArgument if the text holds no function.
absl::StatusOr<std::vector<SassFunction>> ParseCuobjdumpSass(absl::string_view text);

// Runs `cuobjdump -sass PATH` (an object, archive or executable) and
// returns its standard output; an error with the output's start if the
// command fails.
absl::StatusOr<std::string> RunCuobjdumpSass(const std::string& cuobjdump, const std::string& path);

// The one function whose mangled name contains all of `fragments`, for
// `arch` if not empty; NotFound if none, InvalidArgument if several.
absl::StatusOr<const SassFunction*> FindSassFunction(const std::vector<SassFunction>& functions,
                                                     const std::vector<std::string>& fragments,
                                                     absl::string_view arch = "");

// A loop: a backward branch at `branch` to the instruction at `head`
// (indices into SassFunction::code). The body is [head, branch].
struct SassLoop {
  size_t head = 0;
  size_t branch = 0;
  size_t size() const { return branch - head + 1; }
  bool Contains(const SassLoop& other) const {
    return head <= other.head && other.branch <= branch;
  }
};

// Every loop of `f` (one per backward branch), ordered by head. A branch to
// itself (the `BRA` ptxas puts after the last EXIT) is not a loop.
std::vector<SassLoop> FindLoops(const SassFunction& f);

// The loops of `f` that contain no other loop.
std::vector<SassLoop> InnermostLoops(const SassFunction& f);

// Indices of the instructions of `f` that read a clock.
std::vector<size_t> ClockReads(const SassFunction& f);

// The loops that lie wholly between the first and the last clock read of
// `f` (the timed region); empty if `f` reads a clock fewer than twice.
std::vector<SassLoop> TimedLoops(const SassFunction& f);

// The innermost of `f`'s TimedLoops (those that contain no other loop).
std::vector<SassLoop> InnermostTimedLoops(const SassFunction& f);

// The InnermostTimedLoops of `f` that hold at least one instruction among
// `ops` (e.g. a chase's segments, one timed loop each).
std::vector<SassLoop> InnermostTimedLoopsWith(const SassFunction& f,
                                              const std::vector<std::string>& ops);

// The indices a value carried around `loop` passes from code[last] to
// code[first] of the next trip (both in `loop`, first <= last): after
// `last` through the branch, then from the head to before `first`.
std::vector<size_t> WrapAround(const SassLoop& loop, size_t last, size_t first);

// The timed loop of `f`: among the innermost of its TimedLoops, the one that
// holds the most instructions among `ops`. NotFound if `f` has none.
absl::StatusOr<SassLoop> FindTimedLoop(const SassFunction& f, const std::vector<std::string>& ops);

// How many instructions in code[begin, end) have an `op` among `ops`
// (e.g. {"LDS"} or {"HMMA", "HGMMA"}).
int CountOps(const SassFunction& f, size_t begin, size_t end, const std::vector<std::string>& ops);
inline int CountOps(const SassFunction& f, const SassLoop& loop,
                    const std::vector<std::string>& ops) {
  return CountOps(f, loop.head, loop.branch + 1, ops);
}

// Indices of the instructions in code[begin, end) whose `op` is among `ops`.
std::vector<size_t> IndicesOfOps(const SassFunction& f, size_t begin, size_t end,
                                 const std::vector<std::string>& ops);
inline std::vector<size_t> IndicesOfOps(const SassFunction& f, const SassLoop& loop,
                                        const std::vector<std::string>& ops) {
  return IndicesOfOps(f, loop.head, loop.branch + 1, ops);
}

// The numbers of the general registers named in `operand`: {2} of "R2",
// "R2.64", "-R2", "R2.reuse" or "[R2.64+0x10]". RZ and uniform, predicate
// and special registers (UR4, P0, SR_TID.X) are not general registers.
std::vector<int> RegisterNumbers(absl::string_view operand);

// How many consecutive registers one result or stored value of
// `instruction` spans: 4 for .128; 1 for .32 (CS2R.32 too); 2 for .64,
// .WIDE and CS2R; else 1.
int ValueWidth(const SassInstruction& instruction);

// The registers `instruction` writes: its destination (both destinations
// of a texture fetch, TLD/TEX), ValueWidth registers from each; none for
// stores, branches and instructions without operands.
std::vector<int> WrittenRegisters(const SassInstruction& instruction);

// Whether `instruction` reads register `reg`: as a source operand (all but
// the destinations), or for a store anywhere, the stored value's further
// registers included (ValueWidth).
bool ReadsRegister(const SassInstruction& instruction, int reg);

// The register an instruction writes first ("R5" of "LDS R5, [R4]"), or ""
// for instructions without operands.
std::string DestinationRegister(const SassInstruction& instruction);

// The general registers inside the memory operand ("[R4.64+0x10]" gives
// {"R4"}; "[R2+UR4]" gives {"R2"}); empty if there is none.
std::vector<std::string> AddressRegisters(const SassInstruction& instruction);

// Whether `instruction` writes register `reg` (one of WrittenRegisters).
bool WritesRegister(const SassInstruction& instruction, int reg);

// The one general register named in `operand` ("R6", "R2.64", "[R4]"), or
// -1 if it names none or several.
int OneRegister(absl::string_view operand);

// The one general register of `instruction`'s memory operand (the first of
// a pair for "[R2.64]"), or -1 if the address holds none or several.
int OneAddressRegister(const SassInstruction& instruction);

// Every op that reads memory or a texture: LD, LDG, LDS, LDL, LDC, LDSM,
// TLD, TEX, TLD4.
const std::vector<std::string>& MemoryLoadOps();

// Whether `instruction`'s op is among `ops` (MemoryLoadOps by default).
bool IsMemoryLoad(const SassInstruction& instruction,
                  const std::vector<std::string>& ops = MemoryLoadOps());

}  // namespace dissect

#endif  // DISSECT_PROBES_SASS_INSPECT_H_
