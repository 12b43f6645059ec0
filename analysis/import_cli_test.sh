#!/bin/bash
# Exit-code and output test of the `import` binary: --help exits 0; bad usage
# (no --from, unknown --from, unknown flag, no --out, no files, bad number,
# gpu-benches without --device_name) exits 2 with one `import: ...` line; a
# corrupt or unknown file is named on stderr with exit 2 while the good
# files beside it are still written; existing outputs are kept unless
# --force; and `report` reads what was imported (exit 0).

set -u

root="${TEST_SRCDIR}/${TEST_WORKSPACE:-dissect}"
import="${root}/analysis/import"
report="${root}/analysis/report"
data="${root}/analysis/testdata/peers"
tmp="${TEST_TMPDIR:-/tmp}"
out_dir="${tmp}/imported"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run ARGS...: runs import, sets $rc, $out, $err.
run() {
  "${import}" "$@" >"${tmp}/out" 2>"${tmp}/err"
  rc=$?
  out="$(cat "${tmp}/out")"
  err="$(cat "${tmp}/err")"
}

# expect_usage_error PATTERN ARGS...: exit 2, empty stdout, one stderr line
# `import: ...` containing PATTERN.
expect_usage_error() {
  local pattern="$1"
  shift
  run "$@"
  [[ ${rc} -eq 2 ]] || fail "import $*: exit ${rc}, want 2"
  [[ -z "${out}" ]] || fail "import $*: unexpected stdout: ${out}"
  [[ "$(wc -l <"${tmp}/err")" -eq 1 ]] || fail "import $*: want one stderr line, got: ${err}"
  [[ "${err}" == "import: "*"${pattern}"* ]] || fail "import $*: stderr lacks '${pattern}': ${err}"
}

gb=(--from=gpu-benches --source_version=1038c5d0d0f4 --device_name="Test GPU")

run --help
[[ ${rc} -eq 0 ]] || fail "--help: exit ${rc}, want 0"
[[ "${out}" == "usage: import"* ]] || fail "--help: stdout lacks usage: ${out}"
[[ "${out}" == *"../shared/data/peers/mt4g/"* && "${out}" == *"--from=gpu-benches"* ]] ||
  fail "--help: no examples for both suites"
[[ -z "${err}" ]] || fail "--help: unexpected stderr: ${err}"

rm -rf "${out_dir}"
expect_usage_error "--from=gpu-benches or --from=mt4g is required" \
  --out="${out_dir}" "${data}/gpu-latency_excerpt.txt"
expect_usage_error "unknown --from='rodinia'" --from=rodinia --out="${out_dir}" \
  "${data}/gpu-latency_excerpt.txt"
expect_usage_error "unknown flag '--colour'" "${gb[@]}" --colour --out="${out_dir}" \
  "${data}/gpu-latency_excerpt.txt"
expect_usage_error "--out=DIR is required" "${gb[@]}" "${data}/gpu-latency_excerpt.txt"
expect_usage_error "no input files" "${gb[@]}" --out="${out_dir}"
expect_usage_error "--sm_count='many' is not a positive integer" "${gb[@]}" --sm_count=many \
  --out="${out_dir}" "${data}/gpu-latency_excerpt.txt"
expect_usage_error "--l2_bytes: '50MB' is not a byte count" "${gb[@]}" --l2_bytes=50MB \
  --out="${out_dir}" "${data}/gpu-latency_excerpt.txt"
expect_usage_error "--device_name is required with --from=gpu-benches" --from=gpu-benches \
  --out="${out_dir}" "${data}/gpu-latency_excerpt.txt"
[[ ! -e "${out_dir}" ]] || fail "bad usage created ${out_dir}"

# A good import: one stdout line per file, warnings for unknown facts.
run "${gb[@]}" --sm_count=132 --out="${out_dir}" "${data}/gpu-latency_excerpt.txt" \
  "${data}/mt4g_excerpt.json"
[[ ${rc} -eq 2 ]] || fail "mt4g file with --from=gpu-benches: exit ${rc}, want 2"
[[ "${err}" == *"import: ${data}/mt4g_excerpt.json:1: unknown format"* ]] ||
  fail "mt4g file with --from=gpu-benches: not named: ${err}"
[[ -s "${out_dir}/gpu-latency_excerpt.json" ]] ||
  fail "mt4g file with --from=gpu-benches: the good file before it was not written"
rm -rf "${out_dir}"
run "${gb[@]}" --sm_count=132 --out="${out_dir}" "${data}/gpu-latency_excerpt.txt"
[[ ${rc} -eq 0 ]] || fail "good import: exit ${rc}, want 0 (stderr: ${err})"
[[ "${out}" == "imported ${data}/gpu-latency_excerpt.txt (gpu-latency): 7 rows -> ${out_dir}/gpu-latency_excerpt.json" ]] ||
  fail "good import: unexpected stdout: ${out}"
[[ "${err}" == *"import: ${data}/gpu-latency_excerpt.txt: device_l2_bytes unknown (pass --l2_bytes)"* ]] ||
  fail "good import: no warning for the unknown L2 size: ${err}"
[[ -s "${out_dir}/gpu-latency_excerpt.json" ]] || fail "good import: no output file"

# The output exists: refused without --force, replaced with it.
expect_usage_error "gpu-latency_excerpt.json exists" "${gb[@]}" --out="${out_dir}" \
  "${data}/gpu-latency_excerpt.txt"
run "${gb[@]}" --force --out="${out_dir}" "${data}/gpu-latency_excerpt.txt"
[[ ${rc} -eq 0 ]] || fail "--force: exit ${rc}, want 0 (stderr: ${err})"

# A corrupt file among good ones: named on stderr, exit 2, the others written.
run "${gb[@]}" --out="${out_dir}" "${data}/gpu-cache_excerpt.txt" \
  "${data}/gpu-cache_malformed.txt" "${data}/gpu-l2-cache_excerpt.txt"
[[ ${rc} -eq 2 ]] || fail "corrupt file: exit ${rc}, want 2"
[[ "${err}" == *"import: ${data}/gpu-cache_malformed.txt:3: field 4 '11837.x' is not a number"* ]] ||
  fail "corrupt file: not named on stderr: ${err}"
[[ -s "${out_dir}/gpu-cache_excerpt.json" && -s "${out_dir}/gpu-l2-cache_excerpt.json" ]] ||
  fail "corrupt file: the good files were not written"
[[ ! -e "${out_dir}/gpu-cache_malformed.json" ]] || fail "corrupt file: an output was written"
run "${gb[@]}" --out="${out_dir}" "${data}/unknown_format.txt"
[[ ${rc} -eq 2 && "${err}" == *"unknown_format.txt:1: unknown format"* ]] ||
  fail "unknown format: exit ${rc}, stderr: ${err}"

# mt4g: device facts from the file; a contradicting flag is an error.
run --from=mt4g --source_version=4cc55662a954 --out="${out_dir}" "${data}/mt4g_excerpt.json"
[[ ${rc} -eq 0 && -z "${err}" ]] || fail "mt4g: exit ${rc}, stderr: ${err}"
[[ "${out}" == *"(mt4g): 6 rows -> ${out_dir}/mt4g_excerpt.json" ]] || fail "mt4g: stdout: ${out}"
run --from=mt4g --sm_count=114 --force --out="${out_dir}" "${data}/mt4g_excerpt.json"
[[ ${rc} -eq 2 && "${err}" == *"contradicts the file's device_sm_count 132"* ]] ||
  fail "mt4g --sm_count=114: exit ${rc}, stderr: ${err}"

# report reads the imported files: its summary names the imported program,
# --detail adds the per-experiment tables.
"${report}" "${out_dir}" >"${tmp}/report.md" 2>"${tmp}/report.err"
rc=$?
[[ ${rc} -eq 0 ]] || fail "report on the imported files: exit ${rc}: $(cat "${tmp}/report.err")"
grep -q "| gpu-benches gpu-latency (imported) " "${tmp}/report.md" ||
  fail "report: the summary does not name the imported program"
"${report}" --detail "${out_dir}" >"${tmp}/report.md" 2>"${tmp}/report.err"
rc=$?
[[ ${rc} -eq 0 ]] || fail "report --detail on the imported files: exit ${rc}: $(cat "${tmp}/report.err")"
grep -q "## memory_latency" "${tmp}/report.md" || fail "report --detail: no memory_latency section"

# Relative paths resolve against BUILD_WORKING_DIRECTORY (bazel run).
wd="${tmp}/wd"
rm -rf "${wd}"
mkdir -p "${wd}"
cp "${data}/gpu-stream_excerpt.txt" "${wd}/"
cd / || exit 1
BUILD_WORKING_DIRECTORY="${wd}" run "${gb[@]}" --out=rel_out gpu-stream_excerpt.txt
[[ ${rc} -eq 0 && -s "${wd}/rel_out/gpu-stream_excerpt.json" ]] ||
  fail "BUILD_WORKING_DIRECTORY: exit ${rc}, stderr: ${err}"
[[ "${out}" == "imported gpu-stream_excerpt.txt (gpu-stream): 24 rows -> rel_out/gpu-stream_excerpt.json" ]] ||
  fail "BUILD_WORKING_DIRECTORY: stdout: ${out}"

if [[ ${failures} -ne 0 ]]; then
  echo "${failures} check(s) failed" >&2
  exit 1
fi
echo "PASS"
