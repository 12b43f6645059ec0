// The eight instantiations of kernels/coop (conv3x3 and GEMV, tiled or
// coop, timed or traced) as the PTX and SASS tests find them: the mangled
// name's kernel and template-argument part.
#ifndef DISSECT_EXPERIMENTS_SHARING_COOP_COOP_FLAVOURS_H_
#define DISSECT_EXPERIMENTS_SHARING_COOP_COOP_FLAVOURS_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dissect {

struct CoopFlavour {
  const char* kernel;  // the mangled name's kernel part, e.g. "13Conv3x3Kernel"
  bool coop;
  bool traced;
  // The part of the mangled name that tells this instantiation apart.
  std::string Fragment() const {
    return absl::StrCat(kernel, "ILb", coop ? 1 : 0, "ELb", traced ? 1 : 0, "EE");
  }
};

inline std::vector<CoopFlavour> CoopFlavours() {
  std::vector<CoopFlavour> out;
  for (const char* k : {"13Conv3x3Kernel", "10GemvKernel"}) {
    for (bool coop : {false, true}) {
      for (bool traced : {false, true}) out.push_back({k, coop, traced});
    }
  }
  return out;
}

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_SHARING_COOP_COOP_FLAVOURS_H_
