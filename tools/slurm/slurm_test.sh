#!/usr/bin/env bash
# A real Slurm test of tools/slurm: starts a one-node Slurm cluster on
# loopback (Debian's munge, slurmctld and slurmd, installed with apt-get when
# missing; run as root), with its slurm.conf, munge key, state, spool and
# logs in a temporary folder (nothing under /etc is written), submits the
# nightly job array with tools/slurm/submit_nightly.sh (3 tasks of a CPU-only
# selftest sweep, no gres; task 2's sweep has a crashing entry) and the
# after-night job, waits for both under a time limit, and checks that
#   - every task's run folder landed (manifest.json, shard.status),
#   - every run was ingested into the history database, the failing shard's
#     good entries included,
#   - the failing shard is reported as failed in summary.md and its job's exit
#     status, the two others as done,
#   - the after-night job reports the failure (exit 1), and a task that never
#     ran is reported missing;
# then a second night with one card twice as slow, which must be reported
# as a regression (summary, JUnit, exit 1), and a third night whose task is
# requeued (scontrol requeue) while its second entry runs: the rerun must
# resume the run folder (first entry kept, second run again).
# The daemons are stopped on exit; daemons left by an earlier aborted run
# (recorded in $SLURM_TEST_PIDS) are stopped first.
#
# Usage: slurm_test.sh --sweep_bin=PATH --selftest_bin=PATH --ingest_bin=PATH
#                      --compare_bin=PATH --outliers_bin=PATH [--dashboard_bin=PATH]
# (the Bazel target //tools/slurm:slurm_test passes them). They are linked
# into a bundle-like dist/bin, which the scripts use as a site would.
#
# Environment: SLURM_TEST_TIMEOUT_S (the wait for the jobs, default 180),
# SLURM_TEST_KEEP=1 keeps the temporary folder, SLURM_TEST_PIDS (default
# /tmp/dissect-slurm-test.pids).
set -euo pipefail

log() { echo "slurm_test: $*" >&2; }
die() { log "FAIL: $*"; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
submit="${here}/submit_nightly.sh"
[[ -f "${submit}" && -f "${here}/nightly.sbatch" && -f "${here}/after_night.sbatch" ]] \
  || die "tools/slurm scripts not found beside ${BASH_SOURCE[0]}"

abspath() { [[ "$1" == /* ]] && printf '%s\n' "$1" || printf '%s\n' "${PWD}/$1"; }

tools=(sweep selftest ingest compare outliers)
declare -A bin=()
for arg in "$@"; do
  name=${arg%%=*}; name=${name#--}; name=${name%_bin}
  if [[ "${arg}" == --*_bin=* && " ${tools[*]} dashboard " == *" ${name} "* ]]; then
    bin[${name}]=${arg#*=}
  else
    log "unknown argument '${arg}'"; exit 2
  fi
done
for name in "${tools[@]}"; do
  [[ -n "${bin[${name}]:-}" ]] || { log "--${name}_bin=PATH is required"; exit 2; }
  bin[${name}]=$(abspath "${bin[${name}]}")
  [[ -f "${bin[${name}]}" && -x "${bin[${name}]}" ]] \
    || { log "--${name}_bin: ${bin[${name}]} is not an executable file"; exit 2; }
done
timeout_s=${SLURM_TEST_TIMEOUT_S:-180}
pids_file=${SLURM_TEST_PIDS:-/tmp/dissect-slurm-test.pids}

# --- packages ---
need=()
command -v munged > /dev/null || need+=(munge)
command -v slurmctld > /dev/null || need+=(slurmctld)
command -v slurmd > /dev/null || need+=(slurmd)
command -v sbatch > /dev/null || need+=(slurm-client)
command -v sqlite3 > /dev/null || need+=(sqlite3)
command -v jq > /dev/null || need+=(jq)
if (( ${#need[@]} > 0 )); then
  (( EUID == 0 )) || die "missing ${need[*]} and not root: apt-get install ${need[*]}"
  log "installing ${need[*]} (apt-get)"
  # The packages' own services are never used (this test starts its daemons
  # with its own configuration): keep their postinst from starting them
  # where no policy-rc.d does already (Docker images have one).
  policy=/usr/sbin/policy-rc.d
  if [[ ! -e "${policy}" ]]; then
    printf '#!/bin/sh\n# slurm_test.sh: no services started while it installs packages\nexit 101\n' > "${policy}"
    chmod 755 "${policy}"
    trap 'rm -f "${policy}"' EXIT
  else
    policy=""
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt_log=$(mktemp /tmp/dissect-slurm-apt.XXXXXX)
  timeout 300 apt-get install -y --no-install-recommends "${need[@]}" > "${apt_log}" 2>&1 \
    || { timeout 120 apt-get update > /dev/null 2>&1 || true;
         timeout 300 apt-get install -y --no-install-recommends "${need[@]}" > "${apt_log}" 2>&1; } \
    || { tail -n 20 "${apt_log}" >&2; die "apt-get install ${need[*]} failed"; }
  rm -f "${apt_log}"
  [[ -z "${policy}" ]] || { rm -f "${policy}"; trap - EXIT; }
fi
(( EUID == 0 )) || die "must run as root (slurmd runs the jobs as their user and needs root)"

# --- processes of this or an earlier aborted run ---
# A test's processes (munged, slurmctld, slurmd, slurmstepd, the jobs) all
# name its temporary folder in their command line or environment
# (SLURM_CONF). $SLURM_TEST_PIDS holds "TEST_PID FOLDER" lines, one per test
# run; a folder whose test process is gone belongs to an aborted run.
marked_pids() {  # FOLDER: pids (not this shell's) that name FOLDER
  local dir pid text
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [[ "${pid}" != "$$" && "${pid}" != "${BASHPID}" ]] || continue
    text=$( { tr '\0' '\n' < "${dir}/cmdline"; tr '\0' '\n' < "${dir}/environ"; } 2>/dev/null) || true
    [[ "${text}" != *"$1"* ]] || echo "${pid}"
  done
}
stop_marked() {  # FOLDER: TERM, then KILL after 5 s
  local pids pid
  mapfile -t pids < <(marked_pids "$1")
  (( ${#pids[@]} > 0 )) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 50); do
    for pid in "${pids[@]}"; do kill -0 "${pid}" 2>/dev/null && break; pid=""; done
    [[ -n "${pid}" ]] || break
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
}
if [[ -f "${pids_file}" ]]; then
  while read -r test_pid dir; do
    [[ "${test_pid}" =~ ^[0-9]+$ && "${dir}" == /tmp/dissect-slurm.* ]] || continue
    kill -0 "${test_pid}" 2>/dev/null && continue  # still running: not ours to stop
    log "stopping the processes of an aborted run (${dir})"
    stop_marked "${dir}/"
    rm -rf "${dir}"
  done < "${pids_file}"
  # Keep only the lines of runs still going.
  while read -r test_pid dir; do
    kill -0 "${test_pid}" 2>/dev/null && echo "${test_pid} ${dir}"
  done < "${pids_file}" > "${pids_file}.$$" || true
  mv -f "${pids_file}.$$" "${pids_file}"
fi

tmp=$(mktemp -d /tmp/dissect-slurm.XXXXXX)  # short: the munge socket path must fit
chmod 755 "${tmp}"
echo "$$ ${tmp}" >> "${pids_file}"
show_logs() {
  local f
  for f in "${tmp}"/log/* "${tmp}"/results/*/slurm/* "${tmp}"/results/*/summary.md; do
    [[ -f "${f}" ]] || continue
    echo "----- ${f} (last 40 lines)" >&2
    tail -n 40 "${f}" >&2
  done
}
cleanup() {
  local rc=$?
  (( rc == 0 )) || show_logs
  # Cancel what is still queued or running, give slurmd a moment to end the
  # steps, then stop everything that names the folder (slurmd, slurmctld,
  # munged, slurmstepd, jobs).
  if [[ -n "${SLURM_CONF:-}" ]] && [[ -n "$(timeout 5 squeue -h -o %i 2>/dev/null || true)" ]]; then
    timeout 5 scancel --full --quiet --partition=dissect 2>/dev/null || true
    sleep 2
  fi
  stop_marked "${tmp}/"
  # This run's line out of the pids file (others' lines stay).
  if [[ -f "${pids_file}" ]]; then
    grep -vxF -- "$$ ${tmp}" "${pids_file}" > "${pids_file}.$$" || true
    if [[ -s "${pids_file}.$$" ]]; then mv -f "${pids_file}.$$" "${pids_file}"; else rm -f "${pids_file}" "${pids_file}.$$"; fi
  fi
  if [[ "${SLURM_TEST_KEEP:-0}" == 1 ]]; then
    log "kept ${tmp}"
  else
    rm -rf "${tmp}"
  fi
  exit "${rc}"
}
trap cleanup EXIT
# Bazel stops a test past its timeout with SIGTERM: clean up then too.
trap 'exit 143' TERM INT

mkdir -p "${tmp}"/{run,log,state,spool,munge,sweeps,results,dist/bin,dist/lib}
chmod 700 "${tmp}/munge"

# --- a bundle as tools/bundle.sh lays it out (dist/bin, dist/lib): the
# scripts' default way to find the binaries ---
# The dashboard is optional (--dashboard_bin): checked when given.
if [[ -n "${bin[dashboard]:-}" ]]; then
  bin[dashboard]=$(abspath "${bin[dashboard]}")
  [[ -f "${bin[dashboard]}" && -x "${bin[dashboard]}" ]] \
    || { log "--dashboard_bin: ${bin[dashboard]} is not an executable file"; exit 2; }
  tools+=(dashboard)
fi
for name in "${tools[@]}"; do
  ln -s "${bin[${name}]}" "${tmp}/dist/bin/${name}"
done

# --- ports: two free ones ---
port_free() { ! (exec 3<> "/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ports=()
base=$(( 20000 + ($$ * 7) % 20000 ))
for (( p = base; p < base + 2000 && ${#ports[@]} < 2; p++ )); do
  port_free "${p}" && ports+=("${p}")
done
(( ${#ports[@]} == 2 )) || die "no two free TCP ports from ${base}"

# --- munge ---
head -c 1024 /dev/urandom > "${tmp}/munge/munge.key"
chmod 400 "${tmp}/munge/munge.key"
munged --force --key-file="${tmp}/munge/munge.key" --socket="${tmp}/run/munge.sock" \
  --pid-file="${tmp}/run/munged.pid" --log-file="${tmp}/log/munged.log" \
  --seed-file="${tmp}/munge/seed" || die "munged did not start"

# --- slurm.conf ---
host=$(hostname -s)
cat > "${tmp}/slurm.conf" <<EOF
# One-node test cluster of tools/slurm/slurm_test.sh.
ClusterName=dissecttest
SlurmctldHost=${host}(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthType=auth/munge
AuthInfo=socket=${tmp}/run/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=${tmp}/state
SlurmdSpoolDir=${tmp}/spool
SlurmctldPidFile=${tmp}/run/slurmctld.pid
SlurmdPidFile=${tmp}/run/slurmd.pid
SlurmctldLogFile=${tmp}/log/slurmctld.log
SlurmdLogFile=${tmp}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# The node claims 4 CPUs whatever the machine has: the three tasks and the
# after-night job may run side by side.
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=dissectnode NodeAddr=127.0.0.1 NodeHostname=${host} CPUs=4 State=UNKNOWN
PartitionName=dissect Nodes=dissectnode Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="${tmp}/slurm.conf"

slurmctld -i || die "slurmctld did not start"
for _ in $(seq 50); do [[ -s "${tmp}/run/slurmctld.pid" ]] && break; sleep 0.1; done
slurmd -N dissectnode || die "slurmd did not start"
for _ in $(seq 50); do [[ -s "${tmp}/run/slurmd.pid" ]] && break; sleep 0.1; done

state=""
for _ in $(seq 60); do
  state=$(timeout 5 sinfo -h -n dissectnode -o %T 2>/dev/null || true)
  [[ "${state}" == idle ]] && break
  sleep 0.5
done
[[ "${state}" == idle ]] || die "the node is not idle after 30 s (state '${state}')"
log "cluster up: slurmctld :${ports[0]}, slurmd :${ports[1]}, node ${state}"

# --- sweeps: tasks 0 and 1 finish, task 2 has a crashing entry ---
# The runner's run_id is <host>-<GPU uuid, else device index>-<start second>:
# without NVML every task here is "vm-0-<second>", so the tasks run one at a
# time (--array=0-2%1) and each lasts over a second (3 points x 400 ms), or
# two shards starting in the same second would share a run_id and be merged
# by the ingest. On GPU nodes the uuid keeps them apart.
ok_entry='{"id": "ok", "experiment": "selftest", "axes": {"point": "1:3:+1"}, "args": ["--selftest_ms=400"]}'
crash_entry='{"id": "crash", "experiment": "selftest", "axes": {"point": "1:4:+1"}, "args": ["--selftest_crash_at=3", "--selftest_ms=10"]}'
write_sweep() {  # FILE ENTRIES
  cat > "$1" <<EOF
{
  "format": "dissect.sweep.v1",
  "name": "slurm_selftest",
  "description": "tools/slurm/slurm_test.sh: CPU-only selftest entries",
  "defaults": {"samples": 1, "warmup": 0, "time_limit_s": 30, "cooldown_s": 0},
  "needs_gpu": false,
  "entries": [$2]
}
EOF
}
write_sweep "${tmp}/sweeps/task_0.json" "${ok_entry}"
write_sweep "${tmp}/sweeps/task_1.json" "${ok_entry}"
write_sweep "${tmp}/sweeps/task_2.json" "${ok_entry}, ${crash_entry}"

# --- submit and wait (bounded: $timeout_s for all nights together) ---
deadline=$(( SECONDS + timeout_s ))
array_job="" after_job=""
submit_night() {  # NIGHT ARRAY SWEEP: sets array_job, after_job; waits for both
  local out queued
  out=$(cd "${tmp}" && \
    DISSECT_RESULTS="${tmp}/results" DISSECT_NIGHT="$1" DISSECT_ARRAY="$2" \
    DISSECT_PARTITION=dissect DISSECT_GRES="" DISSECT_CPUS=1 DISSECT_TIME=00:05:00 \
    DISSECT_AFTER_TIME=00:05:00 DISSECT_SWEEP="$3" \
    DISSECT_DIST="${tmp}/dist" DISSECT_DB="${tmp}/results/history.sqlite" \
    "${submit}") || die "submit_nightly.sh failed"
  array_job=$(sed -n 's/^array=//p' <<< "${out}")
  after_job=$(sed -n 's/^after=//p' <<< "${out}")
  [[ "${array_job}" =~ ^[0-9]+$ && "${after_job}" =~ ^[0-9]+$ ]] \
    || die "submit_nightly.sh printed no job ids: ${out}"
  log "night $1: submitted array ${array_job} (tasks $2) and after-night ${after_job}"
  (( ${wait_for_jobs:-1} == 0 )) || wait_jobs
}
wait_jobs() {  # until the queue is empty, bounded by the deadline
  local queued
  while true; do
    queued=$(timeout 10 squeue -h -o '%i %T' 2>/dev/null) || queued="(squeue failed)"
    [[ -z "${queued}" ]] && break
    (( SECONDS < deadline )) || { log "still queued:"; echo "${queued}" >&2; die "jobs did not finish in ${timeout_s} s"; }
    sleep 1
  done
  log "all jobs ended ($(( SECONDS - deadline + timeout_s )) s into the test's wait)"
}
night=test-night
submit_night "${night}" 0-2%1 "${tmp}/sweeps/task_%a.json"

job_exit() {  # JOB_ID: its ExitCode (status:signal)
  timeout 10 scontrol show job "$1" 2>/dev/null | grep -o ' ExitCode=[0-9]*:[0-9]*' | head -n 1 | cut -d= -f2
}

# --- checks ---
failures=0
check() {  # MESSAGE CONDITION...
  local msg=$1; shift
  if "$@"; then log "ok: ${msg}"; else log "FAILED: ${msg}"; failures=$((failures + 1)); fi
}
night_dir="${tmp}/results/${night}"
db="${tmp}/results/history.sqlite"
for t in 0 1 2; do
  dir="${night_dir}/${host}-${t}"
  check "task ${t}'s manifest landed in ${host}-${t}/" test -s "${dir}/manifest.json"
  check "task ${t}'s shard.status landed" test -s "${dir}/shard.status"
done
status_of() { sed -n "s/^$2=//p" "${night_dir}/${host}-$1/shard.status" 2>/dev/null; }
check "tasks 0 and 1 done with exit 0" \
  test "$(status_of 0 state) $(status_of 0 exit) $(status_of 1 state) $(status_of 1 exit)" = "done 0 done 0"
check "task 2 failed with the runner's exit 1" test "$(status_of 2 state) $(status_of 2 exit)" = "failed 1"
check "Slurm saw task 2 fail (ExitCode 1:0) and tasks 0, 1 succeed" \
  test "$(job_exit "${array_job}_0") $(job_exit "${array_job}_1") $(job_exit "${array_job}_2")" = "0:0 0:0 1:0"
check "the after-night job reported the failure (ExitCode 1:0)" test "$(job_exit "${after_job}")" = "1:0"

summary="${night_dir}/summary.md"
check "summary.md written" test -s "${summary}"
check "summary: task 2 failed, its crash entry named" grep -qE '^\| 2 \| [^|]*-2 \| failed \| 1 \| .*crash: failed' "${summary}"
check "summary: tasks 0 and 1 done" bash -c "grep -qE '^\| 0 \| [^|]*-0 \| done \| 0 \|' '${summary}' && grep -qE '^\| 1 \| [^|]*-1 \| done \| 0 \|' '${summary}'"
check "summary: 3 of 3 landed, ingest ok" bash -c "grep -q '^landed: 3 of 3' '${summary}' && grep -q '^ok: 3 run folder' '${summary}'"

# Every shard's run is in the database, the failing one's too.
runs_in_db=$(sqlite3 -readonly "${db}" 'SELECT run_id FROM runs ORDER BY run_id;' 2>/dev/null || true)
check "3 distinct runs in the database" test "$(grep -c . <<< "${runs_in_db}")" = 3
for t in 0 1 2; do
  run_id=$(grep -o '"run_id": *"[^"]*"' "${night_dir}/${host}-${t}/manifest.json" 2>/dev/null | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
  check "task ${t}'s run ${run_id:-?} ingested" grep -qxF -- "${run_id:-no run id}" <<< "${runs_in_db}"
  if sqlite3 -readonly "${db}" 'SELECT 1 FROM measurements LIMIT 1;' > /dev/null 2>&1; then
    n=$(sqlite3 -readonly "${db}" "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id WHERE r.run_id = '${run_id}';")
    check "task ${t}'s points kept in the database (${n})" test "${n}" -ge 3
  fi
done

check "regression: every run folder has a verdict" \
  test "$(grep -cE '^\| [^|]+-[0-2] \| [^|]+ \| (no regression|not checked)' "${summary}")" = 3
check "regression: the crashed task's unmeasured entries are named, not called a regression" \
  grep -qE '^\| [^|]+-2 \| [^|]+ \| no regression; entries not measured' "${summary}"
check "outliers checked (outliers.md, outliers.xml)" \
  bash -c "test -s '${night_dir}/outliers.md' && test -s '${night_dir}/outliers.xml' && grep -q '^none (outliers.md)' '${summary}'"

# A task that never ran (the node was down all night) is reported missing:
# the after-night script again on the same night, expecting tasks 0-3.
rc=0
(cd "${tmp}" && DISSECT_RESULTS="${tmp}/results" DISSECT_NIGHT="${night}" DISSECT_ARRAY=0-3 \
  DISSECT_DIST="${tmp}/dist" DISSECT_DB="${tmp}/results/history.sqlite" \
  bash "${here}/after_night.sbatch" > "${tmp}/after_missing.out" 2>&1) || rc=$?
check "a task that never ran is reported missing (exit 1, 3 of 4 landed)" \
  bash -c "test ${rc} = 1 && grep -qE '^\| 3 \| \| missing \|' '${summary}' && grep -q '^landed: 3 of 4' '${summary}'"

# --- a second night: one card twice as slow is a regression against the
# first night's runs of its device ---
write_sweep "${tmp}/sweeps/slow.json" "${ok_entry//400/800}"
night2=test-night-2
submit_night "${night2}" 0 "${tmp}/sweeps/slow.json"
summary2="${tmp}/results/${night2}/summary.md"
check "night 2: landed and ingested" \
  bash -c "grep -q '^landed: 1 of 1' '${summary2}' && grep -q '^ok: 1 run folder' '${summary2}'"
check "night 2: the slower run is reported as a regression" grep -qE '^\| [^|]+-0 \| [^|]+ \| REGRESSION' "${summary2}"
check "night 2: its JUnit has a failure" grep -q '<failure' "${tmp}/results/${night2}/regression-${host}-0.xml"
check "night 2: the after-night job failed on it (ExitCode 1:0)" test "$(job_exit "${after_job}")" = "1:0"
check "night 2: the array task itself succeeded (ExitCode 0:0)" test "$(job_exit "${array_job}_0")" = "0:0"
if [[ -n "${bin[dashboard]:-}" ]]; then
  check "the dashboard was written after each night" \
    bash -c "grep -q '^written: ' '${summary}' && grep -q '^written: ' '${summary2}' && test -s '${tmp}/results/dashboard/index.html'"
fi
check "4 runs in the database after two nights" \
  test "$(sqlite3 -readonly "${db}" 'SELECT count(*) FROM runs;' 2>/dev/null)" = 4

# --- a third night: the task is requeued (node failure, preemption) while
# its second entry runs; the rerun resumes the run folder ---
write_sweep "${tmp}/sweeps/requeue.json" "${ok_entry//400/100},
  {\"id\": \"long\", \"experiment\": \"selftest\", \"axes\": {\"point\": \"1:8:+1\"}, \"args\": [\"--selftest_ms=500\"]}"
night3=test-night-3
shard3="${tmp}/results/${night3}/${host}-0"
wait_for_jobs=0 submit_night "${night3}" 0 "${tmp}/sweeps/requeue.json"
until [[ -f "${shard3}/long.log" ]]; do
  (( SECONDS < deadline )) || die "night 3: the long entry never started"
  sleep 0.2
done
sleep 1
timeout 10 scontrol requeue "${array_job}_0" || die "scontrol requeue ${array_job}_0 failed"
log "night 3: requeued ${array_job}_0 while its entry 'long' ran"
# Slurm holds a requeued job back for a while (BeginTime): start it now.
for _ in $(seq 50); do
  [[ "$(timeout 5 squeue -h -j "${array_job}_0" -o %T 2>/dev/null)" == PENDING ]] && break
  sleep 0.2
done
timeout 10 scontrol update JobId="${array_job}_0" StartTime=now || die "scontrol update StartTime=now failed"
wait_jobs
manifest3="${shard3}/manifest.json"
check "night 3: the requeued task finished (done 0)" \
  test "$(sed -n 's/^state=//p' "${shard3}/shard.status") $(sed -n 's/^exit=//p' "${shard3}/shard.status")" = "done 0"
check "night 3: the rerun kept the finished entry (ok, 1 attempt) and reran the interrupted one (ok, 2 attempts)" \
  test "$(jq -r '[.entries[] | "\(.id):\(.status):\(.attempts)"] | join(" ")' "${manifest3}" 2>/dev/null)" = "ok:ok:1 long:ok:2"

(( failures == 0 )) || die "${failures} check(s) failed"
log "PASS"
