#!/usr/bin/env bash
# attention on a machine without a GPU: bad input exits 2 with one line on
# stderr naming the problem; --help and --list work.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/attention" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'train'" attention --axis=phase=train
expect 2 "context must be in 1..65536 tokens (got 0)" attention --axis=context=0
expect 2 "batch must be in 1..64 (got 65)" attention --axis=batch=65
expect 2 "heads must be in 1..128 (got 0)" attention --axis=heads=0

help=$(./attention --help)
# working_set_bytes and beyond_2x_l2: rows under 2x L2 are L2-resident
# (their bandwidth_gbps is L2's), and the counters that say so are declared.
for word in prefill decode arithmetic_intensity FFMA working_set_bytes beyond_2x_l2 L2-resident; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 2 phases x 5 contexts x 1 batch x 1 head count x 1 cache.
points=$(./attention --list | grep -c '^attention/')
[[ "${points}" == 10 ]] || { echo "FAIL: --list printed ${points} points, want 10"; failures=$((failures + 1)); }
finish
