#!/usr/bin/env python3
"""Writes synthetic_two_stage_conv_algorithms.json in this folder.

SYNTHETIC TEST DATA, NOT MEASUREMENTS. Every number is made up for the golden
test of the cuConv page, //analysis/papers/conv_algos:cuconv_page_test; only
the layout is the conv_algorithms experiment's (experiments/conv_algos), with
our two_stage algorithm beside four of cuDNN's at inference batches 1 and 8.
"alexnet" has 3 layers standing for all of its 3 conv layers here (a complete
network); "resnet50" one layer standing for 1 of its 53 (incomplete). two_stage
beats cuDNN's best on alexnet.features.0 at batch 1 only; cuDNN does not
support winograd on alexnet.features.0; two_stage has a skipped tensor_op row,
which the page (math fma) leaves out.
Run from anywhere: python3 analysis/papers/conv_algos/testdata/make_synthetic_two_stage.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "testdata"))
import synthetic_fixture as fixture  # noqa: E402

EXPERIMENT = "conv_algorithms"
AXES = [("layer", "-", "string"), ("algo", "-", "string"), ("batch", "images", "int64"),
        ("math", "-", "string")]
METRICS = [("gflops", "GFLOP/s"), ("workspace_bytes", "B"), ("heuristic_rank", "-"),
           ("shape_count", "layers"), ("network_conv_layers", "layers")]
MIB = 1 << 20
BATCHES = [1, 8]

# layer: (GFLOP per image, shape_count, network_conv_layers, filter rows,
#         output MiB per image)
LAYERS = {
    "alexnet.features.0": (0.14, 1, 3, 11, 0.7),
    "alexnet.features.3": (0.45, 1, 3, 5, 0.5),
    "alexnet.features.6": (0.22, 1, 3, 3, 0.25),
    "resnet50.layer1.0.conv2": (0.23, 1, 53, 3, 0.75),
}
# cuDNN algo: (µs at batch 1, µs per further image, workspace MiB per image)
CUDNN = {
    "implicit_gemm": (30.0, 6.0, 0.0),
    "gemm": (40.0, 8.0, 0.5),
    "fft": (50.0, 3.0, 1.0),
    "winograd": (35.0, 4.0, 0.1),
}
# two_stage: (layer, batch) -> µs
TWO_STAGE = {
    ("alexnet.features.0", 1): 24.0,
    ("alexnet.features.0", 8): 90.0,
    ("alexnet.features.3", 1): 60.0,
    ("alexnet.features.3", 8): 400.0,
    ("alexnet.features.6", 1): 45.0,
    ("alexnet.features.6", 8): 200.0,
    ("resnet50.layer1.0.conv2", 1): 32.0,
    ("resnet50.layer1.0.conv2", 8): 150.0,
}
NOT_SUPPORTED = {("alexnet.features.0", "winograd")}


def measured_row(layer, algo, batch, us, workspace):
    gflop, shape_count, network_layers, _, _ = LAYERS[layer]
    r = fixture.row(fixture.row_name(EXPERIMENT, AXES, [layer, algo, batch, "fma"]), 0)
    r.update(fixture.times(us, us))
    gflops = gflop * batch / (us * 1e-6)
    fixture.add_metric(r, "gflops", gflops, gflops * 0.98, gflops * 1.01, 0.03)
    fixture.add_metric(r, "workspace_bytes", workspace, workspace, workspace, 0.0)
    rank = float("nan") if algo == "two_stage" else 1.0
    fixture.add_metric(r, "heuristic_rank", rank, rank, rank, 0.0)
    fixture.add_metric(r, "shape_count", shape_count, shape_count, shape_count, 0.0)
    fixture.add_metric(r, "network_conv_layers", network_layers, network_layers,
                       network_layers, 0.0)
    fixture.add_samples(r, 1755.0)
    return r


def main():
    ctx = fixture.context(fixture.H100_LIKE, EXPERIMENT,
                          "How fast is each cuDNN forward convolution algorithm on each conv "
                          "layer (synthetic, with two_stage)", AXES, METRICS)
    rows = []
    for layer, (_, _, _, filter_rows, out_mib) in LAYERS.items():
        for batch in BATCHES:
            for algo, (us, per_image, ws_mib) in CUDNN.items():
                if (layer, algo) in NOT_SUPPORTED:
                    name = fixture.row_name(EXPERIMENT, AXES, [layer, algo, batch, "fma"])
                    rows.append(fixture.error_row(
                        name, 0, "skipped: cuDNN does not support winograd here: "
                        "CUDNN_STATUS_NOT_SUPPORTED"))
                    continue
                rows.append(measured_row(layer, algo, batch, us + per_image * (batch - 1),
                                         ws_mib * MIB * batch))
            rows.append(measured_row(layer, "two_stage", batch, TWO_STAGE[(layer, batch)],
                                     filter_rows * out_mib * MIB * batch))
    name = fixture.row_name(EXPERIMENT, AXES, ["alexnet.features.3", "two_stage", 1, "tensor_op"])
    rows.append(fixture.error_row(
        name, 0, "skipped: two_stage runs FP32 FFMA only: math=fma (no tensor-core form)"))
    fixture.write(os.path.join(HERE, "synthetic_two_stage_conv_algorithms.json"), ctx, rows)


if __name__ == "__main__":
    main()
