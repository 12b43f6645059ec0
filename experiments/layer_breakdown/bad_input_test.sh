#!/usr/bin/env bash
# layer_breakdown on a machine without a GPU: bad input exits 2 with one line
# on stderr naming the problem; --list works.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/layer_breakdown" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'googlenet'" layer_breakdown --axis=network=googlenet
expect 2 "batch must be in 1..256 (got 0)" layer_breakdown --axis=batch=0
expect 2 "batch must be in 1..256 (got 257)" layer_breakdown --axis=network=alexnet --axis=batch=257

points=$(./layer_breakdown --list 2>/dev/null | grep -c '^layer_breakdown/')
if [[ "${points}" -ne 12 ]]; then
  echo "FAIL: --list printed ${points} points, want 12 (4 networks x 3 batches)"
  failures=$((failures + 1))
fi
finish
