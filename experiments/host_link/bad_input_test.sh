#!/usr/bin/env bash
# host_link on a machine without a GPU: bad input exits 2 with one line on
# stderr; --help and --list work.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/host_link" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'sideways'" host_link --axis=direction=sideways
expect 2 "unknown value 'managed'" host_link --axis=memory=managed
expect 2 "bytes must be positive (got 0)" host_link --axis=bytes=0
expect 2 "no CUDA device visible" host_link --axis=bytes=4KiB

help=$(./host_link --help)
for word in h2d d2h bidirectional pinned pageable bandwidth_gbps latency_us; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 3 directions x 2 memories x 6 sizes.
points=$(./host_link --list | grep -c '^host_link/direction:')
if [[ ${points} -ne 36 ]]; then
  echo "FAIL: --list printed ${points} points, want 36"; failures=$((failures + 1))
fi

finish
