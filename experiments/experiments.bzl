"""The experiment binaries, for the tools that run them as data dependencies.

SWEEP_EXPERIMENTS: every experiment of the nightly sweep
(//experiments/sweep:sweeps_schema_test requires configs/sweeps/nightly.json
to run each). PAPER_ONLY_EXPERIMENTS: experiments that only the paper
catalog runs (configs/papers, //experiments:reproduce); they are not in the
nightly sweep's 600 s.
"""

SWEEP_EXPERIMENTS = [
    "//experiments:latency_trace",
    "//experiments:memory_bandwidth",
    "//experiments:memory_latency",
    "//experiments:relu_bandwidth",
    "//experiments:selftest",
    "//experiments:shared_bandwidth",
    "//experiments:shared_latency",
    "//experiments/l1_bypass",
    "//experiments/sharing/coop:cluster_coop",
    "//experiments/sharing/dsm:dsm_bandwidth",
    "//experiments/sharing/dsm:dsm_latency",
    "//experiments/sharing/duplication:l1_duplication",
    "//experiments/sharing/l2_map:l2_sm_map",
    "//experiments/sharing/topology:gpc_topology",
    "//experiments/sparsity:activation_sparsity",
    "//experiments/sparsity/speed:sparsity_speed",
    "//experiments/sparsity/structured:compressible_bandwidth",
    "//experiments/sparsity/structured:sparse24_gemm",
    "//experiments/tensor:cublaslt_gemm",
    "//experiments/tensor:mma_sync",
    "//experiments/tensor:wgmma",
]

PAPER_ONLY_EXPERIMENTS = [
    "//experiments/attention:attention",
    "//experiments/conv_algos:conv_algorithms",
    "//experiments/fusion:layer_fusion",
    "//experiments/layer_breakdown:layer_breakdown",
]

ALL_EXPERIMENTS = SWEEP_EXPERIMENTS + PAPER_ONLY_EXPERIMENTS
