#!/usr/bin/env bash
# check_floors.sh on three small trees: one that keeps its floors (passes),
# one whose kernel includes a probe (fails, naming the file and the rooms),
# one with two packages including each other (fails, naming the cycle).
set -uo pipefail
script=$1 fixtures=$(dirname "$2") rules=$2
failures=0
check() { if ! eval "$2"; then echo "FAIL: $1"; failures=$((failures + 1)); fi; }

out=$("${script}" "${fixtures}/good" "${rules}" 2>&1); rc=$?
check "a tree that keeps its floors passes (rc ${rc}: ${out})" '(( rc == 0 )) && [[ -z ${out} ]]'

out=$("${script}" "${fixtures}/climb" "${rules}" 2>&1); rc=$?
check "a kernel including a probe fails (rc ${rc})" '(( rc == 1 ))'
check "the climbing include is named: ${out}" \
  '[[ ${out} == *"kernels/add.cc includes probes/twice.h: room kernels may not use room probes"* ]]'

out=$("${script}" "${fixtures}/cycle" "${rules}" 2>&1); rc=$?
check "a package cycle fails (rc ${rc})" '(( rc == 1 ))'
check "the cycle names both packages: ${out}" \
  '[[ ${out} == *"package cycle"*"probes/a"* && ${out} == *"probes/b"* ]]'

out=$("${script}" 2>&1); rc=$?
check "no arguments is a usage error (rc ${rc})" '(( rc == 2 )) && [[ ${out} == usage:* ]]'
out=$("${script}" "${fixtures}/missing" "${rules}" 2>&1); rc=$?
check "a missing folder is named (rc ${rc}: ${out})" '(( rc == 2 )) && [[ ${out} == *"no folder"* ]]'

(( failures == 0 )) && echo "all checks passed"
exit $(( failures > 0 ))
