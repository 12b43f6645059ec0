#!/usr/bin/env python3
"""Writes the synthetic result files of the roofline golden test
(synthetic_memory_bandwidth.json, synthetic_cublaslt_gemm.json,
synthetic_attention.json) in this folder.

SYNTHETIC: every number below is made up for the test (a DRAM roof of
3000 GB/s with a faster L2-sized footprint that must not count, an fp16
tensor roof of 720 TFLOP/s, an fp32 SGEMM of 51 TFLOP/s, operator points at
chosen fractions of their attainable rate, and one skipped row per
experiment); none is a measurement. Layout as the harness writes result
files (analysis/testdata/synthetic_fixture.py). The device is named so that
it matches the H100 SXM5 product of configs/tensor/peaks.json.
Run from anywhere: python3 analysis/papers/roofline/testdata/make_synthetic_roofline.py
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# synthetic_fixture.py is in analysis/testdata.
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "testdata"))
sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import synthetic_fixture as fixture

DEVICE = dict(fixture.H100_LIKE, device_name="NVIDIA H100 80GB HBM3 (synthetic fixture)")
CLOCK = 1755.0
DRAM_GBPS = 3000.0
FP16_TFLOPS = 720.0
FP32_TFLOPS = 51.0


def context(experiment, question, axes, metrics):
    return fixture.context(DEVICE, experiment, question, axes, metrics, host_keys=(),
                           build_keys=("build_cuda_archs", "build_mode"), timing_keys=False)


def row(experiment, axes, metrics, skipped=None):
    r = fixture.row(fixture.row_name(experiment, axes, [v for _, v in axes]))
    if skipped:
        r.update({"error_occurred": True, "error_message": "skipped: " + skipped})
        r.update(fixture.times(0.0, 0.0, iterations=0))
        return r
    r.update(fixture.times(1000.0, 1000.0))
    for m, v in metrics.items():
        fixture.add_metric(r, m, v, v * 0.99, v * 1.01, 0.02)
    fixture.add_samples(r, CLOCK)
    return r


def attainable(ai, roof):
    return min(roof, ai * DRAM_GBPS / 1000.0)


def memory_bandwidth():
    axes = [("op", "-", "string"), ("width_bits", "bits", "int64"),
            ("bytes_in_flight_per_thread", "B", "int64"), ("footprint_bytes", "B", "int64")]
    ctx = context("memory_bandwidth", "What bandwidth do streaming reads reach?", axes,
                  [("bandwidth_gbps", "GB/s"), ("dram_peak_pct", "%")])
    rows = []
    # 64 MiB is below the DRAM minimum footprint: its L2-assisted 5200 GB/s
    # must not become the roof. The best DRAM setting is 64 B in flight.
    for footprint, scale in ((64 << 20, 1.0), (256 << 20, 0.99), (1 << 30, 1.0)):
        for in_flight, gbps in ((32, 2600.0), (64, DRAM_GBPS), (128, 2950.0)):
            bw = 5200.0 if footprint == 64 << 20 else gbps * scale
            rows.append(row("memory_bandwidth",
                            [("op", "read"), ("width_bits", 128),
                             ("bytes_in_flight_per_thread", in_flight),
                             ("footprint_bytes", footprint)],
                            {"bandwidth_gbps": bw, "dram_peak_pct": 100 * bw / 3352.3}))
    # A 64-bit read faster than every 128-bit one: not the width the roof uses.
    rows.append(row("memory_bandwidth", [("op", "read"), ("width_bits", 64),
                                         ("bytes_in_flight_per_thread", 64),
                                         ("footprint_bytes", 1 << 30)],
                    {"bandwidth_gbps": 3100.0, "dram_peak_pct": 92.5}))
    rows.append(row("memory_bandwidth", [("op", "read"), ("width_bits", 128),
                                         ("bytes_in_flight_per_thread", 128),
                                         ("footprint_bytes", 2 << 30)], {},
                    skipped="needs 2048 MiB, 1024 MiB free"))
    fixture.write(os.path.join(HERE, "synthetic_memory_bandwidth.json"), ctx, rows)


def gemm_ai(m, n, k):
    return 2.0 * m * n * k / (2.0 * (m * k + k * n + m * n))


def cublaslt_gemm():
    axes = [("dtype", "-", "string"), ("shape", "-", "string"), ("cache", "-", "string"),
            ("data", "-", "string")]
    ctx = context("cublaslt_gemm", "How close does cuBLASLt get to the tensor-core peak?", axes,
                  [("tflops", "TFLOP/s"), ("gbps", "GB/s")])
    rows = []

    def add(dtype, m, n, k, cache, tflops, skipped=None):
        shape = "%dx%dx%d" % (m, n, k)
        rows.append(row("cublaslt_gemm", [("dtype", dtype), ("shape", shape), ("cache", cache),
                                          ("data", "random")],
                        {"tflops": tflops, "gbps": tflops * 1000 / gemm_ai(m, n, k)},
                        skipped=skipped))

    add("fp16", 8192, 8192, 8192, "hot", FP16_TFLOPS)
    add("fp32", 8192, 8192, 8192, "hot", FP32_TFLOPS)
    # Prefill (hot): fractions of the attainable rate.
    for m, eff in ((128, 0.55), (2048, 0.85)):
        for n, k in ((12288, 4096), (4096, 11008)):
            add("fp16", m, n, k, "hot", eff * attainable(gemm_ai(m, n, k), FP16_TFLOPS))
    # Decode (cold).
    for m, eff in ((1, 0.80), (16, 0.75), (64, 0.60)):
        add("fp16", m, 4096, 4096, "cold", eff * attainable(gemm_ai(m, 4096, 4096), FP16_TFLOPS))
    # A hot decode GEMV whose 32 MiB of operands fit in L2: faster than the
    # DRAM roof allows, and outside the cold selection.
    add("fp16", 1, 4096, 4096, "hot", 1.4 * attainable(gemm_ai(1, 4096, 4096), FP16_TFLOPS))
    # Not a Llama shape (N x K = 8192x8192): no operator point, only its
    # rate could matter (for the roof).
    add("fp16", 2048, 8192, 8192, "hot", 690.0)
    add("fp16", 4, 4096, 4096, "cold", 0.0, skipped="no cuBLASLt heuristic for this shape")
    fixture.write(os.path.join(HERE, "synthetic_cublaslt_gemm.json"), ctx, rows)


def attention():
    axes = [("phase", "-", "string"), ("context", "tokens", "int64"),
            ("batch", "sequences", "int64"), ("heads", "heads", "int64"),
            ("cache", "-", "string")]
    metrics = [("flops", "FLOP"), ("bytes", "B"), ("arithmetic_intensity", "FLOP/B"),
               ("tflops", "TFLOP/s"), ("gbps", "GB/s"), ("max_rel_error", "fraction"),
               ("working_set_bytes", "B"), ("beyond_2x_l2", "-")]
    ctx = context("attention", "How close does a simple tiled fp16 attention kernel come to "
                  "this GPU's roofline in LLM prefill and decode?", axes, metrics)
    rows = []

    def add(phase, ctx_len, batch, cache, eff, skipped=None):
        q = ctx_len if phase == "prefill" else 1
        flops = 4.0 * batch * 32 * q * ctx_len * 128 * (0.5 if phase == "prefill" else 1.0)
        nbytes = 2.0 * batch * 32 * 128 * (2 * q + 2 * ctx_len)
        ai = flops / nbytes
        tflops = eff * attainable(ai, FP32_TFLOPS)
        r = row("attention", [("phase", phase), ("context", ctx_len), ("batch", batch),
                              ("heads", 32), ("cache", cache)],
                {"flops": flops, "bytes": nbytes, "arithmetic_intensity": ai,
                 "tflops": tflops, "gbps": tflops * 1000 / ai, "max_rel_error": 0.002},
                skipped=skipped)
        if not skipped:
            # The 2x-L2 rule (experiments/framework/l2_residency.h): the
            # working set is Q, K, V and O once each.
            beyond = 1.0 if nbytes >= 2 * int(DEVICE["device_l2_bytes"]) else 0.0
            fixture.add_metric(r, "working_set_bytes", nbytes, nbytes, nbytes, 0.0)
            fixture.add_metric(r, "beyond_2x_l2", beyond, beyond, beyond, 0.0)
        rows.append(r)

    add("prefill", 512, 1, "hot", 0.30)  # 16 MiB: L2-resident, right of the ridge
    add("prefill", 4096, 1, "hot", 0.45)
    add("decode", 512, 1, "cold", 0.20)  # 8 MiB: L2-resident although cold
    # Hot decode whose 64 MiB (over 1x, under 2x the L2) is served from L2:
    # 1.6x what the DRAM roof allows, L2's GB/s, not to be judged against it.
    add("decode", 2048, 2, "hot", 1.60)
    add("decode", 8192, 64, "cold", 0.85)
    add("decode", 8192, 64, "hot", 0.0, skipped="needs 8320 MiB, 4096 MiB free")
    fixture.write(os.path.join(HERE, "synthetic_attention.json"), ctx, rows)


if __name__ == "__main__":
    memory_bandwidth()
    cublaslt_gemm()
    attention()
