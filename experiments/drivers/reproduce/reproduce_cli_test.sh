#!/bin/bash
# The reproduce binary end to end, on the CPU: --help and --list; a catalog
# entry whose sweep runs the selftest experiment (no GPU) through the sweep
# runner into DIR/<id>/ (manifest, result file, log) and whose analysis then
# finds nothing to draw (exit 1, the page says why and shows the sweep); a
# paper key runs its ready figures and skips the pending one; --results
# analyses existing result files (the synthetic memory_latency fixture) into
# the "paper vs this GPU" page, an entry's analysis setting as a second part
# of it; --dry_run prints the commands; without a
# usable device a GPU entry stops in the runner's one line (exit 3); a pending
# entry runs nothing and writes its page; bad usage (unknown paper, bad flags,
# no --out) exits 2 with one line.

set -u

root="${TEST_SRCDIR}/${TEST_WORKSPACE:-dissect}"
reproduce="${root}/experiments/drivers/reproduce/reproduce"
catalog="${root}/experiments/drivers/reproduce/testdata"
fixtures="${root}/analysis/testdata"
tmp="${TEST_TMPDIR:-/tmp}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

run() {
  "${reproduce}" "$@" >"${tmp}/out" 2>"${tmp}/err"
  rc=$?
  out="$(cat "${tmp}/out")"
  err="$(cat "${tmp}/err")"
}

expect_error() {
  local pattern="$1"
  shift
  run "$@"
  [[ ${rc} -eq 2 ]] || fail "reproduce $*: exit ${rc}, want 2 (stderr: ${err})"
  [[ "$(wc -l <"${tmp}/err")" -eq 1 ]] || fail "reproduce $*: want one stderr line, got: ${err}"
  [[ "${err}" == "reproduce: "*"${pattern}"* ]] || fail "reproduce $*: stderr '${err}' lacks '${pattern}'"
}

run --help
[[ ${rc} -eq 0 && "${out}" == *"--paper=ID|KEY"* ]] || fail "--help: exit ${rc}"

# The shipped catalog.
run --list
[[ ${rc} -eq 0 ]] || fail "--list: exit ${rc}: ${err}"
[[ "${out}" == *"dong_kaeli_2018_a_latency  [ready]"* ]] || fail "--list lacks dong_kaeli_2018_a_latency"

# The test catalog: a pending entry is listed with its reason.
run --catalog="${catalog}" --list
[[ "${out}" == *"selftest_2026_waiting  [pending]"* ]] || fail "--list: no pending entry: ${out}"
[[ "${out}" == *"pending: waits for a probe that does not exist (test)"* ]] || fail "--list: no reason"
[[ "${out}" == *"2 entries: 1 ready, 1 pending."* ]] || fail "--list: no summary line: ${out}"

expect_error "unknown paper 'nope'" --catalog="${catalog}" --paper=nope --out="${tmp}/x"

# A pending entry runs nothing: its page says why (exit 0).
run --catalog="${catalog}" --paper=selftest_2026_waiting --out="${tmp}/pending"
page="${tmp}/pending/selftest_2026_waiting/selftest_2026_waiting.md"
[[ ${rc} -eq 0 ]] || fail "pending entry: exit ${rc}, want 0: ${err}"
[[ "${err}" == *"selftest_2026_waiting: pending, not run: waits for a probe"* ]] ||
  fail "pending entry: no reason: ${err}"
grep -q "Not reproduced on this GPU: waits for a probe that does not exist (test)" "${page}" ||
  fail "pending entry: page lacks the reason: $(cat "${page}" 2>&1)"
[[ ! -e "${tmp}/pending/selftest_2026_waiting/manifest.json" ]] || fail "pending entry ran a sweep"
expect_error "--out=DIR is required" --catalog="${catalog}" --paper=selftest_2026_run
expect_error "unknown flag '--bogus'" --bogus
expect_error "takes no arguments, got 'stray'" --paper=a --out=b stray
expect_error "--device='x' is not a whole number" --device=x --paper=a --out=b
expect_error "--device='-1' is not a device index" --device=-1 --paper=a --out=b
expect_error "is not a folder" --catalog="${catalog}" --paper=selftest_2026_run --out="${tmp}/x" \
  --results="${tmp}/does_not_exist"

# --dry_run: the runner's commands, nothing written.
run --catalog="${catalog}" --paper=selftest_2026_run --out="${tmp}/dry" --dry_run
[[ ${rc} -eq 0 ]] || fail "--dry_run: exit ${rc}: ${err}"
[[ "${out}" == *"--axis=point=1:3:+1"* ]] || fail "--dry_run: no command: ${out}"
[[ ! -e "${tmp}/dry/selftest_2026_run/manifest.json" ]] || fail "--dry_run wrote a manifest"

# A paper key: the ready figure runs (sweep ok, analysis fails: exit 1), the
# pending one is skipped with its reason.
run --catalog="${catalog}" --paper=selftest_2026 --out="${tmp}/run" --no_draw
dir="${tmp}/run/selftest_2026_run"
[[ ${rc} -eq 1 ]] || fail "selftest run: exit ${rc}, want 1 (analysis has nothing): ${err}"
[[ -s "${dir}/manifest.json" && -s "${dir}/points.json" && -s "${dir}/points.log" ]] ||
  fail "selftest run: run folder incomplete: $(ls "${dir}")"
grep -q '"status": "ok"' "${dir}/manifest.json" || fail "selftest run: entry not ok in the manifest"
[[ "${err}" == *"selftest_2026_waiting: pending, not run"* ]] || fail "pending entry not reported: ${err}"
[[ -s "${tmp}/run/selftest_2026_waiting/selftest_2026_waiting.md" ]] || fail "pending entry: no page"
page="${dir}/selftest_2026_run.md"
[[ -s "${page}" ]] || fail "no page ${page}"
grep -q "The figure could not be made: " "${page}" || fail "page does not say why there is no figure"
grep -q "| points | selftest   | ok " "${page}" || fail "page lacks the sweep status: $(cat "${page}")"

# --results: the synthetic memory_latency fixture through latency_pair.
run --paper=dong_kaeli_2018_a_latency --out="${tmp}/res" --no_draw --results="${fixtures}"
page="${tmp}/res/dong_kaeli_2018_a_latency/dong_kaeli_2018_a_latency.md"
[[ -s "${page}" ]] || fail "--results: no page (exit ${rc}: ${err})"
grep -q "## Paper vs this GPU" "${page}" || fail "--results: page lacks the comparison"
grep -q "38 cycles" "${page}" || fail "--results: page lacks the paper's 38 cycles"
grep -q "Not run: the results were read from" "${page}" || fail "--results: page claims a run"
ls "${tmp}/res/dong_kaeli_2018_a_latency/figures/"*.gp >/dev/null 2>&1 || fail "--results: no figure script"

# An entry with an analysis setting: µ-cuDNN on the synthetic conv_algorithms
# results, our wider sweep and the paper's setting (mini-batch 256) as two
# parts of one page, the setting's figure in its subfolder, and the paper's
# whole-network 1.63x among the numbers no part shows.
conv="${root}/analysis/papers/conv_algos/testdata"
mkdir -p "${tmp}/conv_results"
cp "${conv}/synthetic_conv_algorithms.json" "${conv}/synthetic_conv_algorithms_batch256.json" \
  "${tmp}/conv_results/"
run --paper=oyama_2018_mucudnn --out="${tmp}/settings" --no_draw --results="${tmp}/conv_results"
page="${tmp}/settings/oyama_2018_mucudnn/oyama_2018_mucudnn.md"
[[ ${rc} -eq 0 ]] || fail "setting: exit ${rc}: ${err}"
grep -q "^## The paper's setting: AlexNet at mini-batch 256" "${page}" || fail "setting: no part"
grep -q "^Mini-batch 256," "${page}" || fail "setting: the part is not at mini-batch 256"
grep -q "^## The paper's other numbers" "${page}" || fail "setting: no other numbers"
grep -q "| 1.63 x (the paper's abstract" "${page}" || fail "setting: 1.63x not on the page"
[[ -s "${tmp}/settings/oyama_2018_mucudnn/figures/paper_setting/workspace_limit.gp" ]] ||
  fail "setting: no figure script in figures/paper_setting/"

# No usable device (hidden with CUDA_VISIBLE_DEVICES, so also on a GPU
# machine): the sweep runner's check ends the reproduction in its one line
# with exit 3, and nothing is analysed or drawn.
CUDA_VISIBLE_DEVICES= run --paper=dong_kaeli_2018_a_latency --out="${tmp}/nodev" --no_draw
[[ ${rc} -eq 3 ]] || fail "no device: exit ${rc}, want 3 (stderr: ${err})"
last="$(tail -n 1 "${tmp}/err")"
[[ "${last}" == *"no entry ran: "* ]] || fail "no device: last line '${last}' is not the runner's"
[[ ! -e "${tmp}/nodev/dong_kaeli_2018_a_latency/dong_kaeli_2018_a_latency.md" ]] ||
  fail "no device: a page was written"

if [[ ${failures} -gt 0 ]]; then
  echo "${failures} failure(s)" >&2
  exit 1
fi
echo "PASS"
