#!/usr/bin/env bash
# Relative paths on the command line resolve against the folder the user ran
# the command from, for an analysis binary and an experiment binary alike:
# $DISSECT_CALLER_DIR (./bazelw) over $BUILD_WORKING_DIRECTORY (bazel run),
# over the working directory (a binary run directly). Each binary is started
# from a third folder, as `bazel run` starts it in its runfiles tree; so is
# the sweep runner, whose sweep file and run folder are relative too.
set -u
bin="${TEST_SRCDIR}/dissect"
report="${bin}/analysis/report"
ingest="${bin}/analysis/ingest"
selftest="${bin}/experiments/selftest"
sweep="${bin}/experiments/drivers/sweep/sweep"
result="${bin}/analysis/testdata/synthetic_relu.json"

tmp="${TEST_TMPDIR}/caller_dir"
rm -rf "${tmp}"
user="${tmp}/user"          # where the user stood
checkout="${tmp}/checkout"  # where ./bazelw ran Bazel (BUILD_WORKING_DIRECTORY)
start="${tmp}/runfiles"     # where the binary was started
mkdir -p "${user}/results" "${user}/rel" "${checkout}/results" "${checkout}/rel" "${start}"
cp "${result}" "${user}/results/"
cp "${bin}/configs/sweeps/selftest.json" "${user}/my_sweep.json"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run VAR=VALUE... -- BINARY ARGS...: runs BINARY from ${start} with exactly
# the given variables; sets rc, out, err.
run() {
  local vars=()
  while [[ "$1" != "--" ]]; do vars+=("$1"); shift; done
  shift
  out=$(cd "${start}" && env -u DISSECT_CALLER_DIR -u BUILD_WORKING_DIRECTORY "${vars[@]}" \
      "$@" 2>"${tmp}/stderr")
  rc=$?
  err=$(cat "${tmp}/stderr")
}

both=(DISSECT_CALLER_DIR="${user}" BUILD_WORKING_DIRECTORY="${checkout}")
selftest_args=(--axis=point=1 --samples=1 --warmup=0 --selftest_ms=0)

# analysis: a positional input folder.
run "${both[@]}" -- "${report}" results
[[ ${rc} -eq 0 && "${out}" == *"Synthetic H100-like GPU"* ]] ||
  fail "report results under ./bazelw: exit ${rc}, stderr: ${err}"
run BUILD_WORKING_DIRECTORY="${user}" -- "${report}" results
[[ ${rc} -eq 0 ]] || fail "report results under bazel run: exit ${rc}, stderr: ${err}"
out=$(cd "${user}" && env -u DISSECT_CALLER_DIR -u BUILD_WORKING_DIRECTORY "${report}" results 2>&1)
[[ $? -eq 0 ]] || fail "report results run directly: ${out}"

# analysis: a positional output (the database) and input.
run "${both[@]}" -- "${ingest}" history.db results
[[ ${rc} -eq 0 && -f "${user}/history.db" ]] ||
  fail "ingest history.db results: exit ${rc}, want ${user}/history.db; stderr: ${err}"
[[ ! -e "${checkout}/history.db" && ! -e "${start}/history.db" ]] ||
  fail "ingest wrote history.db outside the user's folder"

# A folder that cannot be entered: one line naming it, exit 2.
run DISSECT_CALLER_DIR="${tmp}/gone" -- "${report}" results
[[ ${rc} -eq 2 && "${err}" == *"DISSECT_CALLER_DIR=${tmp}/gone"* && $(wc -l <<<"${err}") -eq 1 ]] ||
  fail "unenterable caller folder: exit ${rc}, stderr: ${err}"

# experiments: Google Benchmark's --benchmark_out and the default folder.
run "${both[@]}" -- "${selftest}" "${selftest_args[@]}" --benchmark_out=rel/x.json
[[ ${rc} -eq 0 && -f "${user}/rel/x.json" ]] ||
  fail "selftest --benchmark_out=rel/x.json under ./bazelw: exit ${rc}, stderr: ${err}"
[[ ! -e "${checkout}/rel/x.json" ]] || fail "selftest wrote rel/x.json into the checkout"
run BUILD_WORKING_DIRECTORY="${user}" -- "${selftest}" "${selftest_args[@]}" --benchmark_out=rel/y.json
[[ ${rc} -eq 0 && -f "${user}/rel/y.json" ]] ||
  fail "selftest --benchmark_out=rel/y.json under bazel run: exit ${rc}, stderr: ${err}"
run "${both[@]}" -- "${selftest}" "${selftest_args[@]}"
written=("${user}"/dissect-results/selftest-*.json)
[[ ${rc} -eq 0 && -f "${written[0]}" ]] ||
  fail "selftest default output: exit ${rc}, nothing in ${user}/dissect-results; stderr: ${err}"
[[ ! -e "${checkout}/dissect-results" && ! -e "${start}/dissect-results" ]] ||
  fail "selftest default output left outside the user's folder"

# The sweep runner: a sweep file and the run folder, both relative.
run "${both[@]}" -- "${sweep}" --sweep=my_sweep.json --out=night --dry_run
[[ ${rc} -eq 0 && "${out}" == *"--benchmark_out=${user}/night/ok.json"* ]] ||
  fail "sweep --sweep=my_sweep.json --out=night: exit ${rc}, stdout: ${out}, stderr: ${err}"

if (( failures > 0 )); then
  echo "${failures} check(s) failed" >&2
  exit 1
fi
echo "PASS"
