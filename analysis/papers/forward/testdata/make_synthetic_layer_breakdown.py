#!/usr/bin/env python3
"""Writes the synthetic layer_breakdown result file in this folder.

SYNTHETIC TEST DATA, NOT MEASUREMENTS. Every number is made up for the golden
test of //analysis/papers/forward:forward_test; only the layout is the
harness's (analysis/SCHEMA.md, vectors as row counters `name[i]`, notes in
the label), through analysis/testdata/sharing/make_synthetic_sharing.py and
analysis/testdata/synthetic_fixture.py. The networks are made-up cuts of the
real ones (a 15-op "densenet121", an 8-op "vgg16") so that the vectors stay
short. Each op's time is its bytes over a made-up bandwidth. It holds a
skipped row (cuDNN not found) and an error row.
Run from anywhere: python3 analysis/papers/forward/testdata/make_synthetic_layer_breakdown.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "testdata", "sharing"))
import make_synthetic_sharing as sharing  # noqa: E402

EXPERIMENT = "layer_breakdown"
AXES = [("network", "-", "string"), ("batch", "images", "int64")]
METRICS = [("total_us", "us"), ("total_bytes", "B"), ("total_flops", "flop"), ("ops", "ops")]
VECTORS = [("op_us", "us", "op"), ("op_us_min", "us", "op"), ("op_us_max", "us", "op"),
           ("op_bytes", "B", "op"), ("op_flops", "flop", "op")]
MB = 1e6

# (name, type, MB per image, made-up GB/s, MFLOP per image)
DENSENET = [
    ("conv0", "conv", 13.0, 420.0, 236.0),
    ("norm0", "bn", 6.4, 2600.0, 6.4),
    ("relu0", "relu", 6.4, 2800.0, 0.8),
    ("pool0", "maxpool", 4.0, 2100.0, 7.2),
    ("l1.norm1", "bn", 1.6, 2500.0, 1.6),
    ("l1.relu1", "relu", 1.6, 2700.0, 0.2),
    ("l1.conv1", "conv", 2.4, 900.0, 51.0),
    ("l1.norm2", "bn", 3.2, 2400.0, 3.2),
    # Small enough for L2: above the DRAM peak.
    ("l1.relu2", "relu", 0.8, 4100.0, 0.4),
    ("l1.conv2", "conv", 1.6, 300.0, 115.0),
    ("l1.concat", "concat", 2.0, 2200.0, 0.0),
    ("t1.pool", "avgpool", 1.0, 1800.0, 1.0),
    ("gap", "avgpool", 0.2, 900.0, 0.05),
    ("fc", "fc", 4.1, 1500.0, 2.0),
    ("softmax", "softmax", 0.008, 40.0, 0.003),
]
VGG = [
    ("conv1_1", "conv", 13.0, 380.0, 173.0),
    ("bn1_1", "bn", 25.7, 2700.0, 6.4),
    ("relu1_1", "relu", 25.7, 2900.0, 3.2),
    ("pool1", "maxpool", 16.0, 2300.0, 3.2),
    ("fc6", "fc", 411.0, 2900.0, 205.0),
    ("relu6", "relu", 0.03, 60.0, 0.004),
    ("fc8", "fc", 16.4, 2000.0, 8.2),
    ("softmax", "softmax", 0.008, 40.0, 0.003),
]


def pass_row(network, batch, ops, index, notes=""):
    us, bytes_, flops = [], [], []
    for _, _, mb, gbps, mflop in ops:
        # Weights do not grow with the batch; call half of each op's bytes
        # per image and half fixed.
        b = mb * MB * (0.5 + 0.5 * batch)
        bytes_.append(b)
        flops.append(mflop * 1e6 * batch)
        us.append(round(b / (gbps * 1e3), 3))
    total = sum(us)
    label = "ops=" + ",".join("%s:%s" % (name, kind) for name, kind, _, _, _ in ops)
    if notes:
        label = notes + "; " + label
    counters = {}
    counters.update(sharing.vector("op_us", us))
    counters.update(sharing.vector("op_us_min", [round(u * 0.97, 3) for u in us]))
    counters.update(sharing.vector("op_us_max", [round(u * 1.08, 3) for u in us]))
    counters.update(sharing.vector("op_bytes", bytes_))
    counters.update(sharing.vector("op_flops", flops))
    return sharing.measured(EXPERIMENT, AXES, [network, batch], index, round(total * 0.95, 3),
                            {"total_us": round(total, 3), "total_bytes": sum(bytes_),
                             "total_flops": sum(flops), "ops": float(len(ops))},
                            counters, label=label)


def main():
    ctx = sharing.context(EXPERIMENT, "Where does a CNN's forward pass spend its time op by op",
                          AXES, METRICS, VECTORS)
    rows = [
        pass_row("vgg16", 1, VGG, 0),
        pass_row("vgg16", 16, VGG, 0, notes="clock moved 1755-1980 MHz"),
        sharing.skipped(EXPERIMENT, AXES, ["resnet50", 16], 0,
                        "cuDNN not found: cannot load libcudnn.so.9 (cuDNN 9: the toolkit's "
                        "lib64 or the nvidia-cudnn-cu* Python wheel)"),
        pass_row("densenet121", 1, DENSENET, 0),
        pass_row("densenet121", 16, DENSENET, 0),
        fixture_error("alexnet", 64),
    ]
    sharing.fixture.write(os.path.join(HERE, "synthetic_layer_breakdown.json"), ctx, rows)


def fixture_error(network, batch):
    name = sharing.fixture.row_name(EXPERIMENT, AXES, [network, batch])
    return sharing.fixture.error_row(
        name, 0, "error: the softmax output of image 3 sums to 0.2, not 1")


if __name__ == "__main__":
    main()
