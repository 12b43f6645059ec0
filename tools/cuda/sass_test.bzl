"""sass_test: a GoogleTest over the machine code of CUDA archives.

The test binary gets `--cuobjdump=PATH` (from @cuda_binutils, which ./bazelw
installs from PyPI where the toolkit lacks it) or `--skip=REASON`, then the
archives' paths; its main() is //probes:sass_test_main (probes/sass_test_util.h).
Under CI=true (passed through by .bazelrc) a skip is a failure.
"""

load("@cuda_binutils//:defs.bzl", "CUOBJDUMP_FOUND", "CUOBJDUMP_MISSING")

def sass_test(name, srcs, archives, deps = [], **kwargs):
    """cc_test over the SASS of `archives` (cuda_library targets or files)."""

    # A filegroup puts the archives into the test's runfiles (a cuda_library
    # as a data dependency does not).
    native.filegroup(
        name = name + "_archives",
        testonly = True,
        srcs = archives,
    )
    native.cc_test(
        name = name,
        srcs = srcs,
        args = [
            "--cuobjdump=$(rootpath @cuda_binutils//:cuobjdump)" if CUOBJDUMP_FOUND else "--skip='%s'" % CUOBJDUMP_MISSING.replace("$", "$$"),
            "$(rootpaths :%s_archives)" % name,
        ],
        data = [":%s_archives" % name, "@cuda_binutils//:cuobjdump"],
        deps = deps + [
            "//probes:sass_inspect",
            "//probes:sass_test_util",
            "//probes:sass_test_main",
            "@system_absl//:absl",
            "@system_gtest//:gtest",
        ],
        **kwargs
    )
