"""The conv_algorithms layout shared by this folder's fixture generators.

make_synthetic_conv_algos.py and make_synthetic_two_stage.py write SYNTHETIC
TEST DATA, NOT MEASUREMENTS, through this module: the conv_algorithms
experiment's axes and metrics (experiments/conv_algos) and its measured row,
laid out by analysis/testdata/synthetic_fixture.py. It holds no numbers of
its own.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "testdata"))
import synthetic_fixture as fixture  # noqa: E402

EXPERIMENT = "conv_algorithms"
AXES = [("layer", "-", "string"), ("algo", "-", "string"), ("batch", "images", "int64"),
        ("math", "-", "string")]
METRICS = [("gflops", "GFLOP/s"), ("workspace_bytes", "B"), ("heuristic_rank", "-"),
           ("shape_count", "layers"), ("network_conv_layers", "layers")]
MIB = 1 << 20


def row_name(layer, algo, batch, math="fma"):
    """The name of the row of `layer`, `algo`, `batch` and `math`."""
    return fixture.row_name(EXPERIMENT, AXES, [layer, algo, batch, math])


def context(question):
    """The file's context on the synthetic H100-like device."""
    return fixture.context(fixture.H100_LIKE, EXPERIMENT, question, AXES, METRICS)


def measured_row(name, us, gflop, batch, workspace, rank, shape_count, network_layers):
    """A measured row: `batch` images of `gflop` GFLOP each in `us` µs."""
    r = fixture.row(name, 0)
    r.update(fixture.times(us, us))
    gflops = gflop * batch / (us * 1e-6)
    fixture.add_metric(r, "gflops", gflops, gflops * 0.98, gflops * 1.01, 0.03)
    fixture.add_metric(r, "workspace_bytes", workspace, workspace, workspace, 0.0)
    fixture.add_metric(r, "heuristic_rank", rank, rank, rank, 0.0)
    fixture.add_metric(r, "shape_count", shape_count, shape_count, shape_count, 0.0)
    fixture.add_metric(r, "network_conv_layers", network_layers, network_layers, network_layers,
                       0.0)
    fixture.add_samples(r, 1755.0)
    return r
