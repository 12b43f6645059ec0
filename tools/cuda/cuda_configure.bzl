"""Repository rule that finds the local CUDA toolkit and exposes it as @local_cuda.

Search order: $CUDA_PATH, then /usr/local/cuda. Both layouts are understood:
  * pip-style:  include/{cuda_runtime.h,cupti.h}, lib/, lib64 -> lib
  * classic:    include/, lib64/, extras/CUPTI/{include,lib64}

CUPTI is exposed twice: :cupti links libcupti.so (and libnvperf_*.so where the
toolkit has them); :cupti_headers gives only its headers, for code that loads
CUPTI at run time (//probes:cupti_api) so that binaries start without it.

With no toolkit the repository still loads: the library targets are empty and
every cuda_library action fails with one line that names CUDA_PATH, so that
targets without CUDA keep building.
"""

_DEFAULT_PATH = "/usr/local/cuda"

def _first_existing(repository_ctx, candidates):
    for c in candidates:
        if repository_ctx.path(c).exists:
            return c
    return None

def _nvcc_version(repository_ctx, nvcc):
    result = repository_ctx.execute([nvcc, "--version"])
    if result.return_code != 0:
        return None
    for line in result.stdout.splitlines():
        # "Cuda compilation tools, release 13.0, V13.0.88"
        if "release" in line and ", V" in line:
            return line.rsplit(", V", 1)[1].strip()
    return None

def _write_missing(repository_ctx, reason):
    repository_ctx.file("defs.bzl", "\n".join([
        "CUDA_FOUND = False",
        "CUDA_PATH = None",
        "CUDA_VERSION = None",
        "NVCC = None",
        "CUDA_ERROR = %r" % reason,
        "CUPTI_LIB_DIR = None",
        "",
    ]))
    repository_ctx.template("BUILD", repository_ctx.attr._build_missing)

def _cuda_configure_impl(repository_ctx):
    env_path = repository_ctx.os.environ.get("CUDA_PATH", "")
    root = env_path if env_path else _DEFAULT_PATH
    if not repository_ctx.path(root).exists:
        _write_missing(repository_ctx, "no CUDA toolkit at %s; set CUDA_PATH to the toolkit root (the folder holding bin/nvcc)" % root)
        return
    nvcc = root + "/bin/nvcc"
    if not repository_ctx.path(nvcc).exists:
        _write_missing(repository_ctx, "no bin/nvcc under %s; set CUDA_PATH to the toolkit root (the folder holding bin/nvcc)" % root)
        return
    version = _nvcc_version(repository_ctx, nvcc)
    if not version:
        _write_missing(repository_ctx, "%s --version failed; set CUDA_PATH to a working toolkit" % nvcc)
        return

    include = _first_existing(repository_ctx, [
        root + "/include",
        root + "/targets/x86_64-linux/include",
    ])
    lib = _first_existing(repository_ctx, [
        root + "/lib64/libcudart_static.a",
        root + "/lib/libcudart_static.a",
        root + "/targets/x86_64-linux/lib/libcudart_static.a",
    ])
    if not include or not lib:
        _write_missing(repository_ctx, "toolkit at %s lacks include/ or libcudart_static.a; set CUDA_PATH to a complete toolkit" % root)
        return
    lib = lib.rsplit("/", 1)[0]
    cupti_include = _first_existing(repository_ctx, [
        include + "/cupti.h",
        root + "/extras/CUPTI/include/cupti.h",
    ])
    cupti_lib = _first_existing(repository_ctx, [
        lib + "/libcupti.so",
        root + "/extras/CUPTI/lib64/libcupti.so",
    ])

    repository_ctx.symlink(include, "include")
    repository_ctx.symlink(lib, "lib")
    cupti_lib_dir = None
    if cupti_include and cupti_lib:
        cupti_lib_dir = cupti_lib.rsplit("/", 1)[0]
        repository_ctx.symlink(cupti_include.rsplit("/", 1)[0], "cupti/include")
        repository_ctx.symlink(cupti_lib.rsplit("/", 1)[0], "cupti/lib")
    else:
        repository_ctx.file("cupti/include/.missing", "")
        repository_ctx.file("cupti/lib/.missing", "")

    repository_ctx.file("defs.bzl", "\n".join([
        "CUDA_FOUND = True",
        "CUDA_PATH = %r" % root,
        "CUDA_VERSION = %r" % version,
        "NVCC = %r" % nvcc,
        "CUDA_ERROR = None",
        "# Where libcupti.so and libnvperf_*.so were found at build time: the",
        "# last place //probes:cupti_api looks when loading CUPTI at run time.",
        "CUPTI_LIB_DIR = %r" % cupti_lib_dir,
        "",
    ]))
    repository_ctx.template("BUILD", repository_ctx.attr._build_found)

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH"],
    local = True,
    attrs = {
        "_build_found": attr.label(default = "//tools/cuda:BUILD.local_cuda"),
        "_build_missing": attr.label(default = "//tools/cuda:BUILD.local_cuda_missing"),
    },
)
