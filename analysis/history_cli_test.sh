#!/bin/bash
# Exit-code and output test of `ingest` and `history`: ingesting the test
# run folder (one truncated result file), a loose result file and a foreign
# file names the two bad files on stderr and exits 1 while the rest goes in;
# a second ingest adds nothing; bad usage and a foreign database exit 2 with
# one line; history prints a markdown trend, lists devices and points, and
# exits 2 with one line for an unknown device, point or metric; relative
# paths are taken from BUILD_WORKING_DIRECTORY.

set -u

root="${TEST_SRCDIR}/${TEST_WORKSPACE:-dissect}"
ingest="${root}/analysis/ingest"
history="${root}/analysis/history"
data="${root}/analysis/testdata/history"
tmp="${TEST_TMPDIR:-/tmp}/history_cli"
rm -rf "${tmp}" && mkdir -p "${tmp}"
db="${tmp}/history.db"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run TOOL ARGS...: sets $rc, $out, $err.
run() {
  "$@" >"${tmp}/out" 2>"${tmp}/err"
  rc=$?
  out="$(cat "${tmp}/out")"
  err="$(cat "${tmp}/err")"
}

# expect_error NAME PATTERN TOOL ARGS...: exit 2, empty stdout, one stderr
# line `NAME: ...` containing PATTERN.
expect_error() {
  local name="$1" pattern="$2"
  shift 2
  run "$@"
  [[ ${rc} -eq 2 ]] || fail "${name} ${*:2}: exit ${rc}, want 2"
  [[ -z "${out}" ]] || fail "${name} ${*:2}: unexpected stdout: ${out}"
  [[ "$(wc -l <"${tmp}/err")" -eq 1 ]] || fail "${name} ${*:2}: want one stderr line, got: ${err}"
  [[ "${err}" == "${name}: "*"${pattern}"* ]] || fail "${name} ${*:2}: stderr lacks '${pattern}': ${err}"
}

run "${ingest}" --help
[[ ${rc} -eq 0 && "${out}" == "usage: ingest"* ]] || fail "ingest --help: exit ${rc}: ${out}"
run "${history}" --help
[[ ${rc} -eq 0 && "${out}" == "usage: history"* ]] || fail "history --help: exit ${rc}: ${out}"

# Good and bad together: the good ones go in, each bad one is named, exit 1.
run "${ingest}" "${db}" "${data}/run_h100_night1" "${data}/loose" "${data}/foreign.json"
[[ ${rc} -eq 1 ]] || fail "ingest with bad files: exit ${rc}, want 1"
[[ "${out}" == "ingested 3 file(s), 2 run(s), 5 row(s); 0 duplicate(s) skipped; 2 bad" ]] ||
  fail "ingest with bad files: stdout: ${out}"
[[ "$(wc -l <"${tmp}/err")" -eq 2 ]] || fail "ingest with bad files: want 2 stderr lines: ${err}"
[[ "${err}" == *"ingest: ${data}/run_h100_night1/relu_bandwidth.json: "* ]] ||
  fail "truncated file not named: ${err}"
[[ "${err}" == *"ingest: ${data}/foreign.json: not a dissect result"* ]] ||
  fail "foreign file not named: ${err}"

# Idempotent.
run "${ingest}" "${db}" "${data}/run_h100_night1" "${data}/loose"
[[ "${out}" == "ingested 3 file(s), 0 run(s), 0 row(s); 5 duplicate(s) skipped; 1 bad" ]] ||
  fail "second ingest: stdout: ${out}"

# Only good files: exit 0, nothing on stderr; relative paths from
# BUILD_WORKING_DIRECTORY.
run env BUILD_WORKING_DIRECTORY="${data}" "${ingest}" "${db}" loose
[[ ${rc} -eq 0 && -z "${err}" ]] || fail "good ingest: exit ${rc}, stderr: ${err}"
[[ "${out}" == "ingested 1 file(s), 0 run(s), 0 row(s); 1 duplicate(s) skipped; 0 bad" ]] ||
  fail "good ingest: stdout: ${out}"
run env BUILD_WORKING_DIRECTORY="${tmp}" "${ingest}" relative.db "${data}/loose"
[[ ${rc} -eq 0 && -f "${tmp}/relative.db" ]] || fail "relative DB not created in BUILD_WORKING_DIRECTORY"

expect_error ingest "needs DB PATH..., got 0 argument(s)" "${ingest}"
expect_error ingest "needs DB PATH..., got 1 argument(s)" "${ingest}" "${db}"
expect_error ingest "unknown flag '--nope'" "${ingest}" --nope "${db}" "${data}/loose"
expect_error ingest "not a SQLite database" "${ingest}" "${data}/foreign.json" "${data}/loose"

# history: the trend, oldest first, as markdown.
point="shared_latency/footprint_bytes:8192/stride_bytes:4"
run "${history}" "${db}" --device=GPU-1111aaaa --point="${point}" --metric=cycles_per_load
[[ ${rc} -eq 0 && -z "${err}" ]] || fail "history: exit ${rc}, stderr: ${err}"
[[ "$(sed -n 1p "${tmp}/out")" == "## cycles_per_load of ${point} on GPU-1111aaaa" ]] ||
  fail "history: heading: ${out}"
[[ "$(sed -n 3p "${tmp}/out")" == "| run "*"| date "*"| value | spread | driver "*"| commit "*"|" ]] ||
  fail "history: header row: ${out}"
row="$(sed -n 5p "${tmp}/out")"
[[ "${row}" == "| gpu-node-07-GPU-1111aaaa-20261123T020000Z | 2026-11-23T02:00:00Z |  29.1 |   0.5% | 580.65.06 | aaaa00001111 |" ]] ||
  fail "history: row (the re-measurement, not the throttled 31.5): ${row}"

run "${history}" "${db}" --list_devices
[[ ${rc} -eq 0 && "${out}" == *"GPU-1111aaaa"* && "${out}" == *"Synthetic A100-like GPU (fixture)@lab-box"* ]] ||
  fail "--list_devices: exit ${rc}: ${out}"
run "${history}" "${db}" --list_points --device=GPU-1111aaaa
[[ ${rc} -eq 0 && "$(wc -l <"${tmp}/out")" -eq 3 && "${out}" == *"${point}"* ]] ||
  fail "--list_points: exit ${rc}: ${out}"

expect_error history "no device \"GPU-nope\"" "${history}" "${db}" --device=GPU-nope --point="${point}" --metric=cycles_per_load
expect_error history "has no point \"nope\"" "${history}" "${db}" --device=GPU-1111aaaa --point=nope --metric=cycles_per_load
expect_error history "has no metric \"nope\" (it has: cycles_per_load, ns_per_load)" \
  "${history}" "${db}" --device=GPU-1111aaaa --point="${point}" --metric=nope
expect_error history "need --device, --point and --metric" "${history}" "${db}" --device=GPU-1111aaaa
expect_error history "needs DB, got 0 argument(s)" "${history}" --list_devices
expect_error history "unknown flag '--nope'" "${history}" "${db}" --nope
expect_error history "no such database file" "${history}" "${tmp}/missing.db" --list_devices

if [[ ${failures} -gt 0 ]]; then
  echo "${failures} failure(s)" >&2
  exit 1
fi
echo "PASS"
