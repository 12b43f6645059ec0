#!/usr/bin/env bash
# conv_algorithms on a machine without a GPU: bad input exits 2 with one line
# on stderr naming the problem; --list works and the default layers are the
# distinct shapes.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/conv_algos" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown value 'vgg16.conv9_9'" conv_algorithms --axis=layer=vgg16.conv9_9
expect 2 "unknown value 'winograd3'" conv_algorithms --axis=algo=winograd3
expect 2 "unknown value 'tf32'" conv_algorithms --axis=math=tf32
expect 2 "batch must be in 1..1024 (got 0)" conv_algorithms --axis=batch=0

list=$(./conv_algorithms --list)
for name in layer:alexnet.features.0/ layer:vgg16.conv4_2/ layer:resnet50.layer1.0.conv2/ algo:winograd_nonfused/ \
  batch:128/ math:fma; do
  [[ "${list}" == *"${name}"* ]] || { echo "FAIL: --list lacks ${name}"; failures=$((failures + 1)); }
done
# Repeats of a shape are accepted but not swept by default.
for name in layer:densenet121.features.conv0/ layer:vgg16.conv4_3/ layer:resnet50.layer1.1.conv2/ math:tensor_op; do
  [[ "${list}" != *"${name}"* ]] || { echo "FAIL: --list has ${name}"; failures=$((failures + 1)); }
done
explicit=$(./conv_algorithms --list --axis=layer=resnet50.layer1.1.conv2 --axis=algo=fft \
  --axis=batch=1 --axis=math=tensor_op)
[[ "${explicit}" == *"layer:resnet50.layer1.1.conv2/algo:fft/batch:1/math:tensor_op"* ]] ||
  { echo "FAIL: an explicit repeat layer is not listed: ${explicit}"; failures=$((failures + 1)); }
finish
