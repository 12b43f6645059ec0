"""Shared pieces of the synthetic fixture generators in this folder
(make_synthetic_memory.py, make_synthetic_stalls.py, make_synthetic_l1_bypass.py,
tensor/make_synthetic_tensor.py): the made-up devices, the result-file
context, the Google Benchmark row keys, the row names and the JSON writer.

Nothing here is a measurement. The layout is the harness's result file
(../SCHEMA.md, experiments/framework/testdata/synthetic_result.golden.json).
json.dump keeps insertion order, so the order in which keys are added below is
part of the fixtures' bytes: change it only together with the fixtures.
Standard library only.
"""

import json

H100_LIKE = {
    "device_compute_capability": "9.0",
    "device_dram_peak_gbps": "3352.3",
    "device_index": "0",
    "device_l2_bytes": "52428800",
    "device_max_threads_per_sm": "2048",
    "device_memory_bus_width_bits": "5120",
    "device_memory_clock_khz": "2619000",
    "device_name": "Synthetic H100-like GPU (fixture)",
    "device_pci_bus_id": "0000:00:00.0",
    "device_shared_per_block_optin_bytes": "232448",
    "device_sm_clock_max_khz": "1980000",
    "device_sm_count": "132",
}
A100_LIKE = {
    "device_compute_capability": "8.0",
    "device_dram_peak_gbps": "2039.0",
    "device_index": "0",
    "device_l2_bytes": "41943040",
    "device_max_threads_per_sm": "2048",
    "device_memory_bus_width_bits": "5120",
    "device_memory_clock_khz": "1593000",
    "device_name": "Synthetic A100-like GPU (fixture)",
    "device_pci_bus_id": "0000:00:00.0",
    "device_shared_per_block_optin_bytes": "166912",
    "device_sm_clock_max_khz": "1410000",
    "device_sm_count": "108",
}

DATE = "2026-11-23T09:00:00+00:00"
GIT_COMMIT = "5a7114e0c0ffee0000000000000000000000abcd"

# Google Benchmark's own context keys after date, host_name and executable.
HOST = {
    "num_cpus": 16,
    "mhz_per_cpu": 3000,
    "cpu_scaling_enabled": False,
    "caches": [],
    "load_avg": [0.5, 0.4, 0.3],
    "library_build_type": "release",
}
BUILD = {
    "build_cuda_archs": "sm_90a",
    "build_host_compiler": "12.2.0",
    "build_mode": "opt",
    "build_nvcc_version": "13.0.88",
}


def without(device, *keys):
    """A copy of a device dict without the given keys."""
    return {k: v for k, v in device.items() if k not in keys}


def context(device, experiment, question, axes, metrics, *, date=DATE,
            git_commit=GIT_COMMIT, host_keys=tuple(HOST), build_keys=tuple(BUILD),
            timing_keys=True, device_last=True, extra=None):
    """The result file's context dict.

    axes: (name, unit, type) per axis; metrics: (name, unit) per metric.
    host_keys, build_keys: which of HOST and BUILD to write (in their order).
    timing_keys: write timing_samples and timing_warmup.
    device_last: the device keys after the other dissect keys (True), or
    sorted in among them (False).
    extra: keys added at the very end.
    """
    c = {"date": date, "host_name": "synthetic-fixture",
         "executable": "./dist/bin/" + experiment}
    c.update((k, HOST[k]) for k in host_keys)
    dissect = {k: BUILD[k] for k in build_keys}
    dissect.update({
        "clocks_source": "nvml",
        "dissect_axes": ",".join(a for a, _, _ in axes),
        "dissect_experiment": experiment,
        "dissect_metrics": ",".join(m for m, _ in metrics),
        "dissect_question": question,
        "dissect_schema_version": "1",
        "driver_version": "13.0",
        "git_commit": git_commit,
        "git_dirty": "false",
        "runtime_version": "13.0",
    })
    if timing_keys:
        dissect.update({"timing_samples": "10", "timing_warmup": "2"})
    if device_last:
        c.update(dissect)
        c.update(device)
    else:
        dissect.update(device)
        c.update(sorted(dissect.items()))
    for name, unit, kind in axes:
        c["axis.%s.type" % name] = kind
        c["axis.%s.unit" % name] = unit
    for name, unit in metrics:
        c["metric.%s.unit" % name] = unit
    c.update(extra or {})
    return c


def row_name(experiment, axes, values):
    """"<experiment>/<axis>:<value>/.../iterations:1/manual_time".

    axes: one tuple per axis with the axis name first; values: one per axis.
    """
    parts = [experiment] + ["%s:%s" % (a[0], v) for a, v in zip(axes, values)]
    return "/".join(parts + ["iterations:1", "manual_time"])


def row(name, family_index=None):
    """A benchmark row's leading keys. Without family_index, family_index and
    per_family_instance_index are left out."""
    r = {"name": name}
    if family_index is not None:
        r["family_index"] = family_index
        r["per_family_instance_index"] = 0
    r.update({"run_name": name, "run_type": "iteration", "repetitions": 1,
              "repetition_index": 0, "threads": 1})
    return r


def times(real_time, cpu_time, iterations=1):
    """The row's iterations and times (in us)."""
    return {"iterations": iterations, "real_time": real_time, "cpu_time": cpu_time,
            "time_unit": "us"}


def error_row(name, family_index, message):
    """A row that did not run (message: "skipped: ..." or "error: ...")."""
    r = row(name, family_index)
    r.update({"error_occurred": True, "error_message": message})
    r.update(times(0.0, 0.0, iterations=0))
    return r


def add_metric(r, metric, value, low, high, spread):
    """The median and its min, max and spread columns."""
    r[metric] = value
    r[metric + ".min"] = low
    r[metric + ".max"] = high
    r[metric + ".spread"] = spread


def add_samples(r, clock_mhz, samples=10.0):
    """The keys after the metrics: samples, SM clocks, throttled."""
    r["samples"] = samples
    r["sm_clock_mhz.after"] = clock_mhz
    r["sm_clock_mhz.before"] = clock_mhz
    r["throttled"] = 0.0


def write(path, ctx, rows):
    """Writes the result file: indent 2 and a trailing newline."""
    with open(path, "w") as f:
        json.dump({"context": ctx, "benchmarks": rows}, f, indent=2)
        f.write("\n")
