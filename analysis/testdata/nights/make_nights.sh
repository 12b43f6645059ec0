#!/bin/bash
# Writes the run folders of analysis/testdata/nights/ with the real sweep
# runner (//experiments:sweep) on a machine WITHOUT a GPU, so that every
# entry ends the way it does on such a machine:
#   smoke_no_gpu            configs/sweeps/smoke.json with its device check
#                           turned off ("needs_gpu": false), as the runner ran
#                           it before it had one: each of the 10 entries
#                           starts its experiment binary, which exits 2 with
#                           "no CUDA device visible"
#   smoke_device_check      configs/sweeps/smoke.json as it is: the runner's
#                           device check fails, no entry runs, and the
#                           manifest says why (preflight_failure)
#   selftest_crash_timeout  configs/sweeps/selftest.json (CPU only): ok, a
#                           crash (abort at point 4), a hang stopped at its
#                           3 s time limit, a throttled point
#   selftest_truncated      selftest_ok.sweep.json (the selftest's ok entry
#                           alone), then its result file cut to 600 bytes, as
#                           a copy interrupted by a full disk leaves it
# The runner's exit status (1: entries failed; 3: no device) is expected.
# Run from the repository root: analysis/testdata/nights/make_nights.sh
set -uo pipefail

nights="$(pwd)/analysis/testdata/nights"
[[ -d "${nights}" ]] || { echo "run from the repository root" >&2; exit 2; }
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "this machine has a GPU: the fixtures are of a machine without one" >&2
  exit 2
fi
./bazelw build //experiments:sweep || exit 2
sweep_bin="$(pwd)/bazel-bin/experiments/drivers/sweep/sweep"
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT

sweep() {  # sweep SWEEP_FILE OUT
  rm -rf "${nights:?}/$2"
  "${sweep_bin}" --sweep="$1" --out="${nights}/$2"
  echo "sweep $1 -> $2: exit status $?" >&2
}
python3 - "${tmp}/smoke.json" <<'PY'
import json, sys
sweep = json.load(open("configs/sweeps/smoke.json"))
sweep["needs_gpu"] = False
json.dump(sweep, open(sys.argv[1], "w"), indent=2)
PY
sweep "${tmp}/smoke.json" smoke_no_gpu
sweep smoke smoke_device_check
sweep selftest selftest_crash_timeout
sweep "${nights}/selftest_ok.sweep.json" selftest_truncated
truncate -s 600 "${nights}/selftest_truncated/ok.json"
