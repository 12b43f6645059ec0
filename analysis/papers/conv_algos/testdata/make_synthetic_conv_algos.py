#!/usr/bin/env python3
"""Writes the synthetic conv_algorithms result files in this folder.

SYNTHETIC TEST DATA, NOT MEASUREMENTS. Every number is made up for the golden
test of //analysis/papers/conv_algos:conv_algos_test; only the layout is the
harness's (analysis/SCHEMA.md), through analysis/testdata/synthetic_fixture.py.
The layers are a made-up cut of the real networks: "alexnet" has 3 conv
layers here (all measured), "resnet50" 2 measured rows standing for 3 of its
53 conv layers (an incomplete network). It holds skipped rows (an algorithm
cuDNN does not support, a workspace that does not fit), an error row, and a
tensor_op row the generators (math fma) leave out.
synthetic_conv_algorithms_batch256.json holds the "alexnet" layers alone at
batches 16-256, for µ-cuDNN's page in the paper's setting (mini-batch 256,
limits 128, 256 and 512 MiB): there fft fits the whole batch only from
256 MiB, and two micro-batches of 128 from 128 MiB.
Run from anywhere: python3 analysis/papers/conv_algos/testdata/make_synthetic_conv_algos.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import conv_algorithms_fixture as conv  # noqa: E402
from conv_algorithms_fixture import MIB, fixture  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# layer: (GFLOP per image, us per image with implicit_gemm, shape_count,
#         network_conv_layers)
LAYERS = {
    "alexnet.features.0": (0.14, 40.0, 1, 3),
    "alexnet.features.3": (0.45, 60.0, 1, 3),
    "alexnet.features.6": (0.22, 30.0, 1, 3),
    "resnet50.layer1.0.conv2": (0.23, 35.0, 3, 53),
    "resnet50.layer4.0.conv1": (0.10, 20.0, 0, 53),
}
# algo: (time factor, workspace MiB per image, heuristic rank)
ALGOS = {
    "implicit_gemm": (1.0, 0.0, 3),
    "gemm": (1.3, 0.5, 4),
    "fft": (0.4, 1.0, 1),
    "winograd": (0.6, 0.1, 2),
}
BATCHES = [32, 64, 128]
PAPER_BATCHES = [16, 32, 64, 128, 256]
# Points that did not run: (layer, algo) -> message (every batch).
NOT_RUN = {
    ("alexnet.features.0", "winograd"):
        "skipped: cuDNN does not support winograd here: CUDNN_STATUS_NOT_SUPPORTED",
    ("resnet50.layer1.0.conv2", "fft"):
        "skipped: needs 90001 MiB (workspace 89000 MiB), 80000 MiB free",
    ("alexnet.features.6", "gemm"):
        "error: gemm on alexnet.features.6: output (n 3, k 7, p 1, q 2) is 9.5, the CPU "
        "reference 1.25 (tolerance 0.01)",
}


def context():
    return conv.context("How fast is each cuDNN forward convolution algorithm on each conv "
                        "layer (synthetic)")


def layer_rows(layers, batches):
    """One row per layer, algorithm and batch (NOT_RUN's points as errors)."""
    rows = []
    for layer, (gflop, us, shape_count, network_layers) in layers.items():
        for algo, (factor, ws_mib, rank) in ALGOS.items():
            for batch in batches:
                name = conv.row_name(layer, algo, batch)
                message = NOT_RUN.get((layer, algo))
                if message is not None:
                    rows.append(fixture.error_row(name, 0, message))
                    continue
                # Small batches use the GPU less well: 8 images of overhead.
                t = us * factor * (batch + 8) / 8.0
                rows.append(conv.measured_row(name, t, gflop, batch, ws_mib * MIB * batch, rank,
                                              shape_count, network_layers))
    return rows


def main():
    rows = layer_rows(LAYERS, BATCHES)
    # A TF32 row: not math fma, so left out by the generators.
    r = fixture.row(conv.row_name("alexnet.features.3", "implicit_gemm", 64, "tensor_op"), 0)
    r.update(fixture.times(1.0, 1.0))
    for metric, _ in conv.METRICS:
        fixture.add_metric(r, metric, 1.0, 1.0, 1.0, 0.0)
    fixture.add_samples(r, 1755.0)
    rows.append(r)
    fixture.write(os.path.join(HERE, "synthetic_conv_algorithms.json"), context(), rows)
    alexnet = {layer: v for layer, v in LAYERS.items() if layer.startswith("alexnet.")}
    fixture.write(os.path.join(HERE, "synthetic_conv_algorithms_batch256.json"), context(),
                  layer_rows(alexnet, PAPER_BATCHES))


if __name__ == "__main__":
    main()
