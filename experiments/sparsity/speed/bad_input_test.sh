#!/usr/bin/env bash
# sparsity_speed on a machine without a GPU: bad input exits 2 with one line
# on stderr; --help and --list work.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/sparsity/speed" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'sparse'" sparsity_speed --axis=method=sparse
expect 2 "unknown value 'block'" sparsity_speed --axis=structure=block
expect 2 "sparsity_pct 100 outside 0..99" sparsity_speed --axis=sparsity_pct=100
expect 2 "batch 0 < 1" sparsity_speed --axis=batch=0
expect 2 "pooling layer" sparsity_speed --axis=shape=vgg16.pool1
expect 2 "no CUDA device visible" sparsity_speed --axis=shape=resnet50.fc1000 \
  --axis=sparsity_pct=0

help=$(./sparsity_speed --help)
for word in dense_cublas skip_warp skip_tile cusparse_csr speedup_vs_dense convert_ms \
  end_to_end_ms power_w max_rel_error; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 4 shapes x 4 methods x 3 structures x 12 sparsities x 1 batch.
points=$(./sparsity_speed --list | grep -c '^sparsity_speed/shape:')
if [[ ${points} -ne 576 ]]; then
  echo "FAIL: --list printed ${points} points, want 576"; failures=$((failures + 1))
fi

finish
