#!/usr/bin/env python3
"""Writes the synthetic stall-reason fixtures (synthetic_stalls_*.json) in
this folder.

Every number below is made up for the tests; only the layout is real (the
harness's result files, with `cupti/<counter>` row counters and the
`counters_unavailable` context key of ../SCHEMA.md). They are not
measurements. Run from anywhere: python3 analysis/testdata/make_synthetic_stalls.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1024 * 1024

H100_LIKE = {
    "device_compute_capability": "9.0",
    "device_dram_peak_gbps": "3352.3",
    "device_index": "0",
    "device_l2_bytes": "52428800",
    "device_memory_bus_width_bits": "5120",
    "device_memory_clock_khz": "2619000",
    "device_name": "Synthetic H100-like GPU (fixture)",
    "device_shared_per_block_optin_bytes": "232448",
    "device_sm_clock_max_khz": "1980000",
    "device_sm_count": "132",
}
A100_LIKE = {
    "device_compute_capability": "8.0",
    "device_dram_peak_gbps": "2039.0",
    "device_index": "0",
    "device_l2_bytes": "41943040",
    "device_memory_bus_width_bits": "5120",
    "device_memory_clock_khz": "1593000",
    "device_name": "Synthetic A100-like GPU (fixture)",
    "device_shared_per_block_optin_bytes": "166912",
    "device_sm_clock_max_khz": "1410000",
    "device_sm_count": "108",
}


def context(device, experiment, question, axes, metrics, extra=None):
    c = {
        "date": "2026-11-24T10:00:00+00:00",
        "host_name": "synthetic-fixture",
        "executable": "./dist/bin/" + experiment,
        "num_cpus": 16,
        "mhz_per_cpu": 3000,
        "cpu_scaling_enabled": False,
        "caches": [],
        "load_avg": [0.5, 0.4, 0.3],
        "library_build_type": "release",
        "build_cuda_archs": "sm_90a",
        "build_host_compiler": "12.2.0",
        "build_mode": "opt",
        "build_nvcc_version": "13.0.88",
        "clocks_source": "nvml",
        "dissect_axes": ",".join(a for a, _, _ in axes),
        "dissect_experiment": experiment,
        "dissect_metrics": ",".join(m for m, _ in metrics),
        "dissect_question": question,
        "dissect_schema_version": "1",
        "driver_version": "13.0",
        "git_commit": "5a7114e0c0ffee0000000000000000000000abcd",
        "git_dirty": "false",
        "runtime_version": "13.0",
    }
    c.update(device)
    for name, unit, kind in axes:
        c["axis.%s.type" % name] = kind
        c["axis.%s.unit" % name] = unit
    for name, unit in metrics:
        c["metric.%s.unit" % name] = unit
    c.update(extra or {})
    return c


def write(filename, ctx, axes, metrics, points):
    """points: (axis values, {metric: median}, {cupti counter: value}) or
    (axis values, 'skipped: ...', None)."""
    rows = []
    for i, (values, measured, cupti) in enumerate(points):
        name = "/".join([ctx["dissect_experiment"]] +
                        ["%s:%s" % (a, v) for (a, _, _), v in zip(axes, values)] +
                        ["iterations:1", "manual_time"])
        row = {
            "name": name,
            "family_index": i,
            "per_family_instance_index": 0,
            "run_name": name,
            "run_type": "iteration",
            "repetitions": 1,
            "repetition_index": 0,
            "threads": 1,
        }
        if isinstance(measured, str):
            row.update({"error_occurred": True, "error_message": measured,
                        "iterations": 0, "real_time": 0.0, "cpu_time": 0.0,
                        "time_unit": "us"})
        else:
            row.update({"iterations": 1, "real_time": 250.0, "cpu_time": 260.0,
                        "time_unit": "us"})
            for metric, _ in metrics:
                value = measured[metric]
                row[metric] = value
                row[metric + ".min"] = round(value * 0.99, 4)
                row[metric + ".max"] = round(value * 1.01, 4)
                row[metric + ".spread"] = 0.02
            row["samples"] = 10.0
            row["sm_clock_mhz.after"] = 1980.0
            row["sm_clock_mhz.before"] = 1980.0
            row["throttled"] = 0.0
            for counter, value in sorted((cupti or {}).items()):
                row["cupti/" + counter] = value
        rows.append(row)
    with open(os.path.join(HERE, filename), "w") as f:
        json.dump({"context": ctx, "benchmarks": rows}, f, indent=2)
        f.write("\n")


RELU_AXES = [("bytes", "B", "int64"), ("timing", "-", "string")]
RELU_METRICS = [("bandwidth_gbps", "GB/s"), ("dram_peak_pct", "%")]
RELU_QUESTION = ("What fraction of DRAM peak bandwidth does an elementwise "
                 "ReLU reach, from a hot or a cold L2?")


def relu(gbps, peak=3352.3):
    return {"bandwidth_gbps": gbps, "dram_peak_pct": round(100 * gbps / peak, 3)}


def stalls(**reasons):
    """Per-reason warp stalls in warp-cycles per issued instruction."""
    out = {"stall_" + k: v for k, v in reasons.items()}
    out["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = 11.5  # not a stall
    return out


write("synthetic_stalls_relu.json",
      context(H100_LIKE, "relu_bandwidth", RELU_QUESTION, RELU_AXES, RELU_METRICS),
      RELU_AXES, RELU_METRICS, [
          ((1 * MIB, "hot"), relu(412.3),
           stalls(long_scoreboard=6.2, lg_throttle=1.1, wait=0.9,
                  not_selected=0.3, short_scoreboard=0.2, barrier=0.0,
                  mio_throttle=0.1)),
          ((256 * MIB, "hot"), relu(2871.4),
           stalls(long_scoreboard=28.4, lg_throttle=3.5, wait=0.8,
                  not_selected=0.1, short_scoreboard=0.1, barrier=0.0,
                  mio_throttle=0.1)),
          # Only three reasons were collected for this row.
          ((256 * MIB, "cold"), relu(2869.9),
           stalls(long_scoreboard=30.0, lg_throttle=4.0, wait=1.0)),
          # Every reason 0 (e.g. a kernel too short to sample): no fractions.
          ((1024 * MIB, "hot"), relu(2934.6),
           stalls(long_scoreboard=0.0, lg_throttle=0.0, wait=0.0)),
          ((1024 * MIB, "cold"), "skipped: synthetic skipped row", None),
      ])

SHARED_AXES = [("footprint_bytes", "B", "int64"), ("stride_bytes", "B", "int64")]
SHARED_METRICS = [("cycles_per_load", "cycles/load"), ("ns_per_load", "ns/load")]
SHARED_QUESTION = ("What is the load-to-use latency of shared memory, and "
                   "does it depend on footprint or stride?")

write("synthetic_stalls_shared_latency.json",
      context(H100_LIKE, "shared_latency", SHARED_QUESTION, SHARED_AXES,
              SHARED_METRICS),
      SHARED_AXES, SHARED_METRICS, [
          ((4096, 4), {"cycles_per_load": 29.0, "ns_per_load": 14.65},
           stalls(short_scoreboard=25.1, mio_throttle=2.2, wait=1.0,
                  not_selected=0.0)),
          ((65536, 128), {"cycles_per_load": 29.1, "ns_per_load": 14.7},
           stalls(short_scoreboard=24.8, mio_throttle=3.1, wait=1.0,
                  not_selected=0.0)),
      ])

# Counters could not be collected on this device: no cupti/ counters, and
# the context says why.
write("synthetic_stalls_unavailable.json",
      context(A100_LIKE, "relu_bandwidth", RELU_QUESTION, RELU_AXES,
              RELU_METRICS,
              {"counters_unavailable":
                   "cuptiProfilerInitialize failed: "
                   "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (synthetic)"}),
      RELU_AXES, RELU_METRICS, [
          ((256 * MIB, "hot"), relu(1712.0, 2039.0), None),
      ])
