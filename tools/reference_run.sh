#!/usr/bin/env bash
# Runs the reference characterization on a GPU machine from a bundle made by
# tools/bundle.sh (the machine needs no Bazel), writing raw results and the
# exact commands into OUTDIR (commit it as analysis/reference/<device>/).
# Usage: tools/reference_run.sh OUTDIR [--parts=LIST] [extra flags for every experiment]
#   --parts: a comma-separated subset of memory (latency, bandwidth, ReLU),
#   l1_bypass (every layer at batch 1 and 8, the working-set sweeps and the
#   counters), l1_bypass_b32 (the layers at batch 32: inputs up to 411 MB,
#   most of the layer time), tensor (tensor-core utilization: mma.sync, wgmma,
#   cuBLASLt) and sharing (intergroup sharing: GPC map, SM-to-L2 map, DSM, L1
#   duplication with the L1 hit ratio, cluster-cooperative kernels) and
#   sparsity (activation sparsity of the built-in passes, the speed of each
#   way of exploiting it, 2:4 mma.sp, compressible memory); default all of
#   these. papers (not in the default): every ready entry of the paper
#   catalog (dist/papers) through dist/bin/reproduce, one step per entry,
#   into OUTDIR/papers/<id>/ (run folder, figure page, gnuplot scripts; the
#   SVGs are drawn afterwards where gnuplot is:
#     ./bazelw run //experiments:reproduce -- --paper=<id> --out=DIR/papers \
#         --results=DIR/papers/<id>).
#   It measures again what the other parts measure, in the catalog's sizes,
#   and may take longer than one call: pass --papers=ID,ID to run a subset.
#   --labels: only the runs of these labels (the names of their result
#   files, e.g. memory_latency_dram) within the parts; tools/first_contact.sh
#   runs the reference run a few labels at a time this way.
#   The whole run is meant to fit one 10-minute call on an H100, but its
#   length is an estimate until measured: where a call may be cut short, run
#   one part per call, each into its own OUTDIR (the report reads them all).
# Also writes MACHINE, COMMANDS, REPORT.md and SUMMARY.txt (PASS/FAIL per
# experiment, the report's points outside their published ranges). Under
# the device tool's $OUT (tools/device_common.sh), OUTDIR receives only
# SUMMARY.txt and NAME.tar.gz of all that, repacked after each experiment,
# so a call cut at its time limit keeps the experiments finished before.
# Stops with exit 2 where the host's glibc or libstdc++ is older than the
# bundle needs (dist/MANIFEST).
# Figures are drawn afterwards where gnuplot is (not on the GPU machine):
#   ./bazelw run //analysis:figures -- --out=$PWD/OUTDIR/figures $PWD/OUTDIR
set -uo pipefail
usage="usage: tools/reference_run.sh OUTDIR [--parts=memory,l1_bypass,l1_bypass_b32,tensor,sharing,sparsity,instructions,papers] [--papers=ID,ID] [--labels=LABEL,LABEL] [flags]"
outdir=${1:?${usage}}
shift
parts=memory,l1_bypass,l1_bypass_b32,tensor,sharing,sparsity,instructions
papers=""
labels=""
while [[ "${1:-}" =~ ^--(parts|papers|labels)= ]]; do
  case "$1" in
    --parts=*) parts=${1#--parts=} ;;
    --papers=*) papers=${1#--papers=} ;;
    --labels=*) labels=${1#--labels=} ;;
  esac
  shift
done
for p in ${parts//,/ }; do
  [[ "${p}" =~ ^(memory|l1_bypass|l1_bypass_b32|tensor|sharing|sparsity|instructions|papers)$ ]] || { echo "reference_run.sh: unknown part '${p}'; ${usage}" >&2; exit 2; }
done
want() { [[ ",${parts}," == *",$1,"* ]]; }
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
results_init reference_run.sh "${outdir}"
check_host_libs
write_machine "${out}"

status=0
ran_labels=""
run() {  # run LABEL BINARY ARGS...: one experiment, its command line recorded verbatim
  local name=$1 bin=$2
  shift 2
  [[ -z "${labels}" || ",${labels}," == *",${name},"* ]] || return 0
  ran_labels+=",${name},"
  bundled "${name}" dist/bin/"${bin}" || { status=1; pack "after ${name}"; return 0; }
  step "${name}" "${out}/${name}.log" dist/bin/"${bin}" --benchmark_out="${out}/${name}.json" "$@" ||
    { status=1; echo "   failed, see ${out}/${name}.log" >&2; }
  pack "after ${name}"
}

if want memory; then
  run shared_latency shared_latency "$@"
  run relu_bandwidth relu_bandwidth "$@"
  run memory_latency memory_latency --samples=10 "$@"
  # TLB: the same 1M lines (2 GiB at 2 KiB, beyond 2x L2: every load misses
  # the L2 at every point) chased 1, 4, ... 1024 pages at a time, so only the
  # TLB working set changes (experiments/memory_latency.cc, "TLB sweep").
  run memory_latency_tlb memory_latency --samples=3 --warmup=1 --axis=path=global_cg \
    --axis=order=page_local --axis=footprint_bytes=2GiB --axis=stride_bytes=2KiB \
    --axis=group_pages=1:1024:*4 "$@"
  # DRAM without TLB misses (larger footprints in random order put TLB misses
  # into the DRAM latency): random within each 2 MiB page, page
  # by page, over 1 and 2 GiB (20x and 40x L2); the report takes DRAM
  # latency from these rows.
  run memory_latency_dram memory_latency --samples=5 --axis=path=global_cg,global_ca \
    --axis=order=page_local --axis=footprint_bytes=1GiB,2GiB "$@"
  run latency_trace latency_trace --samples=5 "$@"
  run memory_bandwidth memory_bandwidth "$@"
  # L2 read bandwidth: every block reads the whole footprint (roaming), so
  # from 1 MiB up each SM's share exceeds its L1 while the total fits L2.
  run memory_bandwidth_roaming memory_bandwidth --axis=op=read --axis=width_bits=128 \
    --axis=sharing=roaming --axis=footprint_bytes=1MiB:64MiB:*2 "$@"
  run shared_bandwidth shared_bandwidth "$@"
fi
# L1 bypass (which layer kernels gain from bypassing L1): every cache variant
# on every configured layer at batch 1 and 8 (5040 points that run, the rest
# skipped as not fitting the layer), then the working set from 16 KiB to 256 MiB (conv only to 4 MiB: its cost grows
# with it). Batch 32 is a part of its own (2520 points; estimated at most of
# the layer sweep's time, unmeasured), so that a 10-minute call holds it.
if want l1_bypass; then
  run l1_bypass l1_bypass --samples=10 --axis=batch=1,8 "$@"
  run l1_bypass_sweep l1_bypass --samples=10 --axis=kernel=stream,gather,stencil,softmax \
    --axis=layer=vgg16.conv3_1 --axis=working_set_bytes=16KiB:256MiB:*4 "$@"
  run l1_bypass_sweep_conv_gemv l1_bypass --samples=10 --axis=kernel=conv,gemv \
    --axis=layer=resnet50.res3b_branch2b,vgg16.fc6 --axis=working_set_bytes=16KiB:4MiB:*4 "$@"
  # The counters that explain a gain or a loss, for four variants on the
  # VGG-16 layers (the report joins them to the timed rows above).
  run l1_bypass_counters l1_bypass --samples=3 --axis=occupancy_pct=100 \
    --axis=variant=default,dlcm_cg,cs,no_allocate \
    --axis=layer=vgg16.conv1_2,vgg16.pool1,vgg16.conv3_1,vgg16.fc6 \
    --metrics=l1_hit_rate,l2_sectors_read,dram_bytes_read "$@"
fi
if want l1_bypass_b32; then
  run l1_bypass_b32 l1_bypass --samples=10 --axis=batch=32 "$@"
fi
# Tensor cores: 72 mma.sync points (the fp8 forms skipped on cc
# 9.x, where ptxas emulates them) and 792 wgmma points (data random,
# random_cycling and zeros); 406 cuBLASLt points
# (hot and cold, fp8 with and without fast accumulation) with the
# tensor-pipe counter (a few replay passes per point on top of the 13 timed
# launches). Times estimated, unmeasured.
if want tensor; then
  run mma_sync mma_sync --samples=10 "$@"
  run wgmma wgmma --samples=10 "$@"
  run cublaslt_gemm cublaslt_gemm --samples=10 --metrics=tensor_pipe_active "$@"
fi
# Intergroup sharing: the GPC map and the SM-to-L2 map first
# (the duplication run measures its own GPC map too), then DSM by cluster
# size, the layer kernels' L1 duplication beside their CUPTI L1 hit ratio
# (both of the paper's figures from one run), and the cluster-cooperative
# conv and GEMV with the counters that explain them. Where the machine
# refuses counters the rows say counters_unavailable and the timings stand.
# Times estimated, unmeasured.
if want sharing; then
  run gpc_topology gpc_topology --samples=10 "$@"
  run l2_sm_map l2_sm_map --samples=10 "$@"
  run dsm_latency dsm_latency --samples=10 "$@"
  run dsm_bandwidth dsm_bandwidth --samples=10 "$@"
  run l1_duplication l1_duplication --samples=10 --metrics=l1_hit_rate "$@"
  run cluster_coop cluster_coop --samples=10 --metrics=l2_sectors_read,l1_hit_rate "$@"
fi
# Activation sparsity: the built-in VGG-16 and ResNet-50 passes
# (cuDNN, loaded at run time; skipped with the reason where it is missing)
# with ReLU and FATReLU, then every method's speed over the whole sparsity
# sweep at batch 1 and 32, 2:4 mma.sp, and compressible memory. Times
# estimated, unmeasured.
if want sparsity; then
  run activation_sparsity activation_sparsity --samples=10 "$@"
  run sparsity_speed sparsity_speed --samples=10 "$@"
  run sparsity_speed_b32 sparsity_speed --samples=10 --axis=batch=32 \
    --axis=shape=resnet50.fc1000,vgg16.fc6 "$@"
  run sparse24_gemm sparse24_gemm --samples=10 "$@"
  run compressible_bandwidth compressible_bandwidth --samples=10 "$@"
fi
# The instruction chapter: every op's dependent-chain latency and its
# throughput at full occupancy, the launch overheads (one row per measure
# and mode, then the grid ladder the analysis fits the per-block dispatch
# cost to), and the host link (pinned and pageable copies by size). Times
# estimated, unmeasured.
if want instructions; then
  run instruction_latency instruction_latency --samples=10 "$@"
  run instruction_latency_contention instruction_latency --samples=10 \
    --axis=op=atom_shared_add,atom_global_add,atom_shared_cas,atom_global_cas --axis=contention=warp "$@"
  run instruction_throughput instruction_throughput --samples=10 "$@"
  # One word for the grid (global) or the block (shared): the contention=all
  # global points serialize about a billion atomics a launch, seconds each.
  run instruction_throughput_contention instruction_throughput --samples=5 --axis=chains=1 \
    --axis=op=atom_shared_add,atom_global_add,atom_shared_cas,atom_global_cas --axis=contention=warp,all "$@"
  run launch_overhead launch_overhead --samples=20 "$@"
  run launch_block_dispatch launch_overhead --samples=10 --axis=measure=block_dispatch \
    --axis=blocks=1,132,1320,13200,132000 "$@"
  run host_link host_link --samples=10 "$@"
fi
# Paper reproductions: each ready catalog entry's sweep and its
# figure page (gnuplot is not on the GPU machine: --no_draw). Times are the
# catalog's estimates, unmeasured.
if want papers && ! bundled papers dist/bin/reproduce; then
  status=1
elif want papers; then
  if [[ -z "${papers}" ]]; then
    papers=$(dist/bin/reproduce --catalog=dist/papers --list | awk '$2 == "[ready]" {print $1}' | paste -sd,)
  fi
  for id in ${papers//,/ }; do
    step "paper_${id}" "${out}/paper_${id}.log" dist/bin/reproduce --catalog=dist/papers \
      --bin_dir=dist/bin --no_draw --paper="${id}" --out="${out}/papers" ||
      { status=1; echo "   failed, see ${out}/paper_${id}.log" >&2; }
    pack "after paper ${id}"
  done
fi
for label in ${labels//,/ }; do
  [[ "${ran_labels}" == *",${label},"* ]] && continue
  status=1
  summary "FAIL --labels: no run of the parts ${parts} is labelled '${label}'"
done
publish "running the report"
if ! bundled report dist/bin/report; then
  status=1
elif dist/bin/report "${out}" > "${out}/REPORT.md" 2> "${out}/report.log"; then
  summary "PASS report"
else
  status=1
  summary "FAIL report (report.log)"
  failure_lines "${out}/report.log"
fi
outside=$(grep -F '**outside**' "${out}/REPORT.md" 2> /dev/null | tr -s ' ' | cut -c1-300)
if [[ -n "${outside}" ]]; then
  mapfile -t outside <<< "${outside}"
  summary "outside their published ranges (REPORT.md):" "${outside[@]/#/    }"
fi
finish "${status}"
