// How and from which commit this binary was built (generated at build time).
#ifndef DISSECT_EXPERIMENTS_FRAMEWORK_BUILD_INFO_H_
#define DISSECT_EXPERIMENTS_FRAMEWORK_BUILD_INFO_H_

namespace dissect {

struct BuildInfo {
  const char* git_commit;
  const char* git_dirty;  // "true" / "false" / "unknown"
  const char* mode;       // Bazel compilation mode: opt, fastbuild, dbg
  const char* cuda_archs;
  const char* nvcc_version;
  const char* host_compiler;
};

const BuildInfo& GetBuildInfo();

}  // namespace dissect

#endif  // DISSECT_EXPERIMENTS_FRAMEWORK_BUILD_INFO_H_
