#!/usr/bin/env bash
# tools/device_checks.sh and tools/reference_run.sh on a fake bundle whose
# binaries are shell stubs (one test fails, one writes 16 MiB, one sleeps),
# run as on the device tool's machine: OUTDIR under $OUT, which brings back
# at most 8 files of 16 MiB, at most 2 folders down. Checks that $OUT fits
# that and that the archive unpacks into the whole results tree; that a run
# killed midway leaves an archive of the tests finished before; that a host
# older than dist/MANIFEST stops the scripts with exit 2 and one line.
set -uo pipefail
tools="${TEST_SRCDIR}/dissect/tools"
tmp=${TEST_TMPDIR}
source "${tools}/device_test_util.sh"

# A fake repository root: dist/ with stub binaries, and bin/ with stubs of
# nvidia-smi, ncu and compute-sanitizer for PATH.
make_root() {  # make_root DIR GPU_TEST_LINE...
  local root=$1 name
  shift
  mkdir -p "${root}/dist/bin" "${root}/dist/lib" "${root}/bin"
  cat > "${root}/dist/bin/stub" << 'EOF'
#!/usr/bin/env bash
# A fake dissect binary; FAKE_FAIL, FAKE_BIG and FAKE_SLEEP list the names
# that fail, write 16 MiB of noise, or sleep (after touching FAKE_SLEEPING).
name=$(basename "$0")
echo "fake ${name} $*"
for a in "$@"; do
  [[ "${a}" != --benchmark_out=* ]] || echo '{"fake": true}' > "${a#--benchmark_out=}"
done
if [[ "${name}" == reproduce && " $* " == *" --list "* ]]; then
  printf 'x_2020_a  [ready]\n  a paper\n\ny_2020_b  [pending]\n  pending: waits\n'
fi
if [[ "${name}" == report ]]; then
  echo "| shared | latency | ≥ 40 cycles | Fake GPU | 29.11 cycles | **outside** | [1] |"
  echo "| L2 | latency | 200 – 300 cycles | Fake GPU | 250 cycles | in range | [1] |"
fi
case " ${FAKE_FAIL:-} " in *" ${name} "*)
  echo "ok:   row/${name}: bandwidth = 5 (plausible: 1 .. 10)"
  echo "FAIL: row/${name}: latency_cycles = 600 (plausible: 20 .. 60)" >&2
  exit 1 ;;
esac
case " ${FAKE_BIG:-} " in *" ${name} "*) head -c $((16 * 1024 * 1024)) /dev/urandom ;; esac
case " ${FAKE_SLEEP:-} " in *" ${name} "*) touch "${FAKE_SLEEPING}"; sleep 600 ;; esac
exit 0
EOF
  chmod +x "${root}/dist/bin/stub"
  for name in shared_latency relu_bandwidth memory_latency latency_trace memory_bandwidth \
    shared_bandwidth l1_bypass mma_sync wgmma cublaslt_gemm report \
    gpc_topology l2_sm_map dsm_latency dsm_bandwidth l1_duplication cluster_coop \
    activation_sparsity sparsity_speed sparse24_gemm compressible_bandwidth reproduce \
    pass_gpu_test fail_gpu_test big_gpu_test sleep_gpu_test after_gpu_test; do
    ln -s stub "${root}/dist/bin/${name}"
  done
  printf '%s\n' "$@" > "${root}/dist/GPU_TESTS"
  echo "0123456789abcdef (fake)" > "${root}/dist/COMMIT"
  printf 'glibc 2.17\nglibcxx 3.4\n' > "${root}/dist/MANIFEST"
  printf '#!/bin/sh\necho "name, driver_version"\necho "Fake GPU, 0.0"\n' > "${root}/bin/nvidia-smi"
  printf '#!/bin/sh\necho "\\"ID\\",\\"Metric Name\\",\\"Metric Value\\""\n' > "${root}/bin/ncu"
  cat > "${root}/bin/compute-sanitizer" << 'EOF'
#!/usr/bin/env bash
while [[ $# -gt 0 && "$1" != dist/bin/* ]]; do shift; done
echo "========= COMPUTE-SANITIZER"
"$@"
echo "========= ERROR SUMMARY: 0 errors"
EOF
  chmod +x "${root}/bin/"*
}

work_of() {  # work_of STDERR: where the script said it wrote the results
  sed -n 's/^[a-z_]*\.sh: results in \(.*\), packed into .*/\1/p' "$1" | head -1
}

export PATH="${tmp}/root/bin:/usr/bin:/bin"
export DISSECT_WORKDIR="${tmp}/work"
unset CUDA_PATH LD_LIBRARY_PATH

# 1. Both scripts into one $OUT, as one device call would: 16 result files
# from the checks (one of 16 MiB, so the archive is split) and 55 from the
# reference run.
export OUT="${tmp}/out"
mkdir -p "${OUT}"
make_root "${tmp}/root" pass_gpu_test "fail_gpu_test --expect=x:1:2 '--note=two words'" \
  big_gpu_test after_gpu_test
cd "${tmp}/root" || exit 1
FAKE_FAIL=fail_gpu_test FAKE_BIG=big_gpu_test "${tools}/device_checks.sh" "${OUT}/checks" \
  > "${tmp}/checks.stdout" 2> "${tmp}/checks.stderr"
rc=$?
((rc == 1)) || { fail "device_checks.sh exited ${rc}, want 1 (one test failed)"; cat "${tmp}/checks.stderr"; }
FAKE_FAIL=memory_bandwidth "${tools}/reference_run.sh" "${OUT}/h100" \
  > "${tmp}/ref.stdout" 2> "${tmp}/ref.stderr"
rc=$?
((rc == 1)) || { fail "reference_run.sh exited ${rc}, want 1 (one experiment failed)"; cat "${tmp}/ref.stderr"; }
check_out "${OUT}"

unpack "${OUT}/checks" checks "${tmp}/unpacked"
expect_files "${tmp}/unpacked/checks" MACHINE COMMANDS GPU_TESTS.log SUMMARY.txt \
  gpu_tests/{pass,fail,big,after}_gpu_test.log ncu_relu.csv ncu_relu_dissect.log \
  ncu_relu_dissect.json sanitizer_{relu,memory_latency,l1_bypass,mma_sync,wgmma}.log
work=$(work_of "${tmp}/checks.stderr")
if [[ "${work}" == "${DISSECT_WORKDIR}"/dissect.*/checks ]]; then
  diff -r "${work}" "${tmp}/unpacked/checks" > /dev/null || fail "the archive differs from ${work}"
else
  fail "results not written to DISSECT_WORKDIR: '${work}'"
fi
size=$(stat -c %s "${tmp}/unpacked/checks/gpu_tests/big_gpu_test.log" 2> /dev/null)
((${size:-0} > 16 * 1024 * 1024)) || fail "big_gpu_test.log is not whole in the archive"
compgen -G "${OUT}/checks/checks.tar.gz.part-01" > /dev/null || fail "an archive over 15 MiB is not split"
summary=${OUT}/checks/SUMMARY.txt
expect_line "${summary}" "device_checks.sh checks: finished, exit status 1"
expect_line "${summary}" "PASS pass_gpu_test"
expect_line "${summary}" "FAIL fail_gpu_test"
expect_line "${summary}" "    FAIL: row/fail_gpu_test: latency_cycles = 600 (plausible: 20 .. 60)"
expect_line "${summary}" "PASS sanitizer_wgmma"
expect_line "${summary}" "cat checks.tar.gz.part-* | tar xzf -"
expect_line "${tmp}/unpacked/checks/gpu_tests/fail_gpu_test.log" \
  "fake fail_gpu_test --expect=x:1:2 --note=two words"
expect_line "${tmp}/unpacked/checks/GPU_TESTS.log" "FAIL fail_gpu_test"
expect_line "${tmp}/unpacked/checks/MACHINE" "the bundle needs glibc 2.17"

unpack "${OUT}/h100" h100 "${tmp}/unpacked"
labels=(shared_latency relu_bandwidth memory_latency memory_latency_tlb memory_latency_dram
  latency_trace memory_bandwidth shared_bandwidth l1_bypass l1_bypass_sweep
  l1_bypass_sweep_conv_gemv l1_bypass_counters l1_bypass_b32 mma_sync wgmma cublaslt_gemm
  gpc_topology l2_sm_map dsm_latency dsm_bandwidth l1_duplication cluster_coop
  activation_sparsity sparsity_speed sparsity_speed_b32 sparse24_gemm compressible_bandwidth)
expect_files "${tmp}/unpacked/h100" MACHINE COMMANDS REPORT.md SUMMARY.txt "${labels[@]/%/.log}"
for label in "${labels[@]}"; do
  [[ "${label}" == memory_bandwidth ]] || expect_files "${tmp}/unpacked/h100" "${label}.json"
done
summary=${OUT}/h100/SUMMARY.txt
expect_line "${summary}" "reference_run.sh h100: finished, exit status 1"
expect_line "${summary}" "PASS cublaslt_gemm"
expect_line "${summary}" "FAIL memory_bandwidth"
expect_line "${summary}" "outside their published ranges"
expect_line "${summary}" "| shared | latency | ≥ 40 cycles | Fake GPU | 29.11 cycles | **outside** |"
expect_line "${summary}" "tar xzf h100.tar.gz"

# 2. A run killed midway (as the device tool kills a command at its time
# limit): the archive holds the tests finished before, and SUMMARY.txt says
# which one was running.
export OUT="${tmp}/out_killed"
mkdir -p "${OUT}"
rm -rf "${tmp}/root" "${tmp}/unpacked"
make_root "${tmp}/root" pass_gpu_test fail_gpu_test sleep_gpu_test after_gpu_test
cd "${tmp}/root" || exit 1
FAKE_FAIL=fail_gpu_test FAKE_SLEEP=sleep_gpu_test FAKE_SLEEPING="${tmp}/sleeping" \
  setsid "${tools}/device_checks.sh" "${OUT}/checks" > /dev/null 2> "${tmp}/killed.stderr" &
pid=$!
for _ in $(seq 600); do
  [[ -e "${tmp}/sleeping" ]] && break
  sleep 0.2
done
[[ -e "${tmp}/sleeping" ]] || fail "sleep_gpu_test never started"
kill -KILL -- "-${pid}"
wait "${pid}" 2> /dev/null
check_out "${OUT}"
unpack "${OUT}/checks" checks "${tmp}/unpacked"
expect_files "${tmp}/unpacked/checks" MACHINE COMMANDS GPU_TESTS.log \
  gpu_tests/{pass,fail}_gpu_test.log
expect_line "${tmp}/unpacked/checks/GPU_TESTS.log" "FAIL fail_gpu_test"
[[ ! -e "${tmp}/unpacked/checks/gpu_tests/after_gpu_test.log" ]] || fail "after_gpu_test ran"
expect_line "${OUT}/checks/SUMMARY.txt" "device_checks.sh checks: running sleep_gpu_test since"
expect_line "${OUT}/checks/SUMMARY.txt" "FAIL fail_gpu_test"

# 3. A host older than the bundle needs: exit 2, one line, nothing run.
export OUT="${tmp}/out_old"
mkdir -p "${OUT}"
printf 'glibc 99.1\nglibcxx 3.4\n' > dist/MANIFEST
"${tools}/device_checks.sh" "${OUT}/checks" > /dev/null 2> "${tmp}/old.stderr"
rc=$?
((rc == 2)) || fail "device_checks.sh on too old a glibc exited ${rc}, want 2"
expect_line "${tmp}/old.stderr" "is older than the 99.1 that the bundled binaries need"
(($(wc -l < "${tmp}/old.stderr") <= 2)) || { fail "more than one line (and the results line) on stderr:"; cat "${tmp}/old.stderr"; }
expect_line "${OUT}/checks/SUMMARY.txt" "is older than the 99.1"
work=$(work_of "${tmp}/old.stderr")
[[ -n "${work}" && ! -e "${work}/COMMANDS" ]] || fail "commands ran on a host too old for the bundle"
printf 'glibc 2.17\nglibcxx 3.4.999\n' > dist/MANIFEST
"${tools}/reference_run.sh" "${OUT}/ref" > /dev/null 2> "${tmp}/old.stderr"
rc=$?
((rc == 2)) || fail "reference_run.sh on too old a libstdc++ exited ${rc}, want 2"
expect_line "${tmp}/old.stderr" "that the bundled binaries need"
expect_line "${tmp}/old.stderr" "GLIBCXX_3.4.999"
printf 'glibc 2.17\nglibcxx 3.4\n' > dist/MANIFEST

# 4. An OUTDIR the device tool would not bring back; a run outside $OUT
# writes its results into OUTDIR itself, as before.
"${tools}/device_checks.sh" "${OUT}/a/b/c" > /dev/null 2>&1
rc=$?
((rc == 2)) || fail "OUTDIR three folders under \$OUT: exit ${rc}, want 2"
OUT="" "${tools}/reference_run.sh" "${tmp}/plain" --parts=tensor > /dev/null 2>&1
rc=$?
((rc == 0)) || fail "reference_run.sh outside \$OUT exited ${rc}, want 0"
expect_files "${tmp}/plain" mma_sync.json wgmma.log REPORT.md SUMMARY.txt
# The papers part (not in the default): one step per ready catalog entry.
OUT="" "${tools}/reference_run.sh" "${tmp}/papers" --parts=papers > /dev/null 2>&1
rc=$?
((rc == 0)) || fail "reference_run.sh --parts=papers exited ${rc}, want 0"
expect_files "${tmp}/papers" paper_x_2020_a.log REPORT.md SUMMARY.txt
[[ ! -e "${tmp}/papers/paper_y_2020_b.log" ]] || fail "the pending catalog entry ran"
expect_line "${tmp}/papers/paper_x_2020_a.log" "--paper=x_2020_a --out=${tmp}/papers/papers"
[[ ! -e "${tmp}/h100/paper_x_2020_a.log" ]] || fail "papers ran in the default parts"

report_failures
