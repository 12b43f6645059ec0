#!/bin/bash
# Exit-code and output test of `compare` and `outliers` on the hand-made run
# folders in analysis/testdata/regression/: base (night 1), same (night 2,
# within the noise, one point throttled), drop (night 3: read bandwidth
# -10 % and a driver update), fleet/card0..card5 (one night of six H100s,
# card3's read bandwidth 8 % low). compare exits 1 with a regression, 0
# without, 2 on bad input with one `compare: ...` line; outliers exits 1
# with an outlier, 0 without, 2 on bad input.

set -u

root="${TEST_SRCDIR}/${TEST_WORKSPACE:-dissect}"
compare="${root}/analysis/compare"
outliers="${root}/analysis/outliers"
ingest="${root}/analysis/ingest"
data="${root}/analysis/testdata/regression"
tmp="${TEST_TMPDIR:-/tmp}"
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
  [[ "${err}" == "${name}: "*"${pattern}"* ]] ||
    fail "${name} ${*:2}: stderr lacks '${name}: ...${pattern}': ${err}"
}

# --- compare ---------------------------------------------------------------

run "${compare}" --help
[[ ${rc} -eq 0 && "${out}" == "usage: compare"* ]] || fail "--help: exit ${rc}: ${out}"

# Within the noise: exit 0; the throttled point is listed, not counted.
run "${compare}" "${data}/base" "${data}/same"
[[ ${rc} -eq 0 ]] || fail "base same: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == "# Regression check: "* ]] || fail "base same: no report: ${out}"
[[ "${out}" == *"**No regressions.**"* ]] || fail "base same: no 'No regressions': ${out}"
[[ "${out}" == *"throttled in the candidate: not counted"* ]] ||
  fail "base same: throttled point not marked: ${out}"
[[ -z "${err}" ]] || fail "base same: unexpected stderr: ${err}"

# A 10 % drop and a driver change: exit 1, the row annotated.
run "${compare}" --junit="${tmp}/compare.xml" "${data}/base" "${data}/drop"
[[ ${rc} -eq 1 ]] || fail "base drop: exit ${rc}, want 1 (stderr: ${err})"
row="$(grep -F '`op:read/width_bits:128/footprint_bytes:1073741824`' <<<"${out}")"
[[ "${row}" == *"-10.0%"*"driver 550.54 -> 555.42"* ]] ||
  fail "base drop: regression row lacks the change and the driver note: ${row}"
[[ "$(grep -c '<failure type="regression"' "${tmp}/compare.xml")" -eq 1 ]] ||
  fail "base drop: want one JUnit failure: $(cat "${tmp}/compare.xml")"
grep -q 'driver 550.54 -&gt; 555.42' "${tmp}/compare.xml" ||
  fail "base drop: JUnit lacks the escaped driver note"
grep -q '<testsuites name="dissect compare" tests="5" failures="1"' "${tmp}/compare.xml" ||
  fail "base drop: JUnit counts wrong: $(head -3 "${tmp}/compare.xml")"

# --markdown=FILE: nothing on stdout.
run "${compare}" --markdown="${tmp}/compare.md" "${data}/base" "${data}/drop"
[[ ${rc} -eq 1 && -z "${out}" ]] || fail "--markdown: exit ${rc}, stdout: ${out}"
grep -q '^## Regressions' "${tmp}/compare.md" || fail "--markdown: file lacks the regressions"

# Thresholds from a file: a 20 % tolerance swallows the drop.
cat >"${tmp}/loose.json" <<'EOF'
{"format": "dissect.regression_thresholds.v1",
 "default": {"direction": "higher_is_better", "relative_tolerance": 0.2}}
EOF
run "${compare}" --thresholds="${tmp}/loose.json" "${data}/base" "${data}/drop"
[[ ${rc} -eq 0 ]] || fail "--thresholds loose: exit ${rc}, want 0 (stderr: ${err})"

echo '{"format": "dissect.regression_thresholds.v1", "default": {"k": "x"}}' >"${tmp}/bad.json"
expect_error compare "bad.json: default.k: '\"x\"' is not a non-negative number" \
  "${compare}" --thresholds="${tmp}/bad.json" "${data}/base" "${data}/drop"
expect_error compare "no/such/folder" "${compare}" "${data}/base" no/such/folder
expect_error compare "want two run folders" "${compare}" "${data}/base"
expect_error compare "unknown flag '--bogus'" "${compare}" --bogus "${data}/base" "${data}/drop"
expect_error compare "need --db" "${compare}" --baseline=last:3 "${data}/base" "${data}/drop"
expect_error compare "no such database" "${compare}" --db="${tmp}/none.sqlite" --device=GPU-1
echo '{"format": "dissect.regression_thresholds.v1", "default": {"ignore": true}}' \
  >"${tmp}/ignore.json"
expect_error compare "nothing to compare" \
  "${compare}" --thresholds="${tmp}/ignore.json" "${data}/base" "${data}/drop"

# Broken nights the sweep runner wrote without a GPU (analysis/testdata/nights):
# the candidate's entries that measured nothing come first, each a JUnit
# failure; exit 1, not 2, and the outputs are written.
nights="${root}/analysis/testdata/nights"
# expect_broken_candidate NAME CANDIDATE JUNIT_PATTERN...: compare against the
# selftest night exits 1 and its JUnit XML has every pattern.
expect_broken_candidate() {
  local name="$1" candidate="$2"
  shift 2
  run "${compare}" --junit="${tmp}/${name}.xml" "${nights}/selftest_crash_timeout" \
    "${nights}/${candidate}"
  [[ ${rc} -eq 1 ]] || fail "${name}: exit ${rc}, want 1 (stderr: ${err})"
  for pattern in "$@"; do
    grep -q -- "${pattern}" "${tmp}/${name}.xml" ||
      fail "${name}: JUnit lacks '${pattern}': $(cat "${tmp}/${name}.xml")"
  done
}
expect_broken_candidate smoke smoke_no_gpu 'failures="10"' 'no CUDA device visible'
[[ "$(grep -c '<failure type="failed"' "${tmp}/smoke.xml")" -eq 10 ]] ||
  fail "smoke_no_gpu: want 10 JUnit failures: $(cat "${tmp}/smoke.xml")"
[[ "${out}" == *"## Entries not measured (10)"*"no CUDA device"* ]] ||
  fail "smoke_no_gpu: the entries are not listed: ${out}"
[[ "${out}" != *"**No regressions.**"* ]] || fail "smoke_no_gpu: says 'No regressions.'"
expect_broken_candidate selftest selftest_crash_timeout \
  '<failure type="failed" message="failed: killed by SIGABRT' \
  '<failure type="timeout" message="timeout: time limit of 3 s reached'
expect_broken_candidate truncated selftest_truncated '<failure type="unreadable"'
expect_broken_candidate device_check smoke_device_check \
  '<failure type="failed" message="failed: no NVIDIA driver'

# --db: the same runs from a history database (written by //analysis:ingest).
"${ingest}" "${tmp}/history.sqlite" "${data}/base" "${data}/same" "${data}/drop" >/dev/null ||
  fail "ingest of base, same, drop failed"
run "${compare}" --db="${tmp}/history.sqlite" --device=GPU-1111aaaa --baseline=last:2
[[ ${rc} -eq 1 ]] || fail "--db latest vs last:2: exit ${rc}, want 1 (stderr: ${err})"
[[ "${out}" == *"against median of 2 nights (2026-11-22T02:00:00Z .. 2026-11-23T02:00:00Z)"* ]] ||
  fail "--db latest vs last:2: baseline not the two nights before: ${out}"
[[ "${out}" == *"driver 550.54 -> 555.42"* ]] || fail "--db: driver change not noted: ${out}"
run "${compare}" --db="${tmp}/history.sqlite" --device=GPU-1111aaaa \
  --candidate=gpu-node-07-GPU-1111aaaa-20261123T020000Z --baseline=last:7
[[ ${rc} -eq 0 ]] || fail "--db night 2 vs night 1: exit ${rc}, want 0 (stderr: ${err})"
expect_error compare "last:N with N >= 1" \
  "${compare}" --db="${tmp}/history.sqlite" --device=GPU-1111aaaa --baseline=last:0
expect_error compare "no run of device GPU-1111aaaa before" "${compare}" \
  --db="${tmp}/history.sqlite" --candidate=gpu-node-07-GPU-1111aaaa-20261122T020000Z

# --- outliers --------------------------------------------------------------

run "${outliers}" --help
[[ ${rc} -eq 0 && "${out}" == "usage: outliers"* ]] || fail "outliers --help: exit ${rc}"

run "${outliers}" --junit="${tmp}/outliers.xml" "${data}"/fleet/card{0,1,2,3,4,5}
[[ ${rc} -eq 1 ]] || fail "fleet: exit ${rc}, want 1 (stderr: ${err})"
[[ "${out}" == *"| NVIDIA H100 80GB HBM3 | 165000002003 |"*"-8.0% bandwidth_gbps"* ]] ||
  fail "fleet: card3 not flagged: ${out}"
[[ "$(grep -c '165000002003' <<<"${out}")" -eq 2 ]] || fail "fleet: want card3 in two rows: ${out}"
grep -q '<testsuites name="dissect outliers" tests="6" failures="1"' "${tmp}/outliers.xml" ||
  fail "fleet: JUnit counts wrong: $(head -3 "${tmp}/outliers.xml")"

run "${outliers}" "${data}"/fleet/card{0,1,2,4,5}
[[ ${rc} -eq 0 && "${out}" == *"**No outliers.**"* ]] || fail "healthy fleet: exit ${rc}: ${out}"

run "${outliers}" "${data}"/fleet/card{0,1,2,3}
[[ ${rc} -eq 0 && "${out}" == *"fewer than 5 cards: not checked"* ]] ||
  fail "4 cards: exit ${rc}: ${out}"

"${ingest}" "${tmp}/fleet.sqlite" "${data}"/fleet/card* >/dev/null || fail "ingest of the fleet failed"
run "${outliers}" --db="${tmp}/fleet.sqlite" --night=2026-11-23
[[ ${rc} -eq 1 && "${out}" == *"| NVIDIA H100 80GB HBM3 | 165000002003 |"* ]] ||
  fail "--db fleet: exit ${rc}, card3 not flagged: ${out} ${err}"
expect_error outliers "no run started on 2026-11-24" \
  "${outliers}" --db="${tmp}/fleet.sqlite" --night=2026-11-24

expect_error outliers "no/such/folder" "${outliers}" "${data}/fleet/card0" no/such/folder
expect_error outliers "--night needs --db" "${outliers}" --night=2026-11-23 "${data}/fleet/card0"
expect_error outliers "want a date YYYY-MM-DD" "${outliers}" --db=x.sqlite --night=23.11.2026
expect_error outliers "no such database" "${outliers}" --db="${tmp}/none.sqlite" --night=2026-11-23
expect_error outliers "unknown flag '--k=3'" "${outliers}" --k=3 "${data}/fleet/card0"

if [[ ${failures} -gt 0 ]]; then
  echo "${failures} check(s) failed" >&2
  exit 1
fi
echo "PASS"
