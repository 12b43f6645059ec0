#!/usr/bin/env python3
"""Writes synthetic_l1_bypass.json (l1_bypass experiment) in this folder.

Every number is made up for the tests: chosen kernel times and spreads, laid
out as the harness writes result files. Not measurements.
Run from anywhere: python3 analysis/testdata/make_synthetic_l1_bypass.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import synthetic_fixture as fixture

HERE = os.path.dirname(os.path.abspath(__file__))

AXES = [("kernel", "-", "string"), ("layer", "-", "string"), ("batch", "images", "int64"),
        ("working_set_bytes", "B", "int64"), ("timing", "-", "string"),
        ("occupancy_pct", "%", "int64"), ("variant", "-", "string")]
METRICS = [("kernel_us", "us"), ("bandwidth_gbps", "GB/s"), ("dram_peak_pct", "%"),
           ("input_bytes", "B"), ("bytes_moved", "B"), ("blocks_per_sm", "blocks"),
           ("occupancy_pct_achieved", "%"), ("beyond_2x_l2", "-")]

# Of Google Benchmark's host keys only num_cpus and library_build_type; the
# device (no PCI bus id) sorted in among the dissect keys.
CONTEXT = fixture.context(
    fixture.without(fixture.H100_LIKE, "device_pci_bus_id"), "l1_bypass",
    "Which layer kernels gain from bypassing L1 (fixture)?", AXES, METRICS,
    host_keys=("num_cpus", "library_build_type"), device_last=False)

# The 2x L2 rule (experiments/framework/l2_residency.h): a row whose
# bytes_moved is under 2 x device_l2_bytes is L2-resident, hot or cold:
# dram_peak_pct NaN, beyond_2x_l2 0 and a label note, as the experiment
# writes it.
L2_BYTES = int(CONTEXT["device_l2_bytes"])
DRAM_PEAK_GBPS = float(CONTEXT["device_dram_peak_gbps"])

# (kernel, layer, batch, working set, timing, input bytes, bytes moved,
#  default us, {variant: (time factor vs default, spread)}), at occupancy 25
# and 100. L2-resident: batch 1 (3.1 MiB), batch 32 (98 MiB: over 1x but
# under 2x the 50 MiB L2), the cold 4 MiB point and conv; beyond 2x L2: the
# 64 MiB working set (128 MiB moved).
# cg runs the same code as dlcm_cg and evict_first as cs (twins,
# experiments/l1_bypass/variant_aliases.h): their times differ a little, as
# two runs of one kernel do, and where the second twin is the faster the
# winner must still be the pair, timed by the first.
POINTS = [
    ("stream", "vgg16.conv3_1", 1, 0, "hot", 1605632, 3212288, 2.10,
     {"default": (1.0, 0.02), "dlcm_cg": (0.94, 0.01), "cg": (0.93, 0.01),
      "cs": (0.99, 0.03), "evict_first": (0.985, 0.02), "cv": (1.30, 0.02),
      "l2_persist": (1.0, 0.02)}),
    ("stream", "vgg16.conv3_1", 1, 67108864, "hot", 67108864, 134218752, 48.0,
     {"default": (1.0, 0.01), "dlcm_cg": (0.95, 0.01), "cg": (0.945, 0.01),
      "cs": (0.96, 0.01), "evict_first": (0.955, 0.01), "cv": (1.02, 0.05),
      "l2_persist": (1.01, 0.01)}),
    ("stream", "vgg16.conv3_1", 32, 0, "hot", 51380224, 102760448, 40.0,
     {"default": (1.0, 0.01), "dlcm_cg": (0.99, 0.01), "cg": (0.99, 0.01),
      "cs": (0.97, 0.01), "evict_first": (0.971, 0.01), "cv": (1.0, 0.01),
      "l2_persist": (1.0, 0.01)}),
    # Cold: the input comes from DRAM, the output stays in the write-back L2.
    ("stream", "vgg16.conv3_1", 1, 4194304, "cold", 4194304, 8390656, 6.0,
     {"default": (1.0, 0.02), "dlcm_cg": (0.99, 0.02), "cg": (0.99, 0.02),
      "cs": (0.99, 0.02), "evict_first": (0.99, 0.02), "cv": (1.01, 0.02),
      "l2_persist": (1.0, 0.02)}),
    ("conv", "resnet50.res5b_branch2b", 1, 0, "hot", 100352, 9637888, 410.0,
     {"default": (1.0, 0.01), "dlcm_cg": (1.12, 0.01), "cg": (1.121, 0.01),
      "cs": (1.005, 0.01), "evict_first": (1.004, 0.01), "cv": (1.40, 0.01),
      "l2_persist": (0.999, 0.02)}),
]


# The row note of each variant that runs another's machine code, as the
# experiment writes it (SameCodeNote, experiments/l1_bypass/variant_aliases.h).
SAME_CODE_NOTES = {
    "cg": "same_code_as: dlcm_cg (LDG.E.STRONG.GPU)",
    "evict_first": "same_code_as: cs (LDG.E.EF)",
    "l2_persist": "same_code_as: default + L2 persisting access-policy window over the input",
}


def row(name, index, us, spread, extra, variant):
    r = fixture.row(name, index)
    r.update(fixture.times(us, us * 1.2))
    values = dict(extra, kernel_us=us)
    for metric, _ in METRICS:
        value = values[metric]
        s = spread if metric in ("kernel_us", "bandwidth_gbps", "dram_peak_pct") else 0.0
        if value != value:  # NaN: the harness writes NaN statistics too
            s = value
        fixture.add_metric(r, metric, value, round(value * (1 - s / 2), 6),
                           round(value * (1 + s / 2), 6), s)
    fixture.add_samples(r, 1980.0)
    notes = [SAME_CODE_NOTES[variant]] if variant in SAME_CODE_NOTES else []
    if not values["beyond_2x_l2"]:
        notes.append(f"L2-resident: working set {values['bytes_moved']} B below 2 x the "
                     f"{L2_BYTES} B L2, no % of the DRAM peak")
    if notes:
        r["label"] = "; ".join(notes)
    return r


def name_of(values):
    return fixture.row_name("l1_bypass", AXES, values)


rows = []
for kernel, layer, batch, ws, timing, input_bytes, moved, base_us, variants in POINTS:
    beyond = moved >= 2 * L2_BYTES
    for occupancy, slowdown in ((25, 1.6), (100, 1.0)):
        for variant, (factor, spread) in variants.items():
            us = round(base_us * slowdown * factor, 4)
            gbps = round(moved / (us * 1e-6) / 1e9, 3)
            rows.append(row(name_of((kernel, layer, batch, ws, timing, occupancy, variant)),
                            len(rows),
                            us, spread,
                            {"bandwidth_gbps": gbps,
                             "dram_peak_pct": (round(100 * gbps / DRAM_PEAK_GBPS, 3)
                                               if beyond else float("nan")),
                             "input_bytes": input_bytes, "bytes_moved": moved,
                             "blocks_per_sm": occupancy // 12.5,
                             "occupancy_pct_achieved": occupancy,
                             "beyond_2x_l2": 1.0 if beyond else 0.0},
                            variant))
# A kernel that does not run on the layer: skipped, left out of the analysis.
skipped = name_of(("maxpool", "vgg16.conv3_1", 1, 0, "hot", 25, "default"))
rows.append(fixture.error_row(
    skipped, len(rows),
    "skipped: maxpool does not run on conv layers (vgg16.conv3_1)"))

fixture.write(os.path.join(HERE, "synthetic_l1_bypass.json"), CONTEXT, rows)
