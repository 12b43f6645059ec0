#!/usr/bin/env python3
"""Writes the synthetic fixtures of //analysis/papers/reused's tests here.

Every number is made up for the tests (SYNTHETIC, not measurements), laid out
as the harness writes result files (analysis/testdata/synthetic_fixture.py):
  synthetic_l1_bypass_counters.json: l1_bypass, default variant, conv /
    maxpool / gemv / softmax / stream on two layers with the five CUPTI
    transfer counters of dong_kaeli_2018_b; one skipped row.
  synthetic_l1_bypass_unavailable.json: the same on the A100-like fixture
    device with `counters_unavailable` and no counters.
  synthetic_fc_gemm.json: cublaslt_gemm FC shapes (M = batch, N = K = width)
    for fp32 and fp16 on the H100-like tensor fixture device; one skipped row.
Run from anywhere: python3 analysis/papers/reused/testdata/make_synthetic.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "testdata"))
import synthetic_fixture as fixture  # noqa: E402

L1_AXES = [("kernel", "-", "string"), ("layer", "-", "string"), ("batch", "images", "int64"),
           ("working_set_bytes", "B", "int64"), ("timing", "-", "string"),
           ("occupancy_pct", "%", "int64"), ("variant", "-", "string")]
L1_METRICS = [("kernel_us", "us"), ("input_bytes", "B")]
COUNTERS = ["cupti/l1_sectors_global_load", "cupti/l2_sectors_read", "cupti/l2_sectors_write",
            "cupti/dram_bytes_read", "cupti/dram_bytes_write"]

# (kernel, layer, kernel us, input bytes, (L1, L2 read, L2 write, DRAM read, DRAM write)).
L1_POINTS = [
    ("conv", "alexnet.conv2", 120.0, 1119744, (9.0e6, 4.0e5, 2.2e4, 1.2e6, 7.0e5)),
    ("maxpool", "alexnet.pool1", 6.5, 1161600, (1.1e5, 4.1e4, 9.0e3, 1.2e6, 2.8e5)),
    ("gemv", "alexnet.fc6", 48.0, 37748736, (1.2e6, 1.18e6, 1.3e2, 3.8e7, 1.6e4)),
    ("softmax", "alexnet.fc6", 3.1, 16384, (1.1e3, 5.2e2, 5.1e2, 1.6e4, 1.6e4)),
    ("stream", "alexnet.conv2", 4.0, 1119744, (3.5e4, 3.5e4, 3.5e4, 1.1e6, 1.1e6)),
]


def l1_file(path, device, counters, extra=None):
    ctx = fixture.context(device, "l1_bypass", "How much memory traffic per layer (fixture)?",
                          L1_AXES, L1_METRICS, extra=extra)
    rows = []
    for kernel, layer, us, input_bytes, values in L1_POINTS:
        name = fixture.row_name("l1_bypass", L1_AXES,
                                (kernel, layer, 1, 0, "hot", 100, "default"))
        r = fixture.row(name, len(rows))
        r.update(fixture.times(us, us * 1.2))
        fixture.add_metric(r, "kernel_us", us, us * 0.99, us * 1.01, 0.02)
        fixture.add_metric(r, "input_bytes", input_bytes, input_bytes, input_bytes, 0.0)
        if counters:
            for counter, value in zip(COUNTERS, values):
                r[counter] = value
        fixture.add_samples(r, 1980.0)
        rows.append(r)
    skipped = fixture.row_name("l1_bypass", L1_AXES,
                               ("maxpool", "alexnet.fc6", 1, 0, "hot", 100, "default"))
    rows.append(fixture.error_row(skipped, len(rows),
                                  "skipped: maxpool does not run on fc layers (alexnet.fc6)"))
    fixture.write(os.path.join(HERE, path), ctx, rows)


l1_file("synthetic_l1_bypass_counters.json", fixture.H100_LIKE, True)
l1_file("synthetic_l1_bypass_unavailable.json", fixture.A100_LIKE, False,
        extra={"counters_unavailable": "no_permission: synthetic fixture"})

GEMM_AXES = [("dtype", "-", "string"), ("shape", "-", "string"), ("cache", "-", "string"),
             ("data", "-", "string")]
GEMM_METRICS = [("tflops", "TFLOP/s")]
DEVICE = dict(fixture.H100_LIKE, device_name="NVIDIA H100 80GB HBM3 (synthetic fixture)")
# (dtype, batch, width, TFLOP/s); fp16 at 16384 x 1024 is skipped.
FC_POINTS = [
    ("fp32", 16, 256, 0.4), ("fp32", 16, 1024, 2.1), ("fp32", 256, 256, 6.0),
    ("fp32", 256, 1024, 31.0),
    ("fp16", 16, 256, 1.5), ("fp16", 16, 1024, 12.0), ("fp16", 256, 256, 40.0),
    ("fp16", 256, 1024, 390.0), ("fp16", 16384, 256, 420.0),
]
rows = []
for dtype, batch, width, tflops in FC_POINTS:
    name = fixture.row_name("cublaslt_gemm", GEMM_AXES,
                            (dtype, "%dx%dx%d" % (batch, width, width), "hot", "random"))
    r = fixture.row(name, len(rows))
    seconds = 2.0 * batch * width * width / (tflops * 1e12)
    r.update(fixture.times(seconds * 1e6, seconds * 1.2e6))
    fixture.add_metric(r, "tflops", tflops, tflops * 0.99, tflops * 1.01, 0.02)
    fixture.add_samples(r, 1980.0)
    rows.append(r)
rows.append(fixture.error_row(
    fixture.row_name("cublaslt_gemm", GEMM_AXES, ("fp16", "16384x1024x1024", "hot", "random")),
    len(rows), "skipped: synthetic fixture: no algorithm"))
fixture.write(os.path.join(HERE, "synthetic_fc_gemm.json"),
              fixture.context(DEVICE, "cublaslt_gemm", "FC layers (fixture)?", GEMM_AXES,
                              GEMM_METRICS), rows)
