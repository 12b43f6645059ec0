#!/bin/bash
# Exit-code and stderr test of the `report` binary: good input prints
# a summary and exits 0, the whole report with --detail (memory
# experiments add a memory-hierarchy section
# with the built-in or --published values, stall counters a stall-reasons
# section and --stalls_csv a CSV file); bad input (foreign, malformed,
# missing, unknown flag, bad --published file, no arguments) exits 2 with
# one `report: ...` line naming the problem (another suite's raw file: how to
# import it); a bad result file among good
# ones is named on stderr and the rest reported, with exit status 1.
# --compare prints the comparison of a device's hierarchies from dissect and
# an imported peer, and exits 2 when there is nothing to compare.

set -u

root="${TEST_SRCDIR}/${TEST_WORKSPACE:-dissect}"
report="${root}/analysis/report"
data="${root}/analysis/testdata"
tmp="${TEST_TMPDIR:-/tmp}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run ARGS...: runs report, sets $rc, $out, $err.
run() {
  "${report}" "$@" >"${tmp}/out" 2>"${tmp}/err"
  rc=$?
  out="$(cat "${tmp}/out")"
  err="$(cat "${tmp}/err")"
}

# expect_error PATTERN ARGS...: exit 2, empty stdout, one stderr line
# `report: ...` containing PATTERN.
expect_error() {
  local pattern="$1"
  shift
  run "$@"
  [[ ${rc} -eq 2 ]] || fail "report $*: exit ${rc}, want 2"
  [[ -z "${out}" ]] || fail "report $*: unexpected stdout: ${out}"
  [[ "$(wc -l <"${tmp}/err")" -eq 1 ]] || fail "report $*: want one stderr line, got: ${err}"
  [[ "${err}" == "report: "* ]] || fail "report $*: stderr lacks 'report: ': ${err}"
  [[ "${err}" == *"${pattern}"* ]] || fail "report $*: stderr lacks '${pattern}': ${err}"
}

# Good file: the summary on stdout, naming the sections --detail adds;
# nothing on stderr, exit 0.
run "${data}/synthetic_relu.json"
[[ ${rc} -eq 0 ]] || fail "good file: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == "## results read"* ]] || fail "good file: stdout does not start with the summary: ${out}"
[[ "${out}" == *"With --detail, the report goes on with these sections:"*"- relu"* ]] ||
  fail "good file: the sections of --detail not named: ${out}"
[[ "${out}" != *"| bytes (B)"* ]] || fail "good file: per-point rows without --detail: ${out}"
[[ -z "${err}" ]] || fail "good file: unexpected stderr: ${err}"
run --detail "${data}/synthetic_relu.json"
[[ ${rc} -eq 0 ]] || fail "--detail: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == "## results read"*"# details"*"## relu"*"| bytes (B)"* ]] ||
  fail "--detail: summary, then the per-experiment table expected: ${out}"

# Other suites' raw files: one line each saying to import them first.
expect_error "mt4g_excerpt.json: an mt4g result, not a dissect result file: convert it first with bazel run //analysis:import -- --from=mt4g" \
  "${data}/peers/mt4g_excerpt.json"
expect_error "gpu-latency_excerpt.txt: a gpu-benches gpu-latency log, not a dissect result file: convert it first with bazel run //analysis:import -- --from=gpu-benches" \
  "${data}/peers/gpu-latency_excerpt.txt"

expect_error "foreign.json: not a dissect result (context has no dissect_schema_version)" \
  "${data}/foreign.json"
# A bad file among good ones: the good ones are reported, each bad one is
# named on stderr, then a closing line, and the exit status is 1.
run --detail "${data}/synthetic_relu.json" "${data}/foreign.json"
[[ ${rc} -eq 1 ]] || fail "good + foreign: exit ${rc}, want 1"
[[ "${out}" == *"## relu"* ]] || fail "good + foreign: good file not reported: ${out}"
[[ "${err}" == "report: ${data}/foreign.json: not a dissect result"* ]] ||
  fail "good + foreign: bad file not named first on stderr: ${err}"
[[ "$(wc -l <"${tmp}/err")" -eq 2 ]] || fail "good + foreign: want two stderr lines, got: ${err}"
[[ "${err}" == *"report: 1 of 2 result file(s) unreadable and left out"* ]] ||
  fail "good + foreign: no closing count line: ${err}"
# A nightly folder with one truncated file among good ones.
nightly="${tmp}/nightly"
rm -rf "${nightly}"
mkdir -p "${nightly}"
cp "${data}/synthetic_relu.json" "${data}/synthetic_shared_latency.json" "${nightly}/"
head -c 300 "${data}/synthetic_relu.json" >"${nightly}/truncated.json"
run --detail "${nightly}"
[[ ${rc} -eq 1 ]] || fail "folder with a truncated file: exit ${rc}, want 1 (stderr: ${err})"
[[ "${out}" == *"## relu"* && "${out}" == *"## shared_latency"* ]] ||
  fail "folder with a truncated file: good files not reported: ${out}"
[[ "${err}" == "report: ${nightly}/truncated.json: malformed JSON"* ]] ||
  fail "folder with a truncated file: truncated file not named: ${err}"
[[ "${err}" == *"1 of 3 result file(s) unreadable"* ]] ||
  fail "folder with a truncated file: no closing count line: ${err}"
# Only bad files: each is named, nothing on stdout, exit 2.
run "${data}/foreign.json" "${data}/malformed.json"
[[ ${rc} -eq 2 ]] || fail "only bad files: exit ${rc}, want 2"
[[ -z "${out}" ]] || fail "only bad files: unexpected stdout: ${out}"
[[ "$(wc -l <"${tmp}/err")" -eq 2 && "${err}" == *"foreign.json: not a dissect result"* &&
  "${err}" == *"malformed.json: malformed JSON"* ]] ||
  fail "only bad files: want both named on stderr, got: ${err}"
expect_error "malformed.json: malformed JSON at byte " "${data}/malformed.json"
expect_error "no/such.json: no such file or directory" "no/such.json"
expect_error "unknown flag '--colour'" --colour "${data}/synthetic_relu.json"

# Memory experiments: the summary first, its lines within 160 columns; with
# --detail a memory-hierarchy section with the built-in published values
# (configs/published/memory_hierarchy.json) beside it.
run "${data}/synthetic_memory_latency.json" "${data}/synthetic_shared_bandwidth.json"
[[ ${rc} -eq 0 ]] || fail "memory summary: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == "## summary: Synthetic H100-like GPU (fixture)"*"| level "*"## results read"* ]] ||
  fail "memory summary: not a summary table first: ${out}"
longest="$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "${tmp}/out")"
[[ ${longest} -le 160 ]] || fail "memory summary: a line of ${longest} characters"
run --detail "${data}/synthetic_memory_latency.json" "${data}/synthetic_shared_bandwidth.json"
[[ ${rc} -eq 0 ]] || fail "memory files: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == *"## memory hierarchy: Synthetic H100-like GPU (fixture)"* ]] ||
  fail "memory files: no memory-hierarchy section"
[[ "${out}" == *"configs/published/memory_hierarchy.json"* ]] ||
  fail "memory files: built-in published values not named"
[[ "${out}" == *"Benchmarking and Dissecting the Nvidia Hopper GPU Architecture"* ]] ||
  fail "memory files: no Hopper reference for a compute capability 9.0 device"

# --published=FILE replaces the built-in values.
run --detail --published="${data}/synthetic_published.json" "${data}/synthetic_memory_latency.json"
[[ ${rc} -eq 0 ]] || fail "--published: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == *"A Synthetic Reference for Report Tests"* ]] ||
  fail "--published: fixture source not shown"
[[ "${out}" != *"Nvidia Hopper"* ]] || fail "--published: built-in values still shown"
expect_error "no/such.json: cannot open" --published=no/such.json "${data}/synthetic_relu.json"
expect_error "malformed.json: malformed JSON" --published="${data}/malformed.json" \
  "${data}/synthetic_relu.json"
expect_error "foreign.json: \"format\" must be" --published="${data}/foreign.json" \
  "${data}/synthetic_relu.json"

# CUPTI stall counters: a stall-reasons section, and --stalls_csv writes
# the fractions (header, one line per stall row).
csv="${tmp}/stalls.csv"
rm -f "${csv}"
run --detail --stalls_csv="${csv}" "${data}/synthetic_stalls_relu.json" \
  "${data}/synthetic_stalls_unavailable.json"
[[ ${rc} -eq 0 ]] || fail "--stalls_csv: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == *"## stall reasons"* ]] || fail "stall fixtures: no stall-reasons section"
[[ "${out}" == *"Counters were not collected for:"*"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"* ]] ||
  fail "stall fixtures: counters_unavailable reason not shown"
[[ -s "${csv}" ]] || fail "--stalls_csv: no ${csv}"
[[ "$(head -n 1 "${csv}")" == "file,device,name,total,long_scoreboard,lg_throttle,wait,"* ]] ||
  fail "--stalls_csv: unexpected header: $(head -n 1 "${csv}")"
[[ "$(wc -l <"${csv}")" -eq 5 ]] || fail "--stalls_csv: want header + 4 rows, got $(wc -l <"${csv}") lines"
grep -q "^${data}/synthetic_stalls_relu.json,Synthetic H100-like GPU (fixture),relu_bandwidth/bytes:268435456/timing:cold,35,0.857143,0.114286,0.0285714,,,,,long_scoreboard,\$" \
  "${csv}" || fail "--stalls_csv: row with missing reasons not as expected: $(cat "${csv}")"
# Without stall rows the section is left out, and --stalls_csv is an error
# that names the unavailable counters.
run "${data}/synthetic_relu.json"
[[ "${out}" != *"stall reasons"* ]] || fail "no stall counters: unexpected stall section"
expect_error "--stalls_csv: no row has cupti/stall_<reason> counters; " \
  --stalls_csv="${tmp}/none.csv" "${data}/synthetic_stalls_unavailable.json"
[[ ! -e "${tmp}/none.csv" ]] || fail "--stalls_csv without stall rows: file written anyway"
expect_error "no/such/dir/s.csv: cannot write" --stalls_csv=no/such/dir/s.csv \
  "${data}/synthetic_stalls_relu.json"

# --compare: one device from one source is nothing to compare (exit 2, one
# line naming what was found); the same device from dissect and an imported
# peer (context `source`) gives a "## compare:" section and exit 0.
expect_error "--compare: nothing to compare: found Synthetic H100-like GPU (fixture) (dissect)" \
  --compare "${data}/synthetic_memory_latency.json"
peer="${tmp}/peer"
rm -rf "${peer}"
mkdir -p "${peer}"
sed 's/"dissect_experiment": "memory_latency",/"dissect_experiment": "memory_latency",\n    "source": "mt4g@test",/' \
  "${data}/synthetic_memory_latency.json" >"${peer}/memory_latency_mt4g.json"
grep -q '"source": "mt4g@test"' "${peer}/memory_latency_mt4g.json" ||
  fail "--compare: could not add a source to the copy of synthetic_memory_latency.json"
run --compare "${data}/synthetic_memory_latency.json" "${peer}/"
[[ ${rc} -eq 0 ]] || fail "--compare with two sources: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == "# memory hierarchy compared across sources and devices"* ]] ||
  fail "--compare: no title line: ${out}"
[[ "${out}" == *"## compare: Synthetic H100-like GPU (fixture)"* ]] ||
  fail "--compare: no compare section: ${out}"
[[ "${out}" == *"| mt4g@test "* ]] || fail "--compare: no mt4g@test row: ${out}"
[[ "${out}" != *"## memory_latency"* ]] || fail "--compare: the full report was printed too"
[[ -z "${err}" ]] || fail "--compare: unexpected stderr: ${err}"
expect_error "--compare prints only the comparison" --compare --stalls_csv="${tmp}/c.csv" \
  "${data}/synthetic_memory_latency.json" "${peer}/"
expect_error "--compare prints only the comparison" --compare --detail \
  "${data}/synthetic_memory_latency.json" "${peer}/"

# No arguments: usage on stderr, exit 2.
run
[[ ${rc} -eq 2 ]] || fail "no args: exit ${rc}, want 2"
[[ "${err}" == "usage: report"* ]] || fail "no args: stderr lacks usage: ${err}"

# --help: usage on stdout, exit 0.
run --help
[[ ${rc} -eq 0 ]] || fail "--help: exit ${rc}, want 0"
[[ "${out}" == "usage: report"* ]] || fail "--help: stdout lacks usage: ${out}"
[[ "${out}" == *"--compare"*"//analysis:import -- --from=mt4g"* ]] ||
  fail "--help: no --compare flag or peer-import example: ${out}"
[[ -z "${err}" ]] || fail "--help: unexpected stderr: ${err}"

# Relative paths resolve against BUILD_WORKING_DIRECTORY (set by bazel run)
# and are shown as given.
cd "${tmp}" || exit 1
BUILD_WORKING_DIRECTORY="${root}/analysis" run --detail testdata/synthetic_relu.json
[[ ${rc} -eq 0 ]] || fail "BUILD_WORKING_DIRECTORY: exit ${rc}, want 0 (stderr: ${err})"
# shellcheck disable=SC2016  # the backticks are literal markdown
[[ "${out}" == *'`testdata/synthetic_relu.json`'* ]] || fail "BUILD_WORKING_DIRECTORY: path not shown as given: ${out}"

if [[ ${failures} -ne 0 ]]; then
  echo "${failures} check(s) failed" >&2
  exit 1
fi
echo "PASS"
