// Helpers shared by the PTX tests (experiments/*ptx_test.cc): the .ptx files
// a test got on its command line, and a kernel's instructions read from one
// of them, with a test failure where the file or the kernel is missing.
#ifndef DISSECT_PROBES_PTX_TEST_UTIL_H_
#define DISSECT_PROBES_PTX_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "probes/ptx_inspect.h"

namespace dissect {

// The PTX paths of this test; main() fills it from argv.
std::vector<std::string>& PtxFiles();

// The PTX files whose file name starts with `stem` + "." ("bandwidth" for
// .../bandwidth.sm_90a.ptx), in command-line order.
std::vector<std::string> PtxFilesNamed(absl::string_view stem);

// The whole text of `path`; a test failure and "" where it cannot be read.
std::string ReadTextFile(const std::string& path);

// The instructions of the one .entry of `file` whose mangled name contains
// `entry`; a test failure and nothing where there is no such entry.
std::vector<PtxInstruction> EntryCode(const std::string& file, absl::string_view entry);

// Index of the first (last) instruction whose text contains `needle`, or -1.
int FirstMention(const std::vector<PtxInstruction>& code, absl::string_view needle);
int LastMention(const std::vector<PtxInstruction>& code, absl::string_view needle);

}  // namespace dissect

#endif  // DISSECT_PROBES_PTX_TEST_UTIL_H_
