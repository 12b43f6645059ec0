#!/usr/bin/env bash
# readme_experiments_check.sh on small READMEs and stand-in binaries (each
# prints "NAME: Question" to --help): a matching table passes; a missing
# row, a row for no experiment, a wrong label, a binary of another name and,
# with --exact_questions, a reworded question each fail naming the experiment.
set -uo pipefail

check=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}/readme_check
rm -rf "${dir}"
mkdir -p "${dir}/bin"
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

stand_in() {
  printf '#!/bin/sh\necho "%s"\n' "$2" >"${dir}/bin/$1"
  chmod +x "${dir}/bin/$1"
}
stand_in alpha "alpha: What is alpha?"
stand_in beta "beta: How fast is beta?"
stand_in gamma "gamma: Does gamma hold?"
stand_in impostor "someone_else: What is alpha?"
experiments=(
  "//experiments:alpha=${dir}/bin/alpha"
  "//experiments/b:beta=${dir}/bin/beta"
  "//experiments:gamma=${dir}/bin/gamma"
  "--alias=//experiments:beta=${dir}/bin/beta"
  "--alias=//experiments:gamma_alias=${dir}/bin/gamma"
)

# readme ROWS...: a README whose experiment table has these rows.
readme() {
  {
    echo "# Suite"
    echo
    echo "| target | question | timed |"
    echo "| --- | --- | --- |"
    printf '%s\n' "$@"
    echo
    echo "| other | table |"
  } >"${dir}/README.md"
}

# expect STATUS MESSAGE ARGS...: runs the check, wants that exit status and
# MESSAGE in its output.
expect() {
  local want=$1 message=$2
  shift 2
  local output status
  output=$("${check}" "${dir}/README.md" "$@" 2>&1)
  status=$?
  [[ ${status} == "${want}" ]] || fail "exit ${status}, not ${want}, for: ${output}"
  grep -qF -- "${message}" <<<"${output}" || fail "no '${message}' in: ${output}"
}

alpha_row='| `//experiments:alpha` | What is alpha? | events |'
beta_row='| `//experiments:beta` | how fast beta is | events |'
gamma_row='| `//experiments:gamma` | Does gamma hold? | clock |'

readme "${alpha_row}" "${beta_row}" "${gamma_row}"
expect 0 "3 rows match" "${experiments[@]}"
expect 1 "its question is not beta's declared Question \"How fast is beta?\"" \
  --exact_questions "${experiments[@]}"

readme "${alpha_row}" "${gamma_row}"
expect 1 "the experiment table has no row for beta (//experiments/b:beta)" "${experiments[@]}"
expect 0 "2 rows match" --no_row=//experiments/b:beta "${experiments[@]}"
expect 1 "--no_row=//experiments:delta is not a registered experiment" \
  --no_row=//experiments/b:beta --no_row=//experiments:delta "${experiments[@]}"

readme "${alpha_row}" "${beta_row}" "${gamma_row}" '| `//experiments:delta` | What is delta? | - |'
expect 1 "the row //experiments:delta names no registered experiment" "${experiments[@]}"

readme "${alpha_row}" '| `//experiments/c:beta` | How fast is beta? | - |' "${gamma_row}"
expect 1 "experiment beta is //experiments/b:beta, and //experiments/c:beta is no alias of it" \
  "${experiments[@]}"
readme "${alpha_row}" '| `//experiments/b:beta` | How fast is beta? | - |' \
  '| `//experiments:gamma_alias` | Does gamma hold? | - |'
expect 0 "3 rows match" "${experiments[@]}"

readme "${alpha_row}" "${beta_row}" "${gamma_row}"
expect 1 "\`alpha --help\` does not begin with \"alpha: \"" \
  "//experiments:alpha=${dir}/bin/impostor" "${experiments[@]:1}"

echo "# A README without the table" >"${dir}/README.md"
expect 1 "no experiment table" "${experiments[@]}"

(( failures == 0 )) && echo PASS
exit $((failures > 0))
