#!/usr/bin/env python3
"""Writes the synthetic intergroup-sharing result files in this folder.

SYNTHETIC TEST DATA, NOT MEASUREMENTS. Every number is made up for the tests
of //analysis/plots:sharing_test and //analysis/plots:figures_golden_test; only the layout
is the harness's (../../SCHEMA.md, vectors as row counters `name[i]`). The
device is a made-up H100 shrunk to 16 SMs so that the per-SM vectors stay
short: "SYNTHETIC H100 (test data)".
Run from anywhere: python3 analysis/testdata/sharing/make_synthetic_sharing.py
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import synthetic_fixture as fixture  # noqa: E402

SMS = 16
DEVICE = dict(fixture.without(fixture.H100_LIKE, "device_pci_bus_id"),
              device_name="SYNTHETIC H100 (test data)", device_sm_count=str(SMS))
NOTE = "synthetic test data, not a measurement"


def context(experiment, question, axes, metrics, vectors, extra=None):
    """The context with the vector keys and a `synthetic` note."""
    keys = {"dissect_vectors": ",".join(v for v, _, _ in vectors)}
    for name, unit, index in vectors:
        keys["vector.%s.unit" % name] = unit
        keys["vector.%s.index" % name] = index
    keys["synthetic"] = NOTE
    keys.update(extra or {})
    return fixture.context(DEVICE, experiment, question + " (synthetic)", axes, metrics,
                           host_keys=("num_cpus", "library_build_type"), extra=keys)


def measured(experiment, axes, values, index, us, metrics, counters=None, label=""):
    """A measured row: every metric with a 2 % spread, then `counters` as is."""
    r = fixture.row(fixture.row_name(experiment, axes, values), index)
    r.update(fixture.times(us, us * 1.1))
    for name, value in metrics.items():
        if isinstance(value, float) and math.isnan(value):
            fixture.add_metric(r, name, value, value, value, value)
        else:
            fixture.add_metric(r, name, value, value * 0.99, value * 1.01, 0.02)
    fixture.add_samples(r, 1755.0)
    r.update(counters or {})
    if label:
        r["label"] = label
    return r


def vector(name, values):
    return {"%s[%d]" % (name, i): v for i, v in enumerate(values)}


def skipped(experiment, axes, values, index, reason):
    return fixture.error_row(fixture.row_name(experiment, axes, values), index,
                             "skipped: " + reason)


def l1_duplication():
    axes = [("kernel", "-", "string"), ("layer", "-", "string"), ("batch", "images", "int64")]
    metrics = [("lines_touched", "lines"), ("sm_lines_sum", "lines"), ("replication", "SMs/line"),
               ("duplicated_fraction", "fraction"), ("gpc_replication", "SMs/line"),
               ("gpc_duplicated_fraction", "fraction"), ("cross_gpc_replication", "GPCs/line"),
               ("cross_gpc_duplicated_fraction", "fraction"), ("sms_used", "SMs"),
               ("trace_ms", "ms")]
    ctx = context("l1_duplication", "How much L1 data is duplicated across SMs", axes, metrics,
                  [("sm_lines", "lines", "sm")],
                  extra={"dissect_counters": "cupti/l1_hit_rate",
                         "metric.cupti/l1_hit_rate.unit": "%"})
    # (kernel, layer, batch, lines touched, replication, duplicated, within
    #  GPC, across GPCs, L1 hit % or None)
    points = [
        ("stream", "vgg16.conv3_1", 1, 25088, 1.0, 0.0, 0.0, 0.0, 12.5),
        ("gather", "vgg16.conv3_1", 1, 25088, 3.2, 0.61, 0.22, 0.55, 48.0),
        ("conv", "vgg16.conv3_1", 1, 12544, 7.5, 0.93, 0.81, 0.90, 71.25),
        ("conv", "resnet50.res5b_branch2b", 8, 6272, 11.0, 0.97, 0.88, 0.95, None),
        ("gemv", "vgg16.fc6", 1, 65536, 1.25, 0.2, float("nan"), float("nan"), 3.0),
    ]
    rows = []
    for i, (k, layer, batch, lines, rep, dup, gpc, cross, hit) in enumerate(points):
        sm_lines = [round(lines * rep / SMS) + (sm % 3) for sm in range(SMS)]
        values = {"lines_touched": float(lines), "sm_lines_sum": float(sum(sm_lines)),
                  "replication": rep, "duplicated_fraction": dup,
                  "gpc_replication": 1.0 + gpc * 2, "gpc_duplicated_fraction": gpc,
                  "cross_gpc_replication": 1.0 + cross * 2,
                  "cross_gpc_duplicated_fraction": cross, "sms_used": float(SMS),
                  "trace_ms": 4.0 + i}
        if math.isnan(gpc):
            values["gpc_replication"] = values["cross_gpc_replication"] = float("nan")
        counters = vector("sm_lines", [float(v) for v in sm_lines])
        if hit is not None:
            counters["cupti/l1_hit_rate"] = hit
        rows.append(measured("l1_duplication", axes, (k, layer, batch), i, 100.0 + 10 * i,
                             values, counters))
    rows.append(skipped("l1_duplication", axes, ("softmax", "bert.attn", 64), len(rows),
                        "traced build needs 2.1 GiB of bitmaps, more than free memory"))
    fixture.write(os.path.join(HERE, "synthetic_l1_duplication.json"), ctx, rows)


def gpc_topology():
    axes = [("launches", "launches", "int64"), ("cluster_size", "blocks", "int64")]
    metrics = [("gpcs", "GPCs"), ("sms_mapped", "SMs"), ("gpc_size_min", "SMs"),
               ("gpc_size_max", "SMs"), ("inconsistent_sms", "SMs"),
               ("cluster_size_used", "blocks"), ("max_active_clusters", "clusters")]
    ctx = context("gpc_topology", "Which SMs share a GPC", axes, metrics,
                  [("gpc_of_sm", "GPC", "sm"), ("gpc_sizes", "SMs", "gpc")])
    # SM 15 never ran a cluster block: unmapped (-1). GPC 0 holds 0-1, 8-9, 12.
    gpc_of_sm = [0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 0, 2, 3, -1]
    sizes = [gpc_of_sm.count(g) for g in range(4)]
    values = {"gpcs": 4.0, "sms_mapped": 15.0, "gpc_size_min": float(min(sizes)),
              "gpc_size_max": float(max(sizes)), "inconsistent_sms": 1.0,
              "cluster_size_used": 2.0, "max_active_clusters": 7.0}
    counters = vector("gpc_of_sm", [float(g) for g in gpc_of_sm])
    counters.update(vector("gpc_sizes", [float(s) for s in sizes]))
    rows = [measured("gpc_topology", axes, (64, 2), 0, 50.0, values, counters,
                     label="SM 13 seen with GPC 2 and GPC 3 (kept the majority); "
                           "SM 15 never hosted a cluster block")]
    fixture.write(os.path.join(HERE, "synthetic_gpc_topology.json"), ctx, rows)


def dsm():
    axes = [("cluster_size", "blocks", "int64"), ("path", "-", "string"),
            ("footprint_bytes", "B", "int64"), ("loads", "loads", "int64")]
    metrics = [("cycles_per_load", "cycles/load"), ("max_active_clusters", "clusters")]
    ctx = context("dsm_latency", "How far is a peer SM's shared memory", axes, metrics,
                  [("cycles_by_peer", "cycles/load", "peer")])
    active = {1: 132.0, 2: 66.0, 4: 32.0, 8: 16.0}
    rows = []
    for size in (1, 2, 4, 8, 16):
        for path, base in (("shared_local", 31.0), ("dsm_peer", 180.0), ("l2", 262.0)):
            key = (size, path, 16384, 4096)
            if size == 16:
                rows.append(skipped("dsm_latency", axes, key, len(rows),
                                    "cluster size 16 refused: cudaOccupancyMaxActiveClusters "
                                    "gave 0"))
                continue
            counters, label = {}, ""
            value = base
            if path == "dsm_peer":
                # Entry 0: the block's own shared memory through the cluster
                # window (the peer only in a cluster of 1); entry d: the peer at
                # distance d, farther ones a little slower.
                peers = [150.0] + [base + 4.0 * p for p in range(1, size)]
                counters = vector("cycles_by_peer", peers)
                value = peers[0] if size == 1 else sum(peers[1:]) / (size - 1)
                if size == 1:
                    label = ("cluster of 1: the peer is the block itself, through the "
                             "shared::cluster window")
            rows.append(measured("dsm_latency", axes, key, len(rows), 20.0,
                                 {"cycles_per_load": value,
                                  "max_active_clusters": active[size]}, counters, label))
    fixture.write(os.path.join(HERE, "synthetic_dsm_latency.json"), ctx, rows)

    axes = [("cluster_size", "blocks", "int64"), ("path", "-", "string"),
            ("bytes_per_block", "B", "int64")]
    metrics = [("bandwidth_gbps", "GB/s"), ("bytes_per_clk_per_sm", "B/clk/SM"),
               ("max_active_clusters", "clusters"), ("sms_used", "SMs"),
               ("peer_same_sm_fraction", "-")]
    ctx = context("dsm_bandwidth", "How fast is a peer SM's shared memory", axes, metrics, [])

    def bandwidth_row(key, value, same_sm, label=""):
        return measured("dsm_bandwidth", axes, key, len(rows), 30.0,
                        {"bandwidth_gbps": value,
                         "bytes_per_clk_per_sm": value / (SMS * 1.755),
                         "max_active_clusters": active[key[0]],
                         "sms_used": float(SMS), "peer_same_sm_fraction": same_sm},
                        label=label)

    rows = []
    for size in (2, 4, 8, 16):
        for path, gbps in (("shared_local", 3300.0), ("dsm_peer", 1100.0 - 50.0 * size)):
            for per_block in (32768, 65536):
                key = (size, path, per_block)
                if size == 16:
                    rows.append(skipped("dsm_bandwidth", axes, key, len(rows),
                                        "cluster size 16 refused"))
                    continue
                # The larger block moves more: the table takes the best.
                rows.append(bandwidth_row(key, gbps * (1.0 if per_block == 65536 else 0.9), 0.0))
    # Rows whose peers shared the reader's SM (from before one block per SM
    # was forced, or a cluster of 1, whose peer is the block itself): fast,
    # since the reads never left the SM, and not DSM bandwidth. The table
    # must leave them out and say why.
    rows.append(bandwidth_row((4, "dsm_peer", 16384), 2900.0, 0.5))
    rows.append(bandwidth_row((1, "dsm_peer", 32768), 3200.0, 1.0,
                              label="cluster of 1: each block reads its own buffer through the "
                                    "shared::cluster window"))
    fixture.write(os.path.join(HERE, "synthetic_dsm_bandwidth.json"), ctx, rows)


def l2_sm_map():
    axes = [("lines", "lines", "int64"), ("laps", "laps", "int64"),
            ("sweep_percent", "%", "int64"), ("sm_stride", "SMs", "int64")]
    metrics = [("partitions", "partitions"), ("near_cycles", "cycles"), ("far_cycles", "cycles"),
               ("far_minus_near_cycles", "cycles"), ("near_spread_cycles", "cycles"),
               ("sms_measured", "SMs"), ("retouch_cycles", "cycles"), ("sweep_bytes", "bytes")]
    ctx = context("l2_sm_map", "Which L2 partition is near each SM", axes, metrics,
                  [("cycles", "cycles", "sm*lines+line"), ("partition_of_line", "-", "line"),
                   ("sm_partition_cycles", "cycles", "sm*partitions+p"),
                   ("near_partition_of_sm", "-", "sm")])
    lines = 8
    partition_of_line = [0, 1, 1, 0, 1, 0, 0, 1]
    near_of_sm = [0 if sm < 9 else 1 for sm in range(SMS)]
    near_of_sm[15] = float("nan")  # SM 15 not measured
    cycles, per_partition = [], []
    for sm in range(SMS):
        for line in range(lines):
            if sm == 15:
                cycles.append(float("nan"))
            else:
                near = partition_of_line[line] == near_of_sm[sm]
                cycles.append((200.0 if near else 290.0) + (sm % 4) + line % 2)
        for p in range(2):
            own = [cycles[sm * lines + line] for line in range(lines)
                   if partition_of_line[line] == p]
            per_partition.append(sum(own) / len(own))
    counters = vector("cycles", cycles)
    counters.update(vector("partition_of_line", [float(p) for p in partition_of_line]))
    counters.update(vector("sm_partition_cycles", per_partition))
    counters.update(vector("near_partition_of_sm", [float(p) for p in near_of_sm]))
    # First touches after the sweep (near 200, far 290); the re-touches are
    # near hits by construction.
    values = {"partitions": 2.0, "near_cycles": 202.0, "far_cycles": 292.0,
              "far_minus_near_cycles": 90.0, "near_spread_cycles": 4.0, "sms_measured": 15.0,
              "retouch_cycles": 201.0, "sweep_bytes": 37486592.0}
    rows = [measured("l2_sm_map", axes, (lines, 5, 75, 1), 0, 900.0, values, counters)]
    fixture.write(os.path.join(HERE, "synthetic_l2_sm_map.json"), ctx, rows)


def cluster_coop():
    axes = [("kernel", "-", "string"), ("layer", "-", "string"), ("batch", "images", "int64"),
            ("cluster_size", "blocks", "int64"), ("variant", "-", "string")]
    metrics = [("speedup_vs_layer", "x"), ("speedup_spread", "fraction"),
               ("lines_touched", "lines"), ("replication", "SMs/line"),
               ("duplicated_fraction", "fraction"), ("max_active_clusters", "clusters"),
               ("peer_same_sm_fraction", "fraction")]
    ctx = context("cluster_coop", "Do thread-block clusters cut duplicated L1 traffic", axes,
                  metrics, [],
                  extra={"dissect_counters": "cupti/l2_sectors_read,cupti/l1_hit_rate",
                         "metric.cupti/l2_sectors_read.unit": "sectors",
                         "metric.cupti/l1_hit_rate.unit": "%"})
    rows = []
    # (kernel, layer, cluster, variant, us, speedup, spread, dup, sectors, hit)
    points = [
        ("conv3x3", "vgg16.conv3_1", 2, "layer", 400.0, 1.0, 0.01, 0.93, 9.0e6, 70.0),
        ("conv3x3", "vgg16.conv3_1", 2, "tiled", 380.0, 1.0526, 0.02, 0.90, 8.0e6, 72.0),
        ("conv3x3", "vgg16.conv3_1", 2, "coop", 320.0, 1.25, 0.03, 0.45, 5.0e6, 80.0),
        ("conv3x3", "vgg16.conv3_1", 4, "layer", 400.0, 1.0, 0.01, 0.93, 9.0e6, 70.0),
        ("conv3x3", "vgg16.conv3_1", 4, "tiled", 390.0, 1.0256, 0.02, 0.90, 8.1e6, 71.0),
        ("conv3x3", "vgg16.conv3_1", 4, "coop", 410.0, 0.9756, 0.04, 0.30, 4.0e6, 81.0),
        ("gemv", "vgg16.fc6", 2, "layer", 150.0, 1.0, 0.01, 0.2, None, None),
        ("gemv", "vgg16.fc6", 2, "coop", 140.0, 1.0714, 0.05, 0.1, None, None),
        # Half its blocks shared an SM with a cluster peer: left out.
        ("gemv", "vgg16.fc6", 4, "coop", 90.0, 1.6667, 0.05, 0.1, None, None),
    ]
    for kernel, layer, size, variant, us, speedup, spread, dup, sectors, hit in points:
        counters = {}
        if sectors is not None:
            counters = {"cupti/l1_hit_rate": hit, "cupti/l2_sectors_read": sectors}
        metrics = {"speedup_vs_layer": speedup, "speedup_spread": spread,
                   "lines_touched": 12544.0, "replication": 1 + 10 * dup,
                   "duplicated_fraction": dup, "max_active_clusters": 132.0 / size}
        if variant == "coop":
            metrics["peer_same_sm_fraction"] = 0.5 if size == 4 and kernel == "gemv" else 0.0
        rows.append(measured("cluster_coop", axes, (kernel, layer, 1, size, variant), len(rows),
                             us, metrics, counters))
    rows.append(skipped("cluster_coop", axes, ("conv3x3", "vgg16.conv3_1", 1, 16, "coop"),
                        len(rows), "cluster size 16 refused"))
    fixture.write(os.path.join(HERE, "synthetic_cluster_coop.json"), ctx, rows)


if __name__ == "__main__":
    l1_duplication()
    gpc_topology()
    dsm()
    l2_sm_map()
    cluster_coop()
