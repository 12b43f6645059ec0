// CUPTI loaded at run time; see cupti_api.h.
#include "probes/cupti_api.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/cupti_status.h"

// The folder the build found CUPTI in (set from @local_cuda//:defs.bzl).
#ifndef DISSECT_CUPTI_LIB_DIR
#define DISSECT_CUPTI_LIB_DIR ""
#endif

namespace dissect {
namespace {

constexpr const char* kCuptiNames[] = {"libcupti.so.13", "libcupti.so"};
constexpr const char* kPerfworksNames[] = {"libnvperf_host.so",
                                           "libnvperf_target.so"};

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Folders tried when the loader's own search finds no libcupti.
std::vector<std::string> FallbackDirs() {
  std::vector<std::string> roots;
  if (const char* env = getenv("CUDA_PATH"); env != nullptr && *env != '\0') {
    roots.push_back(env);
  }
  roots.push_back("/usr/local/cuda");
  std::vector<std::string> dirs;
  for (const std::string& root : roots) {
    for (const char* sub : {"/lib64", "/lib", "/extras/CUPTI/lib64"}) {
      dirs.push_back(root + sub);
    }
  }
  if (DISSECT_CUPTI_LIB_DIR[0] != '\0') dirs.push_back(DISSECT_CUPTI_LIB_DIR);
  return dirs;
}

// Loads libnvperf_*.so from `dir` if they are there, so that libcupti's own
// dlopen by name finds them already loaded. A miss is not an error here:
// CUPTI reports it when it needs the library.
void PreloadPerfworks(const std::string& dir) {
  for (const char* name : kPerfworksNames) {
    const std::string path = dir + "/" + name;
    dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);  // kept for the process
  }
}

absl::StatusOr<const CuptiApi*> Load() {
  void* lib = nullptr;
  std::string path;
  std::vector<std::string> tried;
  for (const char* name : kCuptiNames) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    tried.push_back(name);
    if (lib != nullptr) {
      // Where the loader found it, for the perfworks preload below.
      Dl_info info{};
      void* sym = dlsym(lib, "cuptiGetResultString");
      char resolved[PATH_MAX];
      if (sym != nullptr && dladdr(sym, &info) != 0 &&
          info.dli_fname != nullptr &&
          realpath(info.dli_fname, resolved) != nullptr) {
        path = resolved;
      } else {
        path = name;
      }
      break;
    }
  }
  if (lib == nullptr) {
    for (const std::string& dir : FallbackDirs()) {
      for (const char* name : kCuptiNames) {
        const std::string candidate = dir + "/" + name;
        tried.push_back(candidate);
        lib = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib != nullptr) {
          path = candidate;
          break;
        }
      }
      if (lib != nullptr) break;
    }
  }
  if (lib == nullptr) {
    return CounterStatus(
        CounterCause::kNoCupti,
        absl::StrCat(
            "cannot load CUPTI (libcupti.so.13 from the CUDA toolkit); "
            "add its folder to LD_LIBRARY_PATH or set CUDA_PATH; tried: ",
            absl::StrJoin(tried, ", ")));
  }
  if (path.find('/') != std::string::npos) PreloadPerfworks(Dirname(path));
  auto api = std::make_unique<CuptiApi>();
  api->path = path;
  std::vector<std::string> missing;
#define DISSECT_CUPTI_RESOLVE_(fn)                                \
  api->fn = reinterpret_cast<decltype(api->fn)>(dlsym(lib, #fn)); \
  if (api->fn == nullptr) missing.push_back(#fn);
  DISSECT_CUPTI_FUNCTIONS(DISSECT_CUPTI_RESOLVE_)
#undef DISSECT_CUPTI_RESOLVE_
  if (!missing.empty()) {
    return CounterStatus(
        CounterCause::kNoCupti,
        absl::StrCat(path, " lacks ", absl::StrJoin(missing, ", "),
                     " (dissect needs the CUDA 13 range profiler API)"));
  }
  return api.release();  // one per process, like the library itself
}

}  // namespace

absl::StatusOr<const CuptiApi*> LoadCuptiApi() {
  static const auto* result = new absl::StatusOr<const CuptiApi*>(Load());
  return *result;
}

}  // namespace dissect
