#!/usr/bin/env bash
# A SASS test may skip (no cuobjdump) on a developer's machine, never under
# CI=true: there it must fail. Runs the sass_test_util_test binary with --skip.
set -uo pipefail
bin=$1
status=0
out=$(env -u CI "${bin}" --skip=no-cuobjdump-here /dev/null 2>&1); rc=$?
if [[ ${rc} -ne 0 || "${out}" != *"SKIPPED: no-cuobjdump-here"* ]]; then
  echo "FAIL: without CI a skip should pass and say SKIPPED (rc ${rc}): ${out}"; status=1
fi
out=$(CI=true "${bin}" --skip=no-cuobjdump-here /dev/null 2>&1); rc=$?
if [[ ${rc} -eq 0 || "${out}" != *"CI=true and no cuobjdump"* ]]; then
  echo "FAIL: under CI=true a skip must fail (rc ${rc}): ${out}"; status=1
fi
out=$("${bin}" 2>&1); rc=$?
if [[ ${rc} -ne 2 ]]; then echo "FAIL: no arguments should exit 2 (rc ${rc})"; status=1; fi
[[ ${status} -eq 0 ]] && echo "ok"
exit "${status}"
