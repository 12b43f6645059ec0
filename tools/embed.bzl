"""embedded_text: a data file compiled into binaries as a C++ string.

    embedded_text(
        name = "published_embedded",
        src = "//configs:published/memory_hierarchy.json",
        hdr = "published_embedded.h",
        symbol = "dissect::analysis::kEmbeddedPublishedJson",
    )

makes the cc_library `name` whose hand-written header `hdr` declares
`extern const char <symbol>[];` and whose generated source defines it as the
file's text (NUL-terminated), so that a bundled binary needs no data path.
The file must not contain the raw-string delimiter `)dissect_embed"`.
"""

def embedded_text(name, src, hdr, symbol, visibility = None):
    parts = symbol.split("::")
    namespace = "::".join(parts[:-1])
    variable = parts[-1]
    open_ns = "namespace %s {" % namespace if namespace else ""
    close_ns = "}  // namespace %s" % namespace if namespace else ""
    native.genrule(
        name = name + "_cc",
        srcs = [src],
        outs = [name + ".cc"],
        cmd = ("{ echo '// Generated from $(location %s) by //tools:embed.bzl.';" % src +
               " echo '#include \"%s/%s\"';" % (native.package_name(), hdr) +
               " echo '%s';" % open_ns +
               " printf '%%s' 'extern const char %s[] = R\"dissect_embed(';" % variable +
               " cat $<;" +
               " echo ')dissect_embed\";';" +
               " echo '%s'; } > $@" % close_ns),
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_cc"],
        hdrs = [hdr],
        visibility = visibility,
    )
