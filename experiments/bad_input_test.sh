#!/usr/bin/env bash
# Bad input must give exit status 2 and exactly one line on stderr, on any
# machine; --help and --list must succeed without a GPU.
set -u
cd "${TEST_SRCDIR}/dissect/experiments" || exit 1
source "${TEST_SRCDIR}/dissect/experiments/framework/bad_input_lib.sh" || exit 1

expect 2 "unknown flag '--bogus'" shared_latency --bogus
expect 2 "unexpected argument 'stray'" shared_latency stray
expect 2 "unknown axis 'strde'" shared_latency --axis=strde=4
expect 2 "stride_bytes must be > 0" shared_latency --axis=stride_bytes=0
expect 2 "stride_bytes must be > 0" shared_latency --axis stride_bytes=-64
expect 2 "must be a multiple of stride_bytes" shared_latency --axis=footprint_bytes=1000 --axis=stride_bytes=64
expect 2 "unknown value 'warm'" relu_bandwidth --axis=timing=warm
expect 2 "unknown value 'l3'" memory_latency --axis=path=l3
expect 2 "exceeds 2^32 words" memory_latency --axis=path=global_cg --axis=footprint_bytes=32GiB --axis=stride_bytes=4MiB
expect 2 "must be a multiple of 8 on path global_ca" memory_latency --axis=path=global_ca --axis=stride_bytes=4
expect 2 "loads must be a positive multiple of 16 (got 1000)" memory_latency --axis=loads=1000
expect 2 "bad value 'abc' for --samples" relu_bandwidth --samples=abc
expect 2 "--samples must be in 1..100000" relu_bandwidth --samples=0
expect 2 "unknown flag '--benchmark_nonsense=1'" relu_bandwidth --benchmark_nonsense=1
expect 2 "--benchmark_repetitions is not supported" shared_latency --benchmark_repetitions=3
expect 2 "dissect writes json only" relu_bandwidth --benchmark_out_format=csv
expect 2 "no CUDA device visible" shared_latency --axis=footprint_bytes=4KiB
expect 2 "no CUDA device visible" relu_bandwidth --axis=bytes=1MiB
expect 2 "width_bits must be 32, 64 or 128 (got 48)" memory_bandwidth --axis=width_bits=48
expect 2 "positive multiple of 16" memory_bandwidth --axis=footprint_bytes=1000
expect 2 "positive multiple of 16" memory_bandwidth --axis=footprint_bytes=0
expect 2 "must be a multiple of 32 (got 48)" memory_bandwidth --axis=op=copy --axis=footprint_bytes=48
expect 2 "unknown value 'scan'" memory_bandwidth --axis=op=scan
expect 2 "bytes_in_flight_per_thread must be one of 16, 32, 64, 128 (got 48)" memory_bandwidth --axis=bytes_in_flight_per_thread=48
expect 2 "no CUDA device visible" memory_bandwidth --axis=footprint_bytes=1MiB
expect 2 "width_bits must be 32, 64 or 128 (got 256)" shared_bandwidth --axis=width_bits=256
expect 2 "no CUDA device visible" shared_bandwidth
# --metrics: names are checked against the built-in catalog before anything runs.
expect 2 "--metrics: unknown metric 'bogus'; valid metrics: l1_hit_rate, l2_hit_rate, dram_bytes_read" relu_bandwidth --metrics=bogus
expect 2 "groups: dram, all_memory, all_compute, all_stalls, all" relu_bandwidth --metrics=dram_bytes_read,l1_hit_rat
expect 2 "unknown metric 'stall_everything'" shared_latency --metrics stall_everything
expect 2 "--metrics needs metric or group names" relu_bandwidth --metrics=
expect 2 "empty metric name" memory_latency --metrics=dram,,l2_hit_rate
expect 2 "no CUDA device visible" relu_bandwidth --metrics=all_memory --axis=bytes=1MiB
# --kernel_activity: a boolean flag; without a GPU the run stops before CUPTI.
expect 2 "no CUDA device visible" relu_bandwidth --kernel_activity --axis=bytes=1GiB
expect 2 "no CUDA device visible" shared_latency --kernel_activity=true --metrics=dram --axis=footprint_bytes=4KiB
expect 2 "bad value 'maybe' for --kernel_activity" relu_bandwidth --kernel_activity=maybe
# An unwritable --benchmark_out is found before the device is looked for.
expect 2 "--benchmark_out=/nonexistent-dissect-dir/r.json: folder /nonexistent-dissect-dir does not exist" shared_latency --benchmark_out=/nonexistent-dissect-dir/r.json
expect 2 "--benchmark_out=${TEST_TMPDIR}: is a folder, not a file" relu_bandwidth --benchmark_out="${TEST_TMPDIR}"
expect 2 "is not a folder" memory_bandwidth --benchmark_out=./shared_latency/r.json
expect 2 "no CUDA device visible" shared_latency --benchmark_out="${TEST_TMPDIR}/r.json"
if [[ -e "${TEST_TMPDIR}/r.json" || -e "${TEST_TMPDIR}/r.json.tmp" ]]; then
  echo "FAIL: the --benchmark_out check left a file behind"; failures=$((failures + 1))
fi

if ! ./shared_latency --help | grep -q "footprint_bytes"; then
  echo "FAIL: --help does not list the axes"; failures=$((failures + 1))
fi
if ! ./relu_bandwidth --help | grep -q -- "--kernel_activity "; then
  echo "FAIL: --help does not list --kernel_activity"; failures=$((failures + 1))
fi
# Rows under 2x L2 are L2-resident: the counters that say so are declared.
for experiment in relu_bandwidth memory_bandwidth; do
  help=$(./"${experiment}" --help)
  for word in working_set_bytes beyond_2x_l2 L2-resident; do
    [[ "${help}" == *"${word}"* ]] || { echo "FAIL: ${experiment} --help does not mention ${word}"; failures=$((failures + 1)); }
  done
done
if ! ./relu_bandwidth --help | grep -q "activity/vs_events_pct"; then
  echo "FAIL: --help does not name the activity row counters"; failures=$((failures + 1))
fi
points=$(./relu_bandwidth --kernel_activity --list --axis=bytes=1MiB | grep -c '^relu_bandwidth/')
if [[ ${points} -ne 2 ]]; then
  echo "FAIL: --kernel_activity --list printed ${points} points, want 2"; failures=$((failures + 1))
fi
points=$(./relu_bandwidth --nokernel_activity --list --axis=bytes=1MiB | grep -c '^relu_bandwidth/')
if [[ ${points} -ne 2 ]]; then
  echo "FAIL: --nokernel_activity --list printed ${points} points, want 2"; failures=$((failures + 1))
fi
if ! ./shared_latency --help | grep -q "groups:  dram, all_memory"; then
  echo "FAIL: --help does not list the counter groups"; failures=$((failures + 1))
fi
listing=$(./relu_bandwidth --metrics=list)
for want in "dram_bytes_read" "dram__bytes_read.sum (AD102 " "GH100    Hopper" "stall_long_scoreboard" "all_stalls"; do
  if [[ "${listing}" != *"${want}"* ]]; then
    echo "FAIL: --metrics=list lacks '${want}'"; failures=$((failures + 1))
  fi
done
points=$(./relu_bandwidth --metrics=dram --list --axis=bytes=1MiB | grep -c '^relu_bandwidth/')
if [[ ${points} -ne 2 ]]; then
  echo "FAIL: --metrics=dram --list printed ${points} points, want 2"; failures=$((failures + 1))
fi
points=$(./relu_bandwidth --list --axis=bytes=1MiB,2MiB | grep -c '^relu_bandwidth/')
if [[ ${points} -ne 4 ]]; then
  echo "FAIL: --list printed ${points} points, want 4"; failures=$((failures + 1))
fi
if ! ./memory_bandwidth --help | grep -q "footprint_bytes"; then
  echo "FAIL: memory_bandwidth --help does not list the axes"; failures=$((failures + 1))
fi
# 3 ops × 3 widths × 4 bytes in flight × 2 footprints.
points=$(./memory_bandwidth --list --axis=footprint_bytes=1MiB,4MiB | grep -c '^memory_bandwidth/')
if [[ ${points} -ne 72 ]]; then
  echo "FAIL: memory_bandwidth --list printed ${points} points, want 72"; failures=$((failures + 1))
fi
if ! ./memory_bandwidth --help | grep -q "bytes_in_flight_per_thread"; then
  echo "FAIL: memory_bandwidth --help does not list bytes_in_flight_per_thread"; failures=$((failures + 1))
fi
# The L1 carveout the kernels ask for is in every result file's context (the
# analysis compares it before it uses the chase's L1 capacity on bandwidth
# plateaus); --help lists what the context will hold.
for experiment in memory_latency memory_bandwidth; do
  if ! ./"${experiment}" --help | grep -q "l1_carveout  *max_l1"; then
    echo "FAIL: ${experiment} --help does not declare context l1_carveout max_l1"; failures=$((failures + 1))
  fi
done
points=$(./shared_bandwidth --list | grep -c '^shared_bandwidth/width_bits:')
if [[ ${points} -ne 3 ]]; then
  echo "FAIL: shared_bandwidth --list printed ${points} points, want 3"; failures=$((failures + 1))
fi

finish
