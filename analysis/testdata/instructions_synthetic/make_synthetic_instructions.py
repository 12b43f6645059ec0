#!/usr/bin/env python3
"""Writes the synthetic instruction-chapter fixtures in this folder:
synthetic_instruction_latency.json, synthetic_instruction_throughput.json,
synthetic_launch_overhead.json (a made-up cc 9.0 device) and
synthetic_instruction_throughput_cc80.json (a made-up cc 8.0 device, for
which the rates table has no column).

SYNTHETIC TEST DATA: every number below is made up for
//analysis/plots:instructions_test (chosen to exercise the longest chain, the
best over chains and warps, hfma2's two results per op, a two-instruction
chain step, atomics at two contentions, skipped rows, ops with no published
rate and the block-dispatch fit); none is a measurement. The layout is the
harness's result file (../../SCHEMA.md) in the instruction chapter's row
contract (SCHEMA.md, "Experiment contracts: instructions").
Run from anywhere: python3 analysis/testdata/instructions_synthetic/make_synthetic_instructions.py
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# synthetic_fixture.py is in the parent folder, analysis/testdata.
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import synthetic_fixture as fixture

NOTE = "synthetic test data for //analysis/plots:instructions_test; no number is a measurement"
H100 = dict(fixture.H100_LIKE, device_name="SYNTHETIC H100 (test data)")
A100 = dict(fixture.A100_LIKE, device_name="SYNTHETIC A100 (test data)")
CLOCK = 1755.0


def context(device, experiment, question, axes, metrics):
    """axes: (name, unit, type) per axis."""
    return fixture.context(
        device, experiment, question, axes, metrics,
        git_commit="28c0ffee00000000000000000000000000000028", host_keys=(),
        build_keys=("build_cuda_archs", "build_mode"), timing_keys=True,
        extra={"dissect_schema_version": "2", "synthetic": NOTE})


def row(experiment, axes, metrics, sass=None, skipped=None):
    """axes: (name, value) per axis; metrics: name -> median."""
    r = fixture.row(fixture.row_name(experiment, axes, [v for _, v in axes]))
    if skipped:
        r.update({"error_occurred": True, "error_message": "skipped: " + skipped})
        r.update(fixture.times(0.0, 0.0, iterations=0))
        return r
    r.update(fixture.times(100.0, 100.0))
    for m, v in metrics.items():
        fixture.add_metric(r, m, v, v * 0.99, v * 1.01, 0.02)
    fixture.add_samples(r, CLOCK)
    if sass:
        r["label"] = "sass_sequence: " + sass
    return r


def write(name, ctx, rows):
    fixture.write(os.path.join(HERE, name), ctx, rows)


OP_AXES = [("op", "-", "string"), ("contention", "-", "string")]

# op, contention, SASS, latency cycles at chain lengths 64 and 256 (None:
# skipped), best throughput and the (chains, warps_per_sm, results) tried.
OPS = [
    ("ffma", "none", "FFMA", (4.3, 4.05), [(1, 8, 40.0), (4, 32, 121.6), (8, 64, 118.0)]),
    ("hfma2", "none", "HFMA2", (4.6, 4.5), [(4, 32, 120.0)]),
    ("dfma", "none", "DFMA", (8.4, 8.1), [(4, 32, 61.0)]),
    ("mufu_rcp", "none", "MUFU.RCP", (18.0, 17.6), [(4, 32, 15.6)]),
    ("clz", "none", "FLO.U32", (6.2, 6.0), [(4, 32, 15.9)]),
    ("f2f_f16", "none", "F2F.F16.F32 + HADD2.F32", (10.4, 10.2), [(4, 32, 15.2)]),
    ("shfl_idx", "none", "SHFL.IDX", (24.0, 23.5), [(4, 32, 31.0)]),
    ("vote_ballot", "none", "VOTE.ANY", (5.5, 5.3), [(4, 32, 60.0)]),
    ("atom_shared_add", "none", "ATOMS.ADD", (40.0, 39.0), [(4, 32, 20.0)]),
    ("atom_shared_add", "warp", "ATOMS.ADD", (80.0, 78.0), [(4, 32, 1.1)]),
    ("barrier_cluster", "none", None, None, None),
]
CLUSTER_SKIP = "cluster launch refused: SYNTHETIC (test data) has no cluster support"


def latency():
    axes = [OP_AXES[0], ("chain_length", "ops", "int64"), OP_AXES[1]]
    ctx = context(H100, "instruction_latency",
                  "How many cycles does one dependent instruction of each op take?", axes,
                  [("latency_cycles", "cycles"), ("overhead_cycles", "cycles")])
    rows = []
    for op, contention, sass, lat, _ in OPS:
        for i, chain in enumerate((64, 256)):
            point = [("op", op), ("chain_length", chain), ("contention", contention)]
            if lat is None:
                rows.append(row("instruction_latency", point, {}, skipped=CLUSTER_SKIP))
            else:
                rows.append(row("instruction_latency", point,
                                {"latency_cycles": lat[i], "overhead_cycles": 40.0}, sass))
    write("synthetic_instruction_latency.json", ctx, rows)


def throughput():
    axes = [OP_AXES[0], ("chains", "-", "int64"), ("warps_per_sm", "warps", "int64"), OP_AXES[1]]
    metrics = [("results_per_clock_per_sm", "results/clk/SM")]
    question = "How many results per clock does an SM reach for each op?"
    rows = []
    for op, contention, sass, _, points in OPS:
        if points is None:
            rows.append(row("instruction_throughput", [("op", op), ("chains", 1),
                                                       ("warps_per_sm", 32),
                                                       ("contention", contention)],
                            {}, skipped=CLUSTER_SKIP))
            continue
        for chains, warps, rate in points:
            rows.append(row("instruction_throughput",
                            [("op", op), ("chains", chains), ("warps_per_sm", warps),
                             ("contention", contention)],
                            {"results_per_clock_per_sm": rate}, sass))
    write("synthetic_instruction_throughput.json",
          context(H100, "instruction_throughput", question, axes, metrics), rows)
    # A cc 8.0 device: the rates table has no 8.0 column.
    cc80 = [row("instruction_throughput", [("op", "ffma"), ("chains", 4), ("warps_per_sm", 32),
                                           ("contention", "none")],
                {"results_per_clock_per_sm": 62.0}, "FFMA")]
    write("synthetic_instruction_throughput_cc80.json",
          context(A100, "instruction_throughput", question, axes, metrics), cc80)


# The note launch_to_start rows carry (its numbers made up).
CLOCK_NOTE = ("clock: host steady_clock vs %globaltimer, offset from the shortest of 64 "
              "handshake round trips (1.20 us), uncertainty +-0.62 us, drift 0.01 us over the "
              "samples")


def launch():
    axes = [("measure", "-", "string"), ("mode", "-", "string"), ("blocks", "blocks", "int64")]
    metrics = [("latency_us", "us"), ("launch_interval_us", "us"), ("kernel_time_us", "us")]
    ctx = context(H100, "launch_overhead",
                  "What does launching a kernel cost, from the host call to the first block?",
                  axes, metrics)
    rows = []
    for measure, metric, stream, graph in [("launch_to_start", "latency_us", 4.1, 3.2),
                                           ("back_to_back", "launch_interval_us", 2.2, 1.1),
                                           ("sync_round_trip", "latency_us", 8.5, 9.0)]:
        for mode, value in (("stream", stream), ("graph", graph)):
            r = row("launch_overhead", [("measure", measure), ("mode", mode), ("blocks", 1)],
                    {metric: value})
            if measure == "launch_to_start":
                r["label"] = CLOCK_NOTE
            rows.append(r)
    # kernel_time_us = 3 + 0.0021 x blocks (2.1 ns per block), off the line
    # by +-0.01 us.
    for blocks, wobble in ((1, 0.01), (132, -0.01), (1024, -0.01), (4096, 0.01)):
        rows.append(row("launch_overhead", [("measure", "block_dispatch"), ("mode", "stream"),
                                            ("blocks", blocks)],
                        {"kernel_time_us": 3.0 + 0.0021 * blocks + wobble}))
    rows.append(row("launch_overhead", [("measure", "block_dispatch"), ("mode", "graph"),
                                        ("blocks", 1)], {},
                    skipped="block_dispatch runs on streams only (synthetic)"))
    write("synthetic_launch_overhead.json", ctx, rows)


if __name__ == "__main__":
    latency()
    throughput()
    launch()
