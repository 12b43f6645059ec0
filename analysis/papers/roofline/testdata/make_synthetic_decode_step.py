#!/usr/bin/env python3
"""Writes the synthetic result files of the decode-step model's golden test
(synthetic_decode_cublaslt_gemm.json, synthetic_decode_attention.json) in
this folder; the DRAM roof is the roofline test's
synthetic_memory_bandwidth.json (3000 GB/s).

SYNTHETIC: every number below is made up for the test (an fp16 tensor roof
of 720 TFLOP/s; Llama-2-7B's decode GEMMs, cold, at chosen fractions of
the rate the DRAM roof allows; decode attention under the same roof), none
is a measurement. Some rows are missing on purpose: the GEMM 16x4096x11008
is skipped (no step at batch 16), the attention at batch 4 and context 8192
was not run, the one at batch 64 and context 8192 is skipped, and one
attention row has another head width (64: its FLOPs are not Llama-2-7B's).
Layout as the harness writes result files (analysis/testdata/synthetic_fixture.py).
Run from anywhere: python3 analysis/papers/roofline/testdata/make_synthetic_decode_step.py
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
sys.path.insert(0, HERE)
import make_synthetic_roofline as roofline  # noqa: E402 (after the path)

fixture = roofline.fixture
LLAMA_NK = ((12288, 4096), (4096, 4096), (11008, 4096), (4096, 11008))
BATCHES = (1, 4, 16, 64)
CONTEXTS = (512, 2048, 8192)
# Fraction of the DRAM-bound rate each decode GEMM reaches, by batch.
GEMM_EFFICIENCY = {1: 0.80, 4: 0.78, 16: 0.72, 64: 0.60}


def cublaslt_gemm():
    axes = [("dtype", "-", "string"), ("shape", "-", "string"), ("cache", "-", "string"),
            ("data", "-", "string")]
    ctx = roofline.context("cublaslt_gemm", "How close does cuBLASLt get to the tensor-core "
                           "peak?", axes, [("tflops", "TFLOP/s"), ("gbps", "GB/s")])
    rows = []

    def add(m, n, k, cache, tflops, skipped=None):
        ai = roofline.gemm_ai(m, n, k)
        rows.append(roofline.row("cublaslt_gemm",
                                 [("dtype", "fp16"), ("shape", "%dx%dx%d" % (m, n, k)),
                                  ("cache", cache), ("data", "random")],
                                 {"tflops": tflops, "gbps": tflops * 1000 / ai}, skipped=skipped))

    add(8192, 8192, 8192, "hot", roofline.FP16_TFLOPS)
    for m in BATCHES:
        for n, k in LLAMA_NK:
            if (m, n, k) == (16, 4096, 11008):
                add(m, n, k, "cold", 0.0, skipped="no cuBLASLt heuristic for this shape")
                continue
            rate = roofline.attainable(roofline.gemm_ai(m, n, k), roofline.FP16_TFLOPS)
            add(m, n, k, "cold", GEMM_EFFICIENCY[m] * rate)
    # Hot: served from L2, twice the DRAM-bound rate; not the cache the model reads.
    add(1, 4096, 4096, "hot", 2.0 * roofline.attainable(roofline.gemm_ai(1, 4096, 4096),
                                                        roofline.FP16_TFLOPS))
    fixture.write(os.path.join(HERE, "synthetic_decode_cublaslt_gemm.json"), ctx, rows)


def attention():
    axes = [("phase", "-", "string"), ("context", "tokens", "int64"),
            ("batch", "sequences", "int64"), ("heads", "heads", "int64"),
            ("cache", "-", "string")]
    metrics = [("flops", "FLOP"), ("bytes", "B"), ("arithmetic_intensity", "FLOP/B"),
               ("tflops", "TFLOP/s"), ("bandwidth_gbps", "GB/s"), ("max_rel_error", "fraction"),
               ("working_set_bytes", "B"), ("beyond_2x_l2", "-")]
    ctx = roofline.context("attention", "How close does a simple tiled fp16 attention kernel "
                           "come to this GPU's roofline in LLM prefill and decode?", axes, metrics)
    rows = []

    def add(ctx_len, batch, eff, head_dim=128, skipped=None):
        flops = 4.0 * batch * 32 * ctx_len * head_dim
        nbytes = 2.0 * batch * 32 * head_dim * (2 + 2 * ctx_len)
        ai = flops / nbytes
        tflops = eff * roofline.attainable(ai, roofline.FP32_TFLOPS)
        r = roofline.row("attention", [("phase", "decode"), ("context", ctx_len),
                                       ("batch", batch), ("heads", 32), ("cache", "cold")],
                         {"flops": flops, "bytes": nbytes, "arithmetic_intensity": ai,
                          "tflops": tflops, "bandwidth_gbps": tflops * 1000 / ai,
                          "max_rel_error": 0.002}, skipped=skipped)
        if not skipped:
            beyond = 1.0 if nbytes >= 2 * int(roofline.DEVICE["device_l2_bytes"]) else 0.0
            fixture.add_metric(r, "working_set_bytes", nbytes, nbytes, nbytes, 0.0)
            fixture.add_metric(r, "beyond_2x_l2", beyond, beyond, beyond, 0.0)
        rows.append(r)

    for ctx_len in CONTEXTS:
        for batch in BATCHES:
            if (ctx_len, batch) == (8192, 4):
                continue
            if (ctx_len, batch) == (8192, 64):
                add(ctx_len, batch, 0.0, skipped="needs 8320 MiB, 4096 MiB free")
                continue
            add(ctx_len, batch, 0.9 if batch >= 16 else 0.7)
    add(1024, 1, 0.7, head_dim=64)
    fixture.write(os.path.join(HERE, "synthetic_decode_attention.json"), ctx, rows)


if __name__ == "__main__":
    cublaslt_gemm()
    attention()
