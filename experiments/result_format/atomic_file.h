// Atomic writes: every file dissect writes (result files, manifests, reports,
// pages) goes through WriteFileAtomically, so that a reader or a crash never
// sees half a file.
#ifndef DISSECT_EXPERIMENTS_RESULT_FORMAT_ATOMIC_FILE_H_
#define DISSECT_EXPERIMENTS_RESULT_FORMAT_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace dissect::result_format {

// Writes `text` to `path` through `path.tmp` and rename(2): readers see the
// old file or the new one, never a torn one.
absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text);

}  // namespace dissect::result_format

#endif  // DISSECT_EXPERIMENTS_RESULT_FORMAT_ATOMIC_FILE_H_
