#!/usr/bin/env bash
# activation_sparsity on a machine without a GPU: bad input exits 2 with one
# line on stderr naming the problem (and the file, for a bad .npy); --help
# and --list work.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/sparsity" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

dumps="${TEST_TMPDIR}/dumps"
mkdir -p "${dumps}"
# A header announcing 2 x 4 float32 values followed by only 4 bytes of data.
header="{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }"
printf '\x93NUMPY\x01\x00%b%s' "\\x$(printf '%02x' ${#header})\\x00" "${header}" \
  > "${dumps}/relu1.npy"
printf 'abcd' >> "${dumps}/relu1.npy"
printf 'not numpy at all' > "${TEST_TMPDIR}/junk.npy"

expect 2 "unknown value 'trained'" activation_sparsity --axis=activation_source=trained
expect 2 "unknown value 'controlled_mask'" activation_sparsity \
  --axis=activation_source=controlled_mask
expect 2 "unknown value '0.33'" activation_sparsity --axis=threshold=0.33
expect 2 "batch must be in 1..256 (got 0)" activation_sparsity --axis=batch=0
expect 2 "${dumps}/relu1.npy: truncated: the data needs 32 bytes" activation_sparsity \
  --activations="${dumps}"
expect 2 "${TEST_TMPDIR}/junk.npy: not a .npy file (bad magic)" activation_sparsity \
  --activations="${TEST_TMPDIR}/junk.npy"
expect 2 "${TEST_TMPDIR}/missing: no such file or folder" activation_sparsity \
  --activations="${TEST_TMPDIR}/missing"
expect 2 "unknown activation layout 'CHWN'" activation_sparsity --activation_layout=CHWN
expect 2 "--activation_dtype must be auto or bfloat16 (got 'f8')" activation_sparsity \
  --activation_dtype=f8
# The dumps asked for without the dumps: said before any device is looked for.
expect 2 "activation_source=npy_dumps needs --activations=PATH" activation_sparsity \
  --axis=activation_source=npy_dumps
expect 2 "activation_source=npy_dumps needs --activations=PATH" activation_sparsity \
  --axis=activation_source=npy_dumps,fatrelu
expect 2 "no CUDA device visible" activation_sparsity --axis=activation_source=synthetic_weights \
  --axis=network=vgg16 --axis=threshold=0

help=$(./activation_sparsity --help)
for word in synthetic_weights fatrelu npy_dumps warp_zero_fraction channel_sparsity \
  --activations --activation_layout; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 3 sources x 2 networks x 5 thresholds x 1 batch.
points=$(./activation_sparsity --list | grep -c '^activation_sparsity/')
if [[ ${points} -ne 30 ]]; then
  echo "FAIL: --list printed ${points} points, want 30"; failures=$((failures + 1))
fi

finish
