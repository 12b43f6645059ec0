#!/usr/bin/env bash
# cluster_coop on a machine without a GPU: bad input exits 2 with one line on
# stderr; --help and --list work.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/sharing/coop" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'conv'" cluster_coop --axis=kernel=conv
expect 2 "unknown value 'trace'" cluster_coop --axis=variant=trace
expect 2 "unknown value 'vgg19.conv1'" cluster_coop --axis=layer=vgg19.conv1
expect 2 "cluster_size must be a power of two >= 1 (got 3)" cluster_coop --axis=cluster_size=3
expect 2 "cluster_size must be a power of two >= 1 (got 0)" cluster_coop --axis=cluster_size=0
expect 2 "batch must be in 1..1024 (got 0)" cluster_coop --axis=batch=0
expect 2 "no CUDA device visible" cluster_coop --axis=kernel=gemv --axis=layer=vgg16.fc8 \
  --axis=cluster_size=1

help=$(./cluster_coop --help)
for word in conv3x3 gemv "does not use clusters" speedup_vs_layer duplicated_fraction \
  max_active_clusters; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 2 kernels x 5 layers x 2 batches x 5 cluster sizes x 3 variants.
points=$(./cluster_coop --list | grep -c '^cluster_coop/kernel:')
if [[ ${points} -ne 300 ]]; then
  echo "FAIL: --list printed ${points} points, want 300"; failures=$((failures + 1))
fi

finish
