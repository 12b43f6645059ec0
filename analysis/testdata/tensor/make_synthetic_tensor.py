#!/usr/bin/env python3
"""Writes the synthetic tensor-experiment fixtures (synthetic_mma_sync.json,
synthetic_wgmma.json, synthetic_cublaslt_gemm.json) in this folder.

Every number below is made up for the tests (chosen to exercise % of peak,
% of best, skipped rows, the heatmap shades and the good/bad/ugly classes);
none is a measurement. Layout as the harness writes result files.
Run from anywhere: python3 analysis/testdata/tensor/make_synthetic_tensor.py
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# synthetic_fixture.py is in the parent folder, analysis/testdata.
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import synthetic_fixture as fixture


def context(experiment, question, axes, metrics):
    """axes: (name, type) per axis, every unit "-"."""
    return fixture.context(
        fixture.H100_LIKE, experiment, question,
        [(a, "-", t) for a, t in axes], metrics,
        git_commit="2035ce50c0ffee0000000000000000000000abcd", host_keys=(),
        build_keys=("build_cuda_archs", "build_mode"), timing_keys=False)


def row(experiment, axes, metrics, extra=None, skipped=None):
    """axes: (name, value) per axis. No family_index; the times are set on
    skipped rows too."""
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
    r["sm_clock_mhz.before"] = 1755.0
    r["sm_clock_mhz.after"] = 1755.0
    r["throttled"] = 0.0
    r.update(extra or {})
    return r


def write(name, ctx, rows):
    fixture.write(os.path.join(HERE, name), ctx, rows)


def mma_sync():
    metrics = [("cycles_per_mma", "cycles"), ("flops_per_clk_per_sm", "FLOP/clk/SM"),
               ("tflops", "TFLOP/s")]
    ctx = context("mma_sync", "What latency and throughput does each warp-level tensor-core "
                  "instruction reach?", [("form", "string"), ("mode", "string"),
                                         ("data", "string")], metrics)
    # (form, flops per mma, latency cycles, throughput cycles per mma per SM, random/zeros)
    forms = [("f16_f32", 4096, 33.0, 1.6), ("bf16_f32", 4096, 33.0, 1.6),
             ("tf32_f32", 2048, 34.0, 1.6), ("s8_s32", 8192, 30.0, 1.6)]
    rows = []
    for form, flops, lat, thr in forms:
        for mode in ("latency", "throughput"):
            for data in ("random", "zeros"):
                cyc = lat if mode == "latency" else thr * (0.95 if data == "zeros" else 1.0)
                per_clk = flops / cyc
                warps = 1 if mode == "latency" else 132 * 64
                tflops = per_clk * 132 * 1.755e9 / 1e12 if mode == "throughput" else \
                    per_clk * 1.755e9 / 1e12
                rows.append(row("mma_sync", [("form", form), ("mode", mode), ("data", data)],
                                {"cycles_per_mma": cyc, "flops_per_clk_per_sm": per_clk,
                                 "tflops": tflops}))
    rows.append(row("mma_sync", [("form", "e4m3_f32"), ("mode", "latency"), ("data", "random")],
                    {}, skipped="mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 needs "
                    "sm_89 or later; this GPU is sm_80"))
    write("synthetic_mma_sync.json", ctx, rows)


def wgmma():
    metrics = [("cycles_per_wgmma", "cycles"), ("flops_per_clk_per_sm", "FLOP/clk/SM"),
               ("tflops", "TFLOP/s")]
    ctx = context("wgmma", "What latency and throughput do Hopper's warpgroup tensor "
                  "instructions reach?", [("form", "string"), ("n", "int64"),
                                          ("a_source", "string"), ("mode", "string"),
                                          ("data", "string")], metrics)
    # (form, n, K, throughput cycles per wgmma per SM)
    points = [("f16_f32", 256, 16, 150.0), ("f16_f32", 8, 16, 8.0),
              ("sp_f16_f32", 256, 32, 160.0)]
    rows = []
    for form, n, k, cyc in points:
        flops = 2 * 64 * n * k
        per_clk = flops / cyc
        rows.append(row("wgmma", [("form", form), ("n", n), ("a_source", "shared"),
                                  ("mode", "throughput"), ("data", "random")],
                        {"cycles_per_wgmma": cyc, "flops_per_clk_per_sm": per_clk,
                         "tflops": per_clk * 132 * 1.755e9 / 1e12}))
    write("synthetic_wgmma.json", ctx, rows)


def gemm():
    metrics = [("tflops", "TFLOP/s"), ("ms", "ms")]
    ctx = context("cublaslt_gemm", "How close does cuBLASLt get to the tensor-core peak?",
                  [("dtype", "string"), ("shape", "string"), ("data", "string")], metrics)
    # (dtype, shape, TFLOP/s, tensor pipe active %)
    points = [
        ("fp16", "4096x4096x4096", 700.0, 88.0), ("fp16", "4095x4096x4096", 420.0, 55.0),
        ("fp16", "64x4096x4096", 90.0, 9.0), ("fp16", "1x4096x4096", 2.0, 0.4),
        ("fp32", "4096x4096x4096", 50.0, None), ("fp32", "1x4096x4096", 1.0, None),
        ("int8", "4096x4096x4096", 1500.0, 81.0),
    ]
    rows = []
    for dtype, shape, tflops, active in points:
        m, n, k = (int(x) for x in shape.split("x"))
        extra = {} if active is None else {"cupti/tensor_pipe_active": active}
        rows.append(row("cublaslt_gemm", [("dtype", dtype), ("shape", shape), ("data", "random")],
                        {"tflops": tflops, "ms": 2.0 * m * n * k / tflops / 1e9}, extra))
    rows.append(row("cublaslt_gemm", [("dtype", "int8"), ("shape", "4095x4096x4096"),
                                      ("data", "random")], {},
                    skipped="cuBLASLt has no int8 kernel for 4095x4096x4096 (int8 needs "
                    "dimensions that are multiples of 4)"))
    write("synthetic_cublaslt_gemm.json", ctx, rows)


if __name__ == "__main__":
    mma_sync()
    wgmma()
    gemm()
