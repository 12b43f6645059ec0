#!/usr/bin/env bash
# Submits one night of dissect on a Slurm cluster: the sweep job array
# (tools/slurm/nightly.sbatch, one task per GPU) and the job that runs after
# it whatever its tasks' outcome (tools/slurm/after_night.sbatch,
# --dependency=afterany): ingest into the history database, regression and
# fleet-outlier checks, summary.md. Prints the two job ids:
#   array=<id>
#   after=<id>
#
# Usage: DISSECT_RESULTS=/shared/dissect tools/slurm/submit_nightly.sh [SBATCH_OPTION...]
# (options after the script's name go to both sbatch calls, e.g. --qos=...;
# cron: 0 1 * * * cd /opt/dissect && DISSECT_RESULTS=... tools/slurm/submit_nightly.sh)
#
# Site settings (environment; defaults in brackets):
#   DISSECT_RESULTS     shared results folder, the same path on every node (required)
#   DISSECT_PARTITION   partition of the GPU nodes [none: the cluster's default]
#   DISSECT_ACCOUNT     account to charge [none]
#   DISSECT_GRES        the GPU request of one task [gpu:1]; e.g. gpu:h100:1;
#                       empty for none (CPU-only test clusters)
#   DISSECT_ARRAY       the tasks, sbatch --array syntax [0-7]: one per GPU of
#                       the fleet (e.g. 0-31 for 4 nodes x 8 GPUs); %N limits
#                       how many run at once (0-31%8)
#   DISSECT_CPUS        CPUs per task [4]
#   DISSECT_TIME        time limit of one task [04:00:00]; give it the sweep's
#                       total time limit and some (tools print it with
#                       //experiments:sweep -- --dry_run)
#   DISSECT_AFTER_TIME  time limit of the after-night job [01:00:00]
#   DISSECT_AFTER_PARTITION  partition of the after-night job (no GPU needed)
#                       [DISSECT_PARTITION]
#   DISSECT_NIGHT       the night's folder name [today, UTC: YYYY-MM-DD]
#   DISSECT_SWEEP       sweep name or .json path, %a = task id, %h = host [nightly];
#                       a name is configs/sweeps/<name>.json of the checkout
#                       (DISSECT_REPO, where the jobs start [this checkout])
#   DISSECT_BINARIES    dist (a bundle from tools/bundle.sh on the shared file
#                       system) or bazel (this checkout's bazel-bin) [dist]
#   DISSECT_DIST        the bundle's folder [<checkout>/dist]
#   DISSECT_BUILD       1: with DISSECT_BINARIES=bazel, build the tools with
#                       ./bazelw build -c opt first [1]
#   DISSECT_DB          the history database [$DISSECT_RESULTS/history.sqlite]
#   DISSECT_BASELINE_NIGHTS  nights of a device a run is compared with [7]
#   DISSECT_SWEEP_BIN, DISSECT_BIN_DIR, DISSECT_RUNNER_ARGS, DISSECT_INGEST_BIN,
#   DISSECT_COMPARE_BIN, DISSECT_OUTLIERS_BIN: see nightly.sbatch and
#                       after_night.sbatch
#   SBATCH              the sbatch command [sbatch]
# Slurm's logs go to $DISSECT_RESULTS/<night>/slurm/.
#
# Exit status: 0 both submitted; 1 sbatch failed; 2 bad settings.
set -euo pipefail

fail() { echo "submit_nightly.sh: $*" >&2; exit "${2:-2}"; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${here}/../.." && pwd)

results=${DISSECT_RESULTS:-}
[[ -n "${results}" ]] || fail "DISSECT_RESULTS is not set (the shared results folder, the same path on every node)"
[[ "${results}" == /* ]] || results="${PWD}/${results}"
night=${DISSECT_NIGHT:-$(date -u +%Y-%m-%d)}
[[ "${night}" =~ ^[A-Za-z0-9._-]+$ ]] || fail "DISSECT_NIGHT '${night}' is not a plain folder name"
array=${DISSECT_ARRAY:-0-7}
[[ "${array}" =~ ^[0-9,:%-]+$ ]] || fail "DISSECT_ARRAY '${array}' is not sbatch --array syntax (e.g. 0-7)"
gres=${DISSECT_GRES-gpu:1}
cpus=${DISSECT_CPUS:-4}
time_limit=${DISSECT_TIME:-04:00:00}
after_time=${DISSECT_AFTER_TIME:-01:00:00}
partition=${DISSECT_PARTITION:-}
after_partition=${DISSECT_AFTER_PARTITION:-${partition}}
account=${DISSECT_ACCOUNT:-}
binaries=${DISSECT_BINARIES:-dist}
sbatch_cmd=${SBATCH:-sbatch}
command -v "${sbatch_cmd}" > /dev/null || fail "no ${sbatch_cmd} on PATH (is this a Slurm login node?)"

export DISSECT_RESULTS="${results}" DISSECT_NIGHT="${night}" DISSECT_ARRAY="${array}"
export DISSECT_REPO="${DISSECT_REPO:-${repo}}" DISSECT_BINARIES="${binaries}"
case "${binaries}" in
  dist)
    export DISSECT_DIST="${DISSECT_DIST:-${repo}/dist}"
    if [[ -z "${DISSECT_SWEEP_BIN:-}" && ! -x "${DISSECT_DIST}/bin/sweep" ]]; then
      fail "no ${DISSECT_DIST}/bin/sweep: unpack a bundle (tools/bundle.sh) there, set DISSECT_DIST, or DISSECT_BINARIES=bazel"
    fi
    ;;
  bazel)
    if [[ "${DISSECT_BUILD:-1}" == 1 ]]; then
      (cd "${repo}" && ./bazelw build -c opt //experiments/drivers/sweep:sweep //analysis:ingest \
        //analysis:compare //analysis:outliers) || fail "the build failed" 1
      DISSECT_BAZEL_BIN=$(cd "${repo}" && ./bazelw info -c opt bazel-bin 2>/dev/null)
    fi
    export DISSECT_BAZEL_BIN="${DISSECT_BAZEL_BIN:-$(readlink -f "${repo}/bazel-bin")}"
    ;;
  *) fail "DISSECT_BINARIES must be dist or bazel, not '${binaries}'" ;;
esac

logs="${results}/${night}/slurm"
mkdir -p "${logs}" || fail "cannot create ${logs}"

# Jobs start in the checkout, where a sweep name resolves to
# configs/sweeps/<name>.json (a bundle-only site gives DISSECT_SWEEP as a path).
common=(--chdir="${DISSECT_REPO}")
[[ -z "${account}" ]] || common+=(--account="${account}")

array_opts=(--parsable --array="${array}" --cpus-per-task="${cpus}" --time="${time_limit}"
  --job-name=dissect-nightly --output="${logs}/nightly-%A_%a.out" --open-mode=append --export=ALL)
[[ -z "${partition}" ]] || array_opts+=(--partition="${partition}")
# An empty DISSECT_GRES asks for no GPU: --gres=none replaces the script's
# #SBATCH --gres=gpu:1.
array_opts+=(--gres="${gres:-none}")

array_job=$("${sbatch_cmd}" "${common[@]}" "${array_opts[@]}" "$@" "${here}/nightly.sbatch") \
  || fail "sbatch of the array failed" 1
array_job=${array_job%%;*}
[[ "${array_job}" =~ ^[0-9]+$ ]] || fail "sbatch printed '${array_job}', not a job id" 1

after_opts=(--parsable --dependency="afterany:${array_job}" --time="${after_time}"
  --job-name=dissect-after-night --output="${logs}/after_night-%j.out" --export=ALL)
[[ -z "${after_partition}" ]] || after_opts+=(--partition="${after_partition}")
after_job=$("${sbatch_cmd}" "${common[@]}" "${after_opts[@]}" "$@" "${here}/after_night.sbatch") \
  || fail "sbatch of the after-night job failed (array job ${array_job} stays queued: scancel it if unwanted)" 1
after_job=${after_job%%;*}

echo "array=${array_job}"
echo "after=${after_job}"
echo "submit_nightly.sh: night ${night} into ${results}/${night}; logs in ${logs}" >&2
