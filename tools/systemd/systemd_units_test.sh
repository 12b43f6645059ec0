#!/usr/bin/env bash
# The systemd units on the CPU:
#   - `systemd-analyze verify` accepts the timer and the service with no error
#     and no warning once /opt/dissect is this checkout, and refuses the
#     service where the night's script does not exist (so it checks paths);
#   - the timer starts the service; every DISSECT_* variable the service
#     sets is one the night's scripts read;
#   - dissect-night.sh (with stand-ins for tools/slurm/*.sbatch) runs one
#     nightly.sbatch per GPU with its CUDA_VISIBLE_DEVICES and task id, then
#     after_night.sbatch for those tasks, all in one night; bad settings are
#     one line and exit 2.
set -u
root="${TEST_SRCDIR}/dissect"
units="${root}/tools/systemd"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if ! command -v systemd-analyze >/dev/null; then
  echo "FAIL: systemd-analyze is missing (Debian package systemd, which ./bazelw installs)"
  exit 1
fi

# verify DIR: systemd-analyze verify of DIR's timer and service, run in DIR.
verify() { (cd "$1" && systemd-analyze verify --man=no ./dissect-nightly.timer ./dissect-nightly.service 2>&1); }

here="${TEST_TMPDIR}/here"
mkdir -p "${here}"
sed "s#/opt/dissect#${root}#g" "${units}/dissect-nightly.service" > "${here}/dissect-nightly.service"
cp "${units}/dissect-nightly.timer" "${here}/"
grep -q "ExecStart=${root}/tools/systemd/dissect-night.sh$" "${here}/dissect-nightly.service" ||
  fail "the service does not start /opt/dissect/tools/systemd/dissect-night.sh"
out=$(verify "${here}")
rc=$?
[[ ${rc} -eq 0 && -z "${out}" ]] || fail "systemd-analyze verify (checkout at ${root}): exit ${rc}: ${out}"

elsewhere="${TEST_TMPDIR}/elsewhere"
mkdir -p "${elsewhere}"
sed "s#/opt/dissect#${TEST_TMPDIR}/no_checkout#g" "${units}/dissect-nightly.service" \
  > "${elsewhere}/dissect-nightly.service"
cp "${units}/dissect-nightly.timer" "${elsewhere}/"
out=$(verify "${elsewhere}")
rc=$?
[[ ${rc} -ne 0 && "${out}" == *"dissect-night.sh is not executable"* ]] ||
  fail "systemd-analyze verify accepted a service whose script is missing: exit ${rc}: ${out}"

grep -qx "Unit=dissect-nightly.service" "${units}/dissect-nightly.timer" ||
  fail "the timer does not start dissect-nightly.service"
scripts=("${units}/dissect-night.sh" "${root}/tools/slurm/nightly.sbatch" "${root}/tools/slurm/after_night.sbatch")
while IFS= read -r name; do
  grep -q "${name}" "${scripts[@]}" || fail "the service sets ${name}, which no night script reads"
done < <(sed -n 's/^Environment=\([A-Z_]*\)=.*/\1/p' "${units}/dissect-nightly.service")

# dissect-night.sh in a tree whose sbatch scripts record how they were run.
tree="${TEST_TMPDIR}/tree"
mkdir -p "${tree}/tools/systemd" "${tree}/tools/slurm"
cp "${units}/dissect-night.sh" "${tree}/tools/systemd/"
log="${TEST_TMPDIR}/calls.log"
printf 'echo "nightly gpu=${CUDA_VISIBLE_DEVICES} task=${DISSECT_TASK} night=${DISSECT_NIGHT} repo=${DISSECT_REPO}" >> %s\n' \
  "${log}" > "${tree}/tools/slurm/nightly.sbatch"
printf 'echo "after array=${DISSECT_ARRAY} night=${DISSECT_NIGHT}"  >> %s; exit 1\n' \
  "${log}" > "${tree}/tools/slurm/after_night.sbatch"
night() { env -u DISSECT_NIGHT -u DISSECT_REPO "$@" bash "${tree}/tools/systemd/dissect-night.sh"; }

rm -f "${log}"
night DISSECT_RESULTS="${TEST_TMPDIR}/results" DISSECT_BINARIES=dist DISSECT_GPUS="0, 2" 2>&1
rc=$?
today=$(date -u +%F)
[[ ${rc} -eq 1 ]] || fail "dissect-night.sh exited ${rc}, not after_night.sbatch's 1"
# The cards in any order, after_night.sbatch last.
want="nightly gpu=0 task=0 night=${today} repo=${tree}
nightly gpu=2 task=2 night=${today} repo=${tree}
after array=0,2 night=${today}"
got="$(head -n 2 "${log}" 2>/dev/null | sort)
$(tail -n +3 "${log}" 2>/dev/null)"
[[ "${got}" == "${want}" ]] || fail "dissect-night.sh ran:
$(cat "${log}" 2>/dev/null)
want:
${want}"
[[ -d "${TEST_TMPDIR}/results/${today}" ]] || fail "no night folder ${TEST_TMPDIR}/results/${today}"

# expect STATUS MESSAGE VAR=VALUE...: dissect-night.sh exits STATUS with one
# line on stderr containing MESSAGE.
expect() {
  local status=$1 message=$2
  shift 2
  local err rc
  err=$(night "$@" 2>&1 >/dev/null)
  rc=$?
  [[ ${rc} -eq ${status} ]] || fail "$*: exit ${rc}, want ${status}: ${err}"
  [[ "${err}" == *"${message}"* && $(printf '%s\n' "${err}" | wc -l) -eq 1 ]] ||
    fail "$*: want one line with '${message}', got: ${err}"
}
expect 2 "DISSECT_RESULTS is not set" DISSECT_RESULTS=
expect 2 "DISSECT_GPUS must list GPU indices (0 1 ...), not 'all'" \
  DISSECT_RESULTS="${TEST_TMPDIR}/results" DISSECT_GPUS=all
expect 2 "DISSECT_GPUS lists no GPU" DISSECT_RESULTS="${TEST_TMPDIR}/results" DISSECT_GPUS=,

if (( failures > 0 )); then
  echo "${failures} failure(s)"
  exit 1
fi
echo "PASS"
