# shellcheck shell=bash
# Sourced by tools/reference_run.sh and tools/device_checks.sh on the GPU
# machine, in the repository root with the unpacked bundle (dist/) there.
# Sets LD_LIBRARY_PATH and defines:
#   results_init  where the results go, packed for the device tool (below)
#   check_host_libs  stops where the host's glibc or libstdc++ is too old
#   write_machine  OUTDIR/MACHINE: commit, time, host libraries, GPU and
#                  clocks as nvidia-smi reports them
#   record        a command line appended verbatim to OUTDIR/COMMANDS
#                 before it runs, its output into a log file
#   summary, publish, pack, finish  SUMMARY.txt and the archive
#   bundled       whether the bundle holds a binary, else a FAIL line
#
# The device tool brings back at most 8 files from $OUT, 16 MiB each, at
# most 2 folders down. So when OUTDIR lies under $OUT, the results are
# written outside it (${DISSECT_WORKDIR:-${TMPDIR:-/tmp}}/dissect.XXXXXX/NAME,
# NAME being OUTDIR's last component) and OUTDIR receives only SUMMARY.txt
# and NAME.tar.gz, which unpacks into NAME/ (split into NAME.tar.gz.part-00,
# -01, ... of 15 MiB when larger; SUMMARY.txt says how to join them). Both
# are rewritten after every step, each file under a temporary name first,
# so that a command cut at its time limit leaves the steps finished before.
# Elsewhere the results are written to OUTDIR itself, with SUMMARY.txt.

# dist/lib first; the toolkit's lib64 for cuBLAS and CUPTI, not bundled.
export LD_LIBRARY_PATH="${PWD}/dist/lib:${CUDA_PATH:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
source "$(dirname "${BASH_SOURCE[0]}")/glibc_versions.sh"

readonly kPartBytes=$((15 * 1024 * 1024))
out=""                # where the results are written
results_script=""     # the script's name, in messages and SUMMARY.txt
results_name=""       # OUTDIR's last component
results_pack_dir=""   # OUTDIR when packing, else empty
results_archive=""    # SUMMARY.txt's lines on the archive, once packed
summary_lines=()

# results_init SCRIPT OUTDIR: sets out, the folder the results are written
# to, and makes it. Exit 2 on an OUTDIR the device tool could not bring back.
results_init() {
  results_script=$1
  local outdir=$2 base rel
  results_name=$(basename "${outdir}")
  out=${outdir}
  if [[ -n "${OUT:-}" ]]; then
    base=$(realpath -m "${OUT}")
    rel=$(realpath -m "${outdir}")
    if [[ "${rel}" == "${base}" || "${rel}" == "${base}/"* ]]; then
      rel=${rel#"${base}"}
      rel=${rel#/}
      if [[ -z "${rel}" || "${rel}" == */*/* || ! "${rel}" =~ ^[A-Za-z0-9._/-]+$ ]]; then
        echo "${results_script}: OUTDIR must be a folder one or two levels under \$OUT named in letters, digits, '.', '_' and '-' (the device tool brings back no other), not '${outdir}'" >&2
        exit 2
      fi
      results_pack_dir=${outdir}
      mkdir -p "${results_pack_dir}" "${DISSECT_WORKDIR:-${TMPDIR:-/tmp}}" || exit 2
      out=$(mktemp -d "${DISSECT_WORKDIR:-${TMPDIR:-/tmp}}/dissect.XXXXXX")/${results_name} || exit 2
      echo "${results_script}: results in ${out}, packed into ${outdir}/${results_name}.tar.gz after each step" >&2
    fi
  fi
  mkdir -p "${out}" || exit 2
}

summary() {  # summary LINE...: lines for SUMMARY.txt, in order
  summary_lines+=("$@")
}

# write_atomically FILE: stdin into FILE, through a temporary name beside it.
write_atomically() {
  local dir tmp
  dir=$(dirname "$1")
  tmp=$(mktemp "${dir}/.tmp.XXXXXX") || return 1
  if ! { cat > "${tmp}" && chmod 0644 "${tmp}" && mv -f "${tmp}" "$1"; }; then
    rm -f "${tmp}"
    return 1
  fi
}

summary_text() {  # summary_text STATE [MORE LINES...]
  local lines=("${results_script} ${results_name}: $1" "${summary_lines[@]}")
  shift
  printf '%s\n' "${lines[@]}" "$@"
}

# publish STATE: SUMMARY.txt with STATE on its first line (in the results,
# and in OUTDIR when packing), the archive left as it is.
publish() {
  summary_text "$1" > "${out}/SUMMARY.txt"
  [[ -z "${results_pack_dir}" ]] ||
    summary_text "$1" ${results_archive:+"${results_archive}"} | write_atomically "${results_pack_dir}/SUMMARY.txt"
}

# pack STATE: publish STATE, then pack the results into OUTDIR (when
# packing) and publish again with the lines on the archive.
pack() {
  publish "$1"
  [[ -n "${results_pack_dir}" ]] || return 0
  local work archive size parts=() part
  work=$(dirname "${out}")
  archive=${work}/${results_name}.tar.gz
  if ! tar czf "${archive}" -C "${work}" "${results_name}"; then
    echo "${results_script}: packing ${out} failed; ${results_pack_dir} keeps the last archive" >&2
    return 1
  fi
  size=$(stat -c %s "${archive}")
  rm -f "${archive}".part-*
  if (( size > kPartBytes )); then
    split -b "${kPartBytes}" -d -a 2 "${archive}" "${archive}.part-" || return 1
    for part in "${archive}".part-*; do
      parts+=("$(basename "${part}")")
      write_atomically "${results_pack_dir}/$(basename "${part}")" < "${part}" || return 1
    done
    rm -f "${results_pack_dir}/${results_name}.tar.gz"
    for part in "${results_pack_dir}/${results_name}".tar.gz.part-*; do
      [[ " ${parts[*]} " == *" $(basename "${part}") "* ]] || rm -f "${part}"
    done
    results_archive="all results: cat ${results_name}.tar.gz.part-* | tar xzf -  (${#parts[@]} parts of ${size} bytes in all; unpacks into ${results_name}/)"
  else
    write_atomically "${results_pack_dir}/${results_name}.tar.gz" < "${archive}" || return 1
    rm -f "${results_pack_dir}/${results_name}".tar.gz.part-*
    results_archive="all results: tar xzf ${results_name}.tar.gz  (unpacks into ${results_name}/)"
  fi
  publish "$1"
}

finish() {  # finish STATUS: the last pack, then exit STATUS
  pack "finished, exit status $1"
  exit "$1"
}

# check_host_libs: compares the host's glibc and libstdc++ with the versions
# dist/MANIFEST says the binaries need; where one is older, says so in one
# line (stderr and SUMMARY.txt) and exits 2 instead of letting the loader
# fail every binary with "version `GLIBC_2.34' not found".
check_host_libs() {
  local need_glibc need_glibcxx have_glibc have_glibcxx lib problem=""
  if [[ ! -f dist/MANIFEST ]]; then
    summary "host libraries not checked: no dist/MANIFEST (a bundle made before tools/bundle.sh wrote one)"
    return 0
  fi
  need_glibc=$(awk '$1 == "glibc" { print $2 }' dist/MANIFEST)
  need_glibcxx=$(awk '$1 == "glibcxx" { print $2 }' dist/MANIFEST)
  have_glibc=$(host_glibc)
  lib=$(host_libstdcxx)
  [[ -z "${lib}" ]] || have_glibcxx=$(host_glibcxx "${lib}")
  host_libs="host glibc ${have_glibc:-unknown}, libstdc++ GLIBCXX_${have_glibcxx:-unknown} (${lib:-not found}); the bundle needs glibc ${need_glibc:-?}, GLIBCXX_${need_glibcxx:-?} (dist/MANIFEST)"
  summary "${host_libs}"
  if [[ -n "${need_glibc}" && -n "${have_glibc}" ]] && version_older "${have_glibc}" "${need_glibc}"; then
    problem="glibc ${have_glibc} is older than the ${need_glibc}"
  elif [[ -n "${need_glibcxx}" && -n "${have_glibcxx}" ]] &&
    version_older "${have_glibcxx}" "${need_glibcxx}"; then
    problem="libstdc++ ${lib} (GLIBCXX_${have_glibcxx}) is older than the GLIBCXX_${need_glibcxx}"
  fi
  [[ -n "${problem}" ]] || return 0
  problem="${results_script}: this host's ${problem} that the bundled binaries need (dist/MANIFEST): they cannot load here; run on a newer distribution or build the bundle on one as old as this host"
  echo "${problem}" >&2
  summary "${problem}"
  finish 2
}

write_machine() {  # write_machine OUTDIR
  {
    echo "# commit $(cat dist/COMMIT 2> /dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# ${host_libs:-host libraries not checked}"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
      --format=csv 2>&1
  } > "$1/MACHINE"
}

# step NAME LOG COMMAND...: SUMMARY.txt says NAME runs, COMMAND runs through
# record into LOG (stdin from /dev/null), then SUMMARY.txt gets "PASS NAME
# (S s)" or "FAIL NAME (S s, exit N; LOG)" and the failure's lines. The
# caller packs once its own files are written. Returns COMMAND's status.
step() {
  local name=$1 log=$2 start=${SECONDS} rc
  shift 2
  publish "running ${name} since $(date -u +%H:%M:%SZ); if this line stays, the command was cut during it (the archive holds the steps before)"
  record "${out}" "${log}" "$@" < /dev/null
  rc=$?
  if (( rc == 0 )); then
    summary "PASS ${name} ($((SECONDS - start)) s)"
  else
    summary "FAIL ${name} ($((SECONDS - start)) s, exit ${rc}; ${log#"${out}/"})"
    failure_lines "${log}"
  fi
  return "${rc}"
}

# failure_lines LOG: into SUMMARY.txt, indented, the lines of LOG that say
# what failed (a point outside its plausible range, a failed gtest, the
# sanitizer's count), at most 20 and 300 characters each; else LOG's tail.
failure_lines() {
  local text n
  local -a lines
  text=$(grep -aE '^FAIL: |\[  FAILED  \]|ERROR SUMMARY|[Ee]rror:|not found' "$1" | cut -c1-300)
  [[ -n "${text}" ]] || text=$(tail -n 3 "$1" | cut -c1-300)
  n=$(wc -l <<< "${text}")
  (( n <= 20 )) || text="$(head -n 20 <<< "${text}")"$'\n'"... $((n - 20)) more lines"
  mapfile -t lines <<< "${text}"
  summary "${lines[@]/#/    }"
}

# bundled NAME BINARY: whether BINARY (dist/bin/...) is here; else, for
# the step NAME, one FAIL line naming it (stderr and SUMMARY.txt) rather than
# exit 127 from inside the step: a bundle packed for a few experiments
# (tools/bundle.sh --experiments) holds only theirs.
bundled() {
  [[ -x "$2" ]] && return 0
  local line="FAIL $1: $2 is not in this bundle (tools/bundle.sh --experiments left it out)"
  echo "${results_script}: ${line}" >&2
  summary "${line}"
  return 1
}

record() {  # record OUTDIR LOG COMMAND...: log the command line, run it into LOG
  local out=$1 log=$2
  shift 2
  echo "$*" >> "${out}/COMMANDS"
  echo "== $*" >&2
  "$@" > "${log}" 2>&1
}
