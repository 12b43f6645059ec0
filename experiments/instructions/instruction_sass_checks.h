// Checks of the machine code (SASS) of the instruction kernels
// (kernels/instruction_ops.cu): each timed loop holds exactly the expected
// number of chain steps, each step the expected instruction (or sequence),
// each reading the previous step's result with nothing in between. Each
// returns the problems it found, one line each, so that a test can expect
// none on the kernels as built and some on broken listings
// (testdata/*.sass).
#ifndef DISSECT_EXPERIMENTS_INSTRUCTIONS_INSTRUCTION_SASS_CHECKS_H_
#define DISSECT_EXPERIMENTS_INSTRUCTIONS_INSTRUCTION_SASS_CHECKS_H_

#include <string>
#include <vector>

#include "kernels/instruction_ops.h"
#include "probes/sass_inspect.h"

namespace dissect {

// One chain step in SASS: the instructions it is, in order, each a set of
// full opcodes that may stand there. "FFMA" is one instruction;
// "HFMA2 | HFMA2.MMA" one instruction of either form; "FMUL.RZ + MUFU.SIN"
// two instructions, the second reading the first's result.
using SassStep = std::vector<std::vector<std::string>>;

// Parses a row's sass_sequence ("FMUL.RZ + MUFU.SIN", "HFMA2 | HFMA2.MMA").
SassStep ParseSassStep(const std::string& sequence);

// The ops (opcodes before their first '.') of `step`, for finding its loop.
std::vector<std::string> StepOps(const SassStep& step);

// The problems of `loop` in `f` as a loop of `chains` independent chains of
// `steps` steps each (per trip):
// - the loop holds exactly chains x steps x step.size() instructions of the
//   step's opcodes (an instruction that also writes a predicate, the loop
//   counter's add with its carry, is not a step);
// - each reads exactly one value computed in the loop, the result of the
//   step instruction before it in its chain (of the previous trip for the
//   first), found as the last instruction before it that writes the
//   register, so nothing else lies in the chain (a value the loop reloads
//   from nothing it computes, a constant refilled by LDC, is not a chain
//   value);
// - the links form `chains` cycles of steps x step.size() instructions.
// Where no value passes between steps (`value_chain` false: barriers), only
// the count is checked.
std::vector<std::string> ChainLoopProblems(const SassFunction& f, const SassLoop& loop,
                                           const SassStep& step, int chains, int steps,
                                           bool value_chain = true);

// InstructionLatencyKernel `f`: kChaseSegments innermost timed loops hold
// the step's instructions, each one chain of `steps` steps (the kernel's
// kInstructionUnroll; a recorded listing's own count in tests).
std::vector<std::string> LatencyKernelProblems(const SassFunction& f, const SassStep& step,
                                               bool value_chain = true,
                                               int steps = kInstructionUnroll);

// InstructionThroughputKernel `f` of `chains`: its timed loop holds
// `chains` chains of kInstructionUnroll steps (their count alone where
// `value_chain` is false: clock reads).
std::vector<std::string> ThroughputKernelProblems(const SassFunction& f, const SassStep& step,
                                                  int chains, bool value_chain = true);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_INSTRUCTIONS_INSTRUCTION_SASS_CHECKS_H_
