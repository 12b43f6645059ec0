#!/usr/bin/env bash
# The checks that need a GPU, on a machine without Bazel, from a bundle made
# by tools/bundle.sh (unpacked: tar xzf dist.tar.gz). Writes into OUTDIR:
#   GPU_TESTS.log        PASS/FAIL and seconds per GPU test of dist/GPU_TESTS,
#                        run with its BUILD args as `bazel test --config=gpu`
#                        would (each test's output: gpu_tests/<name>.log)
#   ncu_relu.csv         ncu's dram__bytes_read.sum / dram__bytes_write.sum of
#   ncu_relu_dissect.json  one 1 GiB ReLU launch, and the same point measured
#                        by --metrics=dram_bytes_read,dram_bytes_write: the
#                        cross-check of one CUPTI metric against ncu, when ncu
#                        is on PATH
#   sanitizer_*.log      compute-sanitizer memcheck of small runs, when it is
#                        on PATH
#   MACHINE, COMMANDS    the machine and every command line, verbatim
#   SUMMARY.txt          PASS/FAIL per test and check, with the points
#                        outside their plausible ranges (the FAIL lines)
# Under the device tool's $OUT (tools/device_common.sh), OUTDIR receives
# only SUMMARY.txt and NAME.tar.gz of all the above, repacked after each
# test, so a command cut at its time limit keeps the tests finished before.
# Stops with exit 2 where the host's glibc or libstdc++ is older than the
# bundle needs (dist/MANIFEST). Exit status 1 when a test or a check failed.
# Estimated at about two minutes on an H100, never timed on one; for a short
# loan, tools/first_contact.sh runs these tests within a fixed budget.
# Usage: tools/device_checks.sh OUTDIR
set -uo pipefail
outdir=${1:?usage: tools/device_checks.sh OUTDIR}
[[ -f dist/GPU_TESTS ]] || { echo "device_checks.sh: no dist/GPU_TESTS; run tools/bundle.sh and unpack dist.tar.gz here" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
results_init device_checks.sh "${outdir}"
check_host_libs
mkdir -p "${out}/gpu_tests"
write_machine "${out}"
status=0

while read -r line <&3; do
  eval "set -- ${line}"
  name=$1
  shift
  start=${SECONDS}
  if TEST_TMPDIR=$(mktemp -d) step "${name}" "${out}/gpu_tests/${name}.log" dist/bin/"${name}" "$@"; then
    result=PASS
  else
    result=FAIL
    status=1
  fi
  echo "${result} ${name} $((SECONDS - start)) s" | tee -a "${out}/GPU_TESTS.log"
  pack "after ${name}"
done 3< dist/GPU_TESTS

relu=(dist/bin/relu_bandwidth --axis=bytes=1GiB --axis=timing=hot)
if command -v ncu > /dev/null; then
  step ncu_relu "${out}/ncu_relu.csv" ncu --csv --kernel-name regex:ReluKernel --launch-count 1 \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum \
    "${relu[@]}" --samples=1 --warmup=0 --benchmark_out=/tmp/ncu_relu_scratch.json || status=1
  step ncu_relu_dissect "${out}/ncu_relu_dissect.log" "${relu[@]}" --samples=3 \
    --metrics=dram_bytes_read,dram_bytes_write --benchmark_out="${out}/ncu_relu_dissect.json" || status=1
else
  echo "no ncu on PATH: no ncu cross-check" | tee "${out}/ncu_relu.csv"
  summary "no ncu on PATH: no ncu cross-check"
fi
pack "after the ncu cross-check"

if command -v compute-sanitizer > /dev/null; then
  sanitize() {  # sanitize LABEL BINARY ARGS...
    local label=$1
    shift
    step "sanitizer_${label}" "${out}/sanitizer_${label}.log" compute-sanitizer --tool memcheck \
      --error-exitcode 1 dist/bin/"$1" "${@:2}" --samples=1 --warmup=0 \
      --benchmark_out=/tmp/sanitizer_"${label}".json || status=1
    pack "after sanitizer_${label}"
  }
  sanitize relu relu_bandwidth --axis=bytes=16MiB --axis=timing=hot
  sanitize memory_latency memory_latency --axis=footprint_bytes=64KiB --axis=loads=1024
  sanitize l1_bypass l1_bypass --axis=layer=vgg16.conv3_1 --axis=occupancy_pct=100 \
    --axis=variant=default,dlcm_cg,no_allocate,l2_persist
  sanitize mma_sync mma_sync --axis=data=random
  sanitize wgmma wgmma --axis=n=64 --axis=data=random
else
  echo "no compute-sanitizer on PATH" > "${out}/sanitizer_none.log"
  summary "no compute-sanitizer on PATH: no memcheck"
fi
finish "${status}"
