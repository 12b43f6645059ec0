#!/usr/bin/env python3
"""Writes synthetic_l1_bypass.json (l1_bypass experiment, issue 5) in this folder.

Every number is made up for the tests: chosen kernel times and spreads, laid
out as the harness writes result files. Not measurements.
Run from anywhere: python3 analysis/testdata/make_synthetic_l1_bypass.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

AXES = [("kernel", "-", "string"), ("layer", "-", "string"),
        ("working_set_bytes", "B", "int64"), ("timing", "-", "string"),
        ("occupancy_pct", "%", "int64"), ("variant", "-", "string")]
METRICS = [("kernel_us", "us"), ("bandwidth_gbps", "GB/s"), ("dram_peak_pct", "%"),
           ("input_bytes", "B"), ("bytes_moved", "B"), ("blocks_per_sm", "blocks"),
           ("occupancy_pct_achieved", "%")]

CONTEXT = {
    "date": "2026-11-23T09:00:00+00:00",
    "host_name": "synthetic-fixture",
    "executable": "./dist/bin/l1_bypass",
    "num_cpus": 16,
    "library_build_type": "release",
    "build_cuda_archs": "sm_90a",
    "build_host_compiler": "12.2.0",
    "build_mode": "opt",
    "build_nvcc_version": "13.0.88",
    "clocks_source": "nvml",
    "device_compute_capability": "9.0",
    "device_dram_peak_gbps": "3352.3",
    "device_index": "0",
    "device_l2_bytes": "52428800",
    "device_max_threads_per_sm": "2048",
    "device_memory_bus_width_bits": "5120",
    "device_memory_clock_khz": "2619000",
    "device_name": "Synthetic H100-like GPU (fixture)",
    "device_shared_per_block_optin_bytes": "232448",
    "device_sm_clock_max_khz": "1980000",
    "device_sm_count": "132",
    "dissect_axes": ",".join(a for a, _, _ in AXES),
    "dissect_experiment": "l1_bypass",
    "dissect_metrics": ",".join(m for m, _ in METRICS),
    "dissect_question": "Which layer kernels gain from bypassing L1 (fixture)?",
    "dissect_schema_version": "1",
    "driver_version": "13.0",
    "git_commit": "5a7114e0c0ffee0000000000000000000000abcd",
    "git_dirty": "false",
    "runtime_version": "13.0",
    "timing_samples": "10",
    "timing_warmup": "2",
}
for name, unit, kind in AXES:
    CONTEXT["axis.%s.type" % name] = kind
    CONTEXT["axis.%s.unit" % name] = unit
for name, unit in METRICS:
    CONTEXT["metric.%s.unit" % name] = unit

# (kernel, layer, working set, input bytes, bytes moved, default us,
#  {variant: (time factor vs default, spread)}), at occupancy 25 and 100.
POINTS = [
    ("stream", "vgg16.conv3_1", 0, 1605632, 3212288, 2.10,
     {"default": (1.0, 0.02), "dlcm_cg": (0.94, 0.01), "cs": (0.99, 0.03),
      "cv": (1.30, 0.02), "l2_persist": (1.0, 0.02)}),
    ("stream", "vgg16.conv3_1", 67108864, 67108864, 134218752, 48.0,
     {"default": (1.0, 0.01), "dlcm_cg": (0.95, 0.01), "cs": (0.96, 0.01),
      "cv": (1.02, 0.05), "l2_persist": (1.01, 0.01)}),
    ("conv", "resnet50.res5b_branch2b", 0, 100352, 9637888, 410.0,
     {"default": (1.0, 0.01), "dlcm_cg": (1.12, 0.01), "cs": (1.005, 0.01),
      "cv": (1.40, 0.01), "l2_persist": (0.999, 0.02)}),
]


def row(name, index, us, spread, extra):
    r = {"name": name, "family_index": index, "per_family_instance_index": 0,
         "run_name": name, "run_type": "iteration", "repetitions": 1,
         "repetition_index": 0, "threads": 1, "iterations": 1,
         "real_time": us, "cpu_time": us * 1.2, "time_unit": "us"}
    values = dict(extra, kernel_us=us)
    for metric, _ in METRICS:
        value = values[metric]
        s = spread if metric in ("kernel_us", "bandwidth_gbps", "dram_peak_pct") else 0.0
        r[metric] = value
        r[metric + ".min"] = round(value * (1 - s / 2), 6)
        r[metric + ".max"] = round(value * (1 + s / 2), 6)
        r[metric + ".spread"] = s
    r.update({"samples": 10.0, "sm_clock_mhz.after": 1980.0,
              "sm_clock_mhz.before": 1980.0, "throttled": 0.0})
    return r


def name_of(values):
    return "/".join(["l1_bypass"] + ["%s:%s" % (a, v) for (a, _, _), v in zip(AXES, values)]
                    + ["iterations:1", "manual_time"])


rows = []
for kernel, layer, ws, input_bytes, moved, base_us, variants in POINTS:
    for occupancy, slowdown in ((25, 1.6), (100, 1.0)):
        for variant, (factor, spread) in variants.items():
            us = round(base_us * slowdown * factor, 4)
            gbps = round(moved / (us * 1e-6) / 1e9, 3)
            rows.append(row(name_of((kernel, layer, ws, "hot", occupancy, variant)), len(rows),
                            us, spread,
                            {"bandwidth_gbps": gbps,
                             "dram_peak_pct": round(100 * gbps / 3352.3, 3),
                             "input_bytes": input_bytes, "bytes_moved": moved,
                             "blocks_per_sm": occupancy // 12.5,
                             "occupancy_pct_achieved": occupancy}))
# A kernel that does not run on the layer: skipped, left out of the analysis.
skipped = name_of(("maxpool", "vgg16.conv3_1", 0, "hot", 25, "default"))
rows.append({"name": skipped, "family_index": len(rows), "per_family_instance_index": 0,
             "run_name": skipped, "run_type": "iteration", "repetitions": 1,
             "repetition_index": 0, "threads": 1, "error_occurred": True,
             "error_message": "skipped: maxpool does not run on conv layers (vgg16.conv3_1)",
             "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "us"})

with open(os.path.join(HERE, "synthetic_l1_bypass.json"), "w") as f:
    json.dump({"context": CONTEXT, "benchmarks": rows}, f, indent=2)
    f.write("\n")
