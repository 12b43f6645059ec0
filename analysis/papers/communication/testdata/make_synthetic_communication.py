#!/usr/bin/env python3
"""Writes the synthetic result files of the communication model's golden test.

SYNTHETIC TEST DATA, NOT MEASUREMENTS. Every number is made up for
//analysis/papers/communication:communication_test; only the layout is the
harness's (analysis/SCHEMA.md), through analysis/testdata/sharing/make_synthetic_sharing.py
and analysis/testdata/synthetic_fixture.py:
  synthetic_communication_layer_breakdown.json: forward passes (the row time)
    of alexnet at batch 16 and 64, resnet50 and densenet121 at 64, a skipped
    resnet50 at 16 and a failed vgg16 at 64;
  synthetic_communication_host_link.json: pinned h2d, d2h and bidirectional
    copies at 16 and 256 MiB, and a pageable bidirectional one.
Run from anywhere: python3 analysis/papers/communication/testdata/make_synthetic_communication.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "testdata", "sharing"))
import make_synthetic_sharing as sharing  # noqa: E402

MIB = 1 << 20


def layer_breakdown():
    experiment = "layer_breakdown"
    axes = [("network", "-", "string"), ("batch", "images", "int64")]
    ctx = sharing.context(experiment, "Where does a CNN's forward pass spend its time op by op",
                          axes, [("total_us", "us")], [])

    def forward(network, batch, us):
        return sharing.measured(experiment, axes, [network, batch], 0, us,
                                {"total_us": round(us * 1.05, 3)})

    rows = [
        forward("alexnet", 16, 4000.0),
        forward("alexnet", 64, 12000.0),
        sharing.skipped(experiment, axes, ["resnet50", 16], 0, "cuDNN not found"),
        forward("resnet50", 64, 60000.0),
        sharing.fixture.error_row(sharing.fixture.row_name(experiment, axes, ["vgg16", 64]), 0,
                                  "error: the softmax output of image 3 sums to 0.2, not 1"),
        forward("densenet121", 64, 45000.0),
    ]
    sharing.fixture.write(os.path.join(HERE, "synthetic_communication_layer_breakdown.json"),
                          ctx, rows)


def host_link():
    experiment = "host_link"
    axes = [("direction", "-", "string"), ("memory", "-", "string"), ("bytes", "B", "int64")]
    ctx = sharing.context(experiment, "How fast are pinned and pageable host copies", axes,
                          [("bandwidth_gbps", "GB/s"), ("latency_us", "us")], [])

    def copy(direction, memory, size, gbps):
        moved = size * (2 if direction == "bidirectional" else 1)
        us = round(moved / (gbps * 1e3), 3)
        return sharing.measured(experiment, axes, [direction, memory, size], 0, us,
                                {"bandwidth_gbps": gbps, "latency_us": us})

    rows = [
        copy("h2d", "pinned", 16 * MIB, 48.0),
        copy("h2d", "pinned", 256 * MIB, 52.0),
        copy("d2h", "pinned", 256 * MIB, 50.0),
        copy("bidirectional", "pinned", 16 * MIB, 70.0),
        copy("bidirectional", "pinned", 256 * MIB, 90.0),
        copy("bidirectional", "pageable", 256 * MIB, 20.0),
    ]
    sharing.fixture.write(os.path.join(HERE, "synthetic_communication_host_link.json"), ctx, rows)


if __name__ == "__main__":
    layer_breakdown()
    host_link()
