#!/usr/bin/env bash
# l1_duplication on a machine without a GPU: bad input exits 2 with one line
# on stderr; --help and --list work and show the axes, metrics and vector.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/sharing/duplication" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'fft'" l1_duplication --axis=kernel=fft
expect 2 "unknown value 'vgg19.conv1'" l1_duplication --axis=layer=vgg19.conv1
expect 2 "batch must be in 1..1024 (got 0)" l1_duplication --axis=batch=0
expect 2 "batch must be in 1..1024 (got 4096)" l1_duplication --axis=batch=4096
expect 2 "no CUDA device visible" l1_duplication --axis=kernel=stream --axis=layer=vgg16.fc8

help=$(./l1_duplication --help)
for word in lines_touched sm_lines_sum replication duplicated_fraction gpc_replication \
  gpc_duplicated_fraction cross_gpc_replication cross_gpc_duplicated_fraction sms_used trace_ms \
  sm_lines resnet50.res5b_branch2b softmax batch; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 7 kernels x 8 default layers x 1 batch (the non-applicable pairs are
# listed and skipped when run).
points=$(./l1_duplication --list | grep -c '^l1_duplication/kernel:')
if [[ ${points} -ne 56 ]]; then
  echo "FAIL: --list printed ${points} points, want 56"; failures=$((failures + 1))
fi

finish
