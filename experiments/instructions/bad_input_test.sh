#!/usr/bin/env bash
# The instruction experiments on a machine without a GPU: bad input exits 2
# with one line on stderr; --list counts the default points.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/instructions" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect_points() {  # expect_points <want> <binary> <args...>
  local got
  got=$("./$2" --list "${@:3}" | grep -c "^$2/")
  if [[ ${got} -ne $1 ]]; then
    echo "FAIL: $2 --list ${*:3} printed ${got} points, want $1"; failures=$((failures + 1))
  else
    echo "ok:   $2 --list ${*:3} -> ${got} points"
  fi
}

for bin in instruction_latency instruction_throughput; do
  expect 2 "unknown value 'fma'" "${bin}" --axis=op=fma
  expect 2 "contention=warp applies to atom_* ops only, not op=ffma" "${bin}" --axis=op=ffma \
    --axis=contention=warp
  expect 2 "unknown value 'some'" "${bin}" --axis=contention=some
  expect 2 "no CUDA device visible" "${bin}" --axis=op=ffma
done
expect 2 "chain_length must be a positive multiple of 128 (got 0)" instruction_latency \
  --axis=chain_length=0
expect 2 "chain_length must be a positive multiple of 128 (got 24)" instruction_latency \
  --axis=chain_length=24
# A multiple of the old 16 steps a trip is not one of 128.
expect 2 "chain_length must be a positive multiple of 128 (got 64)" instruction_latency \
  --axis=chain_length=64
expect 2 "chains must be 1, 2, 4 or 8 (got 3)" instruction_throughput --axis=chains=3
expect 2 "warps_per_sm must be a positive multiple of 4 (got 6)" instruction_throughput \
  --axis=warps_per_sm=6

# 35 ops x 1 chain length; 35 ops x 2 chain counts x 1 warps_per_sm.
expect_points 35 instruction_latency
expect_points 70 instruction_throughput
# Atomics accept every contention (warp and all are skipped with a reason
# when they run).
expect_points 3 instruction_latency --axis=op=atom_shared_add --axis=contention=none,warp,all
expect_points 2 instruction_latency --axis=op=ffma,dfma

finish
