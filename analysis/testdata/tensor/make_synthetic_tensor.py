#!/usr/bin/env python3
"""Writes the synthetic tensor-experiment fixtures (synthetic_mma_sync.json,
synthetic_wgmma.json, synthetic_cublaslt_gemm.json) in this folder.

Every number below is made up for the tests (chosen to exercise % of peak,
% of best, skipped rows, the heatmap shades and the good/bad/ugly classes);
none is a measurement. Layout as the harness writes result files.
Run from anywhere: python3 analysis/testdata/tensor/make_synthetic_tensor.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

H100_LIKE = {
    "device_compute_capability": "9.0",
    "device_dram_peak_gbps": "3352.3",
    "device_index": "0",
    "device_l2_bytes": "52428800",
    "device_max_threads_per_sm": "2048",
    "device_memory_bus_width_bits": "5120",
    "device_memory_clock_khz": "2619000",
    "device_name": "Synthetic H100-like GPU (fixture)",
    "device_pci_bus_id": "0000:00:00.0",
    "device_shared_per_block_optin_bytes": "232448",
    "device_sm_clock_max_khz": "1980000",
    "device_sm_count": "132",
}


def context(experiment, question, axes, metrics):
    ctx = {
        "date": "2026-11-23T09:00:00+00:00",
        "host_name": "synthetic-fixture",
        "executable": "./dist/bin/" + experiment,
        "build_cuda_archs": "sm_90a",
        "build_mode": "opt",
        "clocks_source": "nvml",
        "dissect_axes": ",".join(a for a, _ in axes),
        "dissect_experiment": experiment,
        "dissect_metrics": ",".join(m for m, _ in metrics),
        "dissect_question": question,
        "dissect_schema_version": "1",
        "driver_version": "13.0",
        "git_commit": "2035ce50c0ffee0000000000000000000000abcd",
        "git_dirty": "false",
        "runtime_version": "13.0",
    }
    ctx.update(H100_LIKE)
    for a, t in axes:
        ctx["axis.%s.type" % a] = t
        ctx["axis.%s.unit" % a] = "-"
    for m, unit in metrics:
        ctx["metric.%s.unit" % m] = unit
    return ctx


def row(experiment, axes, metrics, extra=None, skipped=None):
    name = experiment + "".join("/%s:%s" % kv for kv in axes) + "/iterations:1/manual_time"
    r = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
         "repetition_index": 0, "threads": 1, "iterations": 1, "real_time": 1000.0,
         "cpu_time": 1000.0, "time_unit": "us"}
    if skipped:
        r["error_occurred"] = True
        r["error_message"] = "skipped: " + skipped
        return r
    for m, v in metrics.items():
        r[m] = v
        r[m + ".min"] = v * 0.99
        r[m + ".max"] = v * 1.01
        r[m + ".spread"] = 0.02
    r["samples"] = 5.0
    r["sm_clock_mhz.before"] = 1755.0
    r["sm_clock_mhz.after"] = 1755.0
    r["throttled"] = 0.0
    r.update(extra or {})
    return r


def write(name, ctx, rows):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump({"context": ctx, "benchmarks": rows}, f, indent=2)
        f.write("\n")


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
