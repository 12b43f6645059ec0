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
import conv_algorithms_fixture as conv  # noqa: E402
from conv_algorithms_fixture import MIB, fixture  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
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
    rank = float("nan") if algo == "two_stage" else 1.0
    return conv.measured_row(conv.row_name(layer, algo, batch), us, gflop, batch, workspace, rank,
                             shape_count, network_layers)


def main():
    ctx = conv.context("How fast is each cuDNN forward convolution algorithm on each conv "
                       "layer (synthetic, with two_stage)")
    rows = []
    for layer, (_, _, _, filter_rows, out_mib) in LAYERS.items():
        for batch in BATCHES:
            for algo, (us, per_image, ws_mib) in CUDNN.items():
                if (layer, algo) in NOT_SUPPORTED:
                    rows.append(fixture.error_row(
                        conv.row_name(layer, algo, batch), 0, "skipped: cuDNN does not support winograd here: "
                        "CUDNN_STATUS_NOT_SUPPORTED"))
                    continue
                rows.append(measured_row(layer, algo, batch, us + per_image * (batch - 1),
                                         ws_mib * MIB * batch))
            rows.append(measured_row(layer, "two_stage", batch, TWO_STAGE[(layer, batch)],
                                     filter_rows * out_mib * MIB * batch))
    rows.append(fixture.error_row(
        conv.row_name("alexnet.features.3", "two_stage", 1, "tensor_op"), 0, "skipped: two_stage runs FP32 FFMA only: math=fma (no tensor-core form)"))
    fixture.write(os.path.join(HERE, "synthetic_two_stage_conv_algorithms.json"), ctx, rows)


if __name__ == "__main__":
    main()
