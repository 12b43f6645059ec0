"""dissect_experiment: one macro per experiment (a kernel × probe pairing).

    dissect_experiment(
        name = "shared_latency",
        srcs = ["shared_latency.cc"],
        deps = ["//kernels:pointer_chase", "//experiments/workloads/inputs:pointer_chain"],
        gpu_test_args = ["--axis=footprint_bytes=4KiB", "--samples=5"],
        gpu_test_expect = ["cycles_per_load:10:100"],
        gpu_test_variants = {
            "counters": {
                "args": ["--axis=footprint_bytes=4KiB", "--metrics=dram_bytes_read"],
                "expect": ["cupti/dram_bytes_read:0:1048576"],
            },
        },
    )

This entry is the experiment's one registration. Its binary is tagged
`dissect_experiment`, which is how the tools find it: tools/bundle.sh and
tools/registry.sh ask `bazel query 'attr(tags, "\\bdissect_experiment\\b", //...)'`,
and the latter writes experiments/experiments.bzl (the list the sweep runner,
the catalog and the schema tests carry as data) from it. An experiment that
configs/sweeps/nightly.json does not run (the paper catalog's alone) says
`nightly = False`, which tags it `dissect_not_nightly`.

makes
  :shared_latency           the binary (bazel run //experiments:shared_latency -- --help)
  :shared_latency_lib       the experiment's registration (alwayslink)
  :shared_latency_gpu_test  runs it at a tiny size on a GPU and checks each
                            metric lies in [lo, hi]; tagged "gpu", so plain
                            `bazel test //...` skips it and --config=gpu runs it.
  :shared_latency_counters_gpu_test
                            one more such test per gpu_test_variants entry, with
                            its own args and expectations (a metric may be a
                            counter, e.g. cupti/dram_bytes_read, and a bound
                            negative: activity/vs_events_pct:-5:5).
"""

def _gpu_test(name, experiment, args, expect):
    native.cc_test(
        name = name,
        args = args + ["--expect=" + e for e in expect],
        tags = [
            "exclusive",
            "gpu",
            # tools/bundle.sh runs `<experiment> --smoke ARGS` for it instead
            # of bundling a second binary of the same code.
            "dissect_smoke_of=" + experiment,
        ],
        deps = [
            ":" + experiment + "_lib",
            "//experiments/framework:gpu_smoke_main",
        ],
    )

def dissect_experiment(
        name,
        srcs,
        deps = [],
        gpu_test_args = [],
        gpu_test_expect = [],
        gpu_test_variants = {},
        nightly = True):
    native.cc_library(
        name = name + "_lib",
        srcs = srcs,
        deps = deps + ["//experiments/framework"],
        alwayslink = True,
    )
    native.cc_binary(
        name = name,
        # The sweep runner and the sweep files' schema check
        # (//experiments/drivers/sweep) carry every experiment binary as data, and
        # so does //tools:readme_examples_test.
        visibility = [
            "//experiments:__subpackages__",
            "//tools:__pkg__",
        ],
        tags = ["dissect_experiment"] + ([] if nightly else ["dissect_not_nightly"]),
        deps = [
            ":" + name + "_lib",
            "//experiments/framework:main",
        ],
    )
    _gpu_test(name + "_gpu_test", name, gpu_test_args, gpu_test_expect)
    for variant, spec in gpu_test_variants.items():
        _gpu_test(
            "%s_%s_gpu_test" % (name, variant),
            name,
            spec.get("args", []),
            spec.get("expect", []),
        )
