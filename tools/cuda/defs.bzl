"""cuda_library: compiles .cu files with nvcc and returns CcInfo.

One nvcc action per .cu file. Include paths and headers come from deps' CcInfo.
Target architectures come from --//tools/cuda:archs (alias --cuda_archs),
default sm_80,sm_86,sm_89,sm_90a,sm_100a,sm_120 (//tools/cuda:BUILD): one
cubin each, plus the PTX of the newest for later GPUs to JIT. Output group
"ptx" holds one .ptx per source, for the PTX architecture (sm_90a where it
is built, else the newest: the PTX tests were written against Hopper's; the
SASS tests check every architecture's machine code), for inspection and
for compiled-code tests; output group "resource_usage" holds ptxas's
resource report (`-Xptxas -v`: registers, spills) per source and
architecture, for tests that forbid register spills.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@local_cuda//:defs.bzl", "CUDA_ERROR", "CUDA_FOUND", "NVCC")

ArchsInfo = provider(fields = {"archs": "list of sm_XX strings"})

def _parse_archs(value):
    archs = [a.strip() for a in value.split(",") if a.strip()]
    if not archs:
        fail("--cuda_archs is empty; give e.g. sm_90a or sm_80,sm_90a")
    for a in archs:
        digits = a[3:].rstrip("af")
        if not a.startswith("sm_") or not digits.isdigit():
            fail("--cuda_archs: '%s' is not of the form sm_NN, sm_NNa or sm_NNf" % a)
    return archs

def _cuda_archs_impl(ctx):
    return [ArchsInfo(archs = _parse_archs(ctx.build_setting_value))]

cuda_archs_setting = rule(
    implementation = _cuda_archs_impl,
    build_setting = config.string(flag = True),
)

# 120 of "sm_120", 90 of "sm_90a".
def _arch_number(arch):
    return int(arch[3:].rstrip("af"))

def _virtual(arch):
    return "compute_" + arch[3:]

def _gencode_flags(archs):
    flags = []
    for a in archs:
        flags += ["-gencode", "arch=%s,code=%s" % (_virtual(a), a)]

    # Embed PTX for the newest architecture so that newer GPUs can JIT it.
    newest = sorted(archs, key = _arch_number)[-1]
    flags += ["-gencode", "arch=%s,code=%s" % (_virtual(newest), _virtual(newest))]
    return flags

# The architecture of the "ptx" output group.
def _ptx_arch(archs):
    if "sm_90a" in archs:
        return "sm_90a"
    return sorted(archs, key = _arch_number)[-1]

def _include_flags(cc_info):
    cc = cc_info.compilation_context
    flags = ["-I."]
    for d in cc.includes.to_list():
        flags += ["-I", d]
    for d in cc.quote_includes.to_list():
        flags += ["-I", d]
    for d in cc.system_includes.to_list():
        flags += ["-isystem", d]
    for d in cc.defines.to_list():
        flags.append("-D" + d)
    return flags

def _mode_flags(ctx):
    mode = ctx.var["COMPILATION_MODE"]
    if mode == "dbg":
        return ["-g", "-G", "-O0"]
    if mode == "fastbuild":
        return ["-O2", "-lineinfo"]
    return ["-O3", "-lineinfo", "-DNDEBUG"]

def _cuda_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    archs = ctx.attr._archs[ArchsInfo].archs
    dep_infos = [d[CcInfo] for d in ctx.attr.deps + [ctx.attr._cudart]]
    compilation_context = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        includes = depset([ctx.label.workspace_root] if ctx.label.workspace_root else []),
    )
    own_info = CcInfo(compilation_context = compilation_context)
    merged = cc_common.merge_cc_infos(cc_infos = [own_info] + dep_infos)
    headers = merged.compilation_context.headers
    common = [
        "-std=c++17",
        "-ccbin",
        cc_toolchain.compiler_executable,
        "-Xcompiler",
        "-fPIC",
        "--expt-relaxed-constexpr",
    ] + _mode_flags(ctx) + _include_flags(merged) + ctx.attr.copts

    objects = []
    ptx_files = []
    usage_files = []
    ptx_arch = _ptx_arch(archs)
    for src in ctx.files.srcs:
        stem = src.basename[:-len(src.extension) - 1]
        obj = ctx.actions.declare_file("_objs/%s/%s.o" % (ctx.label.name, stem))
        objects.append(obj)
        _nvcc(ctx, "Compiling CUDA %s" % src.short_path, src, headers, obj,
              common + _gencode_flags(archs) + ["-c", src.path, "-o", obj.path])
        ptx = ctx.actions.declare_file("_ptx/%s/%s.%s.ptx" % (ctx.label.name, stem, ptx_arch))
        ptx_files.append(ptx)
        _nvcc(ctx, "Emitting PTX %s (%s)" % (src.short_path, ptx_arch), src, headers, ptx,
              common + ["-arch=" + _virtual(ptx_arch), "-ptx", src.path, "-o", ptx.path])
        for a in archs:
            usage = ctx.actions.declare_file("_resource_usage/%s/%s.%s.txt" % (ctx.label.name, stem, a))
            usage_files.append(usage)
            _nvcc_resource_usage(ctx, src, headers, usage, common + [
                "-gencode",
                "arch=%s,code=%s" % (_virtual(a), a),
                "-cubin",
                "-Xptxas",
                "-v",
                src.path,
                "-o",
                "/dev/null",
            ])

    archive = ctx.actions.declare_file("lib%s.a" % ctx.label.name)
    ctx.actions.run(
        executable = cc_toolchain.ar_executable,
        arguments = ["rcsD", archive.path] + [o.path for o in objects],
        inputs = objects,
        outputs = [archive],
        tools = cc_toolchain.all_files,
        mnemonic = "CudaArchive",
        progress_message = "Archiving CUDA objects of %s" % ctx.label,
    )
    library = cc_common.create_library_to_link(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        static_library = archive,
        alwayslink = ctx.attr.alwayslink,
    )
    linking_context = cc_common.create_linking_context(
        linker_inputs = depset([cc_common.create_linker_input(
            owner = ctx.label,
            libraries = depset([library]),
        )]),
    )
    result = cc_common.merge_cc_infos(
        direct_cc_infos = [CcInfo(compilation_context = compilation_context, linking_context = linking_context)],
        cc_infos = dep_infos,
    )
    return [
        result,
        DefaultInfo(files = depset([archive])),
        OutputGroupInfo(ptx = depset(ptx_files), resource_usage = depset(usage_files)),
    ]

def _nvcc(ctx, message, src, headers, out, args):
    if not CUDA_FOUND:
        ctx.actions.run_shell(
            outputs = [out],
            command = "echo 'cuda_library %s: %s' >&2; exit 1" % (ctx.label, CUDA_ERROR),
            mnemonic = "CudaMissing",
        )
        return
    ctx.actions.run(
        executable = NVCC,
        arguments = args,
        inputs = depset([src], transitive = [headers]),
        outputs = [out],
        mnemonic = "CudaCompile",
        progress_message = message,
        use_default_shell_env = True,
    )

# ptxas's -v report (stderr) of compiling `src` to a cubin, written to `out`.
def _nvcc_resource_usage(ctx, src, headers, out, args):
    if not CUDA_FOUND:
        _nvcc(ctx, "", src, headers, out, args)
        return
    ctx.actions.run_shell(
        command = '"$1" "${@:3}" 2> "$2"',
        arguments = [NVCC, out.path] + args,
        inputs = depset([src], transitive = [headers]),
        outputs = [out],
        mnemonic = "CudaResourceUsage",
        progress_message = "Reporting resource usage of %s" % src.short_path,
        use_default_shell_env = True,
    )

cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"], doc = "CUDA sources; one nvcc action each."),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh", ".hpp"], doc = "Public headers."),
        "deps": attr.label_list(providers = [CcInfo], doc = "cc_library or cuda_library deps (headers, defines)."),
        "copts": attr.string_list(doc = "Extra nvcc flags."),
        "alwayslink": attr.bool(default = False),
        "_archs": attr.label(default = "//tools/cuda:archs"),
        "_cudart": attr.label(default = "@local_cuda//:cudart", providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)
