#!/usr/bin/env bash
# tools/first_contact.sh on a fake bundle whose binaries are shell stubs of
# chosen lengths, failures and hangs, run as on the device tool's machine
# (OUTDIR under $OUT: at most 8 files come back). Proves: the stages run in
# order; the budget holds, with a hang inside it and with a kill at the hard
# limit (the archive then holds the steps finished before); steps that do not
# fit are deferred and named; the rotation skips what a committed run of the
# device passed; recorded times replace estimates, the newest run's first;
# at most 8 files are left, split archive included; bad input exits 2; the
# real plans parse and a real reference-run step runs through
# tools/reference_run.sh; a bundle without some binaries skips their steps.
set -uo pipefail
src="${TEST_SRCDIR}/dissect"
tools="${src}/tools"
tmp=${TEST_TMPDIR}
source "${tools}/device_test_util.sh"

# A fake bundle root: dist/bin stubs, dist/tools (the real scripts), a plan,
# and bin/ stubs of nvidia-smi and compute-sanitizer for PATH. Stub NAME
# sleeps $FAKE_S_NAME seconds, fails when listed in FAKE_FAIL, hangs when
# listed in FAKE_HANG (its pid written to FAKE_HANGING), writes FAKE_BIG_MIB MiB
# of noise when listed in FAKE_BIG, and appends "NAME" to FAKE_TRACE.
make_root() {
  local root=$1 name
  rm -rf "${root}"
  mkdir -p "${root}/dist/bin" "${root}/dist/tools" "${root}/dist/lib" "${root}/bin" "${root}/plan"
  cat > "${root}/dist/bin/stub" << 'EOF'
#!/usr/bin/env bash
name=$(basename "$0")
echo "${name}" >> "${FAKE_TRACE:-/dev/null}"
echo "fake ${name} $*"
for a in "$@"; do
  [[ "${a}" != --benchmark_out=* ]] || echo '{"fake": true}' > "${a#--benchmark_out=}"
done
[[ -z "${TEST_TMPDIR:-}" ]] || echo '{"context": {' > "${TEST_TMPDIR}/gpu_smoke.json"
[[ -z "${TEST_TMPDIR:-}" ]] || printf '  "device_sm_count": "132",\n  "runtime_version": "13.0",\n}}\n' >> "${TEST_TMPDIR}/gpu_smoke.json"
secs_var=FAKE_S_${name}
sleep "${!secs_var:-0}"
case " ${FAKE_BIG:-} " in *" ${name} "*) head -c $((FAKE_BIG_MIB * 1024 * 1024)) /dev/urandom ;; esac
case " ${FAKE_HANG:-} " in *" ${name} "*) echo $$ > "${FAKE_HANGING:-/dev/null}"; exec sleep 1000 ;; esac
case " ${FAKE_FAIL:-} " in *" ${name} "*)
  echo "FAIL: row/${name}: latency_cycles = 600 (plausible: 20 .. 60)" >&2
  echo "CUDA error: an illegal memory access was encountered" >&2
  exit 1 ;;
esac
exit 0
EOF
  chmod +x "${root}/dist/bin/stub"
  for name in smoke_a smoke_b smoke_c h1 h2 h3 r1 r2 r3 memory_latency report; do
    ln -s stub "${root}/dist/bin/${name}"
  done
  cp "${tools}"/{first_contact,device_common,glibc_versions,reference_run}.sh "${root}/dist/tools/"
  cat > "${root}/dist/bin/verdict" << 'EOF'
#!/usr/bin/env bash
if [[ -n "${FAKE_VERDICT_OUT:-}" ]]; then
  echo "verdict: 2 in range, 1 out of range, 0 missing"
  exit 1
fi
echo "verdict: 3 in range, 0 out of range, 0 missing"
EOF
  chmod +x "${root}/dist/bin/verdict"
  printf '%s\n' smoke_a "smoke_b --axis=x=1 '--note=two words'" smoke_c > "${root}/dist/GPU_TESTS"
  echo "0123456789abcdef (fake)" > "${root}/dist/COMMIT"
  printf 'glibc 2.17\nglibcxx 3.4\n' > "${root}/dist/MANIFEST"
  cat > "${root}/bin/nvidia-smi" << 'EOF'
#!/bin/sh
case "$*" in
  "--query-gpu=name --format=csv,noheader") [ -n "${FAKE_NO_GPU:-}" ] || echo "Fake GPU" ;;
  *noheader*) echo "Fake GPU, 1980 MHz, 700.00 W, 580.00" ;;
  -L) echo "No devices were found" ;;
  -q*) echo "==============NVSMI LOG==============" ; echo "Product Name : Fake GPU" ;;
  *) echo "name, driver_version"; echo "Fake GPU, 580.00" ;;
esac
EOF
  cat > "${root}/bin/compute-sanitizer" << 'EOF'
#!/usr/bin/env bash
while [[ $# -gt 0 && "$1" != dist/bin/* ]]; do shift; done
echo "========= COMPUTE-SANITIZER"
"$@"
echo "========= ERROR SUMMARY: 1 error"
exit 1
EOF
  chmod +x "${root}/bin/"*
  cat > "${root}/plan/headline.plan" << 'EOF'
# a comment, then a blank line

h1 1 dist/bin/h1 --axis=a=1 --benchmark_out={json}
h2 1 dist/bin/h2 --out_dir={dir}
EOF
  cat > "${root}/plan/rotation.plan" << 'EOF'
r1 1 dist/bin/r1 --benchmark_out={json}
r2 100 dist/bin/r2
r3 1 dist/bin/r3
EOF
}

# steps_of RESULTS: "id status" per line of STEPS.tsv.
steps_of() { tail -n +2 "$1/STEPS.tsv" | cut -f2,3 | tr '\t' ' '; }

export PATH="${tmp}/root/bin:/usr/bin:/bin"
export DISSECT_WORKDIR="${tmp}/work"
unset CUDA_PATH LD_LIBRARY_PATH
root=${tmp}/root
fc=(dist/tools/first_contact.sh)
common=(--plan=plan --reference=ref --reserve_s=3 --step_slack_s=5)

# 1. A whole run: stages in order, a failing smoke test rerun under
# memcheck, a rotation step too long for the budget named as next time.
make_root "${root}"
cd "${root}" || exit 1
export OUT="${tmp}/out1"
mkdir -p "${OUT}"
FAKE_TRACE=${tmp}/trace1 FAKE_FAIL=smoke_b "${fc[@]}" "${OUT}/fc" --budget_s=60 "${common[@]}" \
  > "${tmp}/1.stdout" 2> "${tmp}/1.stderr"
rc=$?
((rc == 1)) || { fail "run 1 exited ${rc}, want 1 (smoke_b failed)"; cat "${tmp}/1.stderr"; }
check_out "${OUT}"
unpack "${OUT}/fc" fc "${tmp}/u1"
res=${tmp}/u1/fc
want_trace=$'smoke_a\nsmoke_b\nsmoke_c\nsmoke_b\nh1\nh2\nr1\nr3'
[[ "$(cat "${tmp}/trace1")" == "${want_trace}" ]] || fail "run order: $(tr '\n' ' ' < "${tmp}/trace1"), want $(tr '\n' ' ' <<< "${want_trace}")"
want_steps=$'facts pass\nsmoke_a pass\nsmoke_b fail\nsmoke_c pass\nmemcheck_smoke_b fail\nh1 pass\nh2 pass\nr1 pass\nr2 deferred\nr3 pass'
[[ "$(steps_of "${res}")" == "${want_steps}" ]] || fail "STEPS.tsv: $(steps_of "${res}" | tr '\n' ','), want $(tr '\n' ',' <<< "${want_steps}")"
summary=${OUT}/fc/SUMMARY.txt
first=$(head -1 "${summary}")
[[ "${first}" == "first_contact.sh fc: verdict: 3 in range, 0 out of range, 0 missing; "* ]] || fail "SUMMARY's first line is not the verdict: ${first}"
expect_line "${summary}" "steps: 7 passed, 2 failed, 0 timed out, 1 next time"
expect_line "${summary}" "FAIL smoke_b"
expect_line "${summary}" "    CUDA error: an illegal memory access was encountered"
expect_line "${summary}" "    r2 (rotation): needs 100 s (estimate)"
expect_line "${summary}" "again on what did not pass: tools/first_contact.sh OUTDIR --only=smoke_b"
expect_line "${summary}" "device fake_gpu: Fake GPU"
expect_line "${summary}" "; device_sm_count 132; runtime_version 13.0"
expect_line "${summary}" "commit: mkdir -p analysis/reference/fake_gpu/"
expect_line "${res}/correctness/smoke_b.log" "dist/bin/smoke_b --axis=x=1 --note=two\\ words"
expect_line "${res}/correctness/smoke_b.log" "CUDA error: an illegal memory access"
expect_line "${res}/correctness/memcheck_smoke_b.log" "compute-sanitizer --tool memcheck --error-exitcode 1 dist/bin/smoke_b"
expect_line "${res}/COMMANDS" "dist/bin/h1 --axis=a=1 --benchmark_out=${DISSECT_WORKDIR}"
[[ -s "${res}/headline/h1.json" ]] || fail "h1's {json} was not its result file"
[[ -s "${res}/correctness/smoke_a/gpu_smoke.json" ]] || fail "smoke_a's result was not kept in its {dir}"
expect_line "${res}/FACTS.txt" '"device_sm_count": "132"'
expect_line "${res}/correctness/facts.log" "NVSMI LOG"
expect_line "${res}/VERDICT.md" "verdict: 3 in range"
for f in MACHINE COMMANDS STEPS.tsv SUMMARY.txt; do [[ -s "${res}/${f}" ]] || fail "no ${f} in the archive"; done

# 2. The budget holds: a hang capped by its own timeout, then a hang capped
# by what is left of the budget; both recorded as timeouts.
export OUT="${tmp}/out2"
mkdir -p "${OUT}"
start=${SECONDS}
FAKE_HANG=h1 "${fc[@]}" "${OUT}/fc" --budget_s=20 "${common[@]}" --stages=headline \
  > /dev/null 2> "${tmp}/2.stderr"
rc=$?
took=$((SECONDS - start))
((rc == 1)) || fail "run 2 exited ${rc}, want 1 (h1 timed out)"
((took <= 21)) || fail "run 2 took ${took} s with --budget_s=20"
unpack "${OUT}/fc" fc "${tmp}/u2"
expect_line "${OUT}/fc/SUMMARY.txt" "TIMEOUT h1 (killed after 6 s"
[[ "$(steps_of "${tmp}/u2/fc")" == $'h1 timeout\nh2 pass' ]] || fail "run 2 steps: $(steps_of "${tmp}/u2/fc" | tr '\n' ,)"
export OUT="${tmp}/out2b"
mkdir -p "${OUT}"
start=${SECONDS}
FAKE_HANG=h2 "${fc[@]}" "${OUT}/fc" --budget_s=10 "${common[@]}" --step_slack_s=100 --stages=headline \
  > /dev/null 2>&1
took=$((SECONDS - start))
((took <= 11)) || fail "a hang with a 100 s slack ran ${took} s with --budget_s=10"
expect_line "${OUT}/fc/SUMMARY.txt" "TIMEOUT h2"

# 3. Committed runs of this device: the rotation skips what passed, the
# newest record of a step replaces its estimate (a timeout counts double),
# records of another device are ignored.
mkdir -p ref/fake_gpu/2026-01-01 ref/fake_gpu/2026-02-01 ref/other_gpu/2026-03-01
steps_header=$'stage\tid\tstatus\tseconds\ttimeout_s\texpected_s\tfrom'
printf '%s\n' "${steps_header}" $'rotation\tr1\tpass\t3\t20\t1\testimate' \
  $'headline\th1\tpass\t500\t520\t1\testimate' $'headline\th2\tpass\t400\t420\t1\testimate' \
  > ref/fake_gpu/2026-01-01/STEPS.tsv
printf '%s\n' "${steps_header}" $'headline\th2\tpass\t7\t27\t1\testimate' \
  $'rotation\tr2\tfail\t2\t300\t100\testimate' $'rotation\tr3\ttimeout\t15\t15\t1\testimate' \
  > ref/fake_gpu/2026-02-01/STEPS.tsv
printf '%s\n' "${steps_header}" $'rotation\tr3\tpass\t1\t20\t1\testimate' > ref/other_gpu/2026-03-01/STEPS.tsv
"${fc[@]}" --dry_run --budget_s=60 "${common[@]}" > "${tmp}/3.plan" 2>&1 || fail "--dry_run failed: $(cat "${tmp}/3.plan")"
plan_line() { awk -v id="$1" '$2 == id' "${tmp}/3.plan"; }
[[ "$(plan_line h1)" == *" 500 "*"recorded 2026-01-01"*"next time: needs 500 s"* ]] || fail "h1: $(plan_line h1)"
[[ "$(plan_line h2)" == *" 7 "*"recorded 2026-02-01"*run ]] || fail "h2 (the newest record wins): $(plan_line h2)"
[[ "$(plan_line r1)" == *"skip: already passed in fake_gpu/2026-01-01" ]] || fail "r1: $(plan_line r1)"
[[ "$(plan_line r2)" == *" 2 "*"recorded 2026-02-01"*run ]] || fail "r2 (recorded 2 s replaces 100): $(plan_line r2)"
[[ "$(plan_line r3)" == *" 30 "*"2 x timeout 2026-02-01"*run ]] || fail "r3 (other_gpu's pass ignored): $(plan_line r3)"
export OUT="${tmp}/out3"
mkdir -p "${OUT}"
FAKE_TRACE=${tmp}/trace3 "${fc[@]}" "${OUT}/fc" --budget_s=60 "${common[@]}" > /dev/null 2>&1
[[ "$(grep -c . "${tmp}/trace3")" == 6 && "$(tail -n 3 "${tmp}/trace3" | tr '\n' ' ')" == "h2 r2 r3 " ]] ||
  fail "run 3 ran $(tr '\n' ' ' < "${tmp}/trace3"), want the smoke tests, h2, r2, r3"
expect_line "${OUT}/fc/SUMMARY.txt" "h1 (headline): needs 500 s (recorded 2026-01-01)"
expect_line "${OUT}/fc/SUMMARY.txt" "rotation: 1 step(s) already passed in a committed run of fake_gpu"
rm -rf ref

# 4. A kill at the hard limit (the device tool kills the whole command):
# the archive holds the steps finished before, SUMMARY.txt names the one
# that was running, at most 8 files.
export OUT="${tmp}/out4"
mkdir -p "${OUT}"
FAKE_HANG=h2 FAKE_HANGING="${tmp}/hanging" setsid "${fc[@]}" "${OUT}/fc" --budget_s=300 "${common[@]}" \
  > /dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
  [[ -e "${tmp}/hanging" ]] && break
  sleep 0.1
done
[[ -e "${tmp}/hanging" ]] || fail "h2 never started"
kill -KILL -- "-${pid}"
wait "${pid}" 2> /dev/null
sleep 0.2
# The step itself runs in a process group of its own (timeout's).
kill -KILL "$(cat "${tmp}/hanging")" 2> /dev/null
check_out "${OUT}"
unpack "${OUT}/fc" fc "${tmp}/u4"
[[ "$(steps_of "${tmp}/u4/fc" | tail -n 1)" == "h1 pass" ]] || fail "the archive after a kill: $(steps_of "${tmp}/u4/fc" | tr '\n' ,)"
[[ -s "${tmp}/u4/fc/headline/h1.json" ]] || fail "h1's result is not in the archive after the kill"
expect_line "${OUT}/fc/SUMMARY.txt" "first_contact.sh fc: running h2 (headline, timeout"

# 5. A large output: the archive is split at 15 MiB, still at most 8 files;
# an out-of-range verdict makes the exit status 1.
export OUT="${tmp}/out5"
mkdir -p "${OUT}"
FAKE_BIG=h1 FAKE_BIG_MIB=40 FAKE_VERDICT_OUT=1 "${fc[@]}" "${OUT}/fc" --budget_s=60 "${common[@]}" \
  --stages=headline > /dev/null 2>&1
rc=$?
((rc == 1)) || fail "an out-of-range verdict exited ${rc}, want 1"
check_out "${OUT}"
[[ -e "${OUT}/fc/fc.tar.gz.part-02" ]] || fail "40 MiB of output not split into 3 parts: $(ls "${OUT}/fc")"
unpack "${OUT}/fc" fc "${tmp}/u5"
(($(stat -c %s "${tmp}/u5/fc/headline/h1.log") > 40 * 1024 * 1024)) || fail "h1.log is not whole"
expect_line "${OUT}/fc/SUMMARY.txt" "verdict: 2 in range, 1 out of range"

# 6. Bad input and no GPU: exit 2 with one line, nothing run.
expect_exit2() {  # expect_exit2 WHAT FIXED_STRING ARGS...
  local what=$1 text=$2
  shift 2
  "${fc[@]}" "$@" > /dev/null 2> "${tmp}/6.stderr"
  local rc=$?
  ((rc == 2)) || fail "${what}: exit ${rc}, want 2"
  expect_line "${tmp}/6.stderr" "${text}"
}
export OUT="${tmp}/out6"
expect_exit2 "unknown flag" "unknown flag '--budget=5'" "${OUT}/fc" --budget=5 "${common[@]}"
expect_exit2 "bad budget" "--budget_s='x' is not a whole number" "${OUT}/fc" --budget_s=x "${common[@]}"
expect_exit2 "unknown --only" "--only names 'h9'" "${OUT}/fc" --only=h9 "${common[@]}"
expect_exit2 "unknown stage" "unknown stage 'smoke'" "${OUT}/fc" --stages=smoke "${common[@]}"
FAKE_NO_GPU=1 expect_exit2 "no GPU" "no GPU visible: nvidia-smi" "${OUT}/fc" "${common[@]}"
echo "h4 x dist/bin/h1" >> plan/headline.plan
expect_exit2 "bad plan line" "plan/headline.plan:5: want '<id> <estimate_s> <command word>...'" "${OUT}/fc" "${common[@]}"

# 7. The real plans parse, and a real reference-run step runs through
# tools/reference_run.sh with only its labels.
make_root "${root}"
cd "${root}" || exit 1
cp "${src}/configs/first_contact/"*.plan plan/
"${fc[@]}" --dry_run --plan=plan --reference=none > "${tmp}/7.plan" 2>&1 || fail "the real plans: $(cat "${tmp}/7.plan")"
for id in facts smoke_a ref_memory_latency_dram paper_dong_kaeli_2018_a_latency; do
  grep -q " ${id} " "${tmp}/7.plan" || fail "the real plan has no step ${id}"
done
export OUT="${tmp}/out7"
mkdir -p "${OUT}"
"${fc[@]}" "${OUT}/fc" --plan=plan --reference=none --only=ref_memory_latency_dram > /dev/null 2>&1 ||
  fail "the real ref_memory_latency_dram step failed: $(cat "${OUT}/fc/SUMMARY.txt")"
unpack "${OUT}/fc" fc "${tmp}/u7"
ref=${tmp}/u7/fc/rotation/ref_memory_latency_dram
expect_line "${ref}/COMMANDS" "dist/bin/memory_latency --benchmark_out="
expect_line "${ref}/COMMANDS" "/memory_latency_dram.json --samples=5 --axis=path=global_cg,global_ca"
[[ ! -e "${ref}/memory_latency.log" ]] || fail "--labels=memory_latency_dram also ran memory_latency"

# 8. A bundle packed for a few experiments (tools/bundle.sh --experiments):
# the steps whose binaries it lacks are skipped and listed, --only naming one
# is bad input, a reference-run step fails with one line naming the binary.
make_root "${root}"
cd "${root}" || exit 1
rm dist/bin/h2 dist/bin/smoke_c
"${fc[@]}" --dry_run --budget_s=60 "${common[@]}" > "${tmp}/8.plan" 2>&1 || fail "--dry_run failed: $(cat "${tmp}/8.plan")"
[[ "$(awk '$2 == "h2"' "${tmp}/8.plan")" == *"skip: not in this bundle (dist/bin/h2)" ]] ||
  fail "h2 without its binary: $(awk '$2 == "h2"' "${tmp}/8.plan")"
export OUT="${tmp}/out8"
mkdir -p "${OUT}"
"${fc[@]}" "${OUT}/fc" --budget_s=60 "${common[@]}" > /dev/null 2>&1 || fail "run 8 exited $?, want 0"
unpack "${OUT}/fc" fc "${tmp}/u8"
want_steps=$'facts pass\nsmoke_a pass\nsmoke_b pass\nh1 pass\nr1 pass\nr2 deferred\nr3 pass'
[[ "$(steps_of "${tmp}/u8/fc")" == "${want_steps}" ]] || fail "run 8 steps: $(steps_of "${tmp}/u8/fc" | tr '\n' ,)"
expect_line "${OUT}/fc/SUMMARY.txt" "not in this bundle, not run (tools/bundle.sh --experiments left their binaries out): smoke_c,h2"
expect_exit2 "--only without its binary" "--only names 'h2', whose dist/bin/h2 is not in this bundle" \
  "${OUT}/fc" --only=h1,h2 "${common[@]}"
cp "${src}/configs/first_contact/"*.plan plan/
rm dist/bin/memory_latency
export OUT="${tmp}/out8b"
mkdir -p "${OUT}"
"${fc[@]}" "${OUT}/fc" --plan=plan --reference=none --only=ref_memory_latency_dram > /dev/null 2>&1 &&
  fail "a reference-run step without its binary passed"
unpack "${OUT}/fc" fc "${tmp}/u8b"
expect_line "${tmp}/u8b/fc/rotation/ref_memory_latency_dram/SUMMARY.txt" \
  "FAIL memory_latency_dram: dist/bin/memory_latency is not in this bundle"
expect_line "${OUT}/fc/SUMMARY.txt" "dist/bin/memory_latency is not in this bundle"

report_failures
