"""paper_golden_test: the golden test of paper-catalog generators.

    paper_golden_test(
        name = "forward_test",
        srcs = ["forward_test.cc"],
        deps = [":generators"],
    )

makes the small cc_test `name` that runs on `data` (by default the
package's :testdata, its synthetic result files and goldens) and the
catalog's entries (//configs:papers), with the paper test helpers
(paper_test_util.h), the catalog, the generators' declarations (registry.h)
and the result files' reader; `deps` adds the generators under test and
whatever else the test itself uses.
"""

def paper_golden_test(name, srcs, deps, data = [":testdata"]):
    native.cc_test(
        name = name,
        size = "small",
        srcs = srcs,
        data = data + ["//configs:papers"],
        deps = deps + [
            "//analysis/papers:catalog",
            "//analysis/papers:paper_figure",
            "//analysis/papers:paper_test_util",
            "//analysis/results:results",
            "@system_absl//:absl",
            "@system_gtest//:gtest_main",
        ],
    )
