#!/usr/bin/env bash
# Builds the experiments and their GPU tests with -c opt and copies them,
# stripped, with the shared libraries they need (Debian ships Google
# Benchmark only as a .so), into dist/ (git-ignored) for a GPU machine that
# has no Bazel, and dist.tar.gz of it. There:
#   tar xzf dist.tar.gz && LD_LIBRARY_PATH=dist/lib dist/bin/shared_latency --help
# dist/papers holds the paper catalog (configs/papers) for dist/bin/reproduce.
#
# The binaries are fat, like every build (--cuda_archs, //tools/cuda:BUILD):
# sm_80, sm_86, sm_89, sm_90a, sm_100a and sm_120 code, which makes
# dist.tar.gz about 48 MiB, which with the checkout is over the device
# tool's 64 MiB: for a loan, build for its GPU. `tools/bundle.sh --list`
# prints the targets it would build and stops. Other arguments go to Bazel, so
# a bundle for one GPU is `tools/bundle.sh --cuda_archs=sm_90a` (H100/H200;
# sm_80 A100, sm_89 L40S, sm_100a B200): about 41 MiB at sm_90a alone.
# Where even that is too much beside the checkout, --experiments=NAME,...
# builds dist/ as always but packs into dist.tar.gz only those experiments,
# their GPU-test wrappers and the binaries the GPU machine's scripts run
# (tools/bundle_pack.sh); dist/GPU_TESTS and dist/EXPERIMENTS in it list
# only what it holds.
#
# cublaslt_gemm links cuBLAS/cuBLASLt (about 600 MB): not copied, since the
# GPU machine has the toolkit (tools/reference_run.sh puts its lib64 on
# LD_LIBRARY_PATH) and the device tool carries at most 64 MiB. Set
# DISSECT_BUNDLE_CUBLAS=1 to copy them for a machine without a toolkit.
#
# CUPTI (for --metrics) is not copied: it must match the machine's driver and
# libnvperf_host.so alone is 32 MB. The binaries load libcupti.so.13 at run
# time from LD_LIBRARY_PATH, the loader cache, $CUDA_PATH or /usr/local/cuda
# (lib64, lib, extras/CUPTI/lib64); where the toolkit is elsewhere, run with
# LD_LIBRARY_PATH=dist/lib:<toolkit>/lib64. Without CUPTI the experiments
# still run and record counters_unavailable.
#
# dist/MANIFEST names the newest glibc and libstdc++ versions the bundled
# binaries and libraries ask for ("glibc 2.34", "glibcxx 3.4.30" on Debian
# 12); tools/device_checks.sh and tools/reference_run.sh stop with one clear
# line on a host older than that.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source tools/glibc_versions.sh
source tools/bundle_pack.sh
experiments_subset=""
list_only=0
bazel_args=()
for arg in "$@"; do
  case "${arg}" in
    --experiments=*) experiments_subset=${arg#*=} ;;
    --list) list_only=1 ;;
    *) bazel_args+=("${arg}") ;;
  esac
done
set -- "${bazel_args[@]}"
# Every experiment: the binaries dissect_experiment tags (tools/experiment.bzl).
# Activation sparsity loads cuDNN at run time, not bundled: the GPU machines
# have it as the nvidia-cudnn Python wheel.
experiment_labels=$(./bazelw query --noshow_progress 'attr(tags, "\bdissect_experiment\b", //...)') ||
  { echo "bundle.sh: bazel query of the experiments failed" >&2; exit 1; }
mapfile -t experiments <<<"${experiment_labels}"
[[ -n ${experiment_labels} ]] || { echo "bundle.sh: no experiment binaries found" >&2; exit 1; }
# Names checked before minutes of building.
[[ -z "${experiments_subset}" ]] || bundle_check_experiments "${experiments_subset}" "${experiments[@]##*:}" || exit 2
tools=(
  # Paper reproductions: the catalog's runner (with --catalog=dist/papers
  # --bin_dir=dist/bin).
  //experiments/drivers/reproduce:reproduce
  # The nightly tools (tools/slurm with DISSECT_BINARIES=dist): the sweep
  # runner (it finds the experiments in dist/bin with --bin_dir), and the
  # report, history, regression, outlier and dashboard tools.
  //experiments/drivers/sweep:sweep //analysis:report
  //analysis:ingest //analysis:history //analysis:compare //analysis:outliers
  //analysis:dashboard
  # tools/first_contact.sh judges its headline numbers with it on arrival.
  //analysis:verdict
)
# Every test tagged gpu, with its BUILD args into dist/GPU_TESTS for
# tools/device_checks.sh. The tests dissect_experiment makes (tag
# dissect_smoke_of=<experiment>) are not bundled as binaries: each becomes a
# two-line script running `<experiment> --smoke ARGS`, the same check from
# the experiment's own binary (experiments/framework/smoke.h), which keeps the
# bundle under the device tool's 64 MiB.
gpu_query='attr(tags, gpu, tests(//...))'
smoke_query='attr(tags, "dissect_smoke_of=", tests(//...))'
mapfile -t gpu_tests < <(./bazelw query "${gpu_query} except ${smoke_query}" 2>/dev/null)
mapfile -t smoke_tests < <(./bazelw query "${smoke_query}" --output=xml 2>/dev/null |
  tools/gpu_test_manifest.py --smoke)
(( ${#smoke_tests[@]} > 0 )) || { echo "bundle.sh: no GPU tests found" >&2; exit 1; }
smoke_binaries=()
for line in "${smoke_tests[@]}"; do smoke_binaries+=("${line#* }"); done
# Each once (an experiment with several smoke tests is named by each).
mapfile -t targets < <(printf '%s\n' "${experiments[@]}" "${tools[@]}" "${gpu_tests[@]}" \
  "${smoke_binaries[@]}" | awk 'NF && !seen[$0]++')
if ((list_only)); then
  printf '%s\n' "${targets[@]}"
  exit 0
fi
./bazelw build -c opt "$@" "${targets[@]}"
rm -rf dist && mkdir -p dist/bin dist/lib
bin=$(./bazelw info -c opt "$@" bazel-bin 2>/dev/null)
for t in "${targets[@]}"; do
  path="${bin}/${t#//}"; path="${path/://}"
  [[ -f "${path}" ]] || continue
  install -m 0755 "${path}" dist/bin/
  strip dist/bin/"$(basename "${path}")"
done
cp -L "$(compgen -G '/usr/lib/*-linux-gnu/libbenchmark.so.1debian' | head -1)" dist/lib/
if [[ "${DISSECT_BUNDLE_CUBLAS:-0}" == 1 ]]; then
  for lib in $(ldd dist/bin/cublaslt_gemm | awk '/libcublas/ {print $3}'); do
    cp -L "${lib}" dist/lib/
  done
fi
mkdir -p dist/papers && cp configs/papers/*.json dist/papers/
# The GPU machine's scripts, their plan, and the step times of the committed
# runs (tools/first_contact.sh plans with them), so that the bundle alone
# runs: tar xzf dist.tar.gz && dist/tools/first_contact.sh OUTDIR
mkdir -p dist/tools dist/first_contact
cp tools/{first_contact,device_checks,reference_run,device_common,glibc_versions}.sh dist/tools/
cp configs/first_contact/*.plan dist/first_contact/
while IFS= read -r steps; do
  install -D -m 0644 "${steps}" "dist/reference/${steps#analysis/reference/}"
done < <(find analysis/reference -mindepth 3 -maxdepth 3 -name STEPS.tsv 2> /dev/null)
{ git rev-parse HEAD; git diff --quiet HEAD || echo "(with uncommitted changes)"; } | paste -sd' ' > dist/COMMIT
./bazelw query "${gpu_query}" --output=xml 2>/dev/null | tools/gpu_test_manifest.py > dist/GPU_TESTS
printf '%s\n' "${experiments[@]##*:}" > dist/EXPERIMENTS
{
  echo "# The newest versions the binaries in dist/ ask of the host's glibc and libstdc++."
  bundle_requirements dist/bin/* dist/lib/*
} > dist/MANIFEST
grep -q '^glibc ' dist/MANIFEST || { echo "bundle.sh: no glibc version found in dist/ (objdump -p)" >&2; exit 1; }
grep -v '^#' dist/MANIFEST | sed 's/^/bundle.sh: needs /'
for line in "${smoke_tests[@]}"; do
  test_name=${line%% *}
  binary=${line#* }
  printf '#!/bin/sh\n# %s: the smoke check of %s (tools/bundle.sh).\n# dissect_smoke_of=%s\nexec "$(dirname "$0")/%s" --smoke "$@"\n' \
    "${test_name}" "${binary}" "${binary##*:}" "${binary##*:}" > dist/bin/"${test_name}"
  chmod 0755 dist/bin/"${test_name}"
done
# The static binaries (wgmma alone is 23 MB) add up to more than the device
# tool's 64 MiB carry limit; gzip brings them to about a third. Carry
# dist.tar.gz and unpack it there: tar xzf dist.tar.gz
if [[ -n "${experiments_subset}" ]]; then
  bundle_pack_subset dist dist.tar.gz "${experiments_subset}" || exit 1
  echo "bundle.sh: dist.tar.gz holds only ${experiments_subset} of the experiments; dist/ holds them all"
else
  tar czf dist.tar.gz dist
fi
du -sh dist dist.tar.gz
# The device tool carries 64 MiB in all: the checkout it sends (tracked and
# untracked files git does not ignore; analysis/reference grows with every
# loan) and the bundle beside it. Fail here, with both sizes, rather than on
# the GPU loan's clock.
size_mib=$(( ($(stat -c %s dist.tar.gz) + 1048575) / 1048576 ))
tree_bytes=$(git ls-files -co --exclude-standard -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
tree_mib=$(( (tree_bytes + 1048575) / 1048576 ))
echo "bundle.sh: dist.tar.gz is ${size_mib} MiB; with the ${tree_mib} MiB checkout, $((size_mib + tree_mib)) MiB of the device tool's 64"
if (( size_mib + tree_mib > 64 )); then
  echo "bundle.sh: dist.tar.gz (${size_mib} MiB) and the checkout (${tree_mib} MiB) are over the device tool's 64 MiB carry limit; build for the one GPU it is for, e.g. tools/bundle.sh --cuda_archs=sm_90a for an H100 or H200 (about 41 MiB), and where that is still over, pack only the experiments the loan runs: --experiments=NAME,... (names in dist/EXPERIMENTS)" >&2
  exit 1
fi
