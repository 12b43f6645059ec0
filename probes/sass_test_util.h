// Shared main() and helpers of the SASS tests (`sass_test` in
// tools/cuda/sass_test.bzl): the machine code of the archives a test got on
// its command line, parsed once, and a fixture that skips with the reason
// when cuobjdump is missing. Under CI=true a missing cuobjdump is a failure,
// not a skip: CI installs it through ./bazelw, so its absence there is a bug.
#ifndef DISSECT_PROBES_SASS_TEST_UTIL_H_
#define DISSECT_PROBES_SASS_TEST_UTIL_H_

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "probes/sass_inspect.h"

namespace dissect {

struct SassTestArgs {
  std::string cuobjdump;           // --cuobjdump=PATH
  std::string skip;                // --skip=REASON (no cuobjdump on this machine)
  std::vector<std::string> files;  // the archives to disassemble (and .txt data files)
};

SassTestArgs& SassArgs();

// SassTestMain runs every test once per architecture the archives hold
// (a fat binary has several: --cuda_archs), so that each check holds for
// each architecture built. The architecture of the current pass, "sm_90a".
const std::string& SassArch();

// Every architecture the files on the command line hold code for, oldest
// first (the passes SassTestMain makes); empty where cuobjdump fails.
std::vector<std::string> SassArchs();

// 90 for "sm_90a", 120 for "sm_120"; 0 if `arch` is not of that form.
int SassArchNumber(const std::string& arch);

// Every function of the files on the command line, for the architecture of
// the current pass (parsed on first use; a test failure where cuobjdump
// fails).
const std::vector<SassFunction>& AllSassFunctions();

// The one function whose name holds all `fragments`, for `arch` (default:
// the current pass's); a test failure and null if there is not exactly one.
const SassFunction* SassFunctionNamed(const std::vector<std::string>& fragments,
                                      const std::string& arch = "");

// Whether `f` is the stub of a kernel compiled for an architecture that
// lacks what the kernel needs (e.g. clusters below sm_90): it measures
// nothing, so it has no loop and reads no clock.
bool IsStubKernel(const SassFunction& f);

// Expects IsStubKernel(f), saying `why` it should be one (a kernel that
// should be a stub but is not means a guard let the real code through).
void ExpectStubKernel(const SassFunction& f, const std::string& why);

// For a kernel that exists only from architecture `min_arch` on (90 for
// clusters): in code for an older architecture, expects the stub
// (ExpectStubKernel, `why`) and returns true, so that the caller checks
// nothing more; else returns false.
bool ExpectStubBelow(const SassFunction& f, int min_arch, const std::string& why);

// The timed loop of `f`: the innermost loop between its first and last
// clock read that holds the most instructions among `ops`. A test failure
// and nullopt if `f` has no such loop.
std::optional<SassLoop> TimedLoopWith(const SassFunction& f, const std::vector<std::string>& ops);

// Expects that the timed loop of `f` holds exactly `want` instructions
// among `ops` (a multiple of `want` is accepted when `allow_multiple`, for
// loops ptxas unrolled further). The failure message prints the loop body.
void ExpectTimedLoopCount(const SassFunction& f, const std::vector<std::string>& ops, int want,
                          bool allow_multiple = false);

// Instruction `i` of `f` as one line with its address, "/*0120*/ LDG.E R2,
// [R2.64]" (for problem and failure messages).
std::string SassLine(const SassFunction& f, size_t i);

// code[begin, end) of `f` as text, one instruction a line with its address
// (for failure messages).
std::string Listing(const SassFunction& f, size_t begin, size_t end);

// Appends a problem (starting with `what`) to `problems` unless the clock
// read code[clock] of `f` waits for register `reg`: when the last
// instruction before it that writes `reg` is a load (its op among
// `load_ops`), an instruction in between must read `reg` (an ALU result
// arrives in fixed time). A load reads its address before it writes its
// result, so an instruction that writes `reg` is its producer even if it
// also reads it. Returns false if nothing before `clock` writes or reads
// `reg` (no problem appended), else true.
bool CheckWaitsBefore(const SassFunction& f, size_t clock, int reg, const std::string& what,
                      std::vector<std::string>& problems,
                      const std::vector<std::string>& load_ops = MemoryLoadOps());

// The body of `loop` as text, one instruction a line (for failure messages).
std::string LoopListing(const SassFunction& f, const SassLoop& loop);

// The functions of a saved `cuobjdump -sass` listing among the test's data
// files, `path` from the workspace root ("experiments/launch/testdata/
// launch_probe_sm90a.sass"), for tests that edit real code by hand; a test
// failure and none if it cannot be read or parsed.
std::vector<SassFunction> SavedSassFunctions(const std::string& path);

// Fixture: skips with the reason when cuobjdump is missing.
class SassTest : public testing::Test {
 protected:
  void SetUp() override;
};

// main() of a SASS test: (--cuobjdump=PATH | --skip=REASON) FILE...; exit 2
// on bad arguments; under CI=true --skip fails the test. Runs the tests once
// per architecture of SassArchs() (SassArch() tells which), and fails when
// the files hold no SASS.
int SassTestMain(int argc, char** argv);

}  // namespace dissect

#endif  // DISSECT_PROBES_SASS_TEST_UTIL_H_
