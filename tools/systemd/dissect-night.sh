#!/usr/bin/env bash
# One machine's night without Slurm, as tools/systemd/dissect-nightly.service
# (or a cron line) starts it: every GPU in DISSECT_GPUS runs
# tools/slurm/nightly.sbatch at once, one run folder each
# ($DISSECT_RESULTS/<night>/<host>-<gpu>/), and when all have ended
# tools/slurm/after_night.sbatch ingests them, checks them for regressions
# and outliers and rewrites the dashboard. A card without a device ends its
# own run in one line (the runner's exit 3, recorded in its manifest); the
# other cards still run.
#
# Environment: what nightly.sbatch and after_night.sbatch read
# (DISSECT_RESULTS is required), and
#   DISSECT_GPUS   the GPU indices to run, blank- or comma-separated
#                  (default 0); each becomes CUDA_VISIBLE_DEVICES and the
#                  task id of its run
# DISSECT_NIGHT is fixed here once (today, UTC) so that a night that runs
# past midnight stays one night. DISSECT_REPO defaults to this checkout; with
# DISSECT_BINARIES=bazel and no DISSECT_BAZEL_BIN, the binaries are those of
# `./bazelw build -c opt` (build them first: this script builds nothing).
#
# Exit status: after_night.sbatch's (0 every card landed with all entries ok
# and no regression or outlier; 1 otherwise, summary.md says what; 2 bad
# settings).
set -uo pipefail

fail() { echo "dissect-night.sh: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
slurm=$(cd "${here}/../slurm" && pwd) || fail "no tools/slurm beside ${here}"
[[ -n "${DISSECT_RESULTS:-}" ]] || fail "DISSECT_RESULTS is not set (the results folder)"
export DISSECT_NIGHT=${DISSECT_NIGHT:-$(date -u +%F)}
export DISSECT_REPO=${DISSECT_REPO:-$(cd "${here}/../.." && pwd)}
if [[ "${DISSECT_BINARIES:-dist}" == bazel && -z "${DISSECT_BAZEL_BIN:-}" ]]; then
  DISSECT_BAZEL_BIN=$(cd "${DISSECT_REPO}" && ./bazelw info -c opt bazel-bin 2>/dev/null) ||
    fail "cannot find the -c opt bazel-bin of ${DISSECT_REPO} (set DISSECT_BAZEL_BIN)"
  export DISSECT_BAZEL_BIN
fi

gpu_list=${DISSECT_GPUS:-0}
read -r -a gpus <<< "${gpu_list//,/ }"
for gpu in "${gpus[@]}"; do
  [[ "${gpu}" =~ ^[0-9]+$ ]] || fail "DISSECT_GPUS must list GPU indices (0 1 ...), not '${gpu}'"
done
(( ${#gpus[@]} > 0 )) || fail "DISSECT_GPUS lists no GPU"

mkdir -p "${DISSECT_RESULTS}/${DISSECT_NIGHT}" || fail "cannot create ${DISSECT_RESULTS}/${DISSECT_NIGHT}"
for gpu in "${gpus[@]}"; do
  CUDA_VISIBLE_DEVICES=${gpu} DISSECT_TASK=${gpu} bash "${slurm}/nightly.sbatch" &
done
wait
DISSECT_ARRAY=$(IFS=,; echo "${gpus[*]}") exec bash "${slurm}/after_night.sbatch"
