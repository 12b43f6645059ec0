"""Writes the SYNTHETIC layer_fusion result files of fusion_test.

Nothing here is a measurement: made-up times on made-up devices
(analysis/testdata/synthetic_fixture.py), in the harness's result format,
for the golden test of GenerateFusionSpeedup. Run from this folder:

    python3 make_synthetic_fusion.py

then regenerate the goldens with
    DISSECT_UPDATE_GOLDEN=1 ./bazelw run //analysis/papers/fusion:fusion_test
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "testdata"))
import synthetic_fixture as fx  # noqa: E402

EXPERIMENT = "layer_fusion"
QUESTION = ("what does fusing conv+ReLU, BN+ReLU or BN+ReLU+conv into one kernel save "
            "against separate kernels, in time and in DRAM traffic?")
AXES = [("pattern", "", "string"), ("mode", "", "string"), ("layer", "", "string"),
        ("batch", "images", "int")]
METRICS = [("kernel_us", "us"), ("compulsory_bytes", "B"), ("intermediate_bytes", "B"),
           ("achieved_gbps", "GB/s"), ("dram_peak_pct", "%"), ("kernels", "-")]
# Files of the experiment since it records the cache state and the working set
# (the two files above stay in the older layout: no cache axis, hot only).
AXES_L2 = [("pattern", "", "string"), ("mode", "", "string"), ("cache", "", "string"),
           ("layer", "", "string"), ("batch", "images", "int")]
QUESTION_L2 = QUESTION.replace("in DRAM traffic", "in memory traffic")
METRICS_L2 = METRICS + [("working_set_bytes", "B"), ("beyond_2x_l2", "-")]


def measured(index, pattern, mode, layer, batch, us, spread, bytes_, intermediate, peak,
             cache=None, working_set=None, l2=None):
    """One row; with `cache`, the newer layout: a cache axis, the working set
    and whether it is at least 2x L2 (else dram_peak_pct is NaN, as the
    experiment writes it for L2-resident data)."""
    if cache is None:
        name = fx.row_name(EXPERIMENT, AXES, [pattern, mode, layer, batch])
    else:
        name = fx.row_name(EXPERIMENT, AXES_L2, [pattern, mode, cache, layer, batch])
    r = fx.row(name, index)
    r.update(fx.times(us, us))
    gbps = bytes_ / (us * 1e3)
    fx.add_metric(r, "kernel_us", us, us * (1 - spread / 2), us * (1 + spread / 2), spread)
    fx.add_metric(r, "compulsory_bytes", bytes_, bytes_, bytes_, 0.0)
    fx.add_metric(r, "intermediate_bytes", intermediate, intermediate, intermediate, 0.0)
    fx.add_metric(r, "achieved_gbps", gbps, gbps, gbps, 0.0)
    beyond = cache is None or working_set >= 2 * l2
    pct = 100.0 * gbps / peak if beyond else float("nan")
    fx.add_metric(r, "dram_peak_pct", pct, pct, pct, 0.0 if beyond else float("nan"))
    k = 1.0 if mode == "fused" else 2.0
    fx.add_metric(r, "kernels", k, k, k, 0.0)
    label = "checked: bit-identical to the other mode, CPU reference on a sample"
    if cache is not None:
        fx.add_metric(r, "working_set_bytes", working_set, working_set, working_set, 0.0)
        flag = 1.0 if beyond else 0.0
        fx.add_metric(r, "beyond_2x_l2", flag, flag, flag, 0.0)
        if not beyond:
            label += "; L2-resident: working set below 2x device_l2_bytes"
    fx.add_samples(r, 1980.0)
    r["label"] = label
    return r


def conv_relu_file(path):
    peak = float(fx.H100_LIKE["device_dram_peak_gbps"])
    rows = []
    # (layer, batch, unfused us, fused us, fused bytes, intermediate bytes)
    points = [
        ("alexnet.conv1", 1, 520.0, 480.0, 1.2e6 * 4, 290400 * 4 * 2),
        ("alexnet.conv1", 8, 3900.0, 3600.0, 9.0e6 * 4, 2323200 * 4 * 2),
        ("vgg16.conv3_1", 1, 2100.0, 2050.0, 2.0e6 * 4, 802816 * 4 * 2),
    ]
    for layer, batch, unfused, fused, bytes_, inter in points:
        rows.append(measured(len(rows), "conv_relu", "fused", layer, batch, fused, 0.02,
                             bytes_, 0.0, peak))
        rows.append(measured(len(rows), "conv_relu", "unfused", layer, batch, unfused, 0.03,
                             bytes_ + inter, inter, peak))
    # vgg16.conv3_1 at batch 8: the fused form failed its check, unfused ran.
    rows.append(fx.error_row(
        fx.row_name(EXPERIMENT, AXES, ["conv_relu", "fused", "vgg16.conv3_1", 8]), len(rows),
        "error: output 17 is 0.5, the CPU reference gives 0.25"))
    rows.append(measured(len(rows), "conv_relu", "unfused", "vgg16.conv3_1", 8, 16500.0, 0.01,
                         2.2e7, 6.4e6, peak))
    # vgg16.conv1_2 at batch 32: skipped (memory).
    for mode in ("fused", "unfused"):
        rows.append(fx.error_row(
            fx.row_name(EXPERIMENT, AXES, ["conv_relu", mode, "vgg16.conv1_2", 32]), len(rows),
            "skipped: needs 1.6 GiB, 1.2 GiB free"))
    ctx = fx.context(fx.H100_LIKE, EXPERIMENT, QUESTION, AXES, METRICS)
    fx.write(path, ctx, rows)


def bn_file(path):
    peak = float(fx.A100_LIKE["device_dram_peak_gbps"])
    rows = []
    x = 256 * 56 * 56 * 4  # transition1's input, batch 1
    for pattern, layer, unfused, fused, fused_bytes, inter in [
            ("bn_relu", "densenet121.transition1", 6.4, 3.3, 2 * x + 2048, x),
            ("bn_relu", "densenet121.block1_3x3", 3.5, 1.9, x + 1024, x // 2),
            ("bn_relu_conv", "densenet121.transition1", 410.0, 395.0, x + 2048 + 131072 + x // 2, x),
            ("bn_relu_conv", "densenet121.block1_3x3", 980.0, 975.0, 3.6e6, x // 2)]:
        rows.append(measured(len(rows), pattern, "fused", layer, 1, fused, 0.04, fused_bytes,
                             0.0, peak))
        rows.append(measured(len(rows), pattern, "unfused", layer, 1, unfused, 0.05,
                             fused_bytes + 2 * inter, 2 * inter, peak))
    ctx = fx.context(fx.A100_LIKE, EXPERIMENT, QUESTION, AXES, METRICS)
    fx.write(path, ctx, rows)


def l2_file(path):
    """H100-like, the newer layout: DenseNet-121 block-1 shapes at batch 1 and
    8, hot and cold, whose input, intermediate and output fit in L2 (so no %
    of the DRAM peak may be printed for them), beside batch-32 cold rows whose
    working set is beyond 2x L2."""
    peak = float(fx.H100_LIKE["device_dram_peak_gbps"])
    l2 = int(fx.H100_LIKE["device_l2_bytes"])
    rows = []
    x3 = 128 * 56 * 56 * 4  # block1_3x3's input, one image
    xt = 256 * 56 * 56 * 4  # transition1's input
    x1, y1 = 224 * 56 * 56 * 4, 128 * 56 * 56 * 4  # block1_1x1's input, output
    w1, p1 = 128 * 224 * 4, 2 * 224 * 4  # its weights, BN scale and shift
    # (pattern, cache, layer, batch, unfused us, fused us, fused bytes,
    #  intermediate write + read, working set)
    points = [
        ("bn_relu", "hot", "densenet121.block1_3x3", 1, 2.3, 1.2, 2 * x3 + 1024, 2 * x3,
         3 * x3 + 1024),
        ("bn_relu", "hot", "densenet121.block1_3x3", 8, 17.0, 9.0, 16 * x3 + 1024, 16 * x3,
         24 * x3 + 1024),
        ("bn_relu", "cold", "densenet121.block1_3x3", 8, 16.0, 10.5, 16 * x3 + 1024, 16 * x3,
         24 * x3 + 1024),
        ("bn_relu", "cold", "densenet121.transition1", 32, 141.0, 72.0, 64 * xt + 2048,
         64 * xt, 96 * xt + 2048),
        ("bn_relu_conv", "hot", "densenet121.block1_1x1", 1, 27.0, 25.0, x1 + y1 + w1 + p1,
         2 * x1, 2 * x1 + y1 + w1 + p1),
        ("bn_relu_conv", "cold", "densenet121.block1_1x1", 32, 680.0, 610.0,
         32 * (x1 + y1) + w1 + p1, 64 * x1, 32 * (2 * x1 + y1) + w1 + p1),
    ]
    for pattern, cache, layer, batch, unfused, fused, bytes_, inter, ws in points:
        rows.append(measured(len(rows), pattern, "fused", layer, batch, fused, 0.03, bytes_,
                             0.0, peak, cache, ws, l2))
        rows.append(measured(len(rows), pattern, "unfused", layer, batch, unfused, 0.04,
                             bytes_ + inter, inter, peak, cache, ws, l2))
    ctx = fx.context(fx.H100_LIKE, EXPERIMENT, QUESTION_L2, AXES_L2, METRICS_L2)
    fx.write(path, ctx, rows)


def other_file(path):
    """A result file of another experiment: no layer_fusion rows at all."""
    axes = [("bytes", "B", "int")]
    metrics = [("bandwidth_gbps", "GB/s")]
    ctx = fx.context(fx.H100_LIKE, "relu_bandwidth", "what fraction of DRAM bandwidth does "
                     "ReLU reach?", axes, metrics)
    name = fx.row_name("relu_bandwidth", axes, [1073741824])
    r = fx.row(name, 0)
    r.update(fx.times(700.0, 700.0))
    fx.add_metric(r, "bandwidth_gbps", 3000.0, 2990.0, 3010.0, 0.007)
    fx.add_samples(r, 1980.0)
    fx.write(path, ctx, [r])


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    conv_relu_file(os.path.join(here, "synthetic_layer_fusion_conv_relu.json"))
    bn_file(os.path.join(here, "synthetic_layer_fusion_bn.json"))
    l2_file(os.path.join(here, "synthetic_layer_fusion_l2.json"))
    other_file(os.path.join(here, "synthetic_relu_bandwidth.json"))
