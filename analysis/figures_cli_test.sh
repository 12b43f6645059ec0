#!/bin/bash
# End-to-end test of the `figures` binary: it runs gnuplot (Debian package
# gnuplot-nox; ./bazelw installs it) and must leave SVG files (memory
# curves, stall breakdown); without gnuplot on PATH, without --out or
# without memory results or stall counters it exits 2 with one
# `figures: ...` line.

set -u

root="${TEST_SRCDIR}/${TEST_WORKSPACE:-dissect}"
figures="${root}/analysis/figures"
data="${root}/analysis/testdata"
tmp="${TEST_TMPDIR:-/tmp}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run ARGS...: runs figures, sets $rc, $out, $err.
run() {
  "${figures}" "$@" >"${tmp}/out" 2>"${tmp}/err"
  rc=$?
  out="$(cat "${tmp}/out")"
  err="$(cat "${tmp}/err")"
}

# expect_error PATTERN ARGS...: exit 2, one stderr line `figures: ...PATTERN...`.
expect_error() {
  local pattern="$1"
  shift
  run "$@"
  [[ ${rc} -eq 2 ]] || fail "figures $*: exit ${rc}, want 2"
  [[ "$(wc -l <"${tmp}/err")" -eq 1 ]] || fail "figures $*: want one stderr line, got: ${err}"
  [[ "${err}" == "figures: "*"${pattern}"* ]] || fail "figures $*: stderr lacks '${pattern}': ${err}"
}

command -v gnuplot >/dev/null ||
  { echo "FAIL: gnuplot is not installed (Debian package gnuplot-nox)" >&2; exit 1; }

dir="${tmp}/fig"
rm -rf "${dir}"
run --out="${dir}" "${data}/synthetic_memory_latency.json" \
  "${data}/synthetic_memory_bandwidth.json" "${data}/synthetic_relu.json"
[[ ${rc} -eq 0 ]] || fail "figures: exit ${rc}, want 0 (stderr: ${err})"
device="${dir}/synthetic_h100_like_gpu_fixture"
for svg in latency_vs_footprint.svg bandwidth_vs_footprint.svg; do
  [[ -s "${device}/${svg}" ]] || fail "no ${device}/${svg}"
  grep -q "<svg" "${device}/${svg}" 2>/dev/null || fail "${svg} has no <svg"
  [[ "${out}" == *"${device}/${svg}"* ]] || fail "stdout does not name ${svg}: ${out}"
done
for f in latency_vs_footprint.gp latency_vs_footprint.dat; do
  [[ -s "${device}/${f}" ]] || fail "no ${device}/${f}"
done
grep -q "global_ca (random, stride 128 B)" "${device}/latency_vs_footprint.svg" ||
  fail "latency SVG lacks the global_ca line title"

# Latency results only: no bandwidth figure.
dir2="${tmp}/fig2"
rm -rf "${dir2}"
run --out="${dir2}" "${data}/synthetic_shared_latency.json"
[[ ${rc} -eq 0 ]] || fail "shared_latency only: exit ${rc}, want 0 (stderr: ${err})"
[[ -s "${dir2}/synthetic_h100_like_gpu_fixture/latency_vs_footprint.svg" ]] ||
  fail "shared_latency only: no latency SVG"
[[ ! -e "${dir2}/synthetic_h100_like_gpu_fixture/bandwidth_vs_footprint.svg" ]] ||
  fail "shared_latency only: unexpected bandwidth SVG"

# No gnuplot on PATH (only the binary gets that PATH; it is linked
# statically and needs nothing else from it).
PATH=/nonexistent "${figures}" --out="${tmp}/fig3" "${data}/synthetic_memory_latency.json" \
  >"${tmp}/out" 2>"${tmp}/err"
rc=$?
err="$(cat "${tmp}/err")"
[[ ${rc} -eq 2 ]] || fail "no gnuplot: exit ${rc}, want 2"
[[ "${err}" == "figures: gnuplot not found on PATH; install the Debian package gnuplot-nox"* ]] ||
  fail "no gnuplot: wrong stderr: ${err}"
[[ "$(wc -l <"${tmp}/err")" -eq 1 ]] || fail "no gnuplot: want one stderr line, got: ${err}"
[[ ! -e "${tmp}/fig3" ]] || fail "no gnuplot: output folder created anyway"

# Stall counters: a stacked-bar stall-breakdown figure.
dir5="${tmp}/fig_stalls"
rm -rf "${dir5}"
run --out="${dir5}" "${data}/synthetic_stalls_relu.json" "${data}/synthetic_stalls_unavailable.json"
[[ ${rc} -eq 0 ]] || fail "stalls: exit ${rc}, want 0 (stderr: ${err})"
stall_svg="${dir5}/synthetic_h100_like_gpu_fixture/stall_breakdown.svg"
[[ -s "${stall_svg}" ]] || fail "stalls: no ${stall_svg}"
grep -q "long_scoreboard" "${stall_svg}" 2>/dev/null || fail "stall SVG lacks the long_scoreboard key"
grep -q "relu_bandwidth/bytes:268435456/timing:cold" "${stall_svg}" 2>/dev/null ||
  fail "stall SVG lacks a row label"
[[ "${out}" == *"${stall_svg}"* ]] || fail "stdout does not name the stall SVG: ${out}"
[[ ! -e "${dir5}/synthetic_a100_like_gpu_fixture" ]] ||
  fail "stalls: a folder for the device without stall counters"

expect_error "--out=DIR is required" "${data}/synthetic_memory_latency.json"
expect_error "no memory_latency, shared_latency, memory_bandwidth or l1_bypass results with data, and no rows with cupti/stall_<reason> counters" \
  --out="${tmp}/fig4" "${data}/synthetic_relu.json"
expect_error "no/such.json: no such file or directory" --out="${tmp}/fig5" no/such.json
expect_error "unknown flag '--colour'" --colour --out="${tmp}/fig6" "${data}/synthetic_relu.json"
expect_error "malformed.json: malformed JSON" --out="${tmp}/fig7" "${data}/malformed.json"

# A bad file among good ones is named on stderr and left out; the figures of
# the others are drawn, exit status 1.
dir8="${tmp}/fig8"
rm -rf "${dir8}"
run --out="${dir8}" "${data}/synthetic_memory_latency.json" "${data}/malformed.json"
[[ ${rc} -eq 1 ]] || fail "good + malformed: exit ${rc}, want 1 (stderr: ${err})"
[[ -s "${dir8}/synthetic_h100_like_gpu_fixture/latency_vs_footprint.svg" ]] ||
  fail "good + malformed: no latency SVG for the good file"
[[ "${err}" == "figures: ${data}/malformed.json: malformed JSON"* &&
  "${err}" == *"1 of 2 result file(s) unreadable"* ]] ||
  fail "good + malformed: bad file or count not on stderr: ${err}"

if [[ ${failures} -ne 0 ]]; then
  echo "${failures} check(s) failed" >&2
  exit 1
fi
echo "PASS"
