// cuDNN loaded at run time; see cudnn_api.h.
#include "experiments/workloads/forward/cudnn_api.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdlib.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dissect::forward {
namespace {

constexpr char kCudnnName[] = "libcudnn.so.9";
// cuDNN 9's sub-libraries, in dependency order.
constexpr const char* kSubLibraries[] = {"libcudnn_graph.so.9",
                                         "libcudnn_engines_runtime_compiled.so.9",
                                         "libcudnn_engines_precompiled.so.9",
                                         "libcudnn_heuristic.so.9",
                                         "libcudnn_ops.so.9",
                                         "libcudnn_cnn.so.9"};

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::vector<std::string> Glob(const std::string& pattern) {
  std::vector<std::string> matches;
  glob_t result{};
  if (glob(pattern.c_str(), GLOB_ONLYDIR, nullptr, &result) == 0) {
    for (size_t i = 0; i < result.gl_pathc; ++i) matches.push_back(result.gl_pathv[i]);
  }
  globfree(&result);
  return matches;
}

// The folder the loader found `lib` in, or "" when it cannot say.
std::string LoadedDir(void* lib) {
  Dl_info info{};
  void* sym = dlsym(lib, "cudnnGetVersion");
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string file = info.dli_fname;
  return file.find('/') == std::string::npos ? "" : Dirname(file);
}

}  // namespace

std::vector<std::string> CudnnSearchPatterns(std::string_view cuda_path_view,
                                             std::string_view home_view) {
  const absl::string_view cuda_path(cuda_path_view.data(), cuda_path_view.size());
  const absl::string_view home(home_view.data(), home_view.size());
  std::vector<std::string> patterns;
  if (!cuda_path.empty()) patterns.push_back(absl::StrCat(cuda_path, "/lib64"));
  patterns.push_back("/usr/local/cuda/lib64");
  for (const char* kind : {"dist-packages", "site-packages"}) {
    patterns.push_back(absl::StrCat("/usr/local/lib/python3*/", kind, "/nvidia/cudnn/lib"));
  }
  patterns.push_back("/usr/lib/python3/dist-packages/nvidia/cudnn/lib");
  if (!home.empty()) {
    patterns.push_back(absl::StrCat(home, "/.local/lib/python3*/site-packages/nvidia/cudnn/lib"));
  }
  return patterns;
}

absl::StatusOr<const CudnnApi*> LoadCudnnFrom(const std::vector<std::string>& candidates) {
  void* lib = nullptr;
  std::string path;
  for (const std::string& candidate : candidates) {
    lib = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      path = candidate;
      break;
    }
  }
  if (lib == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "cuDNN not found: cannot load ", kCudnnName,
        " (cuDNN 9: the toolkit's lib64 or the nvidia-cudnn-cu* Python wheel); add its folder to "
        "LD_LIBRARY_PATH or set CUDA_PATH; tried: ",
        absl::StrJoin(candidates, ", ")));
  }
  if (const std::string dir = LoadedDir(lib); !dir.empty()) {
    path = absl::StrCat(dir, "/", kCudnnName);
    for (const char* sub : kSubLibraries) {
      dlopen(absl::StrCat(dir, "/", sub).c_str(), RTLD_NOW | RTLD_GLOBAL);  // kept
    }
  }
  auto api = std::make_unique<CudnnApi>();
  api->path = path;
  std::vector<std::string> missing;
#define DISSECT_CUDNN_RESOLVE_(fn)                                \
  api->fn = reinterpret_cast<decltype(api->fn)>(dlsym(lib, #fn)); \
  if (api->fn == nullptr) missing.push_back(#fn);
  DISSECT_CUDNN_FUNCTIONS(DISSECT_CUDNN_RESOLVE_)
#undef DISSECT_CUDNN_RESOLVE_
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(path, " lacks ", absl::StrJoin(missing, ", "),
                                                      " (the forward pass needs cuDNN 9)"));
  }
  if (const size_t version = api->cudnnGetVersion(); version < 90000) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is cuDNN ", version, "; the forward pass needs cuDNN 9"));
  }
  return api.release();  // one per library, like the library itself
}

absl::StatusOr<const CudnnApi*> LoadCudnnApi() {
  static const auto* result = new absl::StatusOr<const CudnnApi*>([] {
    const char* cuda_path = getenv("CUDA_PATH");
    const char* home = getenv("HOME");
    std::vector<std::string> candidates = {kCudnnName};
    std::vector<std::string> unmatched;
    for (const std::string& pattern :
         CudnnSearchPatterns(cuda_path == nullptr ? "" : cuda_path, home == nullptr ? "" : home)) {
      std::vector<std::string> dirs = {pattern};
      if (pattern.find('*') != std::string::npos) dirs = Glob(pattern);
      if (dirs.empty()) unmatched.push_back(pattern);
      for (const std::string& dir : dirs) candidates.push_back(absl::StrCat(dir, "/", kCudnnName));
    }
    absl::StatusOr<const CudnnApi*> api = LoadCudnnFrom(candidates);
    if (!api.ok() && absl::IsNotFound(api.status()) && !unmatched.empty()) {
      return absl::StatusOr<const CudnnApi*>(absl::NotFoundError(absl::StrCat(
          api.status().message(), "; no folder matched ", absl::StrJoin(unmatched, ", "))));
    }
    return api;
  }());
  return *result;
}

absl::Status CudnnStatus(const CudnnApi& api, cudnnStatus_t status, const char* call) {
  return absl::InternalError(absl::StrCat(call, " failed: ", api.cudnnGetErrorString(status),
                                          " (cudnnStatus_t ", static_cast<int>(status), ")"));
}

}  // namespace dissect::forward
