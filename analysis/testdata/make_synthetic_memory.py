#!/usr/bin/env python3
"""Writes the synthetic memory-experiment fixtures (synthetic_memory_*.json,
synthetic_latency_trace.json, synthetic_*bandwidth*.json) in this folder.

Every number below is made up for the tests: chosen levels with a little
deterministic jitter, laid out exactly as the harness writes result files
(experiments/framework/testdata/synthetic_result.golden.json). They are not
measurements. Run from anywhere: python3 analysis/testdata/make_synthetic_memory.py
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in testdata/ (a Bazel glob)
import synthetic_fixture as fixture
from synthetic_fixture import A100_LIKE, H100_LIKE

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
HERE = os.path.dirname(os.path.abspath(__file__))

_state = [20261123]


def jitter(amplitude=0.01):
    """Deterministic multiplicative jitter in [1 - amplitude, 1 + amplitude]."""
    _state[0] = (_state[0] * 6364136223846793005 + 1442695040888963407) % 2**64
    u = (_state[0] >> 11) / 2.0**53
    return 1 + amplitude * (2 * u - 1)


def context(device, experiment, question, axes, metrics, clock_mhz):
    # _clock_mhz is no context key: write() takes it out for the rows' clocks.
    return fixture.context(device, experiment, question, axes, metrics,
                           extra={"_clock_mhz": clock_mhz})


def write(filename, ctx, axes, metrics, points, appended=()):
    """points: list of (axis values, {metric: median} or 'skipped: ...').
    appended: more points, added after the fixtures were first written; their
    jitter comes from a copy of the state, so that the fixtures written after
    this one stay as they were."""
    clock = ctx.pop("_clock_mhz")
    rows = []
    saved = None
    for i, (values, measured) in enumerate(list(points) + list(appended)):
        if i == len(points):
            saved = _state[0]
        name = fixture.row_name(ctx["dissect_experiment"], axes, values)
        if isinstance(measured, str):
            rows.append(fixture.error_row(name, i, measured))
            continue
        row = fixture.row(name, i)
        row.update(fixture.times(100.0 * jitter(0.2), 120.0 * jitter(0.2)))
        for metric, _ in metrics:
            value = measured[metric]
            spread = round(0.004 + 0.01 * jitter(1), 4)
            fixture.add_metric(row, metric, value, value * (1 - spread / 2),
                               value * (1 + spread / 2), spread)
        fixture.add_samples(row, clock)
        rows.append(row)
    if saved is not None:
        _state[0] = saved
    fixture.write(os.path.join(HERE, filename), ctx, rows)


def r(value, digits=2):
    return round(value, digits)


# --- memory_latency -------------------------------------------------------
LAT_AXES = [("path", "-", "string"), ("footprint_bytes", "B", "int64"),
            ("stride_bytes", "B", "int64"), ("order", "-", "string"),
            ("loads", "loads", "int64")]
LAT_METRICS = [("cycles_per_load", "cycles/load"), ("ns_per_load", "ns/load"),
               ("clock_mhz", "MHz")]
LAT_QUESTION = ("What is the load latency of each memory level and path, and "
                "where are the capacity steps?")


def latency(cycles, clock=1980.0):
    c = r(cycles * jitter())
    return {"cycles_per_load": c, "ns_per_load": r(c / clock * 1000, 3),
            "clock_mhz": clock}


def levels(footprint, steps):
    """steps: [(largest footprint, cycles), ...]; the last applies beyond."""
    for limit, cycles in steps:
        if footprint <= limit:
            return cycles
    return steps[-1][1]


FOOTPRINTS = [KIB * 2**k for k in range(19)]  # 1 KiB .. 256 MiB
PATH_LEVELS = {
    "global_ca": [(256 * KIB, 33.4), (512 * KIB, 150), (32 * MIB, 262),
                  (64 * MIB, 480), (None, 610)],
    "global_cg": [(32 * MIB, 258), (64 * MIB, 470), (None, 605)],
    "ldg": [(256 * KIB, 34.2), (512 * KIB, 160), (32 * MIB, 262),
            (64 * MIB, 480), (None, 612)],
    "tex": [(256 * KIB, 38.6), (512 * KIB, 170), (32 * MIB, 270),
            (64 * MIB, 490), (None, 615)],
}


def level_of(path, footprint):
    for limit, cycles in PATH_LEVELS[path]:
        if limit is None or footprint <= limit:
            return cycles


points = []
for f in FOOTPRINTS[:11]:  # shared: up to 1 MiB, skipped above the opt-in
    v = [("shared", f, 128, "random", 4096)]
    if f > 232448:
        points.append((v[0], "skipped: footprint %d B exceeds shared memory "
                             "per block (232448 B opt-in)" % f))
    else:
        points.append((v[0], latency(29.0)))
for path in ["global_ca", "global_cg", "ldg", "tex"]:
    for f in FOOTPRINTS:
        points.append(((path, f, 128, "random", 4096), latency(level_of(path, f))))
for f in FOOTPRINTS[:9]:  # const: 64 KiB bank
    values = ("const", f, 128, "random", 4096)
    if f > 64 * KIB:
        points.append((values, "skipped: footprint %d B exceeds the 64 KiB "
                               "constant bank" % f))
    else:
        points.append((values, latency(12.0 if f <= 2 * KIB else 62.0)))
write("synthetic_memory_latency.json",
      context(H100_LIKE, "memory_latency", LAT_QUESTION, LAT_AXES, LAT_METRICS,
              1980.0),
      LAT_AXES, LAT_METRICS, points)

# The TLB sweep: the same 1 Mi lines (2 GiB at 2 KiB, beyond 2x the L2 at
# every point) chased 1 .. 1024 pages at a time (x4). Group 1 is page-local
# DRAM latency; the latency rises once the working set outruns the TLB.
TLB_AXES = LAT_AXES[:4] + [("group_pages", "pages", "int64")] + LAT_AXES[4:]
TLB = [(1, 552), (4, 556), (16, 561), (64, 590), (256, 735), (1024, 902)]
write("synthetic_memory_latency_tlb.json",
      context(H100_LIKE, "memory_latency", LAT_QUESTION, TLB_AXES, LAT_METRICS,
              1980.0),
      TLB_AXES, LAT_METRICS,
      [(("global_cg", 2 * GIB, 2 * KIB, "page_local", g, 4096), latency(c))
       for g, c in TLB])

# --- latency_trace --------------------------------------------------------
TRACE_AXES = [("path", "-", "string"), ("footprint_bytes", "B", "int64"),
              ("stride_bytes", "B", "int64"), ("order", "-", "string"),
              ("state", "-", "string")]
TRACE_METRICS = [("level1_cycles", "cycles"), ("level1_fraction", "fraction"),
                 ("level2_cycles", "cycles"), ("level2_fraction", "fraction"),
                 ("level3_cycles", "cycles"), ("level3_fraction", "fraction"),
                 ("miss_period_bytes", "B")]


def trace(levels_, miss):
    m = {}
    for k in range(3):
        c, f = levels_[k] if k < len(levels_) else (0.0, 0.0)
        m["level%d_cycles" % (k + 1)] = float(c)
        m["level%d_fraction" % (k + 1)] = float(f)
    m["miss_period_bytes"] = float(miss)
    return m


TRACE = {
    ("global_ca", 4, "strided", "cold"): ([(37, 0.96875), (640, 0.03125)], 128),
    ("global_ca", 4, "strided", "warm"): ([(37, 0.96875), (262, 0.03125)], 128),
    ("global_ca", 4, "random", "cold"): ([(37, 0.6), (640, 0.4)], 12288),
    ("global_ca", 4, "random", "warm"): ([(37, 0.62), (262, 0.38)], 8192),
    ("global_ca", 128, "strided", "cold"): ([(640, 1.0)], 0),
    ("global_ca", 128, "strided", "warm"): ([(262, 1.0)], 0),
    ("global_ca", 128, "random", "cold"): ([(640, 1.0)], 0),
    ("global_ca", 128, "random", "warm"): ([(248, 0.56), (318, 0.44)], 256),
    ("global_cg", 4, "strided", "cold"): ([(260, 0.875), (638, 0.125)], 32),
    ("global_cg", 4, "strided", "warm"): ([(258, 1.0)], 0),
    ("global_cg", 4, "random", "cold"): ([(260, 0.7), (640, 0.3)], 4096),
    # A warm walk that fits half the L2 finds every line near (near copies
    # of far lines): one level.
    ("global_cg", 4, "random", "warm"): ([(248, 1.0)], 0),
    ("global_cg", 128, "strided", "cold"): ([(640, 1.0)], 0),
    ("global_cg", 128, "strided", "warm"): ([(249, 1.0)], 0),
    ("global_cg", 128, "random", "cold"): ([(640, 1.0)], 0),
    ("global_cg", 128, "random", "warm"): ([(248, 1.0)], 0),
}
# Beyond half the L2 (the latency curve's L2 ends at 32 MiB) a warm walk meets
# the far partition: about half the accesses each.
TRACE_BEYOND_HALF_L2 = {
    ("global_cg", 128, "strided", "cold"): ([(640, 1.0)], 0),
    ("global_cg", 128, "strided", "warm"): ([(249, 0.52), (319, 0.48)], 128),
    ("global_cg", 128, "random", "cold"): ([(640, 1.0)], 0),
    ("global_cg", 128, "random", "warm"): ([(247, 0.53), (317, 0.47)], 384),
}

write("synthetic_latency_trace.json",
      context(H100_LIKE, "latency_trace",
              "How is each single access served: which levels, line and sector "
              "sizes, L2 partitions?", TRACE_AXES, TRACE_METRICS, 1980.0),
      TRACE_AXES, TRACE_METRICS,
      [((p, 4 * MIB, s, o, st), trace(*v)) for (p, s, o, st), v in TRACE.items()],
      appended=[((p, 32 * MIB, s, o, st), trace(*v))
                for (p, s, o, st), v in TRACE_BEYOND_HALF_L2.items()])

# --- memory_bandwidth -----------------------------------------------------
BW_AXES = [("op", "-", "string"), ("width_bits", "bits", "int64"),
           ("footprint_bytes", "B", "int64")]
BW_METRICS = [("bandwidth_gbps", "GB/s"), ("dram_peak_pct", "%")]


def bandwidth(gbps, peak=3352.3):
    g = r(gbps * jitter(), 1)
    return {"bandwidth_gbps": g, "dram_peak_pct": r(100 * g / peak, 2)}


READ128 = {16 * KIB: 760, 32 * KIB: 1490, 64 * KIB: 2950, 128 * KIB: 5800,
           256 * KIB: 11200, 512 * KIB: 18600, 1 * MIB: 18900, 2 * MIB: 19300,
           4 * MIB: 19100, 8 * MIB: 19400, 16 * MIB: 9700, 32 * MIB: 9900,
           64 * MIB: 3050, 128 * MIB: 3080, 256 * MIB: 3100, 512 * MIB: 3095,
           1 * GIB: 3102}


def scaled(footprint, l1, l2, dram):
    ramp = min(1.0, READ128[footprint] / 18600.0) if footprint <= 256 * KIB else 1
    if footprint <= 8 * MIB:
        return l1 * ramp
    if footprint <= 32 * MIB:
        return l2
    return dram


points = [(("read", 128, f), bandwidth(g)) for f, g in READ128.items()]
for op, width, l1, l2, dram in [("read", 32, 9100, 7400, 2980),
                                ("read", 64, 15200, 9300, 3060),
                                ("write", 128, 8200, 8200, 2900),
                                ("copy", 128, 14100, 8800, 2950)]:
    for f in [16 * KIB * 4**k for k in range(9)]:
        points.append(((op, width, f), bandwidth(scaled(f, l1, l2, dram))))
write("synthetic_memory_bandwidth.json",
      context(H100_LIKE, "memory_bandwidth",
              "What bandwidth do streaming reads, writes and copies reach from "
              "L1, L2 and DRAM at 32-, 64- and 128-bit access widths?",
              BW_AXES, BW_METRICS, 1980.0),
      BW_AXES, BW_METRICS, points)

# --- shared_bandwidth -----------------------------------------------------
SBW_AXES = [("width_bits", "bits", "int64")]
SBW_METRICS = [("bytes_per_clk_per_sm", "B/clk/SM"), ("aggregate_gbps", "GB/s"),
               ("shared_peak_pct", "%")]
SBW_QUESTION = ("How many bytes per clock can one SM load from shared memory at "
                "32-, 64- and 128-bit access widths?")


def shared(bpc, sms, clock_mhz):
    return {"bytes_per_clk_per_sm": bpc,
            "aggregate_gbps": r(bpc * sms * clock_mhz / 1000, 1),
            "shared_peak_pct": r(100 * bpc / 128, 2)}


write("synthetic_shared_bandwidth.json",
      context(H100_LIKE, "shared_bandwidth", SBW_QUESTION, SBW_AXES, SBW_METRICS,
              1980.0),
      SBW_AXES, SBW_METRICS,
      [((32,), shared(96.5, 132, 1980)), ((64,), shared(125.1, 132, 1980)),
       ((128,), shared(126.3, 132, 1980))])

# A second device with nothing but shared_bandwidth: a table of "—".
write("synthetic_shared_bandwidth_a100.json",
      context(A100_LIKE, "shared_bandwidth", SBW_QUESTION, SBW_AXES, SBW_METRICS,
              1410.0),
      SBW_AXES, SBW_METRICS,
      [((32,), shared(92.2, 108, 1410)), ((64,), shared(120.4, 108, 1410)),
       ((128,), "error: INTERNAL: synthetic failure (fixture)")])

# --- memory_latency: the DRAM point without TLB misses --------------------
# Page-local order (random within each 2 MiB page, page by page) at 1 and
# 2 GiB: DRAM without TLB misses, below the random curve's last plateau.
# Written last, so that the fixtures above keep their jitter.
write("synthetic_memory_latency_dram.json",
      context(H100_LIKE, "memory_latency", LAT_QUESTION, LAT_AXES, LAT_METRICS,
              1980.0),
      LAT_AXES, LAT_METRICS,
      [(("global_cg", f, 128, "page_local", 4096), latency(548))
       for f in (1 * GIB, 2 * GIB)])
