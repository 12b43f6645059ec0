#!/usr/bin/env bash
# layer_fusion on a machine without a GPU: bad input exits 2 with one line
# on stderr; --help and --list work.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/fusion" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'conv_bn'" layer_fusion --axis=pattern=conv_bn
expect 2 "unknown value 'half'" layer_fusion --axis=mode=half
expect 2 "unknown value 'vgg16.pool1'" layer_fusion --axis=layer=vgg16.pool1
expect 2 "batch 0 outside 1..256" layer_fusion --axis=batch=0
expect 2 "no CUDA device visible" layer_fusion --axis=layer=densenet121.block3_3x3

help=$(./layer_fusion --help)
for word in conv_relu bn_relu_conv unfused kernel_us compulsory_bytes bandwidth_gbps \
  densenet121.transition1 working_set_bytes beyond_2x_l2 L2-resident; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 3 patterns x 2 modes x 5 layers x 2 batches.
points=$(./layer_fusion --list | grep -c '^layer_fusion/pattern:')
if [[ ${points} -ne 60 ]]; then
  echo "FAIL: --list printed ${points} points, want 60"; failures=$((failures + 1))
fi
# Cold by default: a hot run serves the unfused intermediate (and the input)
# from L2, which the DRAM-framed figures must not be built on.
cold=$(./layer_fusion --list | grep -c '^layer_fusion/pattern:.*/cache:cold/')
if [[ ${cold} -ne 60 ]]; then
  echo "FAIL: ${cold} of the default points are cold, want all 60"; failures=$((failures + 1))
fi
hot=$(./layer_fusion --axis=cache=hot --list | grep -c '/cache:hot/')
if [[ ${hot} -ne 60 ]]; then
  echo "FAIL: --axis=cache=hot listed ${hot} hot points, want 60"; failures=$((failures + 1))
fi

finish
