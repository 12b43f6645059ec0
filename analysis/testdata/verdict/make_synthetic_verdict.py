#!/usr/bin/env python3
"""Writes the synthetic fixtures of //analysis/sections:verdict_test in this folder.

SYNTHETIC TEST DATA, NOT MEASUREMENTS. Every number is invented for the
tests; only the layout is the harness's (../../SCHEMA.md) and ncu's CSV
(details page, `ncu --csv --print-units base`). The device is named
"SYNTHETIC H100 80GB HBM3 (test data)" with compute capability 9.0 and 132
SMs, so that the ranges of configs/verdict/h100.json treat it as an H100
SXM5 (device sets hopper, hopper_132, h100_sxm; peer kind H100).

  in_range/     one result file per headline experiment of
                configs/first_contact/headline.plan, every headline inside its
                range, and ncu_relu/ncu_relu.csv (the ncu cross-check) within
                0.1 % of the relu row's cupti/dram_bytes_read
  variants/memory_latency_far_low.json
                in_range's memory_latency with the far L2 (40 and 44 MiB) at
                ~330 cycles, the near level's (out of range, low)
  variants/a100_memory_latency.json
                memory_latency on "SYNTHETIC A100-SXM4-80GB (test data)"
                (cc 8.0, 108 SMs): no range applies (not judged)
Run from anywhere: python3 analysis/testdata/verdict/make_synthetic_verdict.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import synthetic_fixture as fixture  # noqa: E402

H100 = dict(fixture.H100_LIKE, device_name="SYNTHETIC H100 80GB HBM3 (test data)")
A100 = dict(fixture.A100_LIKE, device_name="SYNTHETIC A100-SXM4-80GB (test data)")
CLOCK = 1980.0
KIB, MIB, GIB = 1024, 1024 * 1024, 1024 * 1024 * 1024


def write(folder, name, device, experiment, axes, metrics, points, extra=None):
    """points: (axis values, {metric: value}, {counter: value}) per row."""
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    ctx = fixture.context(device, experiment, experiment + " (synthetic)", axes, metrics,
                          host_keys=("num_cpus", "library_build_type"),
                          extra=dict({"synthetic": "synthetic test data, not a measurement"},
                                     **(extra or {})))
    rows = []
    for i, (values, metric_values, counters) in enumerate(points):
        r = fixture.row(fixture.row_name(experiment, axes, values), i)
        r.update(fixture.times(100.0 + i, 101.0 + i))
        for m, v in metric_values.items():
            fixture.add_metric(r, m, v, v * 0.99, v * 1.01, 0.02)
        fixture.add_samples(r, CLOCK if device is H100 else 1410.0, samples=5.0)
        r.update(counters)
        rows.append(r)
    fixture.write(os.path.join(HERE, folder, name), ctx, rows)


CHASE_AXES = [("path", "-", "string"), ("footprint_bytes", "B", "int64"),
              ("stride_bytes", "B", "int64"), ("order", "-", "string"),
              ("loads", "loads", "int64")]
CHASE_METRICS = [("cycles_per_load", "cycles/load"), ("ns_per_load", "ns/load")]


def chase(path, footprint, cycles, order="random"):
    return ((path, footprint, 128, order, 4096),
            {"cycles_per_load": cycles, "ns_per_load": cycles / 1.98}, {})


def memory_latency(folder, name, device, far_cycles):
    points = [chase("shared", KIB, 23.4), chase("shared", 16 * KIB, 23.6),
              chase("global_ca", KIB, 38.9), chase("global_ca", 16 * KIB, 39.3),
              chase("tex", KIB, 37.5), chase("tex", 16 * KIB, 38.1),
              chase("const", KIB, 19.5), chase("const", 16 * KIB, 104.0),
              chase("global_cg", 4 * MIB, 268.0), chase("global_cg", 8 * MIB, 271.0),
              chase("global_cg", 16 * MIB, 274.0), chase("global_cg", 40 * MIB, far_cycles),
              chase("global_cg", 44 * MIB, far_cycles + 6),
              chase("global_cg", GIB, 655.0, order="page_local")]
    write(folder, name, device, "memory_latency", CHASE_AXES, CHASE_METRICS, points)


def memory_bandwidth():
    axes = [("op", "-", "string"), ("width_bits", "bits", "int64"),
            ("bytes_in_flight_per_thread", "B", "int64"), ("footprint_bytes", "B", "int64")]
    metrics = [("bandwidth_gbps", "GB/s"), ("dram_peak_pct", "%")]
    points = []
    for op, footprint, best in (("read", GIB, 3005.0), ("copy", GIB, 2875.0),
                                ("read", 36 * MIB, 8890.0), ("read", 44 * MIB, 8710.0)):
        for bif, share in ((16, 0.62), (32, 0.81), (64, 0.97), (128, 1.0)):
            gbps = best * share
            points.append(((op, 128, bif, footprint),
                           {"bandwidth_gbps": gbps, "dram_peak_pct": 100 * gbps / 3352.3}, {}))
    write("in_range", "memory_bandwidth.json", H100, "memory_bandwidth", axes, metrics, points)


def shared_bandwidth():
    metrics = [("bytes_per_clk_per_sm", "B/clk/SM"), ("aggregate_gbps", "GB/s"),
               ("shared_peak_pct", "%")]
    points = [((w,), {"bytes_per_clk_per_sm": b, "aggregate_gbps": b * 132 * 1.98,
                      "shared_peak_pct": 100 * b / 128}, {})
              for w, b in ((32, 118.0), (64, 125.5), (128, 127.2))]
    write("in_range", "shared_bandwidth.json", H100, "shared_bandwidth",
          [("width_bits", "bits", "int64")], metrics, points)


def tensor():
    metrics = [("cycles_per_wgmma", "cycles"), ("flops_per_clk_per_sm", "FLOP/clk/SM"),
               ("tflops", "TFLOP/s"), ("measured_sm_clock_mhz", "MHz")]
    axes = [("form", "-", "string"), ("n", "-", "int64"), ("a_source", "-", "string"),
            ("mode", "-", "string"), ("data", "-", "string")]
    # The headlines read the random_cycling rows (operands that change every
    # instruction); the constant-operand rows (data=random) beside them run
    # 8 % faster at a higher clock, so a selector that read them would show.
    points = []
    for form, tflops in (("f16_f32", 905.0), ("bf16_f32", 898.0), ("tf32_f32", 470.0),
                         ("e4m3_f32", 1812.0), ("s8_s32", 1830.0)):
        for source, share in (("shared", 1.0), ("registers", 0.97)):
            for data, speed, mhz in (("random", 1.08, 1890.0), ("random_cycling", 1.0, 1750.0)):
                points.append(((form, 256, source, "throughput", data),
                               {"cycles_per_wgmma": 128.0, "flops_per_clk_per_sm": 4096.0,
                                "tflops": tflops * share * speed,
                                "measured_sm_clock_mhz": mhz}, {}))
    write("in_range", "wgmma.json", H100, "wgmma", axes, metrics, points)
    mma_metrics = [("cycles_per_mma", "cycles"), ("flops_per_clk_per_sm", "FLOP/clk/SM"),
                   ("tflops", "TFLOP/s"), ("measured_sm_clock_mhz", "MHz")]
    write("in_range", "mma_sync.json", H100, "mma_sync",
          [("form", "-", "string"), ("mode", "-", "string"), ("data", "-", "string")],
          mma_metrics, [(("f16_f32", "throughput", data),
                         {"cycles_per_mma": 4.0, "flops_per_clk_per_sm": 2048.0,
                          "tflops": 688.0 * speed, "measured_sm_clock_mhz": mhz}, {})
                        for data, speed, mhz in (("random", 1.08, 1900.0),
                                                 ("random_cycling", 1.0, 1760.0))])
    gemm_axes = [("dtype", "-", "string"), ("shape", "-", "string"), ("cache", "-", "string"),
                 ("data", "-", "string")]
    write("in_range", "cublaslt_gemm.json", H100, "cublaslt_gemm", gemm_axes,
          [("tflops", "TFLOP/s"), ("gbps", "GB/s")],
          [(("bf16", "8192x8192x8192", "hot", "random"), {"tflops": 772.0, "gbps": 283.0}, {}),
           (("fp8", "8192x8192x8192", "hot", "random"), {"tflops": 1290.0, "gbps": 236.0}, {})])


def sharing():
    axes = [("cluster_size", "blocks", "int64"), ("path", "-", "string"),
            ("footprint_bytes", "B", "int64"), ("stride_bytes", "B", "int64"),
            ("order", "-", "string"), ("loads", "loads", "int64")]
    metrics = [("cycles_per_load", "cycles/load"), ("max_active_clusters", "clusters")]
    write("in_range", "dsm_latency.json", H100, "dsm_latency", axes, metrics,
          [((2, "shared_local", 16384, 8, "random", 4096),
            {"cycles_per_load": 32.5, "max_active_clusters": 66.0}, {}),
           ((2, "dsm_peer", 16384, 8, "random", 4096),
            {"cycles_per_load": 186.0, "max_active_clusters": 66.0}, {})])
    write("in_range", "gpc_topology.json", H100, "gpc_topology",
          [("launches", "launches", "int64"), ("cluster_size", "blocks", "int64")],
          [("gpcs", "GPCs"), ("sms_mapped", "SMs")],
          [((32, 0), {"gpcs": 8.0, "sms_mapped": 132.0}, {})])


def relu_and_ncu():
    axes = [("bytes", "B", "int64"), ("timing", "-", "string")]
    metrics = [("bandwidth_gbps", "GB/s"), ("dram_peak_pct", "%")]
    write("in_range", "relu_cupti.json", H100, "relu_bandwidth", axes, metrics,
          [((GIB, "hot"), {"bandwidth_gbps": 2850.0, "dram_peak_pct": 85.0},
            {"cupti/dram_bytes_read": 1074266112.0, "cupti/passes": 1.0})],
          extra={"dissect_counters": "cupti/dram_bytes_read",
                 "metric.cupti/dram_bytes_read.unit": "B"})
    os.makedirs(os.path.join(HERE, "in_range", "ncu_relu"), exist_ok=True)
    header = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
              "Stream", "Block Size", "Grid Size", "Device", "CC", "Section Name",
              "Metric Name", "Metric Unit", "Metric Value"]
    row = ["0", "4242", "relu_bandwidth", "127.0.0.1",
           "void dissect::ReluKernel(const float4 *, float4 *, unsigned long)", "1", "7",
           "(256, 1, 1)", "(1056, 1, 1)", "0", "9.0", "Command line profiler metrics",
           "dram__bytes_read.sum", "byte", "1,073,807,360"]
    with open(os.path.join(HERE, "in_range", "ncu_relu", "ncu_relu.csv"), "w") as f:
        f.write("==PROF== Connected to process 4242 (synthetic test data)\n")
        f.write("==PROF== Profiling \"ReluKernel\" - 0: 0%....50%....100% - 1 pass\n")
        for fields in (header, row):
            f.write(",".join('"%s"' % v for v in fields) + "\n")


def main():
    memory_latency("in_range", "memory_latency.json", H100, 505.0)
    memory_bandwidth()
    shared_bandwidth()
    tensor()
    sharing()
    relu_and_ncu()
    memory_latency("variants", "memory_latency_far_low.json", H100, 330.0)
    memory_latency("variants", "a100_memory_latency.json", A100, 398.0)


if __name__ == "__main__":
    main()
