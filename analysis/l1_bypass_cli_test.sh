#!/bin/bash
# End to end on the l1_bypass fixture: `report` prints the speedup tables and
# `figures` draws l1_bypass_dlcm_cg.svg with gnuplot (so that the generated
# script is valid gnuplot).

set -u

root="${TEST_SRCDIR}/${TEST_WORKSPACE:-dissect}"
fixture="${root}/analysis/testdata/synthetic_l1_bypass.json"
tmp="${TEST_TMPDIR:-/tmp}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

report=$("${root}/analysis/report" --detail "${fixture}" 2>"${tmp}/err") || fail "report: exit $?: $(cat "${tmp}/err")"
[[ "${report}" == *"## l1_bypass: speedup over default: Synthetic H100-like GPU (fixture)"* ]] ||
  fail "report lacks the speedup section"
[[ "${report}" == *"| dlcm_cg ≡ cg |"* ]] || fail "report names no winner (the dlcm_cg ≡ cg twins)"

command -v gnuplot >/dev/null ||
  { echo "FAIL: gnuplot is not installed (Debian package gnuplot-nox)" >&2; exit 1; }
dir="${tmp}/fig"
rm -rf "${dir}"
out=$("${root}/analysis/figures" --out="${dir}" "${fixture}" 2>"${tmp}/err") ||
  fail "figures: exit $?: $(cat "${tmp}/err")"
svg="${dir}/synthetic_h100_like_gpu_fixture/l1_bypass_dlcm_cg.svg"
[[ "${out}" == "${svg}" ]] || fail "figures printed '${out}', want ${svg}"
grep -q "<svg" "${svg}" 2>/dev/null || fail "${svg} is not an SVG"
grep -q "conv resnet50.res5b_branch2b" "${svg}" || fail "the SVG lacks the conv bar's label"
[[ -s "${tmp}/err" ]] && fail "gnuplot complained: $(cat "${tmp}/err")"

echo "${failures} failure(s)"
[[ ${failures} -eq 0 ]]
