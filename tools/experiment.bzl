"""dissect_experiment: one macro per experiment (a kernel × probe pairing).

    dissect_experiment(
        name = "shared_latency",
        srcs = ["shared_latency.cc"],
        deps = ["//kernels:pointer_chase", "//probes:pointer_chain"],
        gpu_test_args = ["--axis=footprint_bytes=4KiB", "--samples=5"],
        gpu_test_expect = ["cycles_per_load:10:100"],
    )

makes
  :shared_latency           the binary (bazel run //experiments:shared_latency -- --help)
  :shared_latency_lib       the experiment's registration (alwayslink)
  :shared_latency_gpu_test  runs it at a tiny size on a GPU and checks each
                            metric lies in [lo, hi]; tagged "gpu", so plain
                            `bazel test //...` skips it and --config=gpu runs it.
"""

def dissect_experiment(name, srcs, deps = [], gpu_test_args = [], gpu_test_expect = []):
    native.cc_library(
        name = name + "_lib",
        srcs = srcs,
        deps = deps + ["//experiments/harness"],
        alwayslink = True,
    )
    native.cc_binary(
        name = name,
        deps = [
            ":" + name + "_lib",
            "//experiments/harness:main",
        ],
    )
    native.cc_test(
        name = name + "_gpu_test",
        args = gpu_test_args + ["--expect=" + e for e in gpu_test_expect],
        tags = [
            "exclusive",
            "gpu",
        ],
        deps = [
            ":" + name + "_lib",
            "//experiments/harness:gpu_smoke_main",
        ],
    )
