#!/usr/bin/env bash
# l1_bypass on a machine without a GPU: bad input exits 2 with one line on
# stderr; --help and --list work and show the variants, layers and kernels.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/l1_bypass" || exit 1
failures=0

expect() {  # expect <status> <stderr substring> <args...>
  local want_status=$1 want_text=$2
  shift 2
  local err status lines
  err=$(CUDA_VISIBLE_DEVICES="" ./l1_bypass "$@" 2>&1 >/dev/null)
  status=$?
  lines=$(printf '%s\n' "${err}" | grep -c .)
  if [[ ${status} -ne ${want_status} || "${err}" != *"${want_text}"* || ${lines} -ne 1 ]]; then
    echo "FAIL: l1_bypass $* -> status ${status} (want ${want_status}), ${lines} stderr line(s):"
    printf '  %s\n' "${err}"
    failures=$((failures + 1))
  else
    echo "ok:   l1_bypass $* -> ${status}: ${err}"
  fi
}

expect 2 "unknown value 'bogus'" --axis=variant=bogus
expect 2 "unknown value 'fft'" --axis=kernel=fft
expect 2 "unknown value 'vgg19.conv1'" --axis=layer=vgg19.conv1
expect 2 "working_set_bytes must be 0 (the layer as configured) or 64 B .. 2 GiB (got 3)" \
  --axis=working_set_bytes=3
expect 2 "working_set_bytes must be 0" --axis=working_set_bytes=4GiB
expect 2 "occupancy_pct must be in 1..100 (got 0)" --axis=occupancy_pct=0
expect 2 "occupancy_pct must be in 1..100 (got 150)" --axis=occupancy_pct=150
expect 2 "unknown value 'warm'" --axis=timing=warm
expect 2 "no CUDA device visible" --axis=kernel=stream --axis=layer=vgg16.fc8 --axis=variant=default

help=$(./l1_bypass --help)
for word in dlcm_cg evict_last l2_persist l2_stream resnet50.res5b_branch2b softmax occupancy_pct; do
  [[ "${help}" == *"${word}"* ]] || { echo "FAIL: --help does not mention ${word}"; failures=$((failures + 1)); }
done
# 7 kernels x 22 layers x 1 working set x 1 timing x 2 occupancies x 12 variants.
points=$(./l1_bypass --list | grep -c '^l1_bypass/kernel:')
if [[ ${points} -ne 3696 ]]; then
  echo "FAIL: --list printed ${points} points, want 3696"; failures=$((failures + 1))
fi
points=$(./l1_bypass --list --axis=kernel=conv --axis=layer=vgg16.conv3_1 \
  --axis=working_set_bytes=16KiB:256MiB:*4 --axis=variant=default,dlcm_cg | grep -c '^l1_bypass/')
if [[ ${points} -ne 32 ]]; then
  echo "FAIL: sweep --list printed ${points} points, want 32"; failures=$((failures + 1))
fi

echo "${failures} failure(s)"
[[ ${failures} -eq 0 ]]
