#!/usr/bin/env bash
# l1_bypass on a machine without a GPU: bad input exits 2 with one line on
# stderr; --help and --list work and show the variants, layers and kernels.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/l1_bypass" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'bogus'" l1_bypass --axis=variant=bogus
# The line-tracing build of the kernels is never timed.
expect 2 "unknown value 'trace'" l1_bypass --axis=variant=trace
expect 2 "unknown value 'fft'" l1_bypass --axis=kernel=fft
expect 2 "unknown value 'vgg19.conv1'" l1_bypass --axis=layer=vgg19.conv1
expect 2 "working_set_bytes must be 0 (the layer as configured) or 64 B .. 2 GiB (got 3)" l1_bypass \
  --axis=working_set_bytes=3
expect 2 "working_set_bytes must be 0" l1_bypass --axis=working_set_bytes=4GiB
expect 2 "occupancy_pct must be in 1..100 (got 0)" l1_bypass --axis=occupancy_pct=0
expect 2 "occupancy_pct must be in 1..100 (got 150)" l1_bypass --axis=occupancy_pct=150
expect 2 "batch must be in 1..1024 (got 0)" l1_bypass --axis=batch=0
expect 2 "batch must be in 1..1024 (got 2048)" l1_bypass --axis=batch=2048
expect 2 "unknown value 'warm'" l1_bypass --axis=timing=warm
expect 2 "no CUDA device visible" l1_bypass --axis=kernel=stream --axis=layer=vgg16.fc8 --axis=variant=default

help=$(./l1_bypass --help)
for word in dlcm_cg evict_last l2_persist l2_stream resnet50.res5b_branch2b softmax occupancy_pct \
  batch "cg = dlcm_cg (LDG.E.STRONG.GPU)" "evict_first = cs (LDG.E.EF)" beyond_2x_l2 L2-resident; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 7 kernels x 22 layers x 3 batches x 1 working set x 1 timing x 2 occupancies x
# 12 variants; 7560 of them apply (105 kernel-layer pairs), the rest are skipped.
points=$(./l1_bypass --list | grep -c '^l1_bypass/kernel:')
if [[ ${points} -ne 11088 ]]; then
  echo "FAIL: --list printed ${points} points, want 11088"; failures=$((failures + 1))
fi
points=$(./l1_bypass --list --axis=kernel=conv --axis=layer=vgg16.conv3_1 \
  --axis=batch=1 --axis=working_set_bytes=16KiB:256MiB:*4 --axis=variant=default,dlcm_cg | grep -c '^l1_bypass/')
if [[ ${points} -ne 32 ]]; then
  echo "FAIL: sweep --list printed ${points} points, want 32"; failures=$((failures + 1))
fi

finish
