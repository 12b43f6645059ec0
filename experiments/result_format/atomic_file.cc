#include "experiments/result_format/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace dissect::result_format {

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::UnavailableError(
          absl::StrCat("cannot write ", tmp, ": ", std::strerror(errno)));
    }
    out << text;
    out.flush();
    if (!out) {
      return absl::UnavailableError(
          absl::StrCat("write to ", tmp, " failed: ", std::strerror(errno)));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot rename ", tmp, " to ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace dissect::result_format
