#!/usr/bin/env python3
"""Writes the synthetic tensor-experiment fixtures (synthetic_mma_sync.json,
synthetic_wgmma.json, synthetic_cublaslt_gemm.json) in this folder.

Every number below is made up for the tests (chosen to exercise the three
ceilings and % of best, emulated and skipped rows, the heatmap shades, the
good/bad/ugly classes, hot rows beside cold ones and operands that fit in L2);
none is a measurement. Layout as the harness writes result files. The device
is the H100-like fixture device named so that it matches the H100 SXM5
product of configs/tensor/peaks.json (its published peaks).
Run from anywhere: python3 analysis/testdata/tensor/make_synthetic_tensor.py
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# synthetic_fixture.py is in the parent folder, analysis/testdata.
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import synthetic_fixture as fixture


# Matches the "H100 80GB HBM3" product of configs/tensor/peaks.json.
DEVICE = dict(fixture.H100_LIKE, device_name="NVIDIA H100 80GB HBM3 (synthetic fixture)")

# The SM clock of every row unless a row says otherwise: below the 1980 MHz
# maximum boost clock, as under sustained tensor load.
CLOCK = 1755.0


def context(experiment, question, axes, metrics):
    """axes: (name, type) per axis, every unit "-"."""
    return fixture.context(
        DEVICE, experiment, question,
        [(a, "-", t) for a, t in axes], metrics,
        git_commit="2035ce50c0ffee0000000000000000000000abcd", host_keys=(),
        build_keys=("build_cuda_archs", "build_mode"), timing_keys=False)


def row(experiment, axes, metrics, extra=None, skipped=None, clock=CLOCK, polled=None):
    """axes: (name, value) per axis. No family_index; the times are set on
    skipped rows too. clock: the NVML SM clock before and after; polled:
    (min, median, max) of the NVML reads polled during the samples."""
    r = fixture.row(fixture.row_name(experiment, axes, [v for _, v in axes]))
    r.update(fixture.times(1000.0, 1000.0))
    if skipped:
        r["error_occurred"] = True
        r["error_message"] = "skipped: " + skipped
        return r
    for m, v in metrics.items():
        fixture.add_metric(r, m, v, v * 0.99, v * 1.01, 0.02)
    # Not fixture.add_samples: here the clock before comes first.
    r["samples"] = 5.0
    r["sm_clock_mhz.before"] = clock
    r["sm_clock_mhz.after"] = clock
    if polled:
        r["sm_clock_mhz.min"], r["sm_clock_mhz.median"], r["sm_clock_mhz.max"] = polled
        r["sm_clock_readings"] = 12.0
        r["clock_moved"] = 1.0 if polled[2] - polled[0] > 0.01 * polled[2] else 0.0
    r["throttled"] = 0.0
    r.update(extra or {})
    return r


def write(name, ctx, rows):
    fixture.write(os.path.join(HERE, name), ctx, rows)


def mma_sync():
    metrics = [("cycles_per_mma", "cycles"), ("flops_per_clk_per_sm", "FLOP/clk/SM"),
               ("tflops", "TFLOP/s"), ("measured_sm_clock_mhz", "MHz"), ("emulated", "-")]
    ctx = context("mma_sync", "What latency and throughput does each warp-level tensor-core "
                  "instruction reach?", [("form", "string"), ("mode", "string"),
                                         ("data", "string")], metrics)
    # (form, flops per mma, latency cycles, throughput cycles per mma per SM, emulated)
    forms = [("f16_f32", 4096, 33.0, 1.6, 0), ("bf16_f32", 4096, 33.0, 1.6, 0),
             ("tf32_f32", 2048, 34.0, 1.6, 0), ("s8_s32", 8192, 30.0, 1.6, 0),
             # ptxas expands it into f16 HMMA: its rate would be 88% of the fp8
             # peak and above every real fp8 row, and must not count.
             ("e5m2_f32", 8192, 20.0, 1.136, 1)]
    rows = []
    for form, flops, lat, thr, emulated in forms:
        for mode in ("latency", "throughput"):
            for data in ("random", "zeros"):
                if emulated and data == "zeros":
                    continue
                cyc = lat if mode == "latency" else thr * (0.95 if data == "zeros" else 1.0)
                per_clk = flops / cyc
                tflops = per_clk * 132 * CLOCK * 1e6 / 1e12 if mode == "throughput" else \
                    per_clk * CLOCK * 1e6 / 1e12
                metric = {"cycles_per_mma": cyc, "flops_per_clk_per_sm": per_clk,
                          "tflops": tflops, "emulated": float(emulated)}
                if mode == "throughput":
                    metric["measured_sm_clock_mhz"] = CLOCK
                rows.append(row("mma_sync", [("form", form), ("mode", mode), ("data", data)],
                                metric))
    rows.append(row("mma_sync", [("form", "e4m3_f32"), ("mode", "latency"), ("data", "random")],
                    {}, skipped="mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 needs "
                    "sm_89 or later; this GPU is sm_80"))
    write("synthetic_mma_sync.json", ctx, rows)


def wgmma():
    metrics = [("cycles_per_wgmma", "cycles"), ("flops_per_clk_per_sm", "FLOP/clk/SM"),
               ("tflops", "TFLOP/s"), ("measured_sm_clock_mhz", "MHz")]
    ctx = context("wgmma", "What latency and throughput do Hopper's warpgroup tensor "
                  "instructions reach?", [("form", "string"), ("n", "int64"),
                                          ("a_source", "string"), ("mode", "string"),
                                          ("data", "string")], metrics)
    # (form, n, K, throughput cycles per wgmma per SM, SM clock, its clock64
    # estimate); one row ran at the maximum boost clock, and one has a
    # clock64 estimate (a lower bound) below the NVML clock.
    points = [("f16_f32", 256, 16, 150.0, CLOCK, CLOCK), ("f16_f32", 8, 16, 8.0, 1980.0, 1980.0),
              ("sp_f16_f32", 256, 32, 160.0, CLOCK, CLOCK),
              ("e4m3_f32", 256, 32, 170.0, CLOCK, 1400.0)]
    rows = []
    for form, n, k, cyc, clock, clock64 in points:
        flops = 2 * 64 * n * k
        per_clk = flops / cyc
        rows.append(row("wgmma", [("form", form), ("n", n), ("a_source", "shared"),
                                  ("mode", "throughput"), ("data", "random")],
                        {"cycles_per_wgmma": cyc, "flops_per_clk_per_sm": per_clk,
                         "tflops": per_clk * 132 * clock * 1e6 / 1e12,
                         "measured_sm_clock_mhz": clock64}))
    write("synthetic_wgmma.json", ctx, rows)


def gemm():
    metrics = [("tflops", "TFLOP/s"), ("gbps", "GB/s")]
    ctx = context("cublaslt_gemm", "How close does cuBLASLt get to the tensor-core peak?",
                  [("dtype", "string"), ("shape", "string"), ("cache", "string"),
                   ("data", "string")], metrics)
    in_bytes = {"fp32": 4, "fp16": 2, "fp8": 1, "fp8_fast_accum": 1, "int8": 1}
    out_bytes = {"fp32": 4, "fp16": 2, "fp8": 2, "fp8_fast_accum": 2, "int8": 4}
    # (dtype, shape, cache, TFLOP/s, tensor pipe active %, NVML SM clock);
    # 2048x4096x4096 fp16 also has the reads polled during its samples, the
    # clock dropping from 1755 to 1650 MHz.
    points = [
        ("fp16", "4096x4096x4096", "hot", 700.0, 88.0, CLOCK),
        ("fp16", "4096x4096x4096", "cold", 690.0, None, CLOCK),
        ("fp16", "4095x4096x4096", "hot", 420.0, 55.0, CLOCK),
        ("fp16", "2048x4096x4096", "hot", 560.0, 70.0, CLOCK),
        ("fp16", "64x4096x4096", "hot", 90.0, 9.0, CLOCK),
        ("fp16", "64x4096x4096", "cold", 60.0, None, CLOCK),
        ("fp16", "1x4096x4096", "hot", 4.0, 0.4, CLOCK),
        ("fp16", "1x4096x4096", "cold", 1.5, None, CLOCK),
        ("fp32", "4096x4096x4096", "hot", 50.0, None, 1980.0),
        ("fp32", "1x4096x4096", "hot", 1.0, None, CLOCK),
        ("fp8", "4096x4096x4096", "hot", 1300.0, 66.0, CLOCK),
        ("fp8_fast_accum", "4096x4096x4096", "hot", 1550.0, 79.0, CLOCK),
        ("int8", "4096x4096x4096", "hot", 1500.0, 81.0, CLOCK),
    ]
    rows = []
    for dtype, shape, cache, tflops, active, clock in points:
        m, n, k = (int(x) for x in shape.split("x"))
        seconds = 2.0 * m * n * k / (tflops * 1e12)
        nbytes = in_bytes[dtype] * (m * k + k * n) + out_bytes[dtype] * m * n
        extra = {} if active is None else {"cupti/tensor_pipe_active": active}
        rows.append(row("cublaslt_gemm", [("dtype", dtype), ("shape", shape), ("cache", cache),
                                          ("data", "random")],
                        {"tflops": tflops, "gbps": nbytes / seconds / 1e9}, extra, clock=clock,
                        polled=(1650.0, 1700.0, 1755.0) if m == 2048 else None))
    rows.append(row("cublaslt_gemm", [("dtype", "int8"), ("shape", "4095x4096x4096"),
                                      ("cache", "hot"), ("data", "random")], {},
                    skipped="cuBLASLt has no int8 kernel for 4095x4096x4096 (int8 needs "
                    "dimensions that are multiples of 4)"))
    write("synthetic_cublaslt_gemm.json", ctx, rows)


if __name__ == "__main__":
    mma_sync()
    wgmma()
    gemm()
