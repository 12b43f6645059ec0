#!/usr/bin/env bash
# launch_overhead on a machine without a GPU: bad input exits 2 with one line
# on stderr; --help and --list work.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/launch" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'kernel_to_kernel'" launch_overhead --axis=measure=kernel_to_kernel
expect 2 "unknown value 'cooperative'" launch_overhead --axis=mode=cooperative
expect 2 "blocks must be at least 1 (got 0)" launch_overhead --axis=measure=block_dispatch --axis=blocks=0
expect 2 "blocks must be 1 for launch_to_start (got 132)" launch_overhead \
  --axis=measure=launch_to_start --axis=blocks=132
expect 2 "blocks must be 1 for back_to_back (got 2)" launch_overhead \
  --axis=measure=back_to_back --axis=blocks=2
expect 2 "blocks must be at most 2147483647" launch_overhead \
  --axis=measure=block_dispatch --axis=blocks=4294967296
expect 2 "no CUDA device visible" launch_overhead --axis=measure=launch_to_start

help=$(./launch_overhead --help)
for word in launch_to_start back_to_back sync_round_trip block_dispatch stream graph \
  latency_us launch_interval_us kernel_time_us globaltimer; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 4 measures x 2 modes at blocks=1; block_dispatch's grids with --axis=blocks.
points=$(./launch_overhead --list | grep -c '^launch_overhead/measure:')
if [[ ${points} -ne 8 ]]; then
  echo "FAIL: --list printed ${points} points, want 8"; failures=$((failures + 1))
fi
points=$(./launch_overhead --list --axis=measure=block_dispatch --axis=blocks=1,132,1320,13200,132000 \
  | grep -c '^launch_overhead/measure:block_dispatch/mode:.*/blocks:')
if [[ ${points} -ne 10 ]]; then
  echo "FAIL: block_dispatch --list printed ${points} points, want 10"; failures=$((failures + 1))
fi

finish
