#!/usr/bin/env bash
# The tensor experiments on a machine without a GPU: bad input exits 2 with
# one line on stderr; --list works and counts the default points.
set -u
cd "${TEST_SRCDIR}/dissect/experiments/tensor" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

points() {  # points <binary> <args...>: rows --list prints
  "./$1" --list "${@:2}" | grep -c "^$1/"
}

expect_points() {  # expect_points <want> <binary> <args...>
  local got
  got=$(points "${@:2}")
  if [[ ${got} -ne $1 ]]; then
    echo "FAIL: $2 --list ${*:3} printed ${got} points, want $1"; failures=$((failures + 1))
  else
    echo "ok:   $2 --list ${*:3} -> ${got} points"
  fi
}

expect 2 "unknown value 'f64_f64'" mma_sync --axis=form=f64_f64
expect 2 "unknown value 'warm'" mma_sync --axis=mode=warm
expect 2 "n must be one of 8, 16, 32, 64, 128, 256 (got 12)" wgmma --axis=n=12
expect 2 "unknown value 'global'" wgmma --axis=a_source=global
expect 2 "unknown value '4096x4096'" cublaslt_gemm --axis=shape=4096x4096
expect 2 "unknown value 'fp64'" cublaslt_gemm --axis=dtype=fp64
expect 2 "no CUDA device visible" mma_sync --axis=form=f16_f32
expect 2 "no CUDA device visible" wgmma --axis=n=64
expect 2 "no CUDA device visible" cublaslt_gemm --axis=shape=1024x1024x1024

# 12 forms × 2 modes × 3 data (random, random_cycling, zeros); 11 forms ×
# 6 N × 2 sources × 2 modes × 3 data; 7 dtypes (fp8 twice: default and fast
# accumulation) × 29 shapes × hot/cold × random.
expect_points 72 mma_sync
expect_points 792 wgmma
expect_points 2 wgmma --axis=form=f16_f32 --axis=n=256 --axis=a_source=shared --axis=mode=throughput --axis=data=random,random_cycling
expect 2 "unknown value 'cycling'" mma_sync --axis=data=cycling
expect_points 406 cublaslt_gemm
expect_points 58 cublaslt_gemm --axis=dtype=fp8_fast_accum
expect_points 2 cublaslt_gemm --axis=dtype=int8 --axis=data=random,zeros --axis=shape=16384x16384x16384 --axis=cache=hot
expect 2 "unknown value 'warm'" cublaslt_gemm --axis=cache=warm

finish
