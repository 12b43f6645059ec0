#!/usr/bin/env bash
# One prepared GPU run of a fixed time budget that adds to the ground truth
# each time. Run from the folder holding the unpacked bundle (dist/, made by
# tools/bundle.sh), under a hard limit a little above the budget:
#   timeout -s KILL 540 tools/first_contact.sh OUTDIR [--budget_s=420]
# Stages, in order, each step with a timeout of its own:
#   correctness  the machine's facts (nvidia-smi -q, clocks, power, driver),
#                then every GPU test of dist/GPU_TESTS (each experiment's
#                smoke run with its CPU-reference check and plausible
#                bounds), then the first failing one again under
#                compute-sanitizer memcheck;
#   headline     the points published numbers exist for, one ncu cross-check
#                (PLAN/headline.plan);
#   rotation     the rest of the budget: the reference-run parts and paper
#                catalog entries (PLAN/rotation.plan, in priority order) that
#                no committed run of this device has passed yet.
# Then dist/bin/verdict judges the headline numbers (VERDICT.md).
#
# A step runs only if its expected length fits what is left of the budget
# (minus --reserve_s for the verdict and the last pack); the others are
# listed as "next time". The expected length is the step's most recent
# recorded time on this device (STEPS.tsv of the committed runs under
# analysis/reference/<device>/ and dist/reference/<device>/, see --reference),
# else the plan's estimate; a step that timed out counts double its timeout.
# Each step's timeout is max(3 x expected, expected + --step_slack_s),
# capped at what is left, so the script never runs past its budget.
# A step whose command names a dist/bin/ binary the bundle does not hold (one
# packed for a few experiments: tools/bundle.sh --experiments) is skipped and
# listed as "not in this bundle"; --only naming such a step is bad input.
#
# OUTDIR receives the results; under the device tool's $OUT only SUMMARY.txt
# (the verdict on its first line) and one archive of everything (split at
# 15 MiB), both repacked after every step (tools/device_common.sh), so a run
# killed at its hard limit keeps every step that finished. In the results:
# MACHINE, FACTS.txt, COMMANDS (every command line verbatim), STEPS.tsv (each
# step's stage, status and seconds: commit it, the next plan reads it),
# <stage>/<id>.log (stdout and stderr, whole) and <stage>/<id>.json.
#
# Options:
#   --budget_s=N      seconds for the whole run (default 420)
#   --only=ID,...     run only these steps (a second run on what failed)
#   --stages=LIST     correctness,headline,rotation (default all three)
#   --plan=DIR        the plan files (default configs/first_contact, else
#                     dist/first_contact)
#   --reference=DIR   committed runs, <device>/<run>/STEPS.tsv (repeatable;
#                     default analysis/reference and dist/reference)
#   --device=NAME     the device folder name (default from nvidia-smi's GPU
#                     name: "NVIDIA H100 80GB HBM3" -> h100_80gb_hbm3)
#   --reserve_s=N     seconds kept for the verdict and the last pack (20)
#   --step_slack_s=N  seconds a step may overrun its expected length (20)
#   --dry_run         print the plan (expected seconds, where each comes
#                     from, run or next time) and run nothing
# Exit status: 0 every step passed and the verdict found nothing out of
# range; 1 a step failed or timed out, or a number is out of range; 2 bad
# input, no GPU, or a host too old for the bundle.
set -uo pipefail
usage="usage: tools/first_contact.sh OUTDIR [--budget_s=N] [--only=ID,...] [--stages=correctness,headline,rotation] [--plan=DIR] [--reference=DIR]... [--device=NAME] [--reserve_s=N] [--step_slack_s=N] [--dry_run]"
die() {
  echo "first_contact.sh: $*" >&2
  exit 2
}
outdir=""
budget_s=420
reserve_s=20
step_slack_s=20
only=""
stages=correctness,headline,rotation
plan_dir=""
reference_dirs=()
device=""
dry_run=0
for arg in "$@"; do
  case "${arg}" in
    --help | -h)
      sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    --budget_s=*) budget_s=${arg#*=} ;;
    --reserve_s=*) reserve_s=${arg#*=} ;;
    --step_slack_s=*) step_slack_s=${arg#*=} ;;
    --only=*) only=${arg#*=} ;;
    --stages=*) stages=${arg#*=} ;;
    --plan=*) plan_dir=${arg#*=} ;;
    --reference=*) reference_dirs+=("${arg#*=}") ;;
    --device=*) device=${arg#*=} ;;
    --dry_run) dry_run=1 ;;
    -*) die "unknown flag '${arg}'; ${usage}" ;;
    *)
      [[ -z "${outdir}" ]] || die "one OUTDIR only, got '${outdir}' and '${arg}'; ${usage}"
      outdir=${arg}
      ;;
  esac
done
[[ -n "${outdir}" || "${dry_run}" == 1 ]] || die "no OUTDIR; ${usage}"
for n in budget_s reserve_s step_slack_s; do
  [[ "${!n}" =~ ^[0-9]+$ ]] || die "--${n}='${!n}' is not a whole number of seconds"
done
((budget_s > reserve_s)) || die "--budget_s=${budget_s} leaves nothing after --reserve_s=${reserve_s}"
for s in ${stages//,/ }; do
  [[ "${s}" =~ ^(correctness|headline|rotation)$ ]] || die "unknown stage '${s}' in --stages; ${usage}"
done
[[ -f dist/GPU_TESTS ]] || die "no dist/GPU_TESTS here; run tools/bundle.sh and unpack dist.tar.gz in this folder"
if [[ -z "${plan_dir}" ]]; then
  for d in configs/first_contact dist/first_contact; do
    [[ -f "${d}/headline.plan" ]] && { plan_dir=${d}; break; }
  done
fi
[[ -n "${plan_dir}" && -f "${plan_dir}/headline.plan" && -f "${plan_dir}/rotation.plan" ]] ||
  die "no headline.plan and rotation.plan in '${plan_dir:-configs/first_contact or dist/first_contact}'"
if ((${#reference_dirs[@]} == 0)); then
  for d in analysis/reference dist/reference; do
    [[ -d "${d}" ]] && reference_dirs+=("${d}")
  done
fi

# --- The plan: steps as (stage, id, expected seconds, words). ------------
plan_stage=() plan_id=() plan_est=() plan_words=()
add_step() {  # add_step STAGE ID ESTIMATE WORD...
  plan_stage+=("$1")
  plan_id+=("$2")
  plan_est+=("$3")
  local words=("${@:4}")
  plan_words+=("$(printf '%q ' "${words[@]}")")
}

# read_plan STAGE FILE: its lines "<id> <estimate_s> <word>..." as steps.
read_plan() {
  local stage=$1 file=$2 n=0 line
  local -a w
  while IFS= read -r line || [[ -n "${line}" ]]; do
    n=$((n + 1))
    [[ "${line}" =~ ^[[:space:]]*(#|$) ]] && continue
    read -ra w <<< "${line}"
    [[ "${w[0]}" =~ ^[a-z0-9_]+$ && "${w[1]:-}" =~ ^[1-9][0-9]*$ && ${#w[@]} -ge 3 ]] ||
      die "${file}:${n}: want '<id> <estimate_s> <command word>...', got '${line}'"
    add_step "${stage}" "${w[@]}"
  done < "${file}"
}

# The correctness stage: the facts, then one step per GPU test. A smoke run
# is one process start (about 1 s with CUDA's lazy loading) and a few tiny
# points: 3 s each is an estimate until recorded.
readonly kFactsEstimateS=5 kSmokeEstimateS=3
add_step correctness facts "${kFactsEstimateS}" nvidia-smi -q
while read -r line <&3; do
  eval "set -- ${line}"
  add_step correctness "$1" "${kSmokeEstimateS}" env TEST_TMPDIR='{dir}' dist/bin/"$1" "${@:2}"
done 3< dist/GPU_TESTS
read_plan headline "${plan_dir}/headline.plan"
read_plan rotation "${plan_dir}/rotation.plan"
# missing_binary INDEX: the first dist/bin/ word of the step's command that
# is no executable file here (a bundle packed for a few experiments,
# tools/bundle.sh --experiments, leaves the others out), else nothing.
missing_binary() {
  local -a words
  local w
  eval "words=(${plan_words[$1]})"
  for w in "${words[@]}"; do
    [[ "${w}" != dist/bin/* || -x "${w}" ]] || { echo "${w}"; return 0; }
  done
}
declare -A step_index
for i in "${!plan_id[@]}"; do
  id=${plan_id[$i]}
  [[ -z "${step_index[${id}]:-}" ]] || die "step id '${id}' appears twice in the plan"
  step_index[${id}]=${i}
done
for id in ${only//,/ }; do
  [[ -n "${step_index[${id}]:-}" ]] || die "--only names '${id}', which is no step of the plan (--dry_run lists them)"
  missing=$(missing_binary "${step_index[${id}]}")
  [[ -z "${missing}" ]] || die "--only names '${id}', whose ${missing} is not in this bundle (tools/bundle.sh --experiments left it out)"
done

# --- The device and what its committed runs recorded. --------------------
if [[ -z "${device}" ]]; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
  [[ -n "${gpu_name}" ]] || die "no GPU visible: nvidia-smi --query-gpu=name printed nothing ($(nvidia-smi -L 2>&1 | head -1))"
  device=$(tr 'A-Z' 'a-z' <<< "${gpu_name}" | sed -E 's/[^a-z0-9]+/_/g; s/^_+|_+$//g; s/^nvidia_//')
fi
[[ "${device}" =~ ^[a-z0-9_.-]+$ ]] || die "--device='${device}': letters, digits, '_', '.', '-' only"
declare -A recorded_s recorded_from passed_in
# Runs are read in the order of their folder names (dates), so the newest
# record of a step wins.
while IFS= read -r steps_file; do
  run_name=${steps_file%/STEPS.tsv}
  run_name=${run_name##*/}
  while IFS=$'\t' read -r _ id status seconds timeout_s _; do
    case "${status}" in
      pass | fail) recorded_s[${id}]=${seconds} recorded_from[${id}]="recorded ${run_name}" ;;
      timeout) recorded_s[${id}]=$((2 * timeout_s)) recorded_from[${id}]="2 x timeout ${run_name}" ;;
    esac
    [[ "${status}" != pass ]] || passed_in[${id}]=${run_name}
  done < <(tail -n +2 "${steps_file}")
done < <(for d in "${reference_dirs[@]}"; do
  find "${d}/${device}" -mindepth 2 -maxdepth 2 -name STEPS.tsv 2> /dev/null
done | awk -F/ '{ print $(NF - 1) "\t" $0 }' | sort | cut -f2-)

expected_s() {  # expected_s INDEX: the recorded seconds, else the estimate
  local id=${plan_id[$1]}
  echo "${recorded_s[${id}]:-${plan_est[$1]}}"
}
expected_from() {
  local id=${plan_id[$1]}
  echo "${recorded_from[${id}]:-estimate}"
}
# selected INDEX: whether --only and --stages take the step, a rotation
# step has not passed on this device before, and the bundle holds the
# step's binaries. Prints why not, if not.
selected() {
  local id=${plan_id[$1]} stage=${plan_stage[$1]} missing
  if [[ -n "${only}" ]]; then
    [[ ",${only}," == *",${id},"* ]] || { echo "not in --only"; return 1; }
    return 0
  fi
  [[ ",${stages}," == *",${stage},"* ]] || { echo "stage not in --stages"; return 1; }
  if [[ "${stage}" == rotation && -n "${passed_in[${id}]:-}" ]]; then
    echo "already passed in ${device}/${passed_in[${id}]}"
    return 1
  fi
  missing=$(missing_binary "$1")
  [[ -z "${missing}" ]] || { echo "not in this bundle (${missing})"; return 1; }
}

if ((dry_run)); then
  left=$((budget_s - reserve_s))
  echo "plan for ${device}: budget ${budget_s} s, ${reserve_s} s reserved, plan ${plan_dir}, records in ${reference_dirs[*]:-none}"
  printf '%-12s %-40s %8s  %-28s %s\n' stage id expected from action
  for i in "${!plan_id[@]}"; do
    e=$(expected_s "${i}")
    if ! why=$(selected "${i}"); then
      action="skip: ${why}"
    elif ((e > left)); then
      action="next time: needs ${e} s, ${left} s left"
    else
      action=run
      left=$((left - e))
    fi
    printf '%-12s %-40s %8s  %-28s %s\n' "${plan_stage[$i]}" "${plan_id[$i]}" "${e}" "$(expected_from "${i}")" "${action}"
  done
  exit 0
fi

# --- The run. -------------------------------------------------------------
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
results_init first_contact.sh "${outdir}"
check_host_libs
write_machine "${out}"
t0=${SECONDS}
printf 'stage\tid\tstatus\tseconds\ttimeout_s\texpected_s\tfrom\n' > "${out}/STEPS.tsv"
declare -A count=([pass]=0 [fail]=0 [timeout]=0 [deferred]=0)
next_time=() not_passed=() not_in_bundle=() skipped_rotation=0
smoke_failed=""  # the first GPU test that failed, for memcheck

left_s() { echo $((budget_s - reserve_s - (SECONDS - t0))); }

# run_step INDEX: runs the step if its expected length fits what is left,
# its command line into COMMANDS and its output into <stage>/<id>.log.
run_step() {
  local i=$1 id=${plan_id[$1]} stage=${plan_stage[$1]} e from left timeout_s
  local dir log json start secs rc status w
  local -a words
  e=$(expected_s "${i}")
  from=$(expected_from "${i}")
  left=$(left_s)
  if ((e > left)); then
    count[deferred]=$((count[deferred] + 1))
    next_time+=("    ${id} (${stage}): needs ${e} s (${from}), ${left} s were left")
    printf '%s\t%s\tdeferred\t-\t-\t%s\t%s\n' "${stage}" "${id}" "${e}" "${from}" >> "${out}/STEPS.tsv"
    return 0
  fi
  timeout_s=$((3 * e > e + step_slack_s ? 3 * e : e + step_slack_s))
  ((timeout_s <= left)) || timeout_s=${left}
  dir=${out}/${stage}/${id}
  log=${out}/${stage}/${id}.log
  json=${out}/${stage}/${id}.json
  mkdir -p "${dir}"
  eval "words=(${plan_words[$i]})"
  for w in "${!words[@]}"; do
    words[w]=${words[w]//\{dir\}/${dir}}
    words[w]=${words[w]//\{json\}/${json}}
  done
  publish "running ${id} (${stage}, timeout ${timeout_s} s) since $(date -u +%H:%M:%SZ); if this line stays, the run was cut during it (the archive holds the steps before)"
  echo "timeout -k 5 ${timeout_s} $(printf '%q ' "${words[@]}")" >> "${out}/COMMANDS"
  printf '# %s\n' "$(printf '%q ' "${words[@]}")" > "${log}"
  start=${SECONDS}
  timeout -k 5 "${timeout_s}" "${words[@]}" >> "${log}" 2>&1 < /dev/null
  rc=$?
  secs=$((SECONDS - start))
  if ((rc == 0)); then
    status=pass
    summary "PASS ${id} (${secs} s)"
  elif ((rc == 124 || rc == 137)) && ((secs >= timeout_s)); then
    status=timeout
    summary "TIMEOUT ${id} (killed after ${timeout_s} s, expected ${e} s from ${from}; ${log#"${out}/"})"
    failure_lines "${log}"
  else
    status=fail
    summary "FAIL ${id} (${secs} s, exit ${rc}; ${log#"${out}/"})"
    failure_lines "${log}"
  fi
  count[${status}]=$((count[${status}] + 1))
  [[ "${status}" == pass || "${id}" == memcheck_* ]] || not_passed+=("${id}")
  if [[ "${status}" != pass && "${stage}" == correctness && "${id}" != facts && -z "${smoke_failed}" ]]; then
    smoke_failed=${i}
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${stage}" "${id}" "${status}" "${secs}" "${timeout_s}" "${e}" "${from}" >> "${out}/STEPS.tsv"
  rmdir "${dir}" 2> /dev/null
  pack "after ${id}"
}

# memcheck_step: the first failing GPU test again under compute-sanitizer,
# expected to take ten times as long (at least 30 s).
memcheck_step() {
  [[ -n "${smoke_failed}" ]] || return 0
  if ! command -v compute-sanitizer > /dev/null; then
    summary "no compute-sanitizer on PATH: no memcheck of ${plan_id[${smoke_failed}]}"
    return 0
  fi
  local -a words
  eval "words=(${plan_words[${smoke_failed}]})"
  local secs=${recorded_s[${plan_id[${smoke_failed}]}]:-${kSmokeEstimateS}}
  add_step correctness "memcheck_${plan_id[${smoke_failed}]}" $((10 * secs > 30 ? 10 * secs : 30)) \
    "${words[@]:0:2}" compute-sanitizer --tool memcheck --error-exitcode 1 "${words[@]:2}"
  run_step $((${#plan_id[@]} - 1))
}

# context_value FILE KEY: a string value of a result file's context.
context_value() {
  sed -n "s/^ *\"$2\": \"\([^\"]*\)\".*/\1/p" "$1" 2> /dev/null | head -1
}

# write_facts: FACTS.txt and SUMMARY.txt's facts line, from nvidia-smi and
# the context of the first smoke run's result file.
write_facts() {
  local fields=name,pci.device_id,vbios_version,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,power.limit,temperature.gpu,persistence_mode,compute_mode,clocks_event_reasons.active
  local result
  result=$(find "${out}/correctness" -name '*.json' 2> /dev/null | sort | head -1)
  {
    echo "# nvidia-smi --query-gpu=${fields} --format=csv"
    # A driver that lacks one field refuses the whole query: then the
    # fields every driver has (nvidia-smi -q in correctness/facts.log has
    # the rest).
    nvidia-smi --query-gpu="${fields}" --format=csv 2>&1 ||
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv 2>&1
    echo "# the context of ${result#"${out}/"}"
    [[ -z "${result}" ]] || grep -E '"(device_[a-z0-9_]+|driver_version|runtime_version|git_commit|build_[a-z_]+)":' "${result}" | sed 's/^ *//'
  } > "${out}/FACTS.txt"
  local line key value
  line="device ${device}: $(nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader 2> /dev/null | head -1)"
  for key in device_sm_count device_sm_clock_max_khz device_l2_bytes driver_version runtime_version; do
    value=$(context_value "${result}" "${key}")
    [[ -z "${value}" ]] || line+="; ${key} ${value}"
  done
  summary "${line}"
}

for stage in correctness headline rotation; do
  for i in "${!plan_id[@]}"; do
    [[ "${plan_stage[$i]}" == "${stage}" ]] || continue
    if why=$(selected "${i}"); then
      run_step "${i}"
    elif [[ "${why}" == already* ]]; then
      skipped_rotation=$((skipped_rotation + 1))
    elif [[ "${why}" == "not in this bundle"* ]]; then
      not_in_bundle+=("${plan_id[$i]}")
    fi
  done
  if [[ "${stage}" == correctness ]]; then
    write_facts
    memcheck_step
  fi
done

status=0
((count[fail] + count[timeout] == 0)) || status=1
verdict="no verdict (no dist/bin/verdict)"
if [[ -x dist/bin/verdict ]]; then
  publish "running the verdict"
  echo "dist/bin/verdict ${out}" >> "${out}/COMMANDS"
  timeout -k 2 "$((reserve_s / 2 > 1 ? reserve_s / 2 : 1))" dist/bin/verdict "${out}" \
    > "${out}/VERDICT.md" 2> "${out}/verdict.log" < /dev/null
  rc=$?
  verdict=$(head -1 "${out}/VERDICT.md")
  case "${rc}" in
    0) ;;
    1) status=1 ;;
    *) verdict="verdict failed (exit ${rc}; verdict.log: $(tail -n 1 "${out}/verdict.log"))" status=1 ;;
  esac
fi
((${#next_time[@]} == 0)) || summary "next time (did not fit this budget):" "${next_time[@]}"
((${#not_in_bundle[@]} == 0)) ||
  summary "not in this bundle, not run (tools/bundle.sh --experiments left their binaries out): $(IFS=,; echo "${not_in_bundle[*]}")"
((skipped_rotation == 0)) || summary "rotation: ${skipped_rotation} step(s) already passed in a committed run of ${device}"
((${#not_passed[@]} == 0)) || summary "again on what did not pass: tools/first_contact.sh OUTDIR --only=$(IFS=,; echo "${not_passed[*]}")"
run_dir=analysis/reference/${device}/$(date -u +%Y-%m-%d)
if [[ -n "${results_pack_dir}" ]]; then
  summary "commit: mkdir -p ${run_dir} && cat ${results_name}.tar.gz* | tar xzf - --strip-components=1 -C ${run_dir}"
else
  summary "commit: mkdir -p ${run_dir} && cp -r ${out}/. ${run_dir}/"
fi
finish_state="${verdict}; finished in $((SECONDS - t0)) s of ${budget_s}, exit status ${status}; steps: ${count[pass]} passed, ${count[fail]} failed, ${count[timeout]} timed out, ${count[deferred]} next time"
pack "${finish_state}"
exit "${status}"
