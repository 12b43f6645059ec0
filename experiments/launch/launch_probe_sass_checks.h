// Checks of the machine code (SASS) of the launch-overhead probe kernels
// (kernels/launch_probe.cuh). The PTX test (launch_probe_ptx_test) checks
// the order the source writes; ptxas schedules after that, so these check
// the order the SM executes. Each returns the problems it found, one line
// each, so that tests can expect none on the kernels as built
// (launch_probe_sass_test) and some on listings edited by hand
// (launch_probe_sass_checks_test).
#ifndef DISSECT_EXPERIMENTS_LAUNCH_LAUNCH_PROBE_SASS_CHECKS_H_
#define DISSECT_EXPERIMENTS_LAUNCH_LAUNCH_PROBE_SASS_CHECKS_H_

#include <string>
#include <vector>

#include "probes/sass_inspect.h"

namespace dissect {

// StartStampKernel `f`: its first clock read is a %globaltimer read
// (CS2R/S2UR of SR_GLOBALTIMERLO); only copies of kernel constants precede
// it (the stack pointer's set-up, parameter loads: every source operand RZ
// or c[...]), so no memory access, special-register read or other work
// delays the stamp; and the kernel's one store stores that read's value.
std::vector<std::string> StartStampProblems(const SassFunction& f);

// ClockHandshakeKernel `f`: exactly one innermost loop loads from memory
// (the poll of the host's request); the first 64-bit store after it (the
// round's stamp) stores a %globaltimer read that lies after the poll loop's
// exit, not before or inside it, and that waits for the request's load
// (an instruction between them reads the loaded value); a MEMBAR.SYS lies
// between that store and the next (the reply).
std::vector<std::string> ClockHandshakeProblems(const SassFunction& f);

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_LAUNCH_LAUNCH_PROBE_SASS_CHECKS_H_
