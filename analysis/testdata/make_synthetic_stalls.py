#!/usr/bin/env python3
"""Writes the synthetic stall-reason fixtures (synthetic_stalls_*.json) in
this folder.

Every number below is made up for the tests; only the layout is real (the
harness's result files, with `cupti/<counter>` row counters and the
`counters_unavailable` context key of ../SCHEMA.md). They are not
measurements. Run from anywhere: python3 analysis/testdata/make_synthetic_stalls.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import synthetic_fixture as fixture

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1024 * 1024

# These fixtures' devices have no max threads per SM and no PCI bus id.
H100_LIKE = fixture.without(fixture.H100_LIKE, "device_max_threads_per_sm",
                            "device_pci_bus_id")
A100_LIKE = fixture.without(fixture.A100_LIKE, "device_max_threads_per_sm",
                            "device_pci_bus_id")


def context(device, experiment, question, axes, metrics, extra=None):
    return fixture.context(device, experiment, question, axes, metrics,
                           date="2026-11-24T10:00:00+00:00", timing_keys=False,
                           extra=extra)


def write(filename, ctx, axes, metrics, points):
    """points: (axis values, {metric: median}, {cupti counter: value}) or
    (axis values, 'skipped: ...', None)."""
    rows = []
    for i, (values, measured, cupti) in enumerate(points):
        name = fixture.row_name(ctx["dissect_experiment"], axes, values)
        if isinstance(measured, str):
            rows.append(fixture.error_row(name, i, measured))
            continue
        row = fixture.row(name, i)
        row.update(fixture.times(250.0, 260.0))
        for metric, _ in metrics:
            value = measured[metric]
            fixture.add_metric(row, metric, value, round(value * 0.99, 4),
                               round(value * 1.01, 4), 0.02)
        fixture.add_samples(row, 1980.0)
        for counter, value in sorted((cupti or {}).items()):
            row["cupti/" + counter] = value
        rows.append(row)
    fixture.write(os.path.join(HERE, filename), ctx, rows)


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
